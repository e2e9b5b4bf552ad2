//! What a fault does to one read: a pure function of the fault, the read's
//! offset and size, and what the filesystem has seen so far, so the rules
//! are unit-tested without a mount.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// The fault a mount injects into reads of its one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// No fault: the file is served as it is (the control case).
    None,
    /// A bad sector at byte `at`: a read that starts before it stops short
    /// at it (as a disk returns the good part first), and a read that
    /// starts at it fails with `EIO`. Reads past it succeed.
    EioAt {
        /// The bad byte.
        at: u64,
    },
    /// Every read that starts in `from..to` returns only 1 to `max` bytes
    /// (cycling 1, 2, ..., max), never 0 before the end.
    ShortReads {
        /// Largest short read, 1 to 7 in the tests.
        max: u32,
        /// First offset affected.
        from: u64,
        /// One past the last offset affected.
        to: u64,
    },
    /// Every `every`-th read fails with `EINTR` (the caller must retry).
    Eintr {
        /// Period, at least 1 (1 would fail every read: retries never end).
        every: u64,
    },
    /// `stat` gives the real size, but reads past byte `to` return 0: the
    /// file was cut after it was opened.
    Shrink {
        /// Where reads end.
        to: u64,
    },
    /// The file had `len_at_open` bytes when opened and grows to its real
    /// size once a read reaches byte `after` (a log being appended to):
    /// `stat` and reads follow the size of the moment.
    Grow {
        /// The size `stat` gives at first.
        len_at_open: u64,
        /// The read offset that makes the file grow.
        after: u64,
    },
    /// A read that covers byte `at` waits `stall` before it is answered.
    Stall {
        /// The byte whose read stalls.
        at: u64,
        /// How long (a second in the tests).
        stall: Duration,
    },
}

/// What the filesystem answers to one read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Bytes `start..end` of the backing file (empty at end of file).
    Bytes {
        /// First byte.
        start: u64,
        /// One past the last byte.
        end: u64,
    },
    /// An error number (`libc::EIO`, `libc::EINTR`).
    Errno(i32),
    /// Wait, then answer with the bytes.
    StallThen {
        /// How long to wait.
        stall: Duration,
        /// First byte.
        start: u64,
        /// One past the last byte.
        end: u64,
    },
}

/// What the fault remembers between reads.
#[derive(Debug, Default)]
pub struct State {
    reads: AtomicU64,
    grown: AtomicBool,
}

impl State {
    /// The number of reads answered so far.
    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }
}

impl Fault {
    /// The size `stat` reports now, for a backing file of `real` bytes.
    ///
    /// A shrinking file keeps its size in `stat` with direct I/O (reads end
    /// early, as the issue describes it); through the page cache it reports
    /// its new size once read, as a truncated file does: the kernel would
    /// otherwise fill the missing part of each page with zeros.
    pub fn visible_len(&self, state: &State, real: u64, page_cache: bool) -> u64 {
        match self {
            Fault::Grow { len_at_open, .. } if !state.grown.load(Ordering::Relaxed) => {
                (*len_at_open).min(real)
            }
            Fault::Shrink { to } if page_cache && state.reads() > 0 => (*to).min(real),
            _ => real,
        }
    }

    /// The answer to a read of `size` bytes at `off` of a file of `real`
    /// bytes; `page_cache` is true when the kernel reads whole pages for
    /// its cache (a short answer would then look like the end of file).
    pub fn answer(
        &self,
        state: &State,
        off: u64,
        size: u32,
        real: u64,
        page_cache: bool,
    ) -> Answer {
        let n = state.reads.fetch_add(1, Ordering::Relaxed) + 1;
        let want_end = off.saturating_add(u64::from(size));
        let clip = |end: u64, limit: u64| Answer::Bytes {
            start: off.min(limit),
            end: end.min(limit).max(off.min(limit)),
        };
        match *self {
            Fault::None => clip(want_end, real),
            Fault::EioAt { at } => {
                let covers = off <= at && at < want_end;
                if !covers || at >= real {
                    clip(want_end, real)
                } else if off < at && !page_cache {
                    clip(at, real)
                } else {
                    Answer::Errno(libc::EIO)
                }
            }
            Fault::ShortReads { max, from, to } => {
                if (from..to).contains(&off) && !page_cache {
                    let short = 1 + (n - 1) % u64::from(max.max(1));
                    clip(want_end.min(off + short), real)
                } else {
                    clip(want_end, real)
                }
            }
            Fault::Eintr { every } => {
                if n % every.max(2) == 0 {
                    Answer::Errno(libc::EINTR)
                } else {
                    clip(want_end, real)
                }
            }
            Fault::Shrink { to } => clip(want_end, to.min(real)),
            Fault::Grow { after, .. } => {
                if off >= after {
                    state.grown.store(true, Ordering::Relaxed);
                }
                clip(want_end, self.visible_len(state, real, page_cache))
            }
            Fault::Stall { at, stall } => {
                let Answer::Bytes { start, end } = clip(want_end, real) else { unreachable!() };
                if off <= at && at < want_end {
                    Answer::StallThen { stall, start, end }
                } else {
                    Answer::Bytes { start, end }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(a: Answer) -> (u64, u64) {
        match a {
            Answer::Bytes { start, end } | Answer::StallThen { start, end, .. } => (start, end),
            Answer::Errno(e) => panic!("errno {e}"),
        }
    }

    #[test]
    fn eio_stops_short_at_the_bad_byte_then_fails_there() {
        let (f, s) = (Fault::EioAt { at: 100 }, State::default());
        assert_eq!(bytes(f.answer(&s, 0, 64, 1000, false)), (0, 64));
        assert_eq!(bytes(f.answer(&s, 64, 64, 1000, false)), (64, 100));
        assert_eq!(f.answer(&s, 100, 64, 1000, false), Answer::Errno(libc::EIO));
        assert_eq!(bytes(f.answer(&s, 101, 64, 1000, false)), (101, 165));
        assert_eq!(f.answer(&s, 64, 64, 1000, true), Answer::Errno(libc::EIO));
    }

    #[test]
    fn short_reads_cycle_one_to_max_inside_their_window() {
        let (f, s) = (Fault::ShortReads { max: 3, from: 0, to: 10 }, State::default());
        let got: Vec<_> = (0..4).map(|_| bytes(f.answer(&s, 0, 64, 1000, false))).collect();
        assert_eq!(got, [(0, 1), (0, 2), (0, 3), (0, 1)]);
        assert_eq!(bytes(f.answer(&s, 10, 64, 1000, false)), (10, 74));
        assert_eq!(bytes(f.answer(&s, 999, 64, 1000, false)), (999, 1000));
    }

    #[test]
    fn eintr_every_nth_read() {
        let (f, s) = (Fault::Eintr { every: 3 }, State::default());
        let errs: Vec<bool> =
            (0..6).map(|_| matches!(f.answer(&s, 0, 8, 100, false), Answer::Errno(_))).collect();
        assert_eq!(errs, [false, false, true, false, false, true]);
    }

    #[test]
    fn shrink_ends_reads_early_and_grow_follows_the_reader() {
        let (f, s) = (Fault::Shrink { to: 50 }, State::default());
        assert_eq!(f.visible_len(&s, 100, false), 100);
        assert_eq!(bytes(f.answer(&s, 40, 64, 100, false)), (40, 50));
        assert_eq!(f.visible_len(&s, 100, false), 100);
        assert_eq!(f.visible_len(&s, 100, true), 50);
        assert_eq!(bytes(f.answer(&s, 60, 64, 100, false)), (50, 50));

        let (f, s) = (Fault::Grow { len_at_open: 50, after: 40 }, State::default());
        assert_eq!(f.visible_len(&s, 100, false), 50);
        assert_eq!(bytes(f.answer(&s, 0, 64, 100, false)), (0, 50));
        assert_eq!(bytes(f.answer(&s, 40, 64, 100, false)), (40, 100));
        assert_eq!(f.visible_len(&s, 100, false), 100);
    }

    #[test]
    fn a_stall_only_on_the_read_that_covers_its_byte() {
        let f = Fault::Stall { at: 10, stall: Duration::from_millis(5) };
        let s = State::default();
        assert!(matches!(f.answer(&s, 0, 64, 100, false), Answer::StallThen { .. }));
        assert!(matches!(f.answer(&s, 64, 64, 100, false), Answer::Bytes { .. }));
    }
}

//! Larger than memory (`--larger-than-ram`): a reader drops what it has
//! read from the page cache as it goes, with `posix_fadvise(DONTNEED)` on
//! the range behind it, so the file never piles up in memory and a 1 GiB
//! file is read the way a 100 GiB one would be: every byte from the device.

use std::fs::File;
use std::os::unix::io::{AsRawFd, RawFd};

/// Bytes read between two evictions: small enough that little of the file
/// is ever cached, large enough that the calls cost nothing next to the reads.
pub const STEP: u64 = 1 << 20;

/// How far back each eviction reaches past the last one: the page cache
/// holds large folios (up to 2 MiB on x86-64), and `DONTNEED` drops only
/// the folios wholly inside its range, so a folio that straddles one
/// step's end is dropped by the next step's range.
pub const LAG: u64 = 4 << 20;

/// Drop `offset..offset + len` of the file from the page cache (best
/// effort: the kernel keeps dirty or otherwise pinned pages).
pub fn drop_range(fd: RawFd, offset: u64, len: u64) {
    if len == 0 {
        return;
    }
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
    // SAFETY: fadvise only reads its integer arguments; a stale descriptor
    // is an error return, never memory unsafety.
    unsafe {
        libc::posix_fadvise(fd, offset as i64, len as i64, libc::POSIX_FADV_DONTNEED);
    }
    #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
    let _ = (fd, offset, len);
}

/// Evicts the part of a file a sequential reader has passed.
#[derive(Debug)]
pub struct Behind {
    fd: RawFd,
    /// Where the reader started.
    start: u64,
    /// Evicted up to here.
    done: u64,
    /// Read up to here.
    pos: u64,
}

impl Behind {
    /// For a reader of `file` starting at offset `start`; `None` when the
    /// lab is not in larger-than-memory mode, so callers pay nothing.
    /// The `Behind` must not outlive `file`.
    pub fn new(file: &File, start: u64, on: bool) -> Option<Behind> {
        on.then(|| Behind { fd: file.as_raw_fd(), start, done: start, pos: start })
    }

    /// `n` more bytes were read (0: the end): evict what is behind, every
    /// [`STEP`] bytes and at the end.
    pub fn advance(&mut self, n: usize) {
        self.pos += n as u64;
        if n == 0 {
            self.finish();
        } else if self.pos - self.done >= STEP {
            let from = self.done.saturating_sub(LAG).max(self.start);
            drop_range(self.fd, from, self.pos - from);
            self.done = self.pos;
        }
    }

    /// The end: drop all the reader passed, and the folios at both ends.
    fn finish(&mut self) {
        let from = self.start.saturating_sub(LAG);
        drop_range(self.fd, from, self.pos + LAG - from);
        self.done = self.pos;
    }
}

impl Drop for Behind {
    fn drop(&mut self) {
        self.finish();
    }
}

//! Phase 1 from a window: where each chunk's first record starts, guessed
//! from the chunk's first bytes instead of a pass over the whole file.
//!
//! The exact plan (`plan.rs`) needs every chunk's quote parity, hence a
//! read of every byte before phase 2 reads them all again: a tenth of the
//! work of `select`. When record numbers and lines may be relative to the
//! chunk (they are fixed when the chunks are checked in order), the start
//! is all a task needs, and the wrong quote hypothesis gives itself away
//! within a few records: a quote in the middle of a field, text after a
//! closing quote, a wrong field count (the validating scan's checks,
//! `validator.rs`). So each chunk is scanned from its start, 64 KiB at a
//! time, until one hypothesis has a record start and is clean while the
//! other is not.
//!
//! The parallel reader guesses each chunk's start when a worker takes the
//! chunk ([`Guesser`]); split plans guess all of them first
//! ([`speculate`]).
//!
//! A guess is never trusted: phase 2 checks every task's first record
//! against where the reader of the task before it stopped, and re-reads a
//! task whose guess was wrong from there (`ParallelReader::run`).

use swath::range::{nth_range, range_count};
use swath::ReadAt;
use swath::{Buffer, Parallel};

use super::plan::{read_after, read_into, Task};
use super::spares::Spares;
use super::validator::{CountOpts, CountScan, Hypothesis, Validator};
use crate::classify::Kernel;

/// Bytes scanned at a time. A multiple of 64.
const WINDOW: u64 = 64 << 10;

/// Records a failed hypothesis must have read cleanly to be taken over a
/// clean one that starts later (`pick`): a wrong hypothesis gives itself
/// away within a few.
const TRUSTED: u64 = 4;

/// Tasks for `file` (length `len`, whose first `bom` bytes are a byte
/// order mark): one from the top, then one at each chunk's guessed first
/// record start. Lines and record counts are left to phase 2 (`line` 1).
///
/// # Errors
///
/// An I/O error, or the file shrinking while it is read.
pub(crate) fn speculate(
    file: &dyn ReadAt,
    len: u64,
    bom: u64,
    par: &Parallel,
    kernel: Kernel,
    opts: CountOpts,
) -> swath::Result<Vec<Task>> {
    let new_buf = || Buffer::with_capacity(WINDOW as usize + 1);
    let starts = par.try_map_with(len, new_buf, |buf, _, r| {
        first_start(file, len, bom, r.start, r.end, buf, kernel, opts)
    })?;
    let mut tasks = vec![Task { start: 0, end: len, line: 1, records_before: 0, predicted: 0 }];
    for start in starts.into_iter().flatten() {
        if start > tasks[tasks.len() - 1].start.max(bom) && start < len {
            tasks.push(Task { start, end: len, line: 1, records_before: 0, predicted: 0 });
        }
    }
    for i in 0..tasks.len() - 1 {
        tasks[i].end = tasks[i + 1].start;
    }
    Ok(tasks)
}

/// Guesses made one chunk at a time, by phase 2's workers as they take
/// the chunks (`ParallelReader::run`): no pass over the whole file comes
/// before the first record is read, so an error near the top is met
/// without the rest of the file being touched.
pub(crate) struct Guesser<'a> {
    pub(crate) file: &'a dyn ReadAt,
    pub(crate) len: u64,
    pub(crate) bom: u64,
    pub(crate) chunk: u64,
    pub(crate) kernel: Kernel,
    pub(crate) opts: CountOpts,
    /// Window buffers of finished guesses, for the next ones.
    spare: Spares,
}

impl<'a> Guesser<'a> {
    pub(crate) fn new(
        file: &'a dyn ReadAt,
        len: u64,
        bom: u64,
        chunk: u64,
        kernel: Kernel,
        opts: CountOpts,
    ) -> Guesser<'a> {
        Guesser { file, len, bom, chunk, kernel, opts, spare: Spares::default() }
    }

    /// The number of chunks, hence of tasks.
    pub(crate) fn chunks(&self) -> usize {
        range_count(self.len, self.chunk)
    }

    /// Chunk `i`'s task: from the top for the first, else from its guessed
    /// first record start to the chunk's end (the task reads on to the
    /// first record that starts there or past it). `None` for a chunk
    /// without a guess, or whose bytes could not be read: the task before
    /// then reads its records (and meets the error, if it is real).
    pub(crate) fn task(&self, i: usize) -> Option<Task> {
        let r = nth_range(self.len, self.chunk, i);
        if i == 0 {
            return Some(Task { start: 0, end: r.end, line: 1, records_before: 0, predicted: 0 });
        }
        let mut buf =
            self.spare.take().unwrap_or_else(|| Buffer::with_capacity(WINDOW as usize + 1));
        let (file, len, bom) = (self.file, self.len, self.bom);
        let guess = first_start(file, len, bom, r.start, r.end, &mut buf, self.kernel, self.opts);
        self.spare.give(buf);
        match guess {
            Ok(Some(start)) if start > bom && start < len => {
                Some(Task { start, end: r.end, line: 1, records_before: 0, predicted: 0 })
            }
            _ => None,
        }
    }
}

/// The guessed first record start of the chunk `a..b` (`None` for the
/// first chunk, read from the top, and for a chunk without one).
#[allow(clippy::too_many_arguments)]
fn first_start(
    file: &dyn ReadAt,
    len: u64,
    bom: u64,
    a: u64,
    b: u64,
    buf: &mut Buffer,
    kernel: Kernel,
    opts: CountOpts,
) -> swath::Result<Option<u64>> {
    let a = a.max(bom);
    if a >= b || a == bom {
        return Ok(None);
    }
    let end = (a + WINDOW).min(b);
    let (prev, body) = read_after(file, len, bom, a, end, buf)?;
    let mut v = Validator::new(kernel, opts, a, prev);
    v.feed(body);
    let mut at = end;
    loop {
        if let Some(guess) = pick(v.findings(), at == b) {
            return Ok(guess);
        }
        let end = (at + WINDOW).min(b);
        read_into(file, len, at, end, buf)?;
        v.feed(buf.data());
        at = end;
    }
}

/// The guess from the findings so far, or `None` to scan on (never when
/// `done`, at the end of the chunk).
fn pick(s: &CountScan, done: bool) -> Option<Option<u64>> {
    let ok = |h: &Hypothesis| h.clean && h.first.is_some();
    let start = |h: &Hypothesis| h.first.map(|f| f.0);
    let [out, inside] = &s.hyp;
    // A hypothesis that read a few records cleanly and then failed, from
    // a start before the clean one's, met a broken record rather than
    // misread a quote: a bare quote (`a"b`, data to the reader) flips the
    // quote parity after it, so the other hypothesis reads clean from
    // there, from a later start. Taking that one made the task before
    // stop short of it: 12 of the 118 chunks of the bench's file with 1
    // record in 100 broken were read again, serially.
    let broke = |failed: &Hypothesis, clean: &Hypothesis| {
        failed.starts >= TRUSTED && start(failed) < start(clean)
    };
    match (ok(out), ok(inside)) {
        (true, false) if broke(inside, out) => return Some(start(inside)),
        (false, true) if broke(out, inside) => return Some(start(out)),
        (true, false) => return Some(start(out)),
        (false, true) => return Some(start(inside)),
        // Both plausible (few quotes so far): more bytes will tell.
        (true, true) if !done => return None,
        (true, true) => return Some(start(out)),
        (false, false) => {}
    }
    // Neither is plausible yet. One that is still clean may find a start
    // further on; when both have failed the input is not valid CSV, and
    // any start will do (phase 2 meets the error).
    if !done && (out.clean || inside.clean) {
        return None;
    }
    // Both failed: broken records, or a wrong hypothesis and a broken
    // record. The likelier: one that misread no quote (on valid CSV the
    // true one never does), then one that read a few records cleanly,
    // then the earlier start (the other one starts after a bare quote
    // flipped it right). On the bench's file with 1 record in 100 broken,
    // cut in 300 KB chunks: 2 wrong guesses in 100, where taking the first
    // hypothesis made 11.
    let rank = |h: &Hypothesis| start(h).map(|s| (h.misquoted, h.starts < TRUSTED, s));
    let best = [out, inside].into_iter().filter_map(rank).min();
    Some(best.map(|(_, _, s)| s))
}

//! Phase 1 and the serial chain: where each task starts, at which line,
//! with how many records behind it (a prediction phase 2 verifies).

use std::ops::Range;

use swath::ReadAt;

use swath::range::{nth_range, range_count};
use swath::{Buffer, Parallel, RangeReader};

use super::chunk_scan::{self, ChunkScan, Edges, ScanOpts};
use super::spares::Spares;
use crate::classify::Kernel;

/// Ranges scanned ahead of the chain, per thread: their results are a few
/// words each, and a slow range should not idle the other threads.
const SCANS_AHEAD: usize = 4;

/// One unit of phase 2: parse the records that start in `start..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Task {
    /// A record boundary (0 for the first task, which reads from the top).
    pub(crate) start: u64,
    /// The next task's start, or the input's length.
    pub(crate) end: u64,
    /// Line number at `start` (1 + the `\n` bytes before it: exact).
    pub(crate) line: u64,
    /// Records (the header row included) before `start`, as predicted.
    pub(crate) records_before: u64,
    /// Records starting in `start..end`, as predicted.
    pub(crate) predicted: u64,
}

/// Phase 1's answer: the tasks, one for each chunk that holds a boundary.
#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) tasks: Vec<Task>,
    /// The chain stopped where no record had started for longer than the
    /// record limit (issue 39): the file past that was never read. The last
    /// task then runs to the end of input and its `predicted` count is
    /// short; the reader that reads it meets the record's error, or, where
    /// the quote parity misled the chain (lenient quoting), reads on.
    pub(crate) long_record: bool,
}

/// The ranges phase 1 scans: each `chunk` of the input (a task's, or a
/// split's) cut into `pieces` parts, so that a split plan's pass over
/// splits of hundreds of MiB holds a few MiB a thread and stops early.
#[derive(Clone, Copy, Debug)]
struct Cuts {
    len: u64,
    chunk: u64,
    pieces: u64,
}

impl Cuts {
    fn count(&self) -> usize {
        range_count(self.len, self.chunk).saturating_mul(self.pieces as usize)
    }

    /// The longest range.
    fn longest(&self) -> u64 {
        self.chunk.min(self.len).div_ceil(self.pieces)
    }

    fn range(&self, i: usize) -> Range<u64> {
        let p = self.pieces as usize;
        let whole = nth_range(self.len, self.chunk, i / p);
        let step = (whole.end - whole.start).div_ceil(self.pieces);
        let start = (whole.start + (i % p) as u64 * step).min(whole.end);
        start..(start + step).min(whole.end)
    }
}

/// Scan every chunk of `file` (length `len`, whose first `bom` bytes are a
/// byte order mark), each cut into `pieces` ranges, on `par`'s threads,
/// chain the quote state from the top as the scans come in, and cut the
/// input into tasks at the boundaries found: a task starts at the first
/// boundary of each range that has one. The chain stops once no record has
/// started for more than `max_record` bytes (see [`Plan::long_record`]).
///
/// # Errors
///
/// An I/O error, or the file shrinking while it is read.
#[allow(clippy::too_many_arguments)]
pub(crate) fn plan(
    file: &dyn ReadAt,
    len: u64,
    bom: u64,
    par: &Parallel,
    pieces: u64,
    kernel: Kernel,
    opts: ScanOpts,
    max_record: u64,
) -> swath::Result<Plan> {
    let cuts = Cuts { len, chunk: par.chunk_len().max(1), pieces: pieces.max(1) };
    let longest = cuts.longest();
    // Without record starts to count, ranges are read in pieces (see
    // `scan_range`) and a piece-sized buffer is enough: zeroing 4 MiB per
    // thread showed in profiles. With them, every range is read whole, so
    // each buffer is a whole range from the start: a buffer that grew to
    // it and shrank back for every range cost 8 MiB of allocations per
    // range (505 MiB for a 252 MiB file) and fragmented the heap.
    let full = usize::try_from(longest.saturating_add(2)).unwrap_or(usize::MAX);
    let cap = if opts.starts {
        full
    } else {
        usize::try_from(longest / 16 + 2).unwrap_or(usize::MAX).max(4096)
    };
    let new_buf = || {
        let mut b = Buffer::with_capacity(cap);
        b.set_max_capacity(full);
        b
    };
    let n = cuts.count();
    let threads = par.thread_count().clamp(1, n.max(1));
    let spare = Spares::default();
    let mut tasks: Vec<Task> = Vec::new();
    let mut inside = false;
    let mut lf_before_chunk = 0u64;
    let mut buf = None;
    // The end of the last range that holds a record start: the record
    // that starts last there runs on at least to the next boundary.
    let mut reach = 0u64;
    let mut long_record = false;
    let mut failed = None;
    swath::parallel::run_ordered(
        n,
        threads,
        SCANS_AHEAD * threads,
        |i| {
            let r = cuts.range(i);
            let mut b = spare.take().unwrap_or_else(new_buf);
            let out = scan_range(file, len, bom, r.start, r.end, &mut b, kernel, opts);
            spare.give(b);
            out
        },
        |i, out| {
            let mut s = match out {
                Ok(s) => s,
                Err(e) => {
                    failed = Some(e);
                    return false;
                }
            };
            let r = cuts.range(i);
            let a = r.start.max(bom);
            let h = usize::from(inside);
            if let (None, Some((n, lf, odd))) = (s.first[h], s.piece) {
                // Search the rest of the range, now that its state is known.
                let found = follow(
                    file,
                    len,
                    a + n as u64,
                    r.end,
                    inside ^ odd,
                    buf.get_or_insert_with(new_buf),
                    kernel,
                    opts,
                );
                match found {
                    Ok(Some((at, lf_rest))) => {
                        s.first[h] = Some(n + at);
                        s.lf_before[h] = lf + lf_rest;
                    }
                    Ok(None) => {}
                    Err(e) => {
                        failed = Some(e);
                        return false;
                    }
                }
            }
            // Bytes from a record start to the next, terminator included
            // (two bytes at most): over the limit, the reader fails there.
            let gap = match s.first[h] {
                Some(at) => (a + at as u64).saturating_sub(reach),
                None => r.end.saturating_sub(reach),
            };
            if i == 0 {
                tasks.push(Task { start: 0, end: len, line: 1, records_before: 0, predicted: 0 });
            } else if let Some(at) = s.first[h] {
                let start = a + at as u64;
                // The first task reads from the top; a boundary right after the
                // BOM (the virtual one) is its own start, not a new task's.
                let last = tasks.last().map_or(0, |t| t.start).max(bom);
                if start > last && start < len {
                    let line = 1 + lf_before_chunk + s.lf_before[h];
                    tasks.push(Task { start, end: len, line, records_before: 0, predicted: 0 });
                }
            }
            if let Some(t) = tasks.last_mut() {
                t.predicted += s.starts[h];
            }
            if i == 0 || s.first[h].is_some() {
                reach = r.end;
            }
            lf_before_chunk += s.lf;
            inside ^= s.odd_quotes;
            long_record = gap > max_record.saturating_add(2);
            !long_record
        },
    );
    if let Some(e) = failed {
        return Err(e);
    }
    let mut before = 0;
    for i in 0..tasks.len() {
        tasks[i].end = tasks.get(i + 1).map_or(len, |t| t.start);
        tasks[i].records_before = before;
        before += tasks[i].predicted;
    }
    Ok(Plan { tasks, long_record })
}

/// The first boundary in `a..b` (relative to `a`, with the `\n` bytes
/// before it) for a known quote state at `a`, which is not the file's first
/// byte.
#[allow(clippy::too_many_arguments)]
fn follow(
    file: &dyn ReadAt,
    len: u64,
    a: u64,
    b: u64,
    inside: bool,
    buf: &mut Buffer,
    kernel: Kernel,
    opts: ScanOpts,
) -> swath::Result<Option<(usize, u64)>> {
    read_into(file, len, a - 1, (b + 1).min(len), buf)?;
    let data = buf.data();
    let body = &data[1..1 + (b - a) as usize];
    let edges = Edges { prev: data[0], next: data.get(1 + (b - a) as usize).copied() };
    let r = chunk_scan::scan(kernel, body, edges, opts);
    let h = usize::from(inside);
    Ok(r.first[h].map(|at| (at, r.lf_before[h])))
}

/// Read `lo..hi` of `file` into `buf` (cleared first).
pub(crate) fn read_into(
    file: &dyn ReadAt,
    len: u64,
    lo: u64,
    hi: u64,
    buf: &mut Buffer,
) -> swath::Result<()> {
    buf.clear();
    buf.set_offset(lo);
    let mut rdr = RangeReader::new(file, lo..hi);
    while buf.len() < (hi - lo) as usize {
        if buf.fill(&mut rdr)? == 0 {
            let got = lo + buf.len() as u64;
            let err = swath::Error::new(swath::ErrorKind::Truncated { expected: len, got });
            return Err(err.at(swath::Position::new(got, 0, 0)));
        }
    }
    Ok(())
}

/// Read `a..hi` of `file` into `buf` with the byte before it; return that
/// byte and the bytes from `a`. At `top`, the first byte read (where a
/// record starts), the byte before is a virtual terminator, `\n`.
pub(crate) fn read_after<'b>(
    file: &dyn ReadAt,
    len: u64,
    top: u64,
    a: u64,
    hi: u64,
    buf: &'b mut Buffer,
) -> swath::Result<(u8, &'b [u8])> {
    let lo = if a == top { a } else { a - 1 };
    read_into(file, len, lo, hi, buf)?;
    let data = buf.data();
    Ok(if a == top { (b'\n', data) } else { (data[0], &data[1..]) })
}

/// Read the chunk `a..b` with one byte on each side and scan it.
///
/// Without record starts to count, the chunk is read in pieces of a
/// sixteenth (256 KiB for 4 MiB chunks): the scan stops early in the first
/// piece, and the rest is only counted, each piece while it is still in
/// the L2 cache after its copy.
#[allow(clippy::too_many_arguments)]
fn scan_range(
    file: &dyn ReadAt,
    len: u64,
    bom: u64,
    a: u64,
    b: u64,
    buf: &mut Buffer,
    kernel: Kernel,
    opts: ScanOpts,
) -> swath::Result<ChunkScan> {
    let a = a.max(bom);
    if a >= b {
        return Ok(ChunkScan::default());
    }
    let piece = ((b - a) / 16).max(64);
    if !opts.starts && b - a > piece {
        let mid = a + piece;
        let (prev, body) = read_after(file, len, bom, a, mid + 1, buf)?;
        let n = piece as usize;
        let edges = Edges { prev, next: body.get(n).copied() };
        let mut out = chunk_scan::scan(kernel, &body[..n], edges, opts);
        // The wrong hypothesis usually finds no boundary at all (in a file
        // without quoted newlines it is "outside" only inside quoted
        // fields); the chain asks again for the rare chunk whose real one
        // found none in the piece (see `follow`).
        out.piece = Some((n, out.lf, out.odd_quotes));
        let mut at = mid;
        while at < b {
            let end = (at + piece).min(b);
            read_into(file, len, at, end, buf)?;
            out.lf += swath::count::count_byte(buf.data(), b'\n');
            if let Some(q) = opts.quote {
                out.odd_quotes ^= swath::count::count_byte(buf.data(), q) % 2 == 1;
            }
            at = end;
        }
        return Ok(out);
    }
    let (prev, body) = read_after(file, len, bom, a, (b + 1).min(len), buf)?;
    let body_len = (b - a) as usize;
    let edges = Edges { prev, next: body.get(body_len).copied() };
    Ok(chunk_scan::scan(kernel, &body[..body_len], edges, opts))
}

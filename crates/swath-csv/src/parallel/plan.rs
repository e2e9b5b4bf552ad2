//! Phase 1 and the serial chain: where each task starts, at which line,
//! with how many records behind it (a prediction phase 2 verifies).

use swath::ReadAt;

use swath::range::{nth_range, range_count};
use swath::{Buffer, Parallel, RangeReader};

use super::chunk_scan::{self, ChunkScan, Edges, ScanOpts};
use crate::classify::Kernel;

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

/// Scan every chunk of `file` (length `len`, whose first `bom` bytes are a
/// byte order mark) in parallel, chain the quote state from the top, and
/// cut the input into tasks at the boundaries found.
///
/// # Errors
///
/// An I/O error, or the file shrinking while it is read.
pub(crate) fn plan(
    file: &dyn ReadAt,
    len: u64,
    bom: u64,
    par: &Parallel,
    kernel: Kernel,
    opts: ScanOpts,
) -> swath::Result<Vec<Task>> {
    let chunk = par.chunk_len();
    // Without record starts to count, chunks are read in pieces (see
    // `scan_range`) and a piece-sized buffer is enough: zeroing 4 MiB per
    // thread showed in profiles. With them, every chunk is read whole, so
    // each thread's buffer is a whole chunk from the start: a buffer that
    // grew to it and shrank back for every chunk cost 8 MiB of allocations
    // per chunk (505 MiB for a 252 MiB file) and fragmented the heap.
    let full = usize::try_from(chunk.saturating_add(2)).unwrap_or(usize::MAX);
    let cap = if opts.starts {
        full
    } else {
        usize::try_from(chunk / 16 + 2).unwrap_or(usize::MAX).max(4096)
    };
    let new_buf = || {
        let mut b = Buffer::with_capacity(cap);
        b.set_max_capacity(full);
        b
    };
    let scans = par.try_map_with(len, new_buf, |buf, _, r| {
        scan_range(file, len, bom, r.start, r.end, buf, kernel, opts)
    })?;
    let mut tasks: Vec<Task> = Vec::new();
    let mut inside = false;
    let mut lf_before_chunk = 0u64;
    let mut buf = None;
    for (i, s) in scans.iter().enumerate() {
        let r = nth_range(len, chunk, i);
        let a = r.start.max(bom);
        let h = usize::from(inside);
        let mut s = *s;
        if let (None, Some((n, lf, odd))) = (s.first[h], s.piece) {
            // Search the rest of the chunk, now that its state is known.
            let follow = follow(
                file,
                len,
                a + n as u64,
                r.end,
                inside ^ odd,
                buf.get_or_insert_with(new_buf),
                kernel,
                opts,
            )?;
            if let Some((at, lf_rest)) = follow {
                s.first[h] = Some(n + at);
                s.lf_before[h] = lf + lf_rest;
            }
        }
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
        lf_before_chunk += s.lf;
        inside ^= s.odd_quotes;
    }
    debug_assert_eq!(scans.len(), range_count(len, chunk));
    let mut before = 0;
    for i in 0..tasks.len() {
        tasks[i].end = tasks.get(i + 1).map_or(len, |t| t.start);
        tasks[i].records_before = before;
        before += tasks[i].predicted;
    }
    Ok(tasks)
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

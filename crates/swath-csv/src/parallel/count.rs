//! The validating count: the number of records of a regular file in one
//! SIMD pass per chunk, checked as strictly as the reader checks them,
//! without building a single field.
//!
//! 1. The reader reads the top (byte order mark, header row, and the first
//!    record when it teaches the field count) and finds where the next
//!    record starts.
//! 2. Each chunk from there is scanned under both quote hypotheses
//!    (`validator.rs`): record starts between its first and last one,
//!    counted and checked.
//! 3. A serial chain from the top picks each chunk's real hypothesis, as
//!    the scans come in, in file order. It stops the scan at the first
//!    chunk it does not find clean, or once a record has gone on for longer
//!    than the record limit: the file past that is never read.
//! 4. The reader reads the records that straddle the seams, from a chunk's
//!    last record start to the next chunk's first, and must find exactly
//!    those starts.
//!
//! Anything unexpected (a check that fails, a seam that does not match, an
//! I/O error) gives up, and the caller counts with the reader instead,
//! which meets the exact error. So the answer is the reader's, always.

use std::path::Path;
use swath::ReadAt;

use swath::range::{nth_range, range_count};
use swath::Buffer;

use super::plan::{read_after, read_into, Task};
use super::spares::Spares;
use super::task::Ctx;
use super::validator::{CountOpts, CountScan, Validator};
use super::{not_parity_safe, Mode, ParallelReader};
use crate::classify::Kernel;
use crate::reader::RecordStart;
use crate::FieldCount;

/// Bytes read and scanned at a time: a piece is still in the L2 cache
/// when the scan reads it after its copy. A multiple of 64.
const PIECE: u64 = 256 << 10;

/// The seam readers' starting buffer: a seam is usually one record.
const SEAM_BUFFER: usize = 16 << 10;

/// Chunks scanned ahead of the chain, per thread: their results are a few
/// words each, and a slow chunk should not idle the other threads.
const SCANS_AHEAD: usize = 4;

impl ParallelReader {
    /// The number of records by the validating scan, or `None` when it
    /// cannot tell: not a regular file, a configuration outside the
    /// quote-parity model, or anything not found clean. See the
    /// [module documentation](self).
    pub(super) fn scan_count(&mut self) -> Option<u64> {
        let cfg = self.builder.config();
        if self.builder.validate().is_err() || not_parity_safe(&self.builder).is_some() {
            return None;
        }
        // Only a regular file or a remote object can be opened twice (here,
        // and by the reader if this gives up): opening a pipe or stdin takes
        // bytes from it.
        let regular = || std::fs::metadata(&self.path).is_ok_and(|m| m.is_file());
        if self.path == Path::new("-") || !(swath::remote::is_url(&self.path) || regular()) {
            return None;
        }
        let src = self.builder.open_source_by_ranges(&self.path).ok()?;
        let (Some(file), Some(len)) = (src.ranged_source(), src.len()) else {
            return None;
        };
        let mut seam_builder = self.builder.clone();
        seam_builder.capacity(cfg.capacity.min(SEAM_BUFFER));
        let mut ctx = Ctx {
            file,
            len,
            path: src.path(),
            builder: &seam_builder,
            headers: None,
            expected: None,
            spare: Spares::default(),
        };

        let mut pre = ctx.reader_at(0, 1, 0).ok()?;
        ctx.headers = pre.headers().ok()?.cloned();
        if cfg.fields == FieldCount::Learn && !cfg.has_headers {
            pre.next_record().ok()??;
        }
        ctx.expected = pre.expected_fields();
        let header = u64::from(ctx.headers.is_some());
        let Some(top) = pre.next_record_start().ok()? else {
            self.mode = Mode::Scanned { threads: self.par.thread_count(), chunks: 0 };
            return Some(pre.records_read() - header);
        };
        let mut records = pre.records_read();
        drop(pre);

        if cfg.fields != FieldCount::Any && ctx.expected.is_none() {
            return None;
        }
        let opts = CountOpts::new(cfg, ctx.expected);
        let par = self.par;
        let chunk = par.chunk_len();
        let chunks = range_count(len, chunk);
        let threads = par.thread_count().clamp(1, chunks.max(1));
        let spare = Spares::default();

        // The chain, in file order as the chunks' scans come in: the real
        // hypothesis of each chunk, and the seams between the chunks' first
        // and last record starts. It stops the scan at the first chunk that
        // is not clean, or where no record has started for longer than the
        // record limit: the count is then the reader's, which meets the
        // error there, and the rest of the file is never read (issue 39).
        let mut inside = false;
        let mut lf = 0u64;
        let mut from = top;
        let mut seams = Vec::new();
        let mut clean = true;
        swath::parallel::run_ordered(
            chunks,
            threads,
            SCANS_AHEAD * threads,
            |i| {
                let r = nth_range(len, chunk, i);
                let mut buf =
                    spare.take().unwrap_or_else(|| Buffer::with_capacity(PIECE as usize + 1));
                let out =
                    scan_chunk(file, len, top.byte, r.start, r.end, &mut buf, cfg.kernel, opts);
                spare.give(buf);
                out.map(|s| (s, r.end))
            },
            |_, out| {
                let Ok((s, end)) = out else {
                    clean = false;
                    return false;
                };
                let hy = &s.hyp[usize::from(inside)];
                let next_start = match hy.first {
                    Some(first) => {
                        let (true, Some(last)) = (hy.clean, hy.last) else {
                            clean = false;
                            return false;
                        };
                        seams.push((
                            from,
                            Some(RecordStart { byte: first.0, line: top.line + lf + first.1 }),
                        ));
                        records += hy.starts - 1;
                        let gap = first.0.saturating_sub(from.byte);
                        from = RecordStart { byte: last.0, line: top.line + lf + last.1 };
                        gap
                    }
                    // No record starts in the chunk: the one at `from`
                    // goes on past its end at least.
                    None => end.saturating_sub(from.byte),
                };
                lf += s.lf;
                inside ^= s.odd_quotes;
                // Bytes from one record start to the next, terminator
                // included (two bytes at most): over the limit, the
                // reader fails there.
                if next_start > opts.max_record + 2 {
                    clean = false;
                }
                clean
            },
        );
        if !clean {
            return None;
        }
        seams.push((from, None));
        for (from, to) in seams {
            if Some(from) == to {
                continue;
            }
            let end = to.map_or(len, |t| t.byte);
            let task =
                Task { start: from.byte, end, line: from.line, records_before: 0, predicted: 0 };
            // No work: the seam's records are read (and checked) when the
            // task drains what its work left.
            let out = ctx.run(&task, (), &|_: &mut (), _| Ok::<(), crate::Error>(()));
            if out.error.is_some() || out.first != Some(from) || out.last != to {
                return None;
            }
            records += out.count;
        }
        self.mode = Mode::Scanned { threads: self.par.thread_count(), chunks };
        Some(records - header)
    }
}

/// Scan the chunk `a..b` of `file` from `top` on (a known record start),
/// piece by piece.
#[allow(clippy::too_many_arguments)]
fn scan_chunk(
    file: &dyn ReadAt,
    len: u64,
    top: u64,
    a: u64,
    b: u64,
    buf: &mut Buffer,
    kernel: Kernel,
    opts: CountOpts,
) -> swath::Result<CountScan> {
    let a = a.max(top);
    if a >= b {
        return Ok(CountScan::default());
    }
    let end = (a + PIECE).min(b);
    let (prev, body) = read_after(file, len, top, a, end, buf)?;
    let mut v = Validator::new(kernel, opts, a, prev);
    v.feed(body);
    let mut at = end;
    while at < b {
        let end = (at + PIECE).min(b);
        read_into(file, len, at, end, buf)?;
        v.feed(buf.data());
        at = end;
    }
    Ok(v.finish())
}

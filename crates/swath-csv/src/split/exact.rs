//! The plan from the quote-parity pass alone: each chunk's first record
//! boundary, line and predicted record count, placed in the split that
//! owns it. No field is parsed; each split's reader checks its end.

use super::bridge;
use super::{Planner, Split};
use crate::error::{Error, Result};

/// A split's first record, line and predicted records, before the
/// splits without a record are filled in.
#[derive(Clone, Copy)]
pub(crate) struct Start {
    pub(crate) byte: u64,
    pub(crate) line: u64,
    pub(crate) records: u64,
}

/// The splits; `None` when the pass stopped at a record longer than the
/// limit (see [`bridge::parity_starts`]).
pub(crate) fn plan(p: &Planner<'_>) -> Result<Option<Vec<Split>>> {
    let starts = bridge::parity_starts(p.builder, &p.file, p.len, p.bom, p.chunk, p.threads)?;
    let Some(starts) = starts else {
        return Ok(None);
    };
    let skip_empty = bridge::dialect(p.builder).skip_empty_lines;
    let first = p.top.first.unwrap_or(0);
    let ranges = p.ranges();
    let mut per: Vec<Option<Start>> = vec![None; ranges.len()];
    per[0] = Some(Start { byte: 0, line: 1, records: starts.first().map_or(0, |s| s.predicted) });
    for s in starts.iter().skip(1) {
        let (mut byte, mut line) = (s.byte, s.line);
        if skip_empty {
            // The reader skips empty lines: the record starts after them.
            (byte, line) = skip_terminators(p, byte, line)?;
        }
        // The file's first record (BOM and empty lines before it) is the
        // first split's.
        let k = if byte <= first { 0 } else { chunk_of(p, byte, ranges.len()) };
        match &mut per[k] {
            Some(at) => at.records += s.predicted,
            slot @ None => *slot = Some(Start { byte, line, records: s.predicted }),
        }
    }
    Ok(Some(fill(&ranges, &per, p.len)))
}

/// The index of the split whose range holds `byte` (the last at `len`).
pub(crate) fn chunk_of(p: &Planner<'_>, byte: u64, n: usize) -> usize {
    usize::try_from(byte / p.chunk).unwrap_or(usize::MAX).min(n - 1)
}

/// Splits from the ranges and their first records; a split without one
/// starts and ends where the next record starts.
pub(crate) fn fill(ranges: &[std::ops::Range<u64>], per: &[Option<Start>], len: u64) -> Vec<Split> {
    let mut splits = Vec::with_capacity(ranges.len());
    let mut record = 1;
    for (index, r) in ranges.iter().enumerate() {
        let (start, line, records) = match per[index] {
            Some(s) if s.byte < len || index == 0 => (s.byte, s.line, s.records),
            _ => (0, 0, 0),
        };
        splits.push(Split { index, range: r.clone(), start, end: len, record, line, records });
        record += records;
    }
    // Backwards: each split ends where the next one's first record starts;
    // one without records starts there too.
    let mut next: Option<(u64, u64)> = None;
    for s in splits.iter_mut().rev() {
        s.end = next.map_or(len, |n| n.0);
        if s.records == 0 && s.index > 0 {
            s.start = s.end;
            s.line = next.map_or(s.line, |n| n.1);
        } else {
            next = Some((s.start, s.line));
        }
    }
    // Trailing splits without records: the line of the split before.
    let mut line = 1;
    for s in &mut splits {
        if s.line == 0 {
            s.line = line;
        }
        line = s.line;
    }
    splits
}

/// Past the `\r` and `\n` bytes at `byte` (empty lines): where the record
/// starts and its line.
fn skip_terminators(p: &Planner<'_>, mut byte: u64, mut line: u64) -> Result<(u64, u64)> {
    let mut buf = [0u8; 4096];
    while byte < p.len {
        let n = p.file.read_at(&mut buf, byte).map_err(|e| Error::from(e).with_path(p.path))?;
        if n == 0 {
            break;
        }
        let run = buf[..n].iter().take_while(|&&b| b == b'\n' || b == b'\r').count();
        line += buf[..run].iter().filter(|&&b| b == b'\n').count() as u64;
        byte += run as u64;
        if run < n {
            break;
        }
    }
    Ok((byte, line))
}

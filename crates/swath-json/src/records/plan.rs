//! A document cut into byte ranges that each start at a record start, for
//! a reader of one range at a time (an engine's partitions: `swath sql`,
//! DataFusion): the chain's state at each cut, then a short frame forward
//! from the cut to the first record that starts at or after it.

use std::ops::Range;

use swath::range::read_range_exact;
use swath::ReadAt;

use super::chain::{chain, Scan, Summary};
use super::drive::{look_back, mode_of};
use super::frame::{Framer, Stop};
use super::shape::Shape;
use crate::error::Error;

/// Cut `file` (of `len` bytes, holding records as `shape` says) into at
/// most `share` ranges covering it, each starting at a record start (the
/// first at 0): the pieces are scanned on up to `threads` threads. A cut
/// whose next record could not be found (past the array's end, in bytes
/// that are not a document, or in a record longer than `max_line`) is
/// dropped: the range before it reads on and meets what is there.
///
/// # Errors
///
/// Reading the file.
pub fn record_ranges(
    file: &dyn ReadAt,
    len: u64,
    shape: &Shape,
    share: usize,
    threads: usize,
    max_line: usize,
) -> Result<Vec<Range<u64>>, Error> {
    let start = shape.start().min(len);
    let span = len - start;
    let share = (share as u64).clamp(1, span.max(1));
    let cuts: Vec<u64> = (0..=share).map(|k| start + span * k / share).collect();
    // The chain's summary of each piece, read a MiB at a time.
    let sums: Vec<Summary> = swath::Parallel::new().threads(threads).chunk_size(1).try_map_with(
        share,
        || vec![0u8; 1 << 20],
        |buf, k, _| {
            let (from, to) = (cuts[k], cuts[k + 1]);
            let (esc, _) = look_back(file, start, from)?;
            let mut scan = Scan::new(esc);
            let mut at = from;
            while at < to {
                let n = ((to - at) as usize).min(buf.len());
                read_range_exact(file, at..at + n as u64, &mut buf[..n])?;
                scan.feed(&buf[..n]);
                at += n as u64;
            }
            Ok::<_, swath::Error>(scan.finish())
        },
    )?;
    let (starts, _) = chain(&sums);
    let (mode, _) = mode_of(shape);
    let mut bounds = vec![0u64];
    for (k, st) in starts.iter().enumerate().skip(1) {
        let at = cuts[k];
        let (esc, prev) = look_back(file, start, at)?;
        let mut framer = Framer::at_range(mode, st.in_str, esc, st.depth, prev);
        let mut buf = Vec::new();
        let mut spans = Vec::new();
        let mut next = at;
        let found = loop {
            if buf.len() > max_line || next >= len {
                break None;
            }
            let n = ((len - next) as usize).min(64 * 1024);
            let old = buf.len();
            buf.resize(old + n, 0);
            read_range_exact(file, next..next + n as u64, &mut buf[old..])?;
            next += n as u64;
            match framer.run(&buf, 0, &mut spans) {
                Stop::NextOwner(p) => break Some(at + p as u64),
                Stop::More => {}
                Stop::Closed(_) | Stop::Bad { .. } => break None,
            }
        };
        match found {
            Some(s) if s > *bounds.last().unwrap_or(&0) => bounds.push(s),
            _ => {}
        }
    }
    let mut ranges: Vec<Range<u64>> = bounds.windows(2).map(|w| w[0]..w[1]).collect();
    ranges.push(*bounds.last().unwrap_or(&0)..len);
    Ok(ranges)
}

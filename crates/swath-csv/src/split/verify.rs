//! A plan from starts that may be wrong (guessed, or from a quote parity
//! that lenient bare quotes break), made exact: every split is read in
//! parallel from its start, then checked in file order against where the
//! split before it ended; one that disagrees is read again from there
//! (DESIGN.md, core idea 8). By induction from the top, which is read
//! exactly, every split's start, line and record count is the sequential
//! reader's.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use swath::RangeReader;

use super::bridge;
use super::exact::{chunk_of, fill, Start};
use super::reader::SplitReader;
use super::{Planner, Split};
use crate::error::{Error, Result};

/// What reading one split found (lines relative to where it started
/// unless it started at a verified record start).
struct Seen {
    /// The first record's `(byte, line)`.
    first: Option<(u64, u64)>,
    /// The first record past the split, `(byte, line)` (`None`: end of input).
    next: Option<(u64, u64)>,
    /// Records read (the header row included).
    count: u64,
}

/// Read the records starting before `end` from `at` = `(byte, line,
/// records before)`; the first split reads from the top.
fn read_span(p: &Planner<'_>, at: (u64, u64, u64), end: u64, top: bool) -> Result<Seen> {
    let src = RangeReader::new(&p.file, at.0..p.len);
    let rdr = bridge::reader_at(p.builder, src, (p.len, p.path), at, &p.top)?;
    let has_headers = bridge::dialect(p.builder).has_headers;
    let mut sr = SplitReader::new(rdr, end, 0, top, has_headers);
    loop {
        match sr.next_record() {
            Ok(Some(_)) => {}
            Ok(None) => break,
            // A record with the wrong field count is still a record; the
            // split's reader reports it.
            Err(e) if e.is_recoverable() => {}
            Err(e) => return Err(e),
        }
    }
    let next = sr.next_start().flatten();
    Ok(Seen { first: sr.first_start(), next, count: sr.held()? })
}

/// Splits from `guesses` (record starts, the first one the top of the
/// file), verified; and how many splits were read again.
pub(crate) fn plan(p: &Planner<'_>, guesses: &[u64]) -> Result<(Vec<Split>, usize)> {
    let ranges = p.ranges();
    let n = ranges.len();
    let mut guess: Vec<Option<u64>> = vec![None; n];
    guess[0] = Some(0);
    for &g in guesses.iter().skip(1) {
        let k = chunk_of(p, g, n);
        if g < p.len && k > 0 && guess[k].is_none() {
            guess[k] = Some(g);
        }
    }

    // Every split with a guess, in parallel, numbered from its guess.
    let seen: Vec<Mutex<Option<Result<Seen>>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..p.threads.max(1).min(n) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= n {
                    break;
                }
                if let Some(g) = guess[k] {
                    let out = read_span(p, (g, 1, 0), ranges[k].end, k == 0);
                    *seen[k].lock().unwrap_or_else(|e| e.into_inner()) = Some(out);
                }
            });
        }
    });
    let mut seen: Vec<Option<Result<Seen>>> =
        seen.into_iter().map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner())).collect();

    // The chain, in file order, from the top.
    let top = seen[0]
        .take()
        .unwrap_or_else(|| Err(Error::from(std::io::Error::other("split 0 not read"))))?;
    let mut per: Vec<Option<Start>> = vec![None; n];
    per[0] = Some(Start { byte: 0, line: 1, records: top.count });
    let mut records = top.count;
    let mut at = top.next;
    let mut repaired = 0;
    for k in 1..n {
        let Some((byte, line)) = at else { break };
        if byte >= ranges[k].end {
            // No record starts in this split.
            continue;
        }
        let agreed = match seen[k].take() {
            Some(Ok(s)) if s.first.map(|f| f.0) == Some(byte) => Some(s),
            _ => None,
        };
        let (count, next) = match agreed {
            Some(s) => {
                let rel = s.first.map_or(1, |f| f.1);
                (s.count, s.next.map(|(b, l)| (b, l + line - rel)))
            }
            None => {
                repaired += 1;
                let s = read_span(p, (byte, line, records), ranges[k].end, false)?;
                (s.count, s.next)
            }
        };
        per[k] = Some(Start { byte, line, records: count });
        records += count;
        at = next;
    }
    Ok((fill(&ranges, &per, p.len), repaired))
}

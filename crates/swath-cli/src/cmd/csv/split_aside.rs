//! `csv split --on-bad`: the parts of a file with its broken records left
//! out. A broken record can hold a bare quote, which misleads the
//! quote-parity plan's cuts, so nothing here trusts the plan past the
//! header row: two passes of the exact parallel reader (the sequential
//! reader's records, verified chunk by chunk) find, first, the broken
//! records (copied to the quarantine in file order; their byte ranges are
//! the parts' holes), then the record each part starts at: the first
//! record at or past a byte (`-n`, `--bytes`), or the first record of
//! every `--rows` good ones. The parts are then copies of the file's
//! bytes with the holes left out.

use std::ops::Range;

use anyhow::{Context, Result};
use swath_csv::split::Cut;
use swath_csv::ParallelReader;

use super::CsvOpts;
use crate::quarantine::Quarantine;

/// Where a part after the first starts: at a good record (its number
/// among the good records, the header row being 1), or at the first
/// record at or after a byte.
#[derive(Clone, Copy, Debug)]
pub enum Want {
    Record(u64),
    Byte(u64),
}

/// The broken records of the file.
pub struct Broken {
    /// Their bytes' ranges, in file order.
    pub holes: Vec<Range<u64>>,
    /// Their record numbers (the header row is 1), in order.
    pub records: Vec<u64>,
    /// The good data records (the header row not counted).
    pub good: u64,
}

impl Broken {
    /// The file's record number of good record `g` (good records
    /// numbered as if the broken ones were not there).
    fn record_of(&self, g: u64) -> u64 {
        let mut r = g;
        for &b in &self.records {
            if b > r {
                break;
            }
            r += 1;
        }
        r
    }

    /// Broken records among records `from..to`.
    pub fn among(&self, from: u64, to: u64) -> u64 {
        self.records.iter().filter(|&&r| (from..to).contains(&r)).count() as u64
    }
}

/// Pass 1: the broken records, handed to `quarantine` as they are found.
pub fn find_broken(
    opts: &CsvOpts,
    threads: usize,
    chunk: u64,
    quarantine: &mut Quarantine,
) -> Result<Broken> {
    let mut b = opts.builder();
    b.on_bad(swath_csv::OnBad::PutAside);
    let mut broken = Broken { holes: Vec::new(), records: Vec::new(), good: 0 };
    let mut rdr = ParallelReader::new(&b, opts.path())
        .threads(threads)
        .chunk_size(chunk)
        .relative_numbers(true);
    rdr.for_each_chunk_ordered_with_bad(
        || 0u64,
        |n, recs| {
            while recs.next_record()?.is_some() {
                *n += 1;
            }
            Ok(())
        },
        |n, bad| -> Result<()> {
            broken.good += n;
            for r in &bad {
                broken.holes.push(r.position().byte..r.end());
                broken.records.push(r.position().record);
            }
            quarantine.take(bad)
        },
    )
    .with_context(|| format!("cannot read {}", opts.name()))?;
    Ok(broken)
}

/// Pass 2: where each wanted part starts, in order (`(byte, line,
/// record)`), and the end of the file. A part after the first starts at
/// record 2 at the earliest.
pub fn find_cuts(
    opts: &CsvOpts,
    threads: usize,
    chunk: u64,
    wants: &[Want],
    broken: &Broken,
    len: u64,
) -> Result<Vec<Cut>> {
    // What each want is matched on: a record number, or a byte.
    let by_record = matches!(wants.first(), Some(Want::Record(_)));
    let keys: Vec<u64> = wants
        .iter()
        .map(|w| match *w {
            Want::Record(g) => broken.record_of(g),
            Want::Byte(b) => b,
        })
        .collect();
    let key = |p: swath_csv::Position| if by_record { p.record } else { p.byte };
    let mut b = opts.builder();
    b.on_bad(swath_csv::OnBad::PutAside);
    // Exact numbers: the record numbers of every chunk are the file's.
    let mut rdr = ParallelReader::new(&b, opts.path()).threads(threads).chunk_size(chunk);
    let mut cuts: Vec<Option<Cut>> = vec![None; keys.len()];
    rdr.for_each_chunk_ordered(
        Vec::new,
        // Each chunk claims the wants its records are the first at or past
        // (within the chunk); the first chunk to claim one is right.
        |claims: &mut Vec<(usize, Cut)>, recs| {
            let mut next = 0;
            while let Some(rec) = recs.next_record()? {
                let p = rec.position();
                if p.record < 2 {
                    continue;
                }
                while next < keys.len() && keys[next] <= key(p) {
                    claims.push((next, (p.byte, p.line, p.record)));
                    next += 1;
                }
            }
            Ok(())
        },
        |claims| -> Result<()> {
            for (i, cut) in claims {
                cuts[i].get_or_insert(cut);
            }
            Ok(())
        },
    )
    .with_context(|| format!("cannot read {}", opts.name()))?;
    let header = u64::from(opts.has_headers());
    let records = header + broken.good + broken.records.len() as u64;
    let mut out = vec![(0, 1, 1)];
    // A want past the last record has no part.
    out.extend(cuts.into_iter().flatten());
    out.dedup();
    out.push((len, 0, records + 1));
    Ok(out)
}

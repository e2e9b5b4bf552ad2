//! `csv search` on every core: each chunk's kept records are written by a
//! writer of its own on a worker, and the chunks' bytes go out in file
//! order (swath-csv's ordered per-chunk API: at most two chunks per thread
//! in memory), so the output is the sequential one.
//!
//! The fields of every record are built by the reader, which is also what
//! validates them: a chunk's errors are the sequential read's. (Skipping
//! the parse of a chunk whose raw bytes hold no literal of the pattern
//! needs the chunk's bytes and a validating scan from the per-chunk API,
//! which it does not give yet.)

use std::io::{self, Write};

use swath_csv::{ParallelReader, WriterBuilder};

use super::Filter;

/// What a chunk writer is primed with (as select's): one record, so that
/// it does not take itself for the start of the output (where a field
/// starting with a BOM is quoted); these bytes are cut off again.
pub const PRIME: &[u8] = b"x\n";

/// One parallel search.
pub struct Job<'a> {
    pub filter: &'a Filter,
    /// The first record's byte: the header row or a data record, it is
    /// the caller's (written, or skipped), never the chunks'.
    pub first_at: u64,
    /// Count only; write nothing.
    pub count_only: bool,
}

/// A chunk's result: its kept records, encoded, and how many.
struct Found {
    bytes: Vec<u8>,
    n: u64,
}

impl Job<'_> {
    /// Search `prdr`'s input, writing kept records in `dialect` to `out`.
    /// The outer error is `out`'s (a write error); the inner the input's,
    /// or the records kept.
    pub fn run(
        &self,
        mut prdr: ParallelReader,
        dialect: &WriterBuilder,
        out: &mut impl Write,
    ) -> io::Result<(ParallelReader, swath_csv::Result<u64>)> {
        let mut write_err = None;
        let mut total = 0u64;
        let res: swath_csv::Result<()> = prdr.for_each_chunk_ordered(
            || Found { bytes: Vec::new(), n: 0 },
            |found, recs| {
                let mut w = (!self.count_only).then(|| {
                    let mut w = dialect.from_vec(std::mem::take(&mut found.bytes));
                    // Cannot fail: a Vec takes every byte.
                    let _ = w.write_field("x").and_then(|()| w.end_record());
                    w
                });
                while let Some(rec) = recs.next_record()? {
                    if rec.position().byte == self.first_at || !self.filter.keeps(&rec) {
                        continue;
                    }
                    found.n += 1;
                    if let Some(w) = w.as_mut() {
                        w.write_record(rec.iter()).map_err(write_error)?;
                    }
                }
                if let Some(w) = w {
                    found.bytes = w.into_vec().map_err(write_error)?;
                }
                Ok(())
            },
            |found| {
                total += found.n;
                if let Some(bytes) = found.bytes.get(PRIME.len()..) {
                    out.write_all(bytes).map_err(|e| {
                        let kind = e.kind();
                        write_err = Some(e);
                        swath_csv::Error::from(io::Error::from(kind))
                    })?;
                }
                Ok(())
            },
        );
        match write_err {
            Some(e) => Err(e),
            None => Ok((prdr, res.map(|()| total))),
        }
    }
}

/// Encoding into a Vec fails only on a writer rule (none is set here).
fn write_error(e: swath_csv::WriteError) -> swath_csv::Error {
    swath_csv::Error::from(io::Error::other(e.to_string()))
}

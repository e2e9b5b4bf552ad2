//! `csv search` on every core: each chunk's kept records are written by a
//! writer of its own on a worker, and the chunks' bytes go out in file
//! order (swath-csv's ordered per-chunk API: at most two chunks per thread
//! in memory), so the output is the sequential one.
//!
//! The fields of every record are built by the reader, which is also what
//! validates them: a chunk's errors are the sequential read's. (The raw
//! prefilter, `raw.rs`, skips the parse of records with no literal of the
//! pattern, on files a validating scan passed.)

use std::io::{self, Write};

use swath_csv::{OwnedRecord, ParallelReader, Record, WriterBuilder};

use super::Filter;
use crate::quarantine::Quarantine;
use std::path::Path;

/// What a chunk writer is primed with (as select's): one record, so that
/// it does not take itself for the start of the output (where a field
/// starting with a BOM is quoted); these bytes are cut off again.
const PRIME: &[u8] = b"x\n";

/// One parallel search.
pub struct Job<'a> {
    pub filter: &'a Filter,
    /// The first record's byte: the header row or a data record, it is
    /// the caller's (written, or skipped), never the chunks'.
    pub first_at: u64,
    /// Count only; write nothing.
    pub count_only: bool,
}

/// A chunk's result: its kept records, encoded after [`PRIME`], and how
/// many.
#[derive(Default)]
pub struct Found {
    bytes: Vec<u8>,
    pub n: u64,
    /// Records read (kept or not).
    pub read: u64,
    /// The chunk's first kept record, encoded again unprimed when it
    /// starts the output.
    first: Option<OwnedRecord>,
}

/// A chunk writer: encodes a chunk's kept records into a [`Found`].
pub struct ChunkWriter {
    w: Option<swath_csv::Writer<Vec<u8>>>,
}

impl ChunkWriter {
    /// A writer into `found`'s buffer (reused), or none with `count_only`.
    pub fn new(dialect: &WriterBuilder, found: &mut Found, count_only: bool) -> ChunkWriter {
        let w = (!count_only).then(|| {
            let mut w = dialect.from_vec(std::mem::take(&mut found.bytes));
            // Cannot fail: a Vec takes every byte.
            let _ = w.write_field("x").and_then(|()| w.end_record());
            w
        });
        ChunkWriter { w }
    }

    /// Keep `rec`: count it, and encode it unless counting only.
    pub fn keep(&mut self, found: &mut Found, rec: &Record<'_>) -> swath_csv::Result<()> {
        found.n += 1;
        if let Some(w) = self.w.as_mut() {
            if found.first.is_none() {
                found.first = Some(rec.to_owned_record());
            }
            w.write_record(rec.iter()).map_err(write_error)?;
        }
        Ok(())
    }

    /// Put the encoded bytes into `found`.
    pub fn finish(self, found: &mut Found) -> swath_csv::Result<()> {
        if let Some(w) = self.w {
            found.bytes = w.into_vec().map_err(write_error)?;
        }
        Ok(())
    }
}

/// Writes chunks' kept records out in file order as one writer would
/// have: the record that starts the output is encoded as an output's
/// first (where a first field starting with a BOM is quoted).
pub struct Emitter<'a, W> {
    pub out: &'a mut W,
    pub dialect: &'a WriterBuilder,
    /// Whether a record was written already (the header row, or the
    /// first record with --no-headers).
    pub started: bool,
}

impl<W: Write> Emitter<'_, W> {
    /// Write `found`'s records.
    pub fn emit(&mut self, found: &Found) -> io::Result<()> {
        let body = found.bytes.get(PRIME.len()..).unwrap_or_default();
        if body.is_empty() {
            return Ok(());
        }
        if let (false, Some(rec)) = (self.started, &found.first) {
            self.started = true;
            // The record as primed chunk writers encoded it (its length
            // in `body`), and as the output's first record.
            let encode = |primed: bool| -> io::Result<Vec<u8>> {
                let mut w = self.dialect.from_vec(Vec::new());
                let res =
                    if primed { w.write_field("x").and_then(|()| w.end_record()) } else { Ok(()) };
                res.and_then(|()| w.write_record(rec.iter()))
                    .map_err(|e| io::Error::other(e.to_string()))?;
                w.into_vec().map_err(|e| io::Error::other(e.to_string()))
            };
            let primed = encode(true)?.len() - PRIME.len();
            self.out.write_all(&encode(false)?)?;
            return self.out.write_all(&body[primed..]);
        }
        self.started = true;
        self.out.write_all(body)
    }
}

impl Job<'_> {
    /// Search `prdr`'s input, writing kept records with `emitter` and
    /// records put aside to `quarantine`. The outer error is the output's
    /// (a write error, named by `output`) or the quarantine's; the inner
    /// the input's, or the records kept and the records read.
    pub fn run(
        &self,
        mut prdr: ParallelReader,
        dialect: &WriterBuilder,
        emitter: &mut Emitter<'_, impl Write>,
        mut quarantine: Option<&mut Quarantine>,
        output: &Path,
    ) -> anyhow::Result<(ParallelReader, swath_csv::Result<(u64, u64)>)> {
        let mut stopped: Option<anyhow::Error> = None;
        let (mut total, mut read) = (0u64, 0u64);
        let res: swath_csv::Result<()> = prdr.for_each_chunk_ordered_with_bad(
            Found::default,
            |found, recs| {
                let mut w = ChunkWriter::new(dialect, found, self.count_only);
                // On a read error, the records kept before it are still
                // this chunk's output (the engine emits it, then the
                // error), as the sequential loop wrote them before failing.
                let res = loop {
                    let rec = match recs.next_record() {
                        Ok(Some(rec)) => rec,
                        Ok(None) => break Ok(()),
                        Err(e) => break Err(e),
                    };
                    if rec.position().byte == self.first_at {
                        continue;
                    }
                    found.read += 1;
                    if !self.filter.keeps(&rec) {
                        continue;
                    }
                    if let Err(e) = w.keep(found, &rec) {
                        break Err(e);
                    }
                };
                w.finish(found)?;
                res
            },
            |found, bad| {
                total += found.n;
                read += found.read;
                let mut stop = |e: anyhow::Error| {
                    stopped = Some(e);
                    swath_csv::Error::from(io::Error::other("stopped"))
                };
                if let Some(q) = quarantine.as_deref_mut() {
                    q.take(bad).map_err(&mut stop)?;
                }
                emitter.emit(&found).map_err(|e| {
                    stop(
                        anyhow::Error::new(e).context(format!("cannot write {}", output.display())),
                    )
                })
            },
        );
        match stopped {
            Some(e) => Err(e),
            None => Ok((prdr, res.map(|()| (total, read)))),
        }
    }
}

/// Encoding into a Vec fails only on a writer rule (none is set here).
fn write_error(e: swath_csv::WriteError) -> swath_csv::Error {
    swath_csv::Error::from(io::Error::other(e.to_string()))
}

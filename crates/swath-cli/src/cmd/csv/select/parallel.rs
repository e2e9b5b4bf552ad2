//! `swath csv select` on every core: the header row is read first and
//! resolves the column spec; then each chunk's records are written by a
//! writer of its own on a worker, and the chunks' bytes go out in file
//! order (swath_csv::parallel's ordered mode: at most two chunks per thread
//! in memory). The output is byte for byte the sequential one.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::Mutex;

use anyhow::Context;
use swath_csv::{Reader, ReaderBuilder, Writer, WriterBuilder};

use super::spec::Spec;
use crate::cmd::csv::{CsvOpts, ParOpts};
use crate::output::Output;
use crate::quarantine::Quarantine;

/// What a parallel select needs from the command: the settings, not the
/// command's arguments (so this file does not depend on the command's).
pub struct Job<'a> {
    /// The output's dialect.
    pub dialect: &'a WriterBuilder,
    /// The reader's settings, headers off (the first record is the header
    /// row when there is one).
    pub reader: &'a ReaderBuilder,
    pub opts: &'a CsvOpts,
    pub par: &'a ParOpts,
    /// Whether the first record is a header row (names resolve against it).
    pub headers: bool,
    /// The output's name, for messages.
    pub output: &'a Path,
}

/// What a chunk writer is primed with: one record, so that it does not
/// take itself for the start of the output (where a field starting with a
/// BOM is quoted); these bytes are cut off again.
const PRIME: &[u8] = b"x\n";

impl Job<'_> {
    /// Select from `rdr`'s file into `wtr`, records put aside into
    /// `quarantine`; returns the output and the records written.
    pub fn select<R: Read>(
        &self,
        mut rdr: Reader<R>,
        mut wtr: Writer<Output>,
        spec: &Spec,
        mut quarantine: Option<&mut Quarantine>,
    ) -> anyhow::Result<(Output, u64)> {
        let (cols, header_at) = {
            let Some(first) = rdr.next_record()? else {
                return Ok((wtr.finish().map_err(|e| e.into_error())?, 0));
            };
            let names: Vec<&[u8]> = first.iter().collect();
            let cols = spec.resolve(self.headers.then_some(&names[..]), names.len())?;
            for &c in &cols {
                wtr.write_field(names[c])?;
            }
            wtr.end_record()?;
            (cols, first.position().byte)
        };
        drop(rdr);
        let mut out = wtr.finish().map_err(|e| e.into_error())?;
        let mut prdr = self.par.reader(self.opts, self.reader);
        // Chunk outputs are recycled: fresh ones cost a page fault per 4 KiB.
        let spare: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
        // The ordered API takes our error type: write errors come back as
        // they are, with their context.
        let mut written = 1u64;
        let res: anyhow::Result<()> = prdr.for_each_chunk_ordered_with_bad(
            || {
                let buf = spare.lock().unwrap_or_else(|e| e.into_inner()).pop().unwrap_or_default();
                // A chunk's writer encodes straight into `buf`: a writer over a
                // Vec with a buffer of its own copied every byte once more (2.5%
                // of the instructions on 2 threads, callgrind).
                let mut w = self.dialect.from_vec(buf);
                // Cannot fail: a Vec takes every byte.
                let _ = w.write_field("x").and_then(|()| w.end_record());
                (w, 0u64)
            },
            // The loop is ours, not the reader's: a closure called per record
            // is a call per record, not inlined (6% of the instructions).
            |(w, n), recs| {
                while let Some(rec) = recs.next_record()? {
                    if rec.position().byte == header_at {
                        // The header row, written above.
                        continue;
                    }
                    for &c in &cols {
                        w.write_field(rec.get(c).unwrap_or(b""))?;
                    }
                    w.end_record()?;
                    *n += 1;
                }
                Ok(())
            },
            |(w, n), bad| {
                written += n;
                if let Some(q) = quarantine.as_deref_mut() {
                    q.take(bad)?;
                }
                let mut bytes = w.into_vec()?;
                out.write_all(&bytes[PRIME.len()..])
                    .with_context(|| format!("cannot write {}", self.output.display()))?;
                bytes.clear();
                spare.lock().unwrap_or_else(|e| e.into_inner()).push(bytes);
                Ok(())
            },
        );
        self.par.note(self.opts, &prdr);
        res?;
        Ok((out, written))
    }
}

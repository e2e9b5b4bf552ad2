//! Finding records in a JSON input for `index`, `slice`, `tail`, `sample`
//! and `split`: from a valid checkpoint index when there is one (a stale
//! one is ignored with a note on stderr), else from the checkpoints of one
//! checking pass on every core. JSON lines and documents alike: a
//! document's checkpoints are its records' first bytes.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use swath::index::{load_index, IndexKind, Loaded};
use swath::{ReadAt, Source};
use swath_json::checkpoints::{dialect, Found, RecordPlan};
use swath_json::{JsonReaderBuilder, Shape};

use super::JsonOpts;
use crate::cmd::csv::IndexOpts;

/// Bytes between checkpoints made without an index: what finding one
/// record reads at most.
pub const PLAN_INTERVAL: u64 = 4 << 20;

/// An input opened to be read from any record.
pub struct Located {
    /// How it is read.
    pub b: JsonReaderBuilder,
    /// Its bytes by ranges.
    pub file: Arc<dyn ReadAt>,
    /// Its length.
    pub len: u64,
    /// Where its records are.
    pub plan: RecordPlan,
    /// Its name in messages.
    pub name: String,
}

/// Open `opts`' input to be read by ranges: a regular file or a remote
/// object, not a stream or a compressed file.
pub fn open(opts: &JsonOpts) -> Result<(Source, Arc<dyn ReadAt>, u64)> {
    if opts.path() == Path::new("-") {
        bail!("this command needs a regular file, not standard input");
    }
    let src = opts.open()?;
    let compression = src.compression();
    let (Some(file), Some(len)) = (src.shared_ranged_source()?, src.len()) else {
        bail!(
            "{}: {}-compressed input cannot be read from any place (this command starts at \
             a record in the middle); decompress it first",
            opts.name(),
            compression.name()
        );
    };
    Ok((src, file, len))
}

/// The input's records: from a valid index (the file's identity and the
/// records found where the index found them), else from one checking pass
/// with a checkpoint every `interval` bytes.
pub fn locate(opts: &JsonOpts, idx: &IndexOpts, interval: u64) -> Result<Located> {
    let (mut src, file, len) = open(opts)?;
    let mut opts = opts.clone();
    opts.chunk_size_or(interval);
    let b = opts.builder();
    let name = opts.name();
    let from_index = match src.file() {
        Some(f) if !idx.no_index => from_sidecar(&b, &src, f, &opts, idx)?,
        _ => None,
    };
    opts.note(&b, &src);
    let plan = match from_index {
        Some(plan) => plan,
        None => b.plan(&mut src)?,
    };
    Ok(Located { b, file, len, plan, name })
}

/// The plan of a valid index, if there is one (a stale one is ignored,
/// said on stderr; `--index-file` naming no file is an error).
fn from_sidecar(
    b: &JsonReaderBuilder,
    src: &Source,
    file: &std::fs::File,
    opts: &JsonOpts,
    idx: &IndexOpts,
) -> Result<Option<RecordPlan>> {
    let sidecar = idx.path_for(opts.path());
    if idx.index_file.is_none() && !sidecar.exists() {
        return Ok(None);
    }
    // The index holds where its records were found: they must be found
    // there again.
    let Some(shape) = b.shape(src)? else { return Ok(None) };
    let cannot = || format!("cannot read {}", sidecar.display());
    match load_index(&sidecar, IndexKind::Json, &dialect(&shape), file).with_context(cannot)? {
        Loaded::Fresh(index) => Ok(Some(RecordPlan::from_index(index, shape))),
        Loaded::Stale(why) => {
            eprintln!(
                "swath: note: ignoring the index {}: {why} (run `swath json index` again)",
                sidecar.display()
            );
            Ok(None)
        }
        Loaded::Missing => bail!("{}: no such file", cannot()),
    }
}

impl Located {
    /// The records from `first` to `last` (1-based, inclusive) to `each`,
    /// read from the checkpoint before `first`.
    pub fn each_between(
        &self,
        first: u64,
        last: u64,
        mut each: impl FnMut(Found<'_>) -> Result<()>,
    ) -> Result<()> {
        if first > last || first > self.plan.records {
            return Ok(());
        }
        let from = self.plan.before(first);
        let mut failed = None;
        let read = self.b.records_from(
            self.file.clone(),
            self.len,
            &self.plan.shape,
            from,
            Some(Path::new(&self.name)),
            |r| {
                if r.record < first {
                    return Ok(true);
                }
                if let Err(e) = each(r) {
                    failed = Some(e);
                    return Ok(false);
                }
                Ok(r.record < last)
            },
        );
        if let Some(e) = failed {
            return Err(e);
        }
        read.with_context(|| format!("cannot read {}", self.name))
    }
}

/// Append one record as a line of JSON lines: a JSON-lines record as it
/// is (without a `\r` before its newline), a document's record on one line
/// (its whitespace outside strings removed).
pub fn push_record(out: &mut Vec<u8>, shape: &Shape, bytes: &[u8]) {
    match shape {
        Shape::Lines => out.extend_from_slice(bytes.strip_suffix(b"\r").unwrap_or(bytes)),
        _ => swath_json::scan::push_compact(out, bytes),
    }
    out.push(b'\n');
}

/// Write the records from `first` to `last` to standard output as JSON
/// lines.
pub fn print_between(at: &Located, first: u64, last: u64) -> Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut line = Vec::new();
    at.each_between(first, last, |r| {
        line.clear();
        push_record(&mut line, &at.plan.shape, r.bytes);
        out.write_all(&line)?;
        Ok(())
    })?;
    out.flush()?;
    Ok(())
}

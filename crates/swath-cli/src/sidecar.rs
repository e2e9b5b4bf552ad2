//! Writing a checkpoint index (`swath index`, `swath csv index`) and
//! saying what was written.

use std::io::Write;

use anyhow::{Context, Result};
use swath::index::{format::write_index, Index};

use crate::output::{remove_on_interrupt, AtomicFile};

/// Write `index` to `target`, renamed into place when complete.
pub fn write_sidecar(index: &Index, target: &std::path::Path) -> Result<()> {
    remove_on_interrupt();
    let mut out = AtomicFile::create(target)?;
    let mut buf = std::io::BufWriter::new(&mut out);
    write_index(index, &mut buf)
        .and_then(|()| buf.flush())
        .with_context(|| format!("cannot write {}", target.display()))?;
    drop(buf);
    out.commit()?;
    Ok(())
}

#[derive(serde::Serialize)]
struct Doc<'a> {
    file_bytes: u64,
    index: &'a str,
    records: u64,
    checkpoints: usize,
    /// The most bytes a command reads from a checkpoint to find a record.
    largest_gap_bytes: u64,
    /// A gzip file's decoded length and the checkpoints its decoding can
    /// start at.
    #[serde(skip_serializing_if = "Option::is_none")]
    decoded_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    gzip_checkpoints: Option<usize>,
}

/// Say what was written: checkpoints, records, coverage.
pub fn report(index: &Index, target: &std::path::Path, json: bool) -> Result<()> {
    let mut out = std::io::stdout().lock();
    let name = target.display().to_string();
    if json {
        let doc = Doc {
            file_bytes: index.identity.len,
            index: &name,
            records: index.records,
            checkpoints: index.checkpoints.len(),
            largest_gap_bytes: index.largest_gap(),
            decoded_bytes: index.gzip.as_ref().map(|g| g.decoded_len),
            gzip_checkpoints: index.gzip.as_ref().map(|g| g.checkpoints.len()),
        };
        serde_json::to_writer(&mut out, &doc)?;
        writeln!(out)?;
    } else if let Some(gz) = &index.gzip {
        writeln!(
            out,
            "{name}: {} checkpoints over {} decoded bytes ({} records), at most {} bytes apart; \
             {} gzip checkpoints (decoding starts at any of them, on every core)",
            index.checkpoints.len(),
            gz.decoded_len,
            index.records,
            index.largest_gap(),
            gz.checkpoints.len()
        )?;
    } else {
        writeln!(
            out,
            "{name}: {} checkpoints over {} bytes ({} records), at most {} bytes apart",
            index.checkpoints.len(),
            index.identity.len,
            index.records,
            index.largest_gap()
        )?;
    }
    Ok(())
}

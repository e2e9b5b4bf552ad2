//! An index back as a split plan: one split per checkpoint, after the
//! index was checked against the file and the settings.

use std::fs::File;
use std::path::Path;

use swath::index::{FileIdentity, Index, IndexKind};

use crate::error::{Error, Result};
use crate::reader::builder::ReaderBuilder;
use crate::split::{Split, SplitPlan};

/// What an index is worth for a file now.
#[derive(Debug)]
pub enum IndexCheck {
    /// It fits: the plan whose splits start at its checkpoints.
    Fresh(Box<SplitPlan>),
    /// It does not fit the file or the settings: why.
    Stale(String),
}

/// The plan of `index` for the file at `path` read with `b`, when the
/// index fits the file (length, modification time, head and tail hash)
/// and `b`'s dialect.
///
/// # Errors
///
/// An I/O error; an error of the header row.
pub fn plan_from_index(b: &ReaderBuilder, path: &Path, index: &Index) -> Result<IndexCheck> {
    let with_path = |e: std::io::Error| Error::from(e).with_path(path);
    let file = File::open(path).map_err(with_path)?;
    let now = FileIdentity::of(&file).map_err(with_path)?;
    let dialect = super::dialect_string(b);
    if let Some(why) = index.stale_reason(IndexKind::Csv, &dialect, &now) {
        return Ok(IndexCheck::Stale(why));
    }
    let len = now.len;
    let cps = &index.checkpoints;
    let splits = cps
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let (end, next_record) =
                cps.get(i + 1).map_or((len, index.records + 1), |n| (n.byte, n.record));
            Split {
                index: i,
                range: c.byte..end,
                start: c.byte,
                end,
                record: c.record,
                line: c.line,
                records: next_record - c.record,
            }
        })
        .collect();
    Ok(IndexCheck::Fresh(Box::new(SplitPlan::from_splits(b, path, splits)?)))
}

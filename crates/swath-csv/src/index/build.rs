//! Making a CSV index: the file's identity first (so a change while the
//! pass runs makes the index stale, not wrong), then the exact split plan
//! with splits of `interval` bytes, checked against a validating count
//! ([`plan_splits_checked`]); each split that holds a record start gives
//! a checkpoint.

use std::fs::File;
use std::path::Path;

use swath::index::{Checkpoint, FileIdentity, Index, IndexKind};

use crate::error::{Error, Result};
use crate::reader::builder::ReaderBuilder;
use crate::split::{plan_splits_checked, SplitSize};

/// Index the CSV file at `path` read with `b`'s settings, with a
/// checkpoint about every `interval` bytes.
///
/// # Errors
///
/// As [`plan_splits_checked`]: a malformed record is an error, at its
/// position, and no index is made.
pub fn index_csv(b: &ReaderBuilder, path: impl AsRef<Path>, interval: u64) -> Result<Index> {
    let path = path.as_ref();
    let with_path = |e: std::io::Error| Error::from(e).with_path(path);
    let file = File::open(path).map_err(with_path)?;
    let identity = FileIdentity::of(&file).map_err(with_path)?;
    let plan = plan_splits_checked(b, path, SplitSize::Bytes(interval.max(1)))?;
    let mut checkpoints = vec![Checkpoint { byte: 0, record: 1, line: 1 }];
    for s in plan.splits().iter().skip(1).filter(|s| s.records > 0) {
        checkpoints.push(Checkpoint { byte: s.start, record: s.record, line: s.line });
    }
    Ok(Index {
        kind: IndexKind::Csv,
        identity,
        dialect: super::dialect_string(b),
        records: plan.records(),
        checkpoints,
        gzip: None,
    })
}

//! Broken records a query's tables put aside ([`PutAside`]): a table whose
//! options carry one reads its files with broken records left out of the
//! batches (CSV: a field too many or too few, a quoting error; JSON: not
//! one object, a key twice, a value that does not fit), and hands them here
//! with the file they came from.
//!
//! Partitions run at once and a query may scan a table twice (a self
//! join), so records are kept by file and byte: each once, in file order,
//! whatever the order they came in. They are held until the query ends
//! (a limit in records stops the query as soon as it is passed).
//!
//! A file read this way is read whole by one partition, from its first
//! byte: a broken record can hold a stray quote that misleads the split
//! plan's quote parity, and the sequential reader numbers every record
//! exactly.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use datafusion::error::{DataFusionError, Result};
use swath_csv::bad::Aside;

/// A record put aside, of either format.
pub type Record = Box<dyn Aside + Send>;

/// Where a query's tables put their broken records.
pub struct PutAside {
    max: Option<u64>,
    records: Mutex<BTreeMap<(PathBuf, u64), Record>>,
}

impl std::fmt::Debug for PutAside {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PutAside").field("max", &self.max).finish_non_exhaustive()
    }
}

impl PutAside {
    /// Records put aside, stopping the query past `max` of them.
    pub fn new(max: Option<u64>) -> PutAside {
        PutAside { max, records: Mutex::default() }
    }

    /// Take `bad`, records of the file at `path`.
    ///
    /// # Errors
    ///
    /// More than the limit (the query stops).
    pub(crate) fn put<B: Aside + Send + 'static>(
        &self,
        path: &Path,
        bad: impl IntoIterator<Item = B>,
    ) -> Result<()> {
        let mut records = self.records.lock().unwrap_or_else(|e| e.into_inner());
        for b in bad {
            let at = b.position();
            let key = (path.to_path_buf(), at.byte);
            let said = swath_csv::bad::describe(&b);
            records.entry(key).or_insert_with(|| Box::new(b));
            if let Some(max) = self.max.filter(|&m| records.len() as u64 > m) {
                return Err(DataFusionError::External(Box::new(TooMany(format!(
                    "{}: more than {max} records put aside; stopped at {said}",
                    path.display()
                )))));
            }
        }
        Ok(())
    }

    /// The records, in file order (files by path), each with its file.
    pub fn take(&self) -> Vec<(PathBuf, Record)> {
        let mut records = self.records.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut *records).into_iter().map(|((p, _), r)| (p, r)).collect()
    }
}

/// More records put aside than the limit: the error that stops the query.
#[derive(Debug)]
pub struct TooMany(String);

impl std::fmt::Display for TooMany {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TooMany {}

/// The limit's error inside a DataFusion error, if the query stopped at
/// it (for a caller that says it as its own).
pub fn too_many(e: &DataFusionError) -> Option<&TooMany> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(t) = err.downcast_ref::<TooMany>() {
            return Some(t);
        }
        cur = err.source();
    }
    None
}

//! One exact split plan per file, made once and shared by every partition
//! that reads a range of it (and by the statistics). A local file with a
//! fresh checkpoint index beside it (`FILE.swathidx`, `swath csv index`)
//! takes its plan from the index, without the quote-parity pass over the
//! file (about a third of a `swath sql` GROUP BY's CPU, docs/perf/arrow.md).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

use swath_csv::index::{plan_from_index, IndexCheck};
use swath_csv::{plan_splits, SplitPlan, SplitSize};

use super::options::SwathCsvOptions;

/// A file as it was when planned: a plan of another length or time is not
/// this file's any more.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct FileKey {
    path: PathBuf,
    len: u64,
    modified: Option<SystemTime>,
}

type Slot = Arc<OnceLock<Result<Arc<SplitPlan>, Arc<swath_csv::Error>>>>;

/// Plans by file; each is made by the first partition that needs it while
/// the others wait (the plan pass runs on every core already).
#[derive(Debug, Default)]
pub(crate) struct PlanCache {
    plans: Mutex<HashMap<FileKey, Slot>>,
}

/// The plan of the checkpoint index beside a local file (`FILE.swathidx`)
/// when there is one that fits the file (length, modification time, head
/// and tail) and the dialect, and no split size was asked for (the
/// index's checkpoints are the splits). Anything else, a stale or
/// unreadable index included, is `None`: the plan pass is made as without
/// an index. Each split's reader still checks that it ends where the next
/// begins, as for any plan.
fn plan_from_sidecar(path: &Path, opts: &SwathCsvOptions) -> Option<SplitPlan> {
    if opts.split_bytes.is_some() || swath::remote::is_url(path) {
        return None;
    }
    let sidecar = std::fs::File::open(swath::index::default_index_path(path)).ok()?;
    let index = swath::index::format::read_index(std::io::BufReader::new(sidecar)).ok()?;
    match plan_from_index(opts.csv_builder(), path, &index).ok()? {
        IndexCheck::Fresh(plan) => Some(*plan),
        IndexCheck::Stale(_) => None,
    }
}

impl PlanCache {
    fn key(path: &Path) -> Result<FileKey, swath_csv::Error> {
        if swath::remote::is_url(path) {
            // A remote object is pinned to one version for the process by
            // swath-remote (a replaced one is an error): its length is key
            // enough.
            let (_, len) = swath::range::open_ranged(path)?;
            return Ok(FileKey { path: path.to_path_buf(), len, modified: None });
        }
        let meta =
            std::fs::metadata(path).map_err(|e| swath_csv::Error::from(e).with_path(path))?;
        Ok(FileKey { path: path.to_path_buf(), len: meta.len(), modified: meta.modified().ok() })
    }

    /// The plan of the file at `path` as it is now, made if need be.
    pub(crate) fn plan(
        &self,
        path: &Path,
        opts: &SwathCsvOptions,
    ) -> Result<Arc<SplitPlan>, Arc<swath_csv::Error>> {
        let key = Self::key(path).map_err(Arc::new)?;
        let len = key.len;
        let slot = {
            let mut plans = self.plans.lock().unwrap_or_else(|p| p.into_inner());
            // The file's earlier versions are never read again (a
            // long-lived cache would keep a plan per length of a growing log).
            plans.retain(|k, _| k.path != key.path || *k == key);
            plans.entry(key).or_default().clone()
        };
        slot.get_or_init(|| {
            if let Some(plan) = plan_from_sidecar(path, opts) {
                return Ok(Arc::new(plan));
            }
            let size = SplitSize::Bytes(opts.split_bytes_for(len));
            let plan = plan_splits(opts.csv_builder(), path, size).map(Arc::new).map_err(Arc::new);
            #[cfg(feature = "codec")]
            if let Ok(p) = &plan {
                log::info!(target: "swath", "swath plan made: {}, {} splits", path.display(), p.splits().len());
            }
            plan
        })
        .clone()
    }

    /// The plan of the file at `path` if one was made for it as it is now.
    pub(crate) fn cached(&self, path: &Path) -> Option<Arc<SplitPlan>> {
        let key = Self::key(path).ok()?;
        let plans = self.plans.lock().unwrap_or_else(|p| p.into_inner());
        plans.get(&key)?.get()?.as_ref().ok().cloned()
    }

    /// Take `plan` as the plan of the file at `path` (made in another
    /// process: a plan shipped with a query), for the file as it is now.
    ///
    /// # Errors
    ///
    /// The file cannot be read, or its length is not the plan's.
    #[cfg(feature = "codec")]
    pub(crate) fn insert_known(
        &self,
        path: &Path,
        plan: SplitPlan,
        planned_len: u64,
    ) -> datafusion::error::Result<()> {
        let key = Self::key(path).map_err(|e| super::error::from_csv(e, path))?;
        if key.len != planned_len {
            return Err(datafusion::error::DataFusionError::Execution(format!(
                "{}: {} bytes here, {} bytes where the query was planned: it changed \
                 since, or it is another file (every executor must see the same file)",
                path.display(),
                key.len,
                planned_len
            )));
        }
        let slot: Slot = Arc::new(OnceLock::from(Ok(Arc::new(plan))));
        let mut plans = self.plans.lock().unwrap_or_else(|p| p.into_inner());
        plans.insert(key, slot);
        Ok(())
    }
}

//! Queries within a memory limit. DataFusion's operators that can spill
//! (sort, GROUP BY's hash aggregation, sort-merge joins) reserve what they
//! hold from a memory pool; when a reservation fails they write sorted runs
//! to temporary files and merge them back, so a query over files larger
//! than memory finishes. The pool here is DataFusion's fair one (each
//! spilling operator gets an equal share, so one cannot starve another),
//! wrapped to name the largest consumers when a query cannot fit; its
//! spills go to one directory the caller owns (and removes).
//!
//! Not counted by the pool: what the scans hold while they read (swath's
//! readers and the batches in flight, a constant per partition; see
//! `docs/memory.md`), and the memory of operators that cannot spill (the
//! build side of a hash join): a query that needs more than the limit
//! there fails with DataFusion's "Resources exhausted" error.

use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::Arc;

use datafusion::error::Result;
use datafusion::execution::memory_pool::{FairSpillPool, TrackConsumersPool};
use datafusion::execution::runtime_env::{RuntimeEnv, RuntimeEnvBuilder};

/// A runtime whose queries hold at most `limit` bytes in their operators,
/// spilling to temporary files in `spill_dir` (which must exist; DataFusion
/// makes a directory of its own inside it, removed when the runtime drops).
///
/// ```
/// use datafusion::prelude::{SessionConfig, SessionContext};
///
/// let dir = tempfile::tempdir()?;
/// let runtime = swath_datafusion::memory_limited_runtime(64 << 20, dir.path())?;
/// let ctx = SessionContext::new_with_config_rt(SessionConfig::new(), runtime);
/// # drop(ctx);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// DataFusion's, when the runtime cannot be built.
pub fn memory_limited_runtime(limit: usize, spill_dir: &Path) -> Result<Arc<RuntimeEnv>> {
    let top = NonZeroUsize::new(3).unwrap_or(NonZeroUsize::MIN);
    let pool = TrackConsumersPool::new(FairSpillPool::new(limit), top);
    RuntimeEnvBuilder::new()
        .with_memory_pool(Arc::new(pool))
        .with_temp_file_path(spill_dir)
        .build_arc()
}

/// Whether `e` (or what it wraps) is the pool refusing memory: a query that
/// does not fit in the limit even with spilling.
pub fn is_out_of_memory(e: &datafusion::error::DataFusionError) -> bool {
    matches!(e.find_root(), datafusion::error::DataFusionError::ResourcesExhausted(_))
}

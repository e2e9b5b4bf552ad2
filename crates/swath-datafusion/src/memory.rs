//! Queries within a memory limit. DataFusion's operators that can spill
//! (sort, GROUP BY's hash aggregation, sort-merge joins) reserve what they
//! hold from a memory pool; when a reservation fails they write sorted runs
//! to temporary files and merge them back, so a query over files larger
//! than memory finishes. The pool here is DataFusion's fair one (each
//! spilling operator gets an equal share, so one cannot starve another),
//! wrapped to name the largest consumers when a query cannot fit and to
//! share the sorts' merges fairly too ([`SharedMergePool`]); its spills go
//! to one directory the caller owns (and removes).
//!
//! Not counted by the pool: what the scans hold while they read (swath's
//! readers and the batches in flight, a constant per partition; see
//! `docs/memory.md`), and the memory of operators that cannot spill (the
//! build side of a hash join): a query that needs more than the limit
//! there fails with DataFusion's "Resources exhausted" error.

use std::fmt;
use std::num::NonZeroUsize;
use std::path::Path;
use std::sync::Arc;

use datafusion::error::{DataFusionError, Result};
use datafusion::execution::memory_pool::{
    FairSpillPool, MemoryConsumer, MemoryLimit, MemoryPool, MemoryReservation, TrackConsumersPool,
};
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};

/// A session whose queries hold at most `limit` bytes in their operators,
/// spilling to temporary files in `spill_dir` (which must exist; DataFusion
/// makes a directory of its own inside it, removed when the session's
/// runtime drops). `config`'s target partitions are the number of sorts
/// that share the limit.
///
/// Three settings follow from the limit, each found by a sort failing
/// without it (`docs/memory.md`):
/// - each partition's sort keeps back min(10 MiB, a quarter of its share)
///   to merge its spills (DataFusion's fixed 10 MiB made every sort under
///   40 MiB on two partitions fail before it could spill);
/// - a sort about to spill sorts what it holds in place, in the memory it
///   already reserved, instead of merging its batches (the merge's cursors
///   took as much again, from the pool, and failed when another partition
///   held it); up to 1 GiB held, past which it merges;
/// - each sort's merge of its spill files may hold at most half its share
///   (else the first partition to get there takes all that is free and the
///   others fail; `SharedMergePool` in memory.rs).
///
/// ```
/// use datafusion::prelude::SessionConfig;
///
/// let dir = tempfile::tempdir()?;
/// let config = SessionConfig::new().with_target_partitions(2);
/// let ctx = swath_datafusion::memory_limited_session(config, 64 << 20, dir.path())?;
/// # drop(ctx);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// DataFusion's, when the runtime cannot be built.
pub fn memory_limited_session(
    mut config: SessionConfig,
    limit: usize,
    spill_dir: &Path,
) -> Result<SessionContext> {
    let partitions = config.target_partitions().max(1);
    let share = limit / partitions;
    let exec = &mut config.options_mut().execution;
    exec.sort_spill_reservation_bytes = exec.sort_spill_reservation_bytes.min(share / 4);
    exec.sort_in_place_threshold_bytes = limit.min(IN_PLACE_MAX);
    let top = NonZeroUsize::new(3).unwrap_or(NonZeroUsize::MIN);
    let pool = SharedMergePool {
        inner: TrackConsumersPool::new(FairSpillPool::new(limit), top),
        merge_cap: share / 2,
    };
    let runtime = RuntimeEnvBuilder::new()
        .with_memory_pool(Arc::new(pool))
        .with_temp_file_path(spill_dir)
        .build_arc()?;
    Ok(SessionContext::new_with_config_rt(config, runtime))
}

/// Whether `e` (or what it wraps) is the pool refusing memory: a query that
/// does not fit in the limit even with spilling.
pub fn is_out_of_memory(e: &DataFusionError) -> bool {
    matches!(e.find_root(), DataFusionError::ResourcesExhausted(_))
}

/// The most a sort sorts in place (its reservation counts its batches
/// twice): past this it merges its batches. It keeps one text column of a
/// sorted run well under the 2 GiB a Utf8 array can address.
const IN_PLACE_MAX: usize = 1 << 30;

/// The name DataFusion gives the reservation a sort merges its spill files
/// through (`ExternalSorterMerge[partition]`).
const SORT_MERGE: &str = "ExternalSorterMerge[";

/// DataFusion's fair pool, with each sort's merge held to `merge_cap`.
///
/// A sort that spilled merges its files through a reservation that cannot
/// spill, and takes as many files at once as the pool grants. On a fair
/// pool the first partition to finish its input so takes all that is free,
/// and the other partitions' sorts and the final merge across partitions
/// then fail ("Resources exhausted") or not, by timing: `--memory 8M` on a
/// 72 MB sort failed 8 runs of 10. Refused more than its cap, a merge
/// reads fewer files at a time (more passes over the disk), which is what
/// it does when the pool itself is short; nothing fails that fitted.
#[derive(Debug)]
struct SharedMergePool {
    inner: TrackConsumersPool<FairSpillPool>,
    merge_cap: usize,
}

impl SharedMergePool {
    fn is_capped(reservation: &MemoryReservation) -> bool {
        let consumer = reservation.consumer();
        !consumer.can_spill() && consumer.name().starts_with(SORT_MERGE)
    }
}

impl MemoryPool for SharedMergePool {
    fn name(&self) -> &str {
        "SharedMergePool"
    }

    fn register(&self, consumer: &MemoryConsumer) {
        self.inner.register(consumer);
    }

    fn unregister(&self, consumer: &MemoryConsumer) {
        self.inner.unregister(consumer);
    }

    fn grow(&self, reservation: &MemoryReservation, additional: usize) {
        self.inner.grow(reservation, additional);
    }

    fn shrink(&self, reservation: &MemoryReservation, shrink: usize) {
        self.inner.shrink(reservation, shrink);
    }

    fn try_grow(&self, reservation: &MemoryReservation, additional: usize) -> Result<()> {
        if Self::is_capped(reservation) && reservation.size() + additional > self.merge_cap {
            return Err(DataFusionError::ResourcesExhausted(format!(
                "Failed to allocate additional {additional} bytes for {}: a sort's merge may \
                 hold at most {} bytes (half a partition's share of the limit), and holds {}",
                reservation.consumer().name(),
                self.merge_cap,
                reservation.size()
            )));
        }
        self.inner.try_grow(reservation, additional)
    }

    fn reserved(&self) -> usize {
        self.inner.reserved()
    }

    fn memory_limit(&self) -> MemoryLimit {
        self.inner.memory_limit()
    }
}

impl fmt::Display for SharedMergePool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "SharedMergePool(merges at most {} bytes each) over {}",
            self.merge_cap, self.inner
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(limit: usize, merge_cap: usize) -> Arc<dyn MemoryPool> {
        let top = NonZeroUsize::new(3).unwrap();
        Arc::new(SharedMergePool {
            inner: TrackConsumersPool::new(FairSpillPool::new(limit), top),
            merge_cap,
        })
    }

    #[test]
    fn a_sort_merge_is_held_to_its_cap_and_others_are_not() {
        let pool = pool(1000, 200);
        let merge = MemoryConsumer::new("ExternalSorterMerge[0]").register(&pool);
        merge.try_grow(150).unwrap();
        let err = merge.try_grow(51).unwrap_err();
        assert!(is_out_of_memory(&err), "{err}");
        assert!(err.to_string().contains("at most 200 bytes"), "{err}");
        merge.try_grow(50).unwrap();
        assert_eq!(merge.size(), 200);

        // The other partition's merge gets its own 200; a consumer that is
        // not a sort's merge gets what the fair pool grants.
        let other = MemoryConsumer::new("ExternalSorterMerge[1]").register(&pool);
        other.try_grow(200).unwrap();
        let join = MemoryConsumer::new("HashJoinInput").register(&pool);
        join.try_grow(600).unwrap();
        assert_eq!(pool.reserved(), 1000);
        assert!(is_out_of_memory(&join.try_grow(1).unwrap_err()));
    }

    #[test]
    fn a_spilling_consumer_of_the_same_name_prefix_is_not_capped() {
        let pool = pool(1000, 200);
        let sorter =
            MemoryConsumer::new("ExternalSorterMerge[0]").with_can_spill(true).register(&pool);
        sorter.try_grow(900).unwrap();
    }

    #[test]
    fn the_session_takes_its_partitions_from_the_config() {
        let dir = tempfile::tempdir().unwrap();
        let config = SessionConfig::new().with_target_partitions(4);
        let ctx = memory_limited_session(config, 64 << 20, dir.path()).unwrap();
        let state = ctx.state();
        let exec = &state.config().options().execution;
        assert_eq!(exec.sort_spill_reservation_bytes, 4 << 20);
        assert_eq!(exec.sort_in_place_threshold_bytes, 64 << 20);
        let shown = state.runtime_env().memory_pool.to_string();
        assert!(shown.contains("merges at most 8388608 bytes each"), "{shown}");
    }
}

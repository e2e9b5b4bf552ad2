//! Queries within a memory limit. DataFusion's operators that can spill
//! (sort, GROUP BY's hash aggregation, sort-merge joins) reserve what they
//! hold from a memory pool; when a reservation fails they write sorted runs
//! to temporary files and merge them back, so a query over files larger
//! than memory finishes. The pool here is DataFusion's fair one (each
//! spilling operator gets an equal share, so one cannot starve another),
//! wrapped to name the largest consumers when a query cannot fit and to
//! hold each partition's sort to a fixed share, so that what fits does not
//! depend on timing (`SortSharePool`); its spills go to one directory the
//! caller owns (and removes).
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
/// The limit is split so that whether a query fits does not depend on
/// timing between its partitions (`SortSharePool`, and
/// `docs/memory.md` for the failures each rule came from). Of the limit,
/// each of the `p` partitions' sorts may hold:
/// - `limit / 2p` in the batches it sorts (then it spills);
/// - `limit / 4p` to merge its spill files, kept back from the start
///   (DataFusion's fixed 10 MiB made every sort under 40 MiB on two
///   partitions fail before it could spill);
///
/// which leaves at least a quarter of the limit to what cannot spill: the
/// final merge across the partitions, a hash join's build side. Under a
/// small limit the batches get fewer rows (down to 512; 8192 from a merge
/// share of 4 MiB up), so that a merge can hold a batch of each run it
/// merges and the final merge one of each partition's. A sort
/// about to spill sorts what it holds in place, in the memory it already
/// reserved, instead of merging its batches (the merge's cursors took as
/// much again from the pool); up to 1 GiB held, past which it merges.
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
    let pool = SortSharePool::new(limit, config.target_partitions());
    let rows = (pool.merge_cap / BATCH_IN_MERGE).max(MIN_BATCH_ROWS);
    let rows = config.batch_size().min(rows);
    config = config.with_batch_size(rows);
    let exec = &mut config.options_mut().execution;
    exec.sort_spill_reservation_bytes = exec.sort_spill_reservation_bytes.min(pool.merge_cap);
    exec.sort_in_place_threshold_bytes = limit.min(IN_PLACE_MAX);
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

/// The rows of a batch are at most a merge's share over this: a batch of
/// rows of 64 bytes is then an eighth of it. (A merge holds two batches of
/// each run it reads, and must read two runs; the final merge across the
/// partitions holds a batch of each.)
const BATCH_IN_MERGE: usize = 512;

/// The fewest rows a batch is cut to under a small limit: below this the
/// per-batch work outweighs the rows.
const MIN_BATCH_ROWS: usize = 512;

/// The name DataFusion gives the reservation a sort holds its batches in
/// (`ExternalSorter[partition]`).
const SORTER: &str = "ExternalSorter[";

/// The name DataFusion gives the reservation a sort merges its spill files
/// through (`ExternalSorterMerge[partition]`).
const SORT_MERGE: &str = "ExternalSorterMerge[";

/// DataFusion's fair pool, with each partition's sort held to a fixed
/// share of the limit.
///
/// The fair pool alone divides among the consumers registered *now*: when
/// one partition's sort finished its input and let go of its reservation,
/// the other partition's sort could grow into all that was free; a sort's
/// merge (which cannot spill) takes as many spill files at once as the
/// pool grants. Either way the final merge across partitions (which cannot
/// spill either) was then refused its next batch, and the query failed or
/// not by timing: `--memory 8M` on a 72 MB sort failed 8 runs of 10, and
/// a CI run failed at 4M with 223 KB free of 4 MB, the rest held by one
/// sort (2.3 MB) and the two merges. Held to their shares, a sort spills
/// sooner and a merge reads fewer files at a time (more passes over the
/// disk), what each does anyway when the pool is short; a quarter of the
/// limit is always left to the consumers that cannot spill.
///
/// The sorts are known by DataFusion's names for their reservations; unit
/// tests hold those names to the caps.
#[derive(Debug)]
struct SortSharePool {
    inner: TrackConsumersPool<FairSpillPool>,
    /// The most one sort holds in the batches it sorts.
    sorter_cap: usize,
    /// The most one sort's merge of its spill files holds.
    merge_cap: usize,
}

impl SortSharePool {
    fn new(limit: usize, partitions: usize) -> Self {
        let partitions = partitions.max(1);
        let top = NonZeroUsize::new(3).unwrap_or(NonZeroUsize::MIN);
        Self {
            inner: TrackConsumersPool::new(FairSpillPool::new(limit), top),
            sorter_cap: limit / (2 * partitions),
            merge_cap: limit / (4 * partitions),
        }
    }

    /// The cap on `reservation`, if it is a sort's, and what it is called.
    fn cap(&self, reservation: &MemoryReservation) -> Option<(usize, &'static str)> {
        let consumer = reservation.consumer();
        let name = consumer.name();
        if consumer.can_spill() && name.starts_with(SORTER) {
            Some((self.sorter_cap, "a sort may hold at most"))
        } else if !consumer.can_spill() && name.starts_with(SORT_MERGE) {
            Some((self.merge_cap, "a sort's merge may hold at most"))
        } else {
            None
        }
    }
}

impl MemoryPool for SortSharePool {
    fn name(&self) -> &str {
        "SortSharePool"
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
        if let Some((cap, what)) = self.cap(reservation) {
            if reservation.size() + additional > cap {
                return Err(DataFusionError::ResourcesExhausted(format!(
                    "Failed to allocate additional {additional} bytes for {}: {what} {cap} \
                     bytes of the limit, and holds {}",
                    reservation.consumer().name(),
                    reservation.size()
                )));
            }
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

impl fmt::Display for SortSharePool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "SortSharePool(sorts hold at most {} bytes each, their merges {}) over {}",
            self.sorter_cap, self.merge_cap, self.inner
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KB: usize = 1 << 10;
    const MB: usize = 1 << 20;
    const GB: usize = 1 << 30;

    fn pool(limit: usize, partitions: usize) -> Arc<dyn MemoryPool> {
        Arc::new(SortSharePool::new(limit, partitions))
    }

    #[test]
    fn a_sort_and_its_merge_are_held_to_their_caps_and_others_are_not() {
        // 1000 bytes on 2 partitions: sorts 250 each, merges 125.
        let pool = pool(1000, 2);
        let sorter = MemoryConsumer::new("ExternalSorter[0]").with_can_spill(true).register(&pool);
        sorter.try_grow(250).unwrap();
        let err = sorter.try_grow(1).unwrap_err();
        assert!(is_out_of_memory(&err), "{err}");
        assert!(err.to_string().contains("a sort may hold at most 250 bytes"), "{err}");

        let merge = MemoryConsumer::new("ExternalSorterMerge[0]").register(&pool);
        merge.try_grow(100).unwrap();
        let err = merge.try_grow(26).unwrap_err();
        assert!(err.to_string().contains("merge may hold at most 125 bytes"), "{err}");
        merge.try_grow(25).unwrap();

        // Not a sort's: what the fair pool grants, up to the limit.
        let join = MemoryConsumer::new("HashJoinInput").register(&pool);
        join.try_grow(625).unwrap();
        assert_eq!(pool.reserved(), 1000);
        assert!(is_out_of_memory(&join.try_grow(1).unwrap_err()));
    }

    #[test]
    fn consumers_named_like_a_sort_but_not_spilling_like_one_are_not_capped() {
        let pool = pool(1000, 2);
        let spilling_merge =
            MemoryConsumer::new("ExternalSorterMerge[0]").with_can_spill(true).register(&pool);
        spilling_merge.try_grow(900).unwrap();
        drop(spilling_merge);
        let fixed_sorter = MemoryConsumer::new("ExternalSorter[0]").register(&pool);
        fixed_sorter.try_grow(900).unwrap();
    }

    /// The order of events of the CI run that failed at `--memory 4M` on
    /// two partitions: partition 1's sort finished its input (its sorter
    /// let go) and merged its spills; partition 0's sort, alone among the
    /// spilling consumers, grew as far as the pool let it; then the final
    /// merge across partitions asked for a 288 KB batch and 223 KB were
    /// free. With the shares it gets a quarter of the limit, whoever ran
    /// first.
    #[test]
    fn the_final_merge_gets_a_quarter_of_the_limit_whatever_the_sorts_did_first() {
        let limit = 4 * MB;
        let pool = pool(limit, 2);
        let sorter = |p: usize| {
            MemoryConsumer::new(format!("ExternalSorter[{p}]")).with_can_spill(true).register(&pool)
        };
        let merge =
            |p: usize| MemoryConsumer::new(format!("ExternalSorterMerge[{p}]")).register(&pool);
        let (sorter0, sorter1) = (sorter(0), sorter(1));
        let (merge0, merge1) = (merge(0), merge(1));
        merge0.try_grow(512 * KB).unwrap();
        merge1.try_grow(512 * KB).unwrap();
        sorter1.try_grow(MB).unwrap();
        drop(sorter1);
        let grab = |r: &MemoryReservation| while r.try_grow(16 * KB).is_ok() {};
        grab(&merge1);
        grab(&sorter0);
        assert_eq!(sorter0.size(), MB);
        let final_merge = MemoryConsumer::new("SortPreservingMergeExec[0]").register(&pool);
        final_merge.try_grow(limit / 4).unwrap();
    }

    #[test]
    fn a_small_limit_cuts_the_batches() {
        let dir = tempfile::tempdir().unwrap();
        let rows = |limit: usize, partitions: usize| {
            let config = SessionConfig::new().with_target_partitions(partitions);
            let ctx = memory_limited_session(config, limit, dir.path()).unwrap();
            ctx.state().config().batch_size()
        };
        assert_eq!(rows(4 * MB, 2), 1024);
        assert_eq!(rows(4 * MB, 4), 512);
        assert_eq!(rows(MB, 4), 512);
        assert_eq!(rows(32 * MB, 2), 8192);
        assert_eq!(rows(GB, 2), 8192);
    }

    #[test]
    fn the_session_takes_its_partitions_from_the_config() {
        let dir = tempfile::tempdir().unwrap();
        let config = SessionConfig::new().with_target_partitions(4);
        let ctx = memory_limited_session(config, 64 * MB, dir.path()).unwrap();
        let state = ctx.state();
        let exec = &state.config().options().execution;
        assert_eq!(exec.sort_spill_reservation_bytes, 4 * MB);
        assert_eq!(exec.sort_in_place_threshold_bytes, 64 * MB);
        assert_eq!(state.config().batch_size(), 8192);
        let shown = state.runtime_env().memory_pool.to_string();
        assert!(
            shown.contains("sorts hold at most 8388608 bytes each, their merges 4194304"),
            "{shown}"
        );
    }
}

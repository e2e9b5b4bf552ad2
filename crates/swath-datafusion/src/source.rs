//! The [`FileSource`] of a swath CSV table: its partitions are runs of a
//! file's exact splits, so each starts at a record, quoted newlines and
//! all.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{FileGroup, FileOpener, FileScanConfig, FileSource};
use datafusion::datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::error::Result;
use datafusion::physical_expr::LexOrdering;
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use datafusion::physical_plan::projection::ProjectionExprs;
use datafusion::physical_plan::{DisplayFormatType, PhysicalExpr};
use object_store::ObjectStore;

use crate::opener::SwathCsvOpener;
use crate::options::SwathCsvOptions;
use crate::paths::is_compressed;
use crate::plan_cache::PlanCache;

/// Reads a swath CSV table's files: each partition a byte range of a file
/// that starts and ends at split boundaries of the file's exact plan.
#[derive(Clone, Debug)]
pub struct SwathCsvSource {
    opts: Arc<SwathCsvOptions>,
    cache: Arc<PlanCache>,
    table_schema: TableSchema,
    projection: SplitProjection,
    batch_size: Option<usize>,
    metrics: ExecutionPlanMetricsSet,
}

impl SwathCsvSource {
    pub(crate) fn new(
        opts: Arc<SwathCsvOptions>,
        cache: Arc<PlanCache>,
        table_schema: TableSchema,
    ) -> SwathCsvSource {
        SwathCsvSource {
            opts,
            cache,
            projection: SplitProjection::unprojected(&table_schema),
            table_schema,
            batch_size: None,
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }
}

impl SwathCsvSource {
    /// How its files are read.
    pub fn options(&self) -> &SwathCsvOptions {
        &self.opts
    }

    /// Its plans (the codec ships them with a query).
    #[cfg(feature = "codec")]
    pub(crate) fn plan_cache(&self) -> &Arc<PlanCache> {
        &self.cache
    }
}

impl FileSource for SwathCsvSource {
    fn create_file_opener(
        &self,
        _object_store: Arc<dyn ObjectStore>,
        base_config: &FileScanConfig,
        _partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        let batch_size = self.batch_size.or(base_config.batch_size).unwrap_or(8192);
        let opener = Arc::new(SwathCsvOpener {
            opts: self.opts.clone(),
            cache: self.cache.clone(),
            file_schema: self.table_schema.file_schema().clone(),
            file_indices: self.projection.file_indices.clone(),
            batch_size,
            limit: base_config.limit,
        }) as Arc<dyn FileOpener>;
        ProjectionOpener::try_new(self.projection.clone(), opener, self.table_schema.file_schema())
    }

    fn table_schema(&self) -> &TableSchema {
        &self.table_schema
    }

    fn with_batch_size(&self, batch_size: usize) -> Arc<dyn FileSource> {
        let mut s = self.clone();
        s.batch_size = Some(batch_size);
        Arc::new(s)
    }

    fn try_pushdown_projection(
        &self,
        projection: &ProjectionExprs,
    ) -> Result<Option<Arc<dyn FileSource>>> {
        let mut s = self.clone();
        let merged = self.projection.source.try_merge(projection)?;
        s.projection = SplitProjection::new(self.table_schema.file_schema(), &merged);
        Ok(Some(Arc::new(s)))
    }

    fn projection(&self) -> Option<&ProjectionExprs> {
        Some(&self.projection.source)
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        &self.metrics
    }

    fn file_type(&self) -> &str {
        "swath_csv"
    }

    fn fmt_extra(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => {
                write!(f, ", exact_splits=true")
            }
            DisplayFormatType::TreeRender => Ok(()),
        }
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        datafusion::physical_plan::apply_expression_roots(self.projection.source.iter(), f)
    }

    /// Byte ranges from each file's exact split plan (not DataFusion's even
    /// cut, which a reader would have to align by guessing at a newline):
    /// a file gets a share of the partitions by its size, its plan joins
    /// consecutive splits into that many ranges, and the ranges are dealt
    /// to the partitions, largest first onto the least loaded.
    fn repartitioned(
        &self,
        target_partitions: usize,
        repartition_file_min_size: usize,
        output_ordering: Option<LexOrdering>,
        config: &FileScanConfig,
    ) -> Result<Option<FileScanConfig>> {
        if target_partitions <= 1 || output_ordering.is_some() {
            return Ok(None);
        }
        let files: Vec<&PartitionedFile> =
            config.file_groups.iter().flat_map(|g| g.iter()).collect();
        if files.is_empty() || files.iter().any(|f| f.range.is_some()) {
            return Ok(None);
        }
        let total: u64 = files.iter().map(|f| f.object_meta.size).sum();
        if total < repartition_file_min_size as u64 {
            return Ok(None);
        }
        // (size, file, range) pieces to deal out.
        let mut pieces: Vec<(u64, PartitionedFile)> = Vec::new();
        for f in files {
            let path: PathBuf = self.opts.path_of(&f.object_meta.location)?;
            let size = f.object_meta.size;
            if size == 0 || is_compressed(&path) {
                pieces.push((size, f.clone()));
                continue;
            }
            let share = ((target_partitions as u64 * size).div_ceil(total.max(1))).max(1);
            let plan = self
                .cache
                .plan(&path, &self.opts)
                .map_err(|e| crate::error::from_shared(e, &path))?;
            for r in plan.group_ranges(share as usize) {
                let mut piece = f.clone();
                piece.range = Some(datafusion::datasource::listing::FileRange {
                    start: r.start as i64,
                    end: r.end as i64,
                });
                piece.statistics = None;
                pieces.push((r.end - r.start, piece));
            }
        }
        Ok(deal(pieces, target_partitions, config))
    }
}

/// Deal byte-range pieces of files (with their sizes) to `target_partitions`
/// partitions, largest first onto the least loaded; in each partition the
/// pieces stay in file order. `None` when there is nothing to split.
pub(crate) fn deal(
    pieces: Vec<(u64, PartitionedFile)>,
    target_partitions: usize,
    config: &FileScanConfig,
) -> Option<FileScanConfig> {
    if pieces.len() <= 1 {
        return None;
    }
    let n = target_partitions.min(pieces.len());
    let mut order: Vec<usize> = (0..pieces.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(pieces[i].0));
    let mut load = vec![0u64; n];
    let mut owner = vec![0usize; pieces.len()];
    for i in order {
        let g = (0..n).min_by_key(|&g| (load[g], g)).unwrap_or(0);
        load[g] += pieces[i].0;
        owner[i] = g;
    }
    let mut groups: Vec<Vec<PartitionedFile>> = vec![Vec::new(); n];
    for (i, (_, piece)) in pieces.into_iter().enumerate() {
        groups[owner[i]].push(piece);
    }
    let mut out = config.clone();
    out.file_groups = groups.into_iter().filter(|g| !g.is_empty()).map(FileGroup::new).collect();
    Some(out)
}

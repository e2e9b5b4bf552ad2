//! The [`FileSource`] of a swath JSON table: partitions are even byte
//! ranges of the files (exact: each range reads the lines that start in
//! it), compressed files whole.

use std::fmt;
use std::sync::Arc;

use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::listing::{FileRange, PartitionedFile};
use datafusion::datasource::physical_plan::{FileOpener, FileScanConfig, FileSource};
use datafusion::datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::error::Result;
use datafusion::physical_expr::LexOrdering;
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use datafusion::physical_plan::projection::ProjectionExprs;
use datafusion::physical_plan::{DisplayFormatType, PhysicalExpr};
use object_store::ObjectStore;

use super::opener::SwathJsonOpener;
use super::SwathJsonOptions;
use crate::paths::is_compressed;

/// Reads a swath JSON table's files, each partition byte ranges of them.
#[derive(Clone, Debug)]
pub struct SwathJsonSource {
    opts: Arc<SwathJsonOptions>,
    table_schema: TableSchema,
    projection: SplitProjection,
    batch_size: Option<usize>,
    metrics: ExecutionPlanMetricsSet,
}

impl SwathJsonSource {
    pub(crate) fn new(opts: Arc<SwathJsonOptions>, table_schema: TableSchema) -> SwathJsonSource {
        SwathJsonSource {
            opts,
            projection: SplitProjection::unprojected(&table_schema),
            table_schema,
            batch_size: None,
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }
}

impl FileSource for SwathJsonSource {
    fn create_file_opener(
        &self,
        _object_store: Arc<dyn ObjectStore>,
        base_config: &FileScanConfig,
        _partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        let batch_size = self.batch_size.or(base_config.batch_size).unwrap_or(8192);
        let opener = Arc::new(SwathJsonOpener {
            opts: self.opts.clone(),
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
        "swath_json"
    }

    fn fmt_extra(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => {
                write!(f, ", line_ranges=true")
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

    /// Each uncompressed file cut into a share of the partitions by its
    /// size, in even byte ranges (any cut is exact for JSON lines); a
    /// compressed file whole. Dealt as the CSV table deals its splits.
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
        let mut pieces: Vec<(u64, PartitionedFile)> = Vec::new();
        for f in files {
            let size = f.object_meta.size;
            let path = self.opts.path_of(&f.object_meta.location)?;
            if size == 0 || is_compressed(&path) {
                pieces.push((size, f.clone()));
                continue;
            }
            let share = (target_partitions as u64 * size).div_ceil(total.max(1)).clamp(1, size);
            for i in 0..share {
                let (start, end) = (size * i / share, size * (i + 1) / share);
                let mut piece = f.clone();
                piece.range = Some(FileRange { start: start as i64, end: end as i64 });
                piece.statistics = None;
                pieces.push((end - start, piece));
            }
        }
        Ok(crate::source::deal(pieces, target_partitions, config))
    }
}

//! The [`FileSource`] of a swath table: its partitions are pieces of the
//! files, each cut where the format says a reader can start (CSV: runs of
//! a file's exact splits, quoted newlines and all; JSON lines: anywhere).

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

use super::opener::SwathOpener;
use super::{ReadSpec, ScanFormat};

/// Reads a swath table's files: each partition pieces of them, cut as
/// their format says.
#[derive(Debug)]
pub struct SwathSource<F> {
    scan: Arc<F>,
    table_schema: TableSchema,
    projection: SplitProjection,
    batch_size: Option<usize>,
    metrics: ExecutionPlanMetricsSet,
}

// By hand: a derived Clone would ask `F: Clone`.
impl<F> Clone for SwathSource<F> {
    fn clone(&self) -> Self {
        SwathSource {
            scan: self.scan.clone(),
            table_schema: self.table_schema.clone(),
            projection: self.projection.clone(),
            batch_size: self.batch_size,
            metrics: self.metrics.clone(),
        }
    }
}

impl<F: ScanFormat> SwathSource<F> {
    /// A scan of a table of this schema, read as `scan` says.
    pub(crate) fn new(scan: Arc<F>, table_schema: TableSchema) -> SwathSource<F> {
        SwathSource {
            scan,
            projection: SplitProjection::unprojected(&table_schema),
            table_schema,
            batch_size: None,
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }

    /// The format's side of the scan.
    pub fn format(&self) -> &F {
        &self.scan
    }
}

impl<F: ScanFormat> FileSource for SwathSource<F> {
    fn create_file_opener(
        &self,
        _object_store: Arc<dyn ObjectStore>,
        base_config: &FileScanConfig,
        _partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        let batch_size = self.batch_size.or(base_config.batch_size).unwrap_or(8192);
        let opener = Arc::new(SwathOpener {
            scan: self.scan.clone(),
            read: ReadSpec {
                file_schema: self.table_schema.file_schema().clone(),
                file_indices: self.projection.file_indices.clone(),
                batch_size,
            },
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
        F::FILE_TYPE
    }

    fn fmt_extra(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => {
                write!(f, ", {}", F::EXPLAIN)
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

    /// Byte ranges cut where the format says (for CSV from each file's
    /// exact split plan, not DataFusion's even cut, which a reader would
    /// have to align by guessing at a newline): a file gets a share of the
    /// partitions by its size, the format cuts it into that many ranges,
    /// and the ranges are dealt to the partitions, largest first onto the
    /// least loaded. A compressed file (or text decoded from another
    /// encoding) is one piece.
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
            let path: PathBuf = self.scan.path_of(&f.object_meta.location)?;
            let size = f.object_meta.size;
            if size == 0 || self.scan.read_whole(&path) {
                pieces.push((size, f.clone()));
                continue;
            }
            let share = (target_partitions as u64 * size).div_ceil(total.max(1)).clamp(1, size);
            for r in self.scan.cut(&path, size, share as usize)? {
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
fn deal(
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

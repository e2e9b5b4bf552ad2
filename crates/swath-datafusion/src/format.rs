//! The [`FileFormat`] of a swath CSV table: schema by swath's inference
//! (or the user's), statistics from the exact split plan, scans through
//! [`SwathCsvSource`].

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::catalog::Session;
use datafusion::common::stats::Precision;
use datafusion::common::{GetExt, Statistics};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::physical_plan::{FileScanConfig, FileSource};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::error::{DataFusionError, Result};
use datafusion::physical_plan::ExecutionPlan;
use object_store::{ObjectMeta, ObjectStore};
use swath_arrow::ColumnType;

use crate::error::{from_arrow, from_shared};
use crate::options::SwathCsvOptions;
use crate::paths::is_compressed;
use crate::plan_cache::PlanCache;
use crate::source::SwathCsvSource;

/// CSV read by swath: exact parallel splits (quoted newlines, doubled
/// quotes, CRLF and all), swath's types and errors.
#[derive(Debug, Clone, Default)]
pub struct SwathCsvFormat {
    opts: Arc<SwathCsvOptions>,
    cache: Arc<PlanCache>,
}

impl SwathCsvFormat {
    /// A format reading with these options.
    pub fn new(opts: SwathCsvOptions) -> SwathCsvFormat {
        SwathCsvFormat { opts: Arc::new(opts), cache: Arc::default() }
    }

    /// A format reading with these options whose plans go to `cache`
    /// (shared with other formats of the same options).
    pub(crate) fn with_cache(opts: SwathCsvOptions, cache: Arc<PlanCache>) -> SwathCsvFormat {
        SwathCsvFormat { opts: Arc::new(opts), cache }
    }

    /// Its options.
    pub fn options(&self) -> &SwathCsvOptions {
        &self.opts
    }
}

#[async_trait]
impl FileFormat for SwathCsvFormat {
    fn get_ext(&self) -> String {
        self.opts.file_extension.clone().unwrap_or_else(|| ".csv".to_string())
    }

    fn get_ext_with_compression(&self, c: &FileCompressionType) -> Result<String> {
        Ok(format!("{}{}", self.get_ext(), c.get_ext()))
    }

    fn compression_type(&self) -> Option<FileCompressionType> {
        // swath finds gzip and zstd by their magic bytes itself.
        None
    }

    async fn infer_schema(
        &self,
        _state: &dyn Session,
        _store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        if let Some(s) = self.opts.arrow.given_schema() {
            return Ok(s);
        }
        let mut merged: Option<(SchemaRef, std::path::PathBuf)> = None;
        for o in objects {
            let path = self.opts.path_of(&o.location)?;
            let s = self.opts.arrow.infer_schema(&path).map_err(|e| from_arrow(e, &path))?.schema;
            merged = Some(match merged {
                None => (s, path),
                Some((m, first)) => (widen(&m, &s, &first, &path)?, first),
            });
        }
        Ok(merged.map(|m| m.0).unwrap_or_else(|| Arc::new(Schema::empty())))
    }

    async fn infer_stats(
        &self,
        state: &dyn Session,
        _store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Statistics> {
        let path = self.opts.path_of(&object.location)?;
        let stats = Statistics::new_unknown(&table_schema)
            .with_total_byte_size(Precision::Inexact(object.size as usize));
        // The plan is made here only when the scan will be split anyway.
        let cfg = state.config_options();
        let split = cfg.execution.target_partitions > 1
            && cfg.optimizer.repartition_file_scans
            && object.size >= cfg.optimizer.repartition_file_min_size as u64
            && !is_compressed(&path);
        let plan = if split {
            Some(self.cache.plan(&path, &self.opts).map_err(|e| from_shared(e, &path))?)
        } else {
            self.cache.cached(&path)
        };
        Ok(match plan {
            // Records counted by the plan pass: exact as a count of
            // records, but their fields are not checked until they are
            // read, so the count is given as an estimate (COUNT(*) still
            // reads, and a bad record is an error).
            Some(p) => {
                let header = u64::from(p.headers().is_some());
                stats.with_num_rows(Precision::Inexact(p.records().saturating_sub(header) as usize))
            }
            None => stats,
        })
    }

    async fn create_physical_plan(
        &self,
        _state: &dyn Session,
        conf: FileScanConfig,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(DataSourceExec::from_data_source(conf))
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        Arc::new(SwathCsvSource::new(self.opts.clone(), self.cache.clone(), table_schema))
    }
}

/// The schema that holds the values of both files' columns: the same
/// columns, each of the narrowest type both fit (Int64 and Float64 make
/// Float64; any other two types make Utf8).
fn widen(a: &Schema, b: &Schema, pa: &std::path::Path, pb: &std::path::Path) -> Result<SchemaRef> {
    let names = |s: &Schema| s.fields().iter().map(|f| f.name().clone()).collect::<Vec<_>>();
    if names(a) != names(b) {
        return Err(DataFusionError::Plan(format!(
            "the files of one table need the same columns: {} has {:?}, {} has {:?}",
            pa.display(),
            names(a),
            pb.display(),
            names(b)
        )));
    }
    let fields: Vec<Field> = a
        .fields()
        .iter()
        .zip(b.fields())
        .map(|(fa, fb)| {
            let ty = match (fa.data_type(), fb.data_type()) {
                (x, y) if x == y => x.clone(),
                (DataType::Int64, DataType::Float64) | (DataType::Float64, DataType::Int64) => {
                    DataType::Float64
                }
                _ => ColumnType::Utf8.data_type(),
            };
            Field::new(fa.name(), ty, fa.is_nullable() || fb.is_nullable())
        })
        .collect();
    Ok(Arc::new(Schema::new(fields)))
}

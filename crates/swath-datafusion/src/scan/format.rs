//! The [`FileFormat`] of a swath table: the schema by the format's
//! inference (or the user's), row counts where the format knows them,
//! scans through [`SwathSource`].

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::Session;
use datafusion::common::stats::Precision;
use datafusion::common::{GetExt, Statistics};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::physical_plan::{FileScanConfig, FileSource};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::error::Result;
use datafusion::physical_plan::ExecutionPlan;
use object_store::{ObjectMeta, ObjectStore};

use super::{ScanFormat, SwathSource};

/// A format read by swath: exact pieces on every core, swath's types and
/// errors with positions. [`SwathCsvFormat`](crate::SwathCsvFormat) and
/// [`SwathJsonFormat`](crate::SwathJsonFormat) are this for each format.
#[derive(Debug)]
pub struct SwathFormat<F> {
    pub(crate) scan: Arc<F>,
}

impl<F> Clone for SwathFormat<F> {
    fn clone(&self) -> Self {
        SwathFormat { scan: self.scan.clone() }
    }
}

impl<F: ScanFormat> SwathFormat<F> {
    /// The format's side of the scan.
    pub fn format(&self) -> &F {
        &self.scan
    }
}

#[async_trait]
impl<F: ScanFormat> FileFormat for SwathFormat<F> {
    fn get_ext(&self) -> String {
        self.scan.file_extension().unwrap_or(F::DEFAULT_EXTENSION).to_string()
    }

    fn get_ext_with_compression(&self, c: &FileCompressionType) -> Result<String> {
        Ok(format!("{}{}", self.get_ext(), c.get_ext()))
    }

    fn compression_type(&self) -> Option<FileCompressionType> {
        // swath finds compression formats by their magic bytes itself.
        None
    }

    async fn infer_schema(
        &self,
        _state: &dyn Session,
        _store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        let paths =
            objects.iter().map(|o| self.scan.path_of(&o.location)).collect::<Result<Vec<_>>>()?;
        self.scan.infer_schema(&paths)
    }

    async fn infer_stats(
        &self,
        state: &dyn Session,
        _store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Statistics> {
        let path = self.scan.path_of(&object.location)?;
        let stats = Statistics::new_unknown(&table_schema)
            .with_total_byte_size(Precision::Inexact(object.size as usize));
        let cfg = state.config_options();
        let will_split = cfg.execution.target_partitions > 1
            && cfg.optimizer.repartition_file_scans
            && object.size >= cfg.optimizer.repartition_file_min_size as u64
            && !self.scan.read_whole(&path);
        // A count made before the records' fields are checked: an
        // estimate (COUNT(*) still reads, and a bad record is an error).
        Ok(match self.scan.num_rows(&path, will_split)? {
            Some(n) => stats.with_num_rows(Precision::Inexact(n)),
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
        Arc::new(SwathSource::new(self.scan.clone(), table_schema))
    }
}

//! The [`FileFormat`] of a swath JSON table: schema by swath-json's
//! inference (joined over the files) or the user's; scans through
//! [`SwathJsonSource`].

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
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
use swath_json::infer::{schema_of, Obj};

use super::source::SwathJsonSource;
use super::{from_json, SwathJsonOptions};

/// JSON lines read by swath: exact byte ranges, swath's types and errors.
#[derive(Debug, Clone, Default)]
pub struct SwathJsonFormat {
    opts: Arc<SwathJsonOptions>,
}

impl SwathJsonFormat {
    /// A format reading with these options.
    pub fn new(opts: SwathJsonOptions) -> SwathJsonFormat {
        SwathJsonFormat { opts: Arc::new(opts) }
    }
}

#[async_trait]
impl FileFormat for SwathJsonFormat {
    fn get_ext(&self) -> String {
        self.opts.file_extension.clone().unwrap_or_else(|| ".jsonl".to_string())
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
        if let Some(s) = &self.opts.schema {
            return Ok(s.clone());
        }
        // The files' types joined field by field, as one file's lines are.
        let mut root = Obj::default();
        for o in objects {
            let path = self.opts.path_of(&o.location)?;
            let inferred = self.opts.reader.infer_schema(&path).map_err(|e| from_json(e, &path))?;
            root.join(inferred.root);
        }
        Ok(Arc::new(if objects.is_empty() { Schema::empty() } else { schema_of(&root) }))
    }

    async fn infer_stats(
        &self,
        _state: &dyn Session,
        _store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Statistics> {
        Ok(Statistics::new_unknown(&table_schema)
            .with_total_byte_size(Precision::Inexact(object.size as usize)))
    }

    async fn create_physical_plan(
        &self,
        _state: &dyn Session,
        conf: FileScanConfig,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(DataSourceExec::from_data_source(conf))
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        Arc::new(SwathJsonSource::new(self.opts.clone(), table_schema))
    }
}

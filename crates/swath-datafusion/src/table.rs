//! [`SwathCsvTable`]: a swath CSV table as a table provider of its own
//! type. It scans through DataFusion's listing table (which lists the
//! files and hands them to [`SwathCsvFormat`]), and it is its own type so
//! that a plan shipped to another process (a Ballista scheduler) carries it
//! through swath's codec: DataFusion's protobuf form of a listing table
//! knows only DataFusion's own file formats.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{ScanArgs, ScanResult, Session, TableProvider};
use datafusion::common::{Constraints, Statistics};
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_plan::ExecutionPlan;

use crate::format::SwathCsvFormat;
use crate::options::SwathCsvOptions;
use crate::plan_cache::PlanCache;

/// A CSV file, or a directory of CSV files, read by swath.
#[derive(Debug)]
pub struct SwathCsvTable {
    path: String,
    options: SwathCsvOptions,
    schema: SchemaRef,
    listing: ListingTable,
}

impl SwathCsvTable {
    /// The options as a table at `path` uses them: a URL's store noted.
    pub(crate) fn resolve(path: &str, options: SwathCsvOptions) -> Result<SwathCsvOptions> {
        let mut options = options;
        if swath::remote::is_url(path) && options.store_url.is_none() {
            // The object store for this URL must be registered with the
            // session (DataFusion lists and sizes the objects through it);
            // swath then reads each object by its URL.
            let url = url::Url::parse(path).map_err(|e| DataFusionError::External(Box::new(e)))?;
            options.store_url = Some(url[..url::Position::BeforePath].to_string());
        }
        Ok(options)
    }

    /// The listing options of the table at `path` read with `options`: a
    /// table of one file reads it whatever its name, a directory's files by
    /// ending (`.csv` by default).
    pub(crate) fn listing_options(path: &str, options: &SwathCsvOptions) -> ListingOptions {
        Self::listing_options_with(path, options, Arc::default())
    }

    /// [`Self::listing_options`], the format's plans going to `cache`.
    fn listing_options_with(
        path: &str,
        options: &SwathCsvOptions,
        cache: Arc<PlanCache>,
    ) -> ListingOptions {
        let is_dir = path.ends_with('/') || Path::new(path).is_dir();
        let ext = match (&options.file_extension, is_dir) {
            (_, false) => String::new(),
            (Some(e), true) => e.clone(),
            (None, true) => ".csv".to_string(),
        };
        ListingOptions::new(Arc::new(SwathCsvFormat::with_cache(options.clone(), cache)))
            .with_file_extension(ext)
    }

    /// The table at `path` read with `options` (resolved) and this schema.
    pub(crate) fn try_new(
        path: &str,
        options: SwathCsvOptions,
        schema: SchemaRef,
    ) -> Result<SwathCsvTable> {
        Self::try_new_with(path, options, schema, Arc::default())
    }

    /// [`Self::try_new`], its plans going to `cache` (a decoded table's:
    /// the same table in every query of the process shares one).
    pub(crate) fn try_new_with(
        path: &str,
        options: SwathCsvOptions,
        schema: SchemaRef,
        cache: Arc<PlanCache>,
    ) -> Result<SwathCsvTable> {
        let url = ListingTableUrl::parse(path)?;
        let config = ListingTableConfig::new(url)
            .with_listing_options(Self::listing_options_with(path, &options, cache))
            .with_schema(schema.clone());
        let listing = ListingTable::try_new(config)?;
        Ok(SwathCsvTable { path: path.to_string(), options, schema, listing })
    }

    /// The path or URL of the file or directory.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// How its files are read.
    pub fn options(&self) -> &SwathCsvOptions {
        &self.options
    }
}

#[async_trait]
impl TableProvider for SwathCsvTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn constraints(&self) -> Option<&Constraints> {
        self.listing.constraints()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.listing.scan(state, projection, filters, limit).await
    }

    async fn scan_with_args<'a>(
        &self,
        state: &dyn Session,
        args: ScanArgs<'a>,
    ) -> Result<ScanResult> {
        self.listing.scan_with_args(state, args).await
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        self.listing.supports_filters_pushdown(filters)
    }

    fn statistics(&self) -> Option<Statistics> {
        self.listing.statistics()
    }
}

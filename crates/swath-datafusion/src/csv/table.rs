//! [`SwathCsvTable`]: a swath CSV table as a table provider of its own
//! type. It scans through DataFusion's listing table (which lists the
//! files and hands them to [`SwathCsvFormat`](crate::SwathCsvFormat)), and it is its own type so
//! that a plan shipped to another process (a Ballista scheduler) carries it
//! through swath's codec: DataFusion's protobuf form of a listing table
//! knows only DataFusion's own file formats.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{ScanArgs, ScanResult, Session, TableProvider};
use datafusion::common::{Constraints, Statistics};
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::error::Result;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown, TableType};
use datafusion::physical_plan::ExecutionPlan;

use super::options::SwathCsvOptions;
use super::plan_cache::PlanCache;
use super::scan::SwathCsvFormat;
use crate::scan::listing::{listing_options, store_url_of};

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
        if options.store_url.is_none() {
            options.store_url = store_url_of(path)?;
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
        listing_options(path, SwathCsvFormat::with_cache(options.clone(), cache))
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

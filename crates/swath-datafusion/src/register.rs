//! `ctx.register_swath_csv("t", "data.csv", options)`: a file or a
//! directory of CSV files as a table read by swath.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::common::TableReference;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::error::{DataFusionError, Result};
use datafusion::prelude::SessionContext;

use crate::format::SwathCsvFormat;
use crate::options::SwathCsvOptions;

/// Registering swath CSV tables on a [`SessionContext`].
#[async_trait]
pub trait SwathCsvExt {
    /// Register the CSV file, or directory of `.csv` files (see
    /// [`SwathCsvOptions::file_extension`]), at `path` as table `name`,
    /// read by swath: schema inferred (or as `options` say), every scan
    /// split at exact record starts into up to `target_partitions` pieces
    /// per query. `name` is taken as given ([`TableReference::bare`] for a
    /// name with a dot in it).
    ///
    /// # Errors
    ///
    /// A path that cannot be read, a schema that cannot be inferred (a
    /// broken record in the sampled part, with its position).
    async fn register_swath_csv(
        &self,
        name: impl Into<TableReference> + Send,
        path: &str,
        options: SwathCsvOptions,
    ) -> Result<()>;
}

#[async_trait]
impl SwathCsvExt for SessionContext {
    async fn register_swath_csv(
        &self,
        name: impl Into<TableReference> + Send,
        path: &str,
        options: SwathCsvOptions,
    ) -> Result<()> {
        let is_dir = path.ends_with('/') || Path::new(path).is_dir();
        let mut options = options;
        if swath::remote::is_url(path) {
            // The object store for this URL must be registered with the
            // session (DataFusion lists and sizes the objects through it);
            // swath then reads each object by its URL.
            let url = url::Url::parse(path).map_err(|e| DataFusionError::External(Box::new(e)))?;
            options.store_url = Some(url[..url::Position::BeforePath].to_string());
        }
        // One file is read whatever its name; a directory's files by ending.
        let ext = match (&options.file_extension, is_dir) {
            (_, false) => String::new(),
            (Some(e), true) => e.clone(),
            (None, true) => ".csv".to_string(),
        };
        let url = ListingTableUrl::parse(path)?;
        let listing =
            ListingOptions::new(Arc::new(SwathCsvFormat::new(options))).with_file_extension(ext);
        let state = self.state();
        let schema = listing.infer_schema(&state, &url).await?;
        let config = ListingTableConfig::new(url).with_listing_options(listing).with_schema(schema);
        self.register_table(name, Arc::new(ListingTable::try_new(config)?))?;
        Ok(())
    }
}

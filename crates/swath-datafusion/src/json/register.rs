//! `ctx.register_swath_json("t", "events.jsonl", options)`: a file or a
//! directory of JSON-lines files as a table read by swath.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::common::TableReference;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::error::{DataFusionError, Result};
use datafusion::prelude::SessionContext;

use super::{SwathJsonFormat, SwathJsonOptions};

/// Registering swath JSON-lines tables on a [`SessionContext`].
#[async_trait]
pub trait SwathJsonExt {
    /// Register the JSON-lines file, or directory of `.jsonl` files (see
    /// [`SwathJsonOptions::file_extension`]), at `path` as table `name`:
    /// schema inferred (or as `options` say), every scan cut into byte
    /// ranges, one a partition.
    ///
    /// # Errors
    ///
    /// A path that cannot be read, a schema that cannot be inferred.
    async fn register_swath_json(
        &self,
        name: impl Into<TableReference> + Send,
        path: &str,
        options: SwathJsonOptions,
    ) -> Result<()>;
}

#[async_trait]
impl SwathJsonExt for SessionContext {
    async fn register_swath_json(
        &self,
        name: impl Into<TableReference> + Send,
        path: &str,
        options: SwathJsonOptions,
    ) -> Result<()> {
        let mut options = options;
        if swath::remote::is_url(path) && options.store_url.is_none() {
            let url = url::Url::parse(path).map_err(|e| DataFusionError::External(Box::new(e)))?;
            options.store_url = Some(url[..url::Position::BeforePath].to_string());
        }
        let is_dir = path.ends_with('/') || Path::new(path).is_dir();
        let ext = match (&options.file_extension, is_dir) {
            (_, false) => String::new(),
            (Some(e), true) => e.clone(),
            (None, true) => ".jsonl".to_string(),
        };
        let listing =
            ListingOptions::new(Arc::new(SwathJsonFormat::new(options))).with_file_extension(ext);
        let url = ListingTableUrl::parse(path)?;
        let schema = listing.infer_schema(&self.state(), &url).await?;
        let config = ListingTableConfig::new(url).with_listing_options(listing).with_schema(schema);
        self.register_table(name, Arc::new(ListingTable::try_new(config)?))?;
        Ok(())
    }
}

//! `ctx.register_swath_json("t", "events.jsonl", options)`: a file or a
//! directory of JSON-lines files as a table read by swath.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::common::TableReference;
use datafusion::datasource::listing::{ListingTable, ListingTableConfig, ListingTableUrl};
use datafusion::error::Result;
use datafusion::prelude::SessionContext;

use super::{SwathJsonFormat, SwathJsonOptions};
use crate::scan::listing::{listing_options, store_url_of};

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
        if options.store_url.is_none() {
            options.store_url = store_url_of(path)?;
        }
        let listing = listing_options(path, SwathJsonFormat::new(options));
        let url = ListingTableUrl::parse(path)?;
        let schema = listing.infer_schema(&self.state(), &url).await?;
        let config = ListingTableConfig::new(url).with_listing_options(listing).with_schema(schema);
        self.register_table(name, Arc::new(ListingTable::try_new(config)?))?;
        Ok(())
    }
}

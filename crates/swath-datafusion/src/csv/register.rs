//! `ctx.register_swath_csv("t", "data.csv", options)`: a file or a
//! directory of CSV files as a table read by swath.

use std::sync::Arc;

use async_trait::async_trait;
use datafusion::common::TableReference;
use datafusion::datasource::listing::ListingTableUrl;
use datafusion::error::Result;
use datafusion::prelude::SessionContext;

use super::options::SwathCsvOptions;
use super::table::SwathCsvTable;

/// Registering swath CSV tables on a [`SessionContext`].
#[async_trait]
pub trait SwathCsvExt {
    /// Register the CSV file, or directory of `.csv` files (see
    /// [`SwathCsvOptions::file_extension`]), at `path` as table `name`,
    /// read by swath (a [`SwathCsvTable`]): schema inferred (or as `options` say), every scan
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
        let options = SwathCsvTable::resolve(path, options)?;
        let url = ListingTableUrl::parse(path)?;
        let state = self.state();
        let schema =
            SwathCsvTable::listing_options(path, &options).infer_schema(&state, &url).await?;
        self.register_table(name, Arc::new(SwathCsvTable::try_new(path, options, schema)?))?;
        Ok(())
    }
}

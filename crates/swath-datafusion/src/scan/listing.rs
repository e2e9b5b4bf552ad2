//! How a path becomes a listing of files for a swath table, the same for
//! every format: a table of one file reads it whatever its name, a
//! directory's files by ending; a URL's store is noted so that swath opens
//! each object by its URL.

use std::path::Path;
use std::sync::Arc;

use datafusion::datasource::listing::ListingOptions;
use datafusion::error::{DataFusionError, Result};

use super::{ScanFormat, SwathFormat};

/// The store URL (`s3://bucket/`) of a table at `path`, when it is a URL.
/// The object store for it must be registered with the session
/// (DataFusion lists and sizes the objects through it).
pub(crate) fn store_url_of(path: &str) -> Result<Option<String>> {
    if !swath::remote::is_url(path) {
        return Ok(None);
    }
    let url = url::Url::parse(path).map_err(|e| DataFusionError::External(Box::new(e)))?;
    Ok(Some(url[..url::Position::BeforePath].to_string()))
}

/// The listing options of the table at `path` read by `format`.
pub(crate) fn listing_options<F: ScanFormat>(path: &str, format: SwathFormat<F>) -> ListingOptions {
    let is_dir = path.ends_with('/') || Path::new(path).is_dir();
    let ext = match (format.format().file_extension(), is_dir) {
        (_, false) => String::new(),
        (Some(e), true) => e.to_string(),
        (None, true) => F::DEFAULT_EXTENSION.to_string(),
    };
    ListingOptions::new(Arc::new(format)).with_file_extension(ext)
}

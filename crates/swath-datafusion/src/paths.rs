//! Where a table's object is on the local file system, and whether it is
//! compressed (swath decodes it, but cannot split it).

use std::path::{Path, PathBuf};

use datafusion::error::{DataFusionError, Result};

/// The local path of an object of the local file system store.
pub(crate) fn local_path(location: &object_store::path::Path) -> Result<PathBuf> {
    object_store::local::LocalFileSystem::new().path_to_filesystem(location).map_err(|e| {
        DataFusionError::Execution(format!("swath tables read local files only; {location}: {e}"))
    })
}

/// True when the file (or remote object) starts with the magic number of
/// a compression format (`swath::Compression::detect`): it is read whole,
/// from its start, where swath decodes it (gzip, zstd) and refuses it
/// with the format's name where it does not.
pub(crate) fn is_compressed(path: &Path) -> bool {
    let mut head = [0u8; swath::decompress::MAGIC_LEN];
    let n = swath::range::open_ranged(path)
        .ok()
        .and_then(|(src, _)| swath::range::read_full_at(&*src, &mut head, 0).ok())
        .unwrap_or(0);
    swath::Compression::detect(&head[..n]) != swath::Compression::None
}

/// The path swath opens for an object of a table's store: its local path,
/// or on a remote store (`store_url`, like `s3://bucket/`) its URL.
pub(crate) fn object_path(
    store_url: Option<&str>,
    location: &object_store::path::Path,
) -> Result<PathBuf> {
    match store_url {
        Some(base) => Ok(format!("{}/{location}", base.trim_end_matches('/')).into()),
        None => local_path(location),
    }
}

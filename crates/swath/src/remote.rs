//! URLs where a path is expected: `swath count s3://bucket/big.csv`.
//!
//! The core recognises a URL of a known scheme in any path it is handed
//! ([`Source::open`](crate::Source::open) and everything built on it: the
//! parallel readers, the split plans, the Arrow readers) and opens it
//! through the opener that swath-remote installs
//! (`swath_remote::install()`). The core itself links no object store, TLS
//! or async runtime; without an opener, a URL is an error that says so.
//!
//! What the opener returns is a [`ReadAt`] of known length, so a remote
//! object is read by the same ranges and exact splits as a file.

use std::io;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use crate::error::{Error, Result};
use crate::read_at::ReadAt;

/// Opens a URL: the object's bytes by ranges and its length.
pub type Opener = fn(&str) -> Result<(Arc<dyn ReadAt>, u64)>;

static OPENER: OnceLock<Opener> = OnceLock::new();

/// The URL schemes read as remote objects. `file://` is not among them: a
/// local path is opened as a file.
pub const SCHEMES: &[&str] =
    &["s3", "s3a", "gs", "az", "adl", "azure", "abfs", "abfss", "http", "https"];

/// Install the opener used for URLs. The first call wins; returns whether
/// this one did.
pub fn set_opener(opener: Opener) -> bool {
    OPENER.set(opener).is_ok()
}

/// True when an opener is installed (URLs can be read).
pub fn has_opener() -> bool {
    OPENER.get().is_some()
}

/// `path` as a URL, when it is one of a known scheme (`s3://b/k`). A local
/// file whose path merely looks like one is still reachable as `./s3:/...`.
pub fn as_url(path: &Path) -> Option<&str> {
    let text = path.to_str()?;
    let (scheme, rest) = text.split_once("://")?;
    let known = SCHEMES.iter().any(|s| s.eq_ignore_ascii_case(scheme));
    (known && !rest.is_empty()).then_some(text)
}

/// True when `path` is a URL of a known scheme.
pub fn is_url(path: impl AsRef<Path>) -> bool {
    as_url(path.as_ref()).is_some()
}

/// Open `url` through the installed opener.
pub(crate) fn open(url: &str) -> Result<(Arc<dyn ReadAt>, u64)> {
    match OPENER.get() {
        Some(open) => open(url),
        None => {
            let msg = "URLs are read by swath-remote, which this program was built without";
            Err(Error::from(io::Error::new(io::ErrorKind::Unsupported, msg))
                .with_path(Path::new(url)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_schemes_are_urls_and_paths_are_not() {
        for url in ["s3://b/k.csv", "HTTPS://h/x", "gs://b/o", "az://c/b"] {
            assert!(is_url(url), "{url}");
        }
        for path in ["big.csv", "/tmp/s3://x", "./s3:/b/k", "file:///tmp/x", "s3://", "ftp://h/x"] {
            assert!(!is_url(path), "{path}");
        }
    }
}

//! URLs as inputs: every command that reads a file reads `s3://`, `gs://`,
//! `az://` and `http(s)://` objects too, by ranged GETs (swath-remote,
//! feature `remote`, in the `full` build).

use std::path::Path;

/// What `swath --help` says about URLs.
#[cfg(feature = "remote")]
pub const HELP: &str = "\
Remote input:
  Any FILE may be a URL: s3://bucket/key, gs://bucket/key, az://container/blob,
  http(s)://host/path (a server that answers Range requests). Objects are read
  by ranged GETs, several in flight, pinned to the version (ETag) seen at open:
  an object replaced while read is an error. Faults are retried, then reported
  with the URL and the bytes.
  Credentials: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN,
  AWS_REGION, AWS_ENDPOINT_URL (an S3-compatible server); GOOGLE_*; AZURE_*.
  Tuning: SWATH_REMOTE_IN_FLIGHT (GETs read ahead, 4), SWATH_REMOTE_BLOCK
  (bytes per GET, 16M), SWATH_REMOTE_ATTEMPTS (tries per GET, 5),
  SWATH_REMOTE_TIMEOUT (seconds per try, 30). Memory: (IN_FLIGHT + 2) blocks.";

/// What a lean `swath --help` says about URLs.
#[cfg(not(feature = "remote"))]
pub const HELP: &str = concat!(
    "Remote input:\n  URLs (s3://, gs://, az://, http(s)://) are read by the full build of swath,\n  not this one: ",
    crate::lean::install_full!()
);

/// Give the core its URL opener: swath-remote's, or in a lean build one
/// whose every answer names the install command.
pub fn install() {
    #[cfg(feature = "remote")]
    swath_remote::install();
    #[cfg(not(feature = "remote"))]
    swath::remote::set_opener(crate::lean::open_url);
}

/// True when `path` can be read by ranges and twice: a regular file or a
/// remote object (a pipe or stdin cannot).
pub fn rereadable(path: &Path) -> bool {
    if path == Path::new("-") {
        return false;
    }
    swath::remote::is_url(path) || std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

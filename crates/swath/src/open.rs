//! Opening a path or a URL: the one place that decides what a path is, for
//! the streaming [`Source`](crate::Source) and for the readers by ranges
//! ([`open_ranged`]) alike.

use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::Arc;

use crate::error::{Error, ErrorKind, Result};
use crate::read_at::{read_full_at, ReadAt};

/// What a path turned out to be.
pub(crate) enum Opened {
    /// A remote object, read by ranges through the installed opener.
    Remote {
        /// Its bytes.
        src: Arc<dyn ReadAt>,
        /// Its length.
        len: u64,
    },
    /// A regular file with a length: read by ranges or front to back.
    File {
        /// The open file.
        file: File,
        /// Its length when opened.
        len: u64,
    },
    /// Something read front to back only: a pipe, a device, or a regular
    /// file that reports length 0 (empty, or a `/proc` file whose content
    /// is made as it is read).
    Stream {
        /// The open file.
        file: File,
        /// Whether it is a regular file (of length 0).
        regular: bool,
    },
}

/// Open `path`: a URL of a known scheme through the installed opener
/// ([`crate::remote`]), anything else as a local file.
///
/// # Errors
///
/// The open error (not found, permission denied) with the path, or
/// [`ErrorKind::IsADirectory`]: Linux lets `open` succeed on a directory
/// and fails every `read`, so it is checked here.
pub(crate) fn open_path(path: &Path) -> Result<Opened> {
    if let Some(url) = crate::remote::as_url(path) {
        let (src, len) = crate::remote::open(url)?;
        return Ok(Opened::Remote { src, len });
    }
    let fail = |e: Error| e.with_path(path);
    let file = File::open(path).map_err(|e| fail(e.into()))?;
    let meta = file.metadata().map_err(|e| fail(e.into()))?;
    if meta.is_dir() {
        return Err(fail(Error::new(ErrorKind::IsADirectory)));
    }
    Ok(if meta.is_file() && meta.len() > 0 {
        Opened::File { file, len: meta.len() }
    } else {
        Opened::Stream { file, regular: meta.is_file() }
    })
}

/// Open `path` to read by ranges: a local file (its length from its
/// metadata), or a URL through the installed opener.
///
/// # Errors
///
/// The open error (not found, permission denied) with the path;
/// [`ErrorKind::IsADirectory`](crate::ErrorKind::IsADirectory) for a
/// directory; and a path that cannot be read by ranges: a pipe, a
/// device, or a file that reports length 0 yet has content (a `/proc`
/// file), which would otherwise read as empty. An empty file is fine.
pub fn open_ranged(path: &Path) -> Result<(Arc<dyn ReadAt>, u64)> {
    match open_path(path)? {
        Opened::Remote { src, len } => Ok((src, len)),
        Opened::File { file, len } => Ok((Arc::new(file), len)),
        Opened::Stream { file, regular } => {
            let named = |e: io::Error| Error::from(e).with_path(path);
            if regular && read_full_at(&file, &mut [0u8; 1], 0).map_err(named)? == 0 {
                return Ok((Arc::new(file), 0));
            }
            let what = if regular {
                "a file that reports length 0 yet has content"
            } else {
                "not a regular file"
            };
            let msg = format!(
                "{what}: it can only be read front to back, and this reads it by byte ranges; \
                 copy it to a file first"
            );
            Err(named(io::Error::new(io::ErrorKind::Unsupported, msg)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_directory_is_refused_by_both_ways_in() {
        let dir = std::env::temp_dir();
        let e = open_path(&dir).err().expect("a directory is not streamed");
        assert!(matches!(e.kind(), ErrorKind::IsADirectory), "{e}");
        let e = open_ranged(&dir).err().expect("a directory is not read by ranges");
        assert!(matches!(e.kind(), ErrorKind::IsADirectory), "{e}");
    }

    #[test]
    fn an_empty_file_is_read_by_ranges_and_a_proc_file_is_refused() {
        let f = tempfile::NamedTempFile::new().unwrap();
        let (_, len) = open_ranged(f.path()).unwrap();
        assert_eq!(len, 0);
        // Length 0 in its metadata, content when read.
        let e = open_ranged(Path::new("/proc/self/status")).err().expect("no length to cut");
        assert!(e.to_string().contains("reports length 0 yet has content"), "{e}");
    }
}

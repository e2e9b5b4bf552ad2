//! Where bytes come from: a regular file (read with `read`/`pread`), a
//! stream (stdin, a pipe, a FIFO, a character device, a `/proc` file), or,
//! as an explicit opt-in, a memory map.
//!
//! A stream is never seeked and its `len()` is never trusted: a FIFO reports
//! 0, and so does `/proc/self/status`, which still has lines.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorKind, Result};

/// An opened input.
pub struct Source {
    inner: Inner,
    path: Option<PathBuf>,
}

enum Inner {
    /// A regular file whose size at open is known and non-zero.
    File { file: File, len: u64 },
    /// Anything read front to back until `read` returns 0.
    Stream(Box<dyn Read + Send>),
}

impl Source {
    /// Open `path`; `-` means standard input.
    ///
    /// # Errors
    ///
    /// The open error (not found, permission denied) with the path, or
    /// [`ErrorKind::IsADirectory`]: Linux lets `open` succeed on a directory
    /// and fails every `read`, so we check up front.
    pub fn open(path: impl AsRef<Path>) -> Result<Source> {
        let path = path.as_ref();
        if path == Path::new("-") {
            return Ok(Source::stdin());
        }
        let fail = |e: Error| e.with_path(path);
        let file = File::open(path).map_err(|e| fail(e.into()))?;
        let meta = file.metadata().map_err(|e| fail(e.into()))?;
        if meta.is_dir() {
            return Err(fail(Error::new(ErrorKind::IsADirectory)));
        }
        // A "regular file" of length 0 may be a /proc file that has content:
        // read those as streams, to their real end.
        let inner = if meta.is_file() && meta.len() > 0 {
            Inner::File {
                file,
                len: meta.len(),
            }
        } else {
            Inner::Stream(Box::new(file))
        };
        Ok(Source {
            inner,
            path: Some(path.to_path_buf()),
        })
    }

    /// Standard input, streamed.
    pub fn stdin() -> Source {
        Source {
            inner: Inner::Stream(Box::new(io::stdin())),
            path: None,
        }
    }

    /// Any reader, streamed; `name` is used in error messages.
    pub fn from_reader(rdr: impl Read + Send + 'static, name: Option<PathBuf>) -> Source {
        Source {
            inner: Inner::Stream(Box::new(rdr)),
            path: name,
        }
    }

    /// The path, or `None` for standard input.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// A name for messages: the path, or `-` for standard input.
    pub fn name(&self) -> String {
        match &self.path {
            Some(p) => p.display().to_string(),
            None => "-".to_string(),
        }
    }

    /// The size at open, for a regular file; `None` for a stream.
    pub fn len(&self) -> Option<u64> {
        match &self.inner {
            Inner::File { len, .. } => Some(*len),
            Inner::Stream(_) => None,
        }
    }

    /// True for a regular file of size 0 or a stream we cannot size.
    pub fn is_empty(&self) -> bool {
        self.len().is_none_or(|n| n == 0)
    }

    /// The file, when this is a regular file that can be read by ranges.
    pub fn file(&self) -> Option<&File> {
        match &self.inner {
            Inner::File { file, .. } => Some(file),
            Inner::Stream(_) => None,
        }
    }

    /// Map the file into memory.
    ///
    /// # Safety
    ///
    /// The file must not be truncated or modified by anyone while the map is
    /// alive: a truncated mapped file raises `SIGBUS` (a crash, not an error)
    /// on the next access past the new end, which is why mmap is opt-in and
    /// not the default (`logrotate copytruncate` does exactly that).
    ///
    /// # Errors
    ///
    /// When this is not a regular file, or the OS refuses the map.
    pub unsafe fn map(&self) -> Result<memmap2::Mmap> {
        let Some(file) = self.file() else {
            let err = io::Error::new(io::ErrorKind::Unsupported, "cannot mmap a stream");
            return Err(self.with_path(err.into()));
        };
        // SAFETY: the caller guarantees the file is not changed while mapped.
        let map = unsafe { memmap2::Mmap::map(file) }.map_err(|e| self.with_path(e.into()))?;
        // Sequential access lets the kernel read ahead aggressively.
        let _ = map.advise(memmap2::Advice::Sequential);
        Ok(map)
    }

    fn with_path(&self, err: Error) -> Error {
        match &self.path {
            Some(p) => err.with_path(p),
            None => err,
        }
    }
}

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::File { file, .. } => file.read(buf),
            Inner::Stream(s) => s.read(buf),
        }
    }
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Source")
            .field("path", &self.path)
            .field("len", &self.len())
            .finish()
    }
}

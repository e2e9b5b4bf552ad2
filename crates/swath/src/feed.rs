//! A [`Buffer`] bound to its source: the refill loop every reader shares.
//!
//! [`Feed`] owns the reader and the buffer, remembers end of input, turns
//! every I/O error except `Interrupted` into a sticky failure (a reader never
//! silently resumes after an error), and checks at end of input that a file
//! delivered as many bytes as it had when it was opened.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::buffer::Buffer;
use crate::error::{Error, ErrorKind, Position, Result};

/// A buffer and the source that fills it.
pub struct Feed<R> {
    rdr: R,
    buf: Buffer,
    eof: bool,
    /// Size of the file at open, when it is a regular file of known size.
    expected_len: Option<u64>,
    path: Option<PathBuf>,
    /// Set once a fill failed: the message, repeated on every later call.
    failed: Option<(String, Position)>,
}

impl<R: Read> Feed<R> {
    /// Bind `buf` to `rdr`.
    pub fn new(rdr: R, buf: Buffer) -> Feed<R> {
        Feed { rdr, buf, eof: false, expected_len: None, path: None, failed: None }
    }

    /// Expect exactly `len` bytes: fewer at end of input is a
    /// [`ErrorKind::Truncated`] error rather than a clean end.
    pub fn expect_len(&mut self, len: Option<u64>) {
        self.expected_len = len;
    }

    /// Name the input in errors.
    pub fn set_path(&mut self, path: Option<PathBuf>) {
        self.path = path;
    }

    /// The input's path, if it has one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The buffer (read its unconsumed bytes with `buffer().data()`).
    #[inline]
    pub fn buffer(&self) -> &Buffer {
        &self.buf
    }

    /// The buffer, to consume from it.
    #[inline]
    pub fn buffer_mut(&mut self) -> &mut Buffer {
        &mut self.buf
    }

    /// True once the source reported end of input.
    #[inline]
    pub fn is_eof(&self) -> bool {
        self.eof
    }

    /// The inner reader.
    pub fn get_ref(&self) -> &R {
        &self.rdr
    }

    /// Unwrap into the reader and the buffer.
    pub fn into_parts(self) -> (R, Buffer) {
        (self.rdr, self.buf)
    }

    /// Read once more into the buffer. Returns `Ok(false)` at end of input.
    ///
    /// `line` is the caller's current line number, used only to place errors.
    ///
    /// # Errors
    ///
    /// An I/O error of the source (sticky: every later call fails too), or
    /// [`ErrorKind::Truncated`] when the input ended before its size at open.
    /// The caller must have checked [`Buffer::make_room`] if it needs to tell
    /// "record too long" apart; a full buffer at its maximum is an I/O error
    /// of kind `OutOfMemory` here.
    pub fn refill(&mut self, line: u64) -> Result<bool> {
        if let Some((msg, pos)) = &self.failed {
            let err =
                std::io::Error::other(format!("reading stopped after an earlier error: {msg}"));
            return Err(self.locate(Error::from(err), *pos));
        }
        if self.eof {
            return Ok(false);
        }
        let pos = Position::new(self.buf.offset() + self.buf.len() as u64, line, 0);
        match self.buf.fill(&mut self.rdr) {
            Ok(0) => {
                self.eof = true;
                let got = self.buf.offset() + self.buf.len() as u64;
                match self.expected_len {
                    Some(expected) if got < expected => {
                        let err = Error::new(ErrorKind::Truncated { expected, got });
                        self.failed = Some((err.kind().to_string(), pos));
                        Err(self.locate(err, pos))
                    }
                    _ => Ok(false),
                }
            }
            Ok(_) => Ok(true),
            Err(e) => {
                self.failed = Some((e.to_string(), pos));
                Err(self.locate(Error::from(e), pos))
            }
        }
    }

    /// Mark the feed failed with `err`'s message (for errors found by the
    /// framing above, such as a line too long), and return `err` located.
    pub fn fail(&mut self, err: Error, pos: Position) -> Error {
        self.failed = Some((err.kind().to_string(), pos));
        self.locate(err, pos)
    }

    fn locate(&self, err: Error, pos: Position) -> Error {
        let err = err.at(pos);
        match &self.path {
            Some(p) => err.with_path(p),
            None => err,
        }
    }
}

impl<R> std::fmt::Debug for Feed<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Feed")
            .field("buf", &self.buf)
            .field("eof", &self.eof)
            .field("path", &self.path)
            .finish()
    }
}

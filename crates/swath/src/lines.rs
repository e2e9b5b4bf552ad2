//! Lines over the shared buffer, with no allocation per line.
//!
//! [`LineReader::next_line`] hands out a `&[u8]` borrowed from the buffer,
//! valid until the next call. A line longer than the limit is an error
//! ([`ErrorKind::LineTooLong`]), never a truncated line.

use std::io::Read;
use std::path::Path;

use crate::buffer::{Buffer, DEFAULT_CAPACITY};
use crate::error::{Error, ErrorKind, Position, Result};
use crate::feed::Feed;
use crate::source::Source;

/// Default maximum line length (terminator included): 64 MiB.
pub const DEFAULT_MAX_LINE_LEN: usize = 64 * 1024 * 1024;

/// Configures a [`LineReader`].
#[derive(Clone, Debug)]
pub struct LineReaderBuilder {
    capacity: usize,
    max_line_len: usize,
    keep_terminator: bool,
}

impl Default for LineReaderBuilder {
    fn default() -> Self {
        LineReaderBuilder {
            capacity: DEFAULT_CAPACITY,
            max_line_len: DEFAULT_MAX_LINE_LEN,
            keep_terminator: false,
        }
    }
}

impl LineReaderBuilder {
    /// The defaults: 256 KiB buffer, 64 MiB line limit, terminators stripped.
    pub fn new() -> LineReaderBuilder {
        LineReaderBuilder::default()
    }

    /// Buffer capacity in bytes (at least 1).
    pub fn capacity(&mut self, cap: usize) -> &mut Self {
        self.capacity = cap.max(1);
        self
    }

    /// The longest line accepted, terminator included (at least 1).
    pub fn max_line_len(&mut self, max: usize) -> &mut Self {
        self.max_line_len = max.max(1);
        self
    }

    /// Keep the `\n` or `\r\n` at the end of each line (default: strip it).
    pub fn keep_terminator(&mut self, yes: bool) -> &mut Self {
        self.keep_terminator = yes;
        self
    }

    /// A line reader over any reader (streamed; no size check at the end).
    pub fn from_reader<R: Read>(&self, rdr: R) -> LineReader<R> {
        let mut buf = Buffer::with_capacity(self.capacity);
        // One byte over the limit is enough to know a line is too long.
        buf.set_max_capacity(self.max_line_len.saturating_add(1));
        LineReader {
            feed: Feed::new(rdr, buf),
            keep_terminator: self.keep_terminator,
            max_line_len: self.max_line_len,
            pending: 0,
            scanned: 0,
            line: 0,
            line_offset: 0,
            terminated: true,
        }
    }

    /// A line reader over an opened [`Source`]; a regular file that ends
    /// short of its size at open is a [`ErrorKind::Truncated`] error.
    pub fn from_source(&self, src: Source) -> LineReader<Source> {
        let len = src.len();
        let path = src.path().map(Path::to_path_buf);
        let mut rdr = self.from_reader(src);
        rdr.feed.expect_len(len);
        rdr.feed.set_path(path);
        rdr
    }

    /// Open `path` (`-` for stdin) and read its lines.
    ///
    /// # Errors
    ///
    /// As [`Source::open`].
    pub fn from_path(&self, path: impl AsRef<Path>) -> Result<LineReader<Source>> {
        Ok(self.from_source(Source::open(path)?))
    }
}

/// Reads lines from a source through one reused buffer.
///
/// # Examples
///
/// ```
/// use swath::LineReader;
///
/// let mut rdr = LineReader::new(&b"one\ntwo\r\nthree"[..]);
/// let mut lines = Vec::new();
/// while let Some(line) = rdr.next_line()? {
///     // Borrowed from the buffer until the next call.
///     lines.push(String::from_utf8_lossy(line).into_owned());
/// }
/// assert_eq!(lines, ["one", "two", "three"]);
/// # Ok::<(), swath::Error>(())
/// ```
pub struct LineReader<R> {
    feed: Feed<R>,
    keep_terminator: bool,
    max_line_len: usize,
    /// Bytes of the previous line still to consume before the next call.
    pending: usize,
    /// Bytes of the current partial line already searched for `\n`, so a
    /// line spanning many refills is scanned once, not once per refill.
    scanned: usize,
    /// Number of the last line returned (1-based; 0 before the first).
    line: u64,
    /// Byte offset of the start of the last line returned.
    line_offset: u64,
    /// Whether the last line returned ended with `\n`.
    terminated: bool,
}

impl<R: Read> LineReader<R> {
    /// A line reader with the default settings.
    pub fn new(rdr: R) -> LineReader<R> {
        LineReaderBuilder::new().from_reader(rdr)
    }

    /// The next line, without its terminator unless configured to keep it,
    /// or `None` at end of input. An empty input has no lines; `"\n"` has
    /// one empty line; a final line without `\n` is still a line (see
    /// [`last_line_terminated`](Self::last_line_terminated)).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::LineTooLong`], [`ErrorKind::Truncated`], or an I/O error,
    /// each with its position. Errors are sticky: after one, every call fails.
    pub fn next_line(&mut self) -> Result<Option<&[u8]>> {
        self.feed.buffer_mut().consume(self.pending);
        self.pending = 0;
        loop {
            let data = self.feed.buffer().data();
            if let Some(i) = memchr::memchr(b'\n', &data[self.scanned..]) {
                let len = self.scanned + i + 1;
                if len > self.max_line_len {
                    return Err(self.too_long());
                }
                self.terminated = true;
                return Ok(Some(self.take_line(len)));
            }
            self.scanned = data.len();
            if data.len() > self.max_line_len {
                return Err(self.too_long());
            }
            if self.feed.is_eof() {
                if data.is_empty() {
                    return Ok(None);
                }
                self.terminated = false;
                let len = data.len();
                return Ok(Some(self.take_line(len)));
            }
            // The buffer may grow to max_line_len + 1, so there is always
            // room here: a longer partial line was caught just above.
            self.feed.refill(self.line + 1)?;
        }
    }

    /// The next line as `&str`.
    ///
    /// # Errors
    ///
    /// As [`next_line`](Self::next_line), plus [`ErrorKind::InvalidUtf8`]
    /// with the line's position. That error is not sticky: the next call
    /// returns the next line.
    pub fn next_line_str(&mut self) -> Result<Option<&str>> {
        if self.next_line()?.is_none() {
            return Ok(None);
        }
        let line = self.current_line();
        match std::str::from_utf8(line) {
            Ok(s) => Ok(Some(s)),
            Err(e) => {
                let pos = Position::new(self.line_offset + e.valid_up_to() as u64, self.line, 0);
                let err = Error::new(ErrorKind::InvalidUtf8 { valid_up_to: e.valid_up_to() });
                Err(match self.feed.path() {
                    Some(p) => err.at(pos).with_path(p),
                    None => err.at(pos),
                })
            }
        }
    }

    /// Call `f` with every line until it returns `false` or input ends.
    ///
    /// # Errors
    ///
    /// As [`next_line`](Self::next_line).
    pub fn for_each_line(&mut self, mut f: impl FnMut(&[u8]) -> bool) -> Result<()> {
        while let Some(line) = self.next_line()? {
            if !f(line) {
                break;
            }
        }
        Ok(())
    }

    /// Like [`for_each_line`](Self::for_each_line), for a closure that can
    /// fail: its error stops reading and is returned.
    ///
    /// # Errors
    ///
    /// The closure's error, or a reading error converted into `E`.
    pub fn try_for_each_line<E: From<Error>>(
        &mut self,
        mut f: impl FnMut(&[u8]) -> std::result::Result<bool, E>,
    ) -> std::result::Result<(), E> {
        while let Some(line) = self.next_line()? {
            if !f(line)? {
                break;
            }
        }
        Ok(())
    }

    /// Number (1-based) of the last line returned; 0 before the first.
    pub fn line_number(&self) -> u64 {
        self.line
    }

    /// Byte offset (0-based) of the start of the last line returned.
    pub fn line_offset(&self) -> u64 {
        self.line_offset
    }

    /// The position of the last line returned.
    pub fn position(&self) -> Position {
        Position::new(self.line_offset, self.line, 0)
    }

    /// Whether the last line returned ended with `\n` (false only for a
    /// final line without terminator): what a byte-exact copy needs.
    pub fn last_line_terminated(&self) -> bool {
        self.terminated
    }

    /// The inner reader.
    pub fn get_ref(&self) -> &R {
        self.feed.get_ref()
    }

    /// Mark `len` bytes as the next line and return it, stripped as configured.
    fn take_line(&mut self, len: usize) -> &[u8] {
        self.pending = len;
        self.scanned = 0;
        self.line += 1;
        self.line_offset = self.feed.buffer().offset();
        self.current_line()
    }

    /// The last line returned, stripped as configured.
    fn current_line(&self) -> &[u8] {
        let line = &self.feed.buffer().data()[..self.pending];
        if self.keep_terminator || !self.terminated {
            return line;
        }
        let line = &line[..line.len() - 1];
        line.strip_suffix(b"\r").unwrap_or(line)
    }

    fn too_long(&mut self) -> Error {
        let pos = Position::new(self.feed.buffer().offset(), self.line + 1, 0);
        let err = Error::new(ErrorKind::LineTooLong { limit: self.max_line_len });
        self.feed.fail(err, pos)
    }
}

impl<R> std::fmt::Debug for LineReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineReader").field("feed", &self.feed).field("line", &self.line).finish()
    }
}

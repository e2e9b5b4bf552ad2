//! Configuring a reader: every option, validated once at build time.

use std::io::Read;
use std::path::Path;

use swath::buffer::DEFAULT_CAPACITY;
use swath::Source;

use crate::classify::Kernel;
use crate::error::{Error, ErrorKind, Result};
use crate::reader::Reader;

/// Default maximum record size: 64 MiB (terminator excluded). A record
/// longer than this is an error, never a truncation, and the buffer never
/// grows past it.
pub const DEFAULT_MAX_RECORD_BYTES: usize = 64 * 1024 * 1024;

/// Default maximum number of fields in one record: 1,048,576 (16 MiB of
/// field bounds at most).
pub const DEFAULT_MAX_FIELDS: usize = 1 << 20;

/// How many fields each record must have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldCount {
    /// As many as the first record (the header row when there is one), as
    /// the `csv` crate does with `flexible(false)`. The default.
    Learn,
    /// Exactly this many.
    Fixed(usize),
    /// Any number (`flexible(true)`).
    Any,
}

/// Everything a reader needs to know, validated.
#[derive(Clone, Debug)]
pub(crate) struct Config {
    pub(crate) delim: u8,
    pub(crate) quote: u8,
    pub(crate) quoting: bool,
    pub(crate) double_quote: bool,
    pub(crate) escape: Option<u8>,
    pub(crate) comment: Option<u8>,
    pub(crate) has_headers: bool,
    pub(crate) fields: FieldCount,
    pub(crate) skip_empty_lines: bool,
    pub(crate) lenient: bool,
    pub(crate) max_record: usize,
    pub(crate) max_fields: usize,
    pub(crate) capacity: usize,
    pub(crate) kernel: Kernel,
}

/// Builds a [`Reader`]: `ReaderBuilder::new().delimiter(b';').from_path(p)`.
///
/// The defaults: `,` delimiter, `"` quote with doubled-quote escaping, no
/// escape byte, no comments, a header row, the field count learnt from the
/// first record, empty lines skipped (as the `csv` crate does), strict
/// quoting, 64 MiB records at most, a 256 KiB buffer, the fastest
/// classifier the CPU has.
#[derive(Clone, Debug)]
pub struct ReaderBuilder {
    cfg: Config,
}

impl Default for ReaderBuilder {
    fn default() -> ReaderBuilder {
        ReaderBuilder {
            cfg: Config {
                delim: b',',
                quote: b'"',
                quoting: true,
                double_quote: true,
                escape: None,
                comment: None,
                has_headers: true,
                fields: FieldCount::Learn,
                skip_empty_lines: true,
                lenient: false,
                max_record: DEFAULT_MAX_RECORD_BYTES,
                max_fields: DEFAULT_MAX_FIELDS,
                capacity: DEFAULT_CAPACITY,
                kernel: Kernel::detect(),
            },
        }
    }
}

impl ReaderBuilder {
    /// The defaults (see the type's documentation).
    pub fn new() -> ReaderBuilder {
        ReaderBuilder::default()
    }

    /// The field delimiter: one ASCII byte other than the quote, `\r`, `\n`.
    pub fn delimiter(&mut self, b: u8) -> &mut Self {
        self.cfg.delim = b;
        self
    }

    /// The quote byte (default `"`).
    pub fn quote(&mut self, b: u8) -> &mut Self {
        self.cfg.quote = b;
        self
    }

    /// Whether quotes are special at all (default true). Off, the quote
    /// byte is ordinary data.
    pub fn quoting(&mut self, yes: bool) -> &mut Self {
        self.cfg.quoting = yes;
        self
    }

    /// Whether `""` inside a quoted field is one quote (default true).
    pub fn double_quote(&mut self, yes: bool) -> &mut Self {
        self.cfg.double_quote = yes;
        self
    }

    /// An escape byte that makes the next byte inside a quoted field literal
    /// (e.g. `Some(b'\\')`; default none).
    pub fn escape(&mut self, b: Option<u8>) -> &mut Self {
        self.cfg.escape = b;
        self
    }

    /// A comment byte: a record starting with it is skipped up to the end
    /// of its line (`\n`, `\r` or `\r\n`; the `csv` crate ends comments only
    /// at `\n`, BAD-INPUTS A3.2). Default none.
    pub fn comment(&mut self, b: Option<u8>) -> &mut Self {
        self.cfg.comment = b;
        self
    }

    /// Whether the first record is a header row (default true).
    pub fn has_headers(&mut self, yes: bool) -> &mut Self {
        self.cfg.has_headers = yes;
        self
    }

    /// Accept records of any length (`true`) or learn the count from the
    /// first record (`false`, the default).
    pub fn flexible(&mut self, yes: bool) -> &mut Self {
        self.cfg.fields = if yes { FieldCount::Any } else { FieldCount::Learn };
        self
    }

    /// How many fields each record must have.
    pub fn field_count(&mut self, fields: FieldCount) -> &mut Self {
        self.cfg.fields = fields;
        self
    }

    /// Skip empty lines (default true, as the `csv` crate does). When false,
    /// an empty line is a record of one empty field, as in RFC 4180.
    pub fn skip_empty_lines(&mut self, yes: bool) -> &mut Self {
        self.cfg.skip_empty_lines = yes;
        self
    }

    /// Lenient quoting: behave exactly like the `csv` crate on every input
    /// (bare quotes are data, text after a closing quote is appended, an
    /// open quote runs to the end of input) instead of reporting errors.
    /// Default false (strict).
    pub fn lazy_quotes(&mut self, yes: bool) -> &mut Self {
        self.cfg.lenient = yes;
        self
    }

    /// The longest record accepted, in bytes, terminator excluded (at least
    /// 1; default [`DEFAULT_MAX_RECORD_BYTES`]).
    pub fn max_record_bytes(&mut self, max: usize) -> &mut Self {
        self.cfg.max_record = max.clamp(1, usize::MAX / 4);
        self
    }

    /// The most fields one record may have (at least 1; default
    /// [`DEFAULT_MAX_FIELDS`]).
    pub fn max_fields(&mut self, max: usize) -> &mut Self {
        self.cfg.max_fields = max.max(1);
        self
    }

    /// The buffer's capacity in bytes (at least 1; default 256 KiB). It
    /// grows only to hold one record longer than itself.
    pub fn capacity(&mut self, cap: usize) -> &mut Self {
        self.cfg.capacity = cap.max(1);
        self
    }

    /// Force a classifier kernel (tests and the lab; default: the fastest).
    pub fn kernel(&mut self, kernel: Kernel) -> &mut Self {
        self.cfg.kernel = kernel;
        self
    }

    pub(crate) fn config(&self) -> &Config {
        &self.cfg
    }

    /// Check the configuration.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Config`] when the delimiter is not ASCII or is `\r`,
    /// `\n` or the quote byte; when the quote, escape or comment byte is
    /// `\r`, `\n` or equals the delimiter; when the escape equals the quote.
    pub fn validate(&self) -> Result<()> {
        let c = &self.cfg;
        let bad = |msg: String| Err(Error::new(ErrorKind::Config(msg)));
        let show = |b: u8| std::ascii::escape_default(b).to_string();
        if !c.delim.is_ascii() {
            return bad(format!(
                "delimiter byte 0x{:02x} is not ASCII; a multi-byte delimiter cannot be expressed",
                c.delim
            ));
        }
        for (name, b) in [
            ("delimiter", Some(c.delim)),
            ("quote", Some(c.quote).filter(|_| c.quoting)),
            ("escape", c.escape),
            ("comment", c.comment),
        ] {
            if let Some(b @ (b'\r' | b'\n')) = b {
                return bad(format!("the {name} cannot be {:?}", show(b)));
            }
        }
        if c.quoting && c.delim == c.quote {
            return bad(format!("the delimiter and the quote are both '{}'", show(c.delim)));
        }
        if c.escape == Some(c.delim) {
            return bad(format!("the delimiter and the escape are both '{}'", show(c.delim)));
        }
        if c.comment == Some(c.delim) {
            return bad(format!("the delimiter and the comment are both '{}'", show(c.delim)));
        }
        if c.quoting && c.escape == Some(c.quote) {
            return bad(format!(
                "the escape and the quote are both '{}' (use double_quote)",
                show(c.quote)
            ));
        }
        Ok(())
    }

    /// A reader over any `io::Read` (streamed).
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate).
    pub fn from_reader<R: Read>(&self, rdr: R) -> Result<Reader<R>> {
        self.validate()?;
        Ok(Reader::with_config(rdr, self.cfg.clone()))
    }

    /// A reader over `rdr`, whose first byte is the first byte of a record
    /// at `start` of a larger input (a known record start: from
    /// [`ParallelReader::record_starts`](crate::ParallelReader::record_starts)
    /// or a split plan). Positions in records and errors are `start`'s
    /// coordinates onwards (`start.record` is the record's number; 0 when
    /// unknown makes numbers relative). No header row is read; the field
    /// count is learned from the first record read.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate).
    pub fn from_reader_at<R: Read>(&self, rdr: R, start: swath::Position) -> Result<Reader<R>> {
        let mut r = self.from_reader(rdr)?;
        if start.byte > 0 {
            let before = start.record.saturating_sub(1);
            r.resume_at(start.byte, start.line.max(1), before, None, None);
        }
        Ok(r)
    }

    /// A reader over an opened [`Source`]: errors name its path, and a file
    /// that ends short of its size at open is an error.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate).
    pub fn from_source(&self, src: Source) -> Result<Reader<Source>> {
        let len = src.len();
        let path = src.path().map(Path::to_path_buf);
        let mut rdr = self.from_reader(src)?;
        rdr.set_source_info(len, path);
        Ok(rdr)
    }

    /// Open `path` (`-` for stdin) and read it.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate), and the open error with the path.
    pub fn from_path(&self, path: impl AsRef<Path>) -> Result<Reader<Source>> {
        self.validate()?;
        self.from_source(Source::open(path)?)
    }
}

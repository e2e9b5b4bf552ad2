//! Configuring a reader: every option, validated once at build time.

use std::io::Read;
use std::path::Path;

use swath::Source;

use super::config::{Config, FieldCount};
use super::Reader;
use crate::classify::Kernel;
use crate::error::Result;

/// Builds a [`Reader`]: `ReaderBuilder::new().delimiter(b';').from_path(p)`.
///
/// The defaults: `,` delimiter, `"` quote with doubled-quote escaping, no
/// escape byte, no comments, a header row, the field count learnt from the
/// first record, empty lines skipped (as the `csv` crate does), strict
/// quoting, 64 MiB records at most, a 256 KiB buffer, the fastest
/// classifier the CPU has.
///
/// ```
/// use swath_csv::{ErrorKind, ReaderBuilder};
///
/// let data = b"# a comment\ncity;pop\nOslo;709037\nBergen;\"28\"5900\n";
/// let mut rdr = ReaderBuilder::new().delimiter(b';').comment(Some(b'#')).from_reader(&data[..])?;
/// let (city, pop): (&str, u32) = rdr.next_record()?.unwrap().scan()?;
/// assert_eq!((city, pop), ("Oslo", 709037));
/// // Strict by default: text after a closing quote is an error ...
/// let err = rdr.next_record().unwrap_err();
/// assert!(matches!(err.kind(), ErrorKind::TextAfterQuote));
///
/// // ... and data, as the `csv` crate reads it, when lenient.
/// let mut rdr = ReaderBuilder::new().delimiter(b';').comment(Some(b'#')).lenient(true).from_reader(&data[..])?;
/// rdr.next_record()?;
/// assert_eq!(rdr.next_record()?.unwrap().get(1), Some(&b"285900"[..]));
/// # Ok::<(), swath_csv::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ReaderBuilder {
    cfg: Config,
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
    /// at `\n`; the repository's `docs/bad-inputs.md`, A3.2). Default none.
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
    pub fn lenient(&mut self, yes: bool) -> &mut Self {
        self.cfg.lenient = yes;
        self
    }

    /// What to do with a record that has a recoverable error (a field
    /// count that differs; in strict mode a quoting error): return the
    /// error ([`OnBad::Fail`](crate::OnBad::Fail), the default), or put it aside and read on
    /// ([`OnBad::PutAside`](crate::OnBad::PutAside); see [`BadRecord`](crate::BadRecord)).
    ///
    /// ```
    /// use swath_csv::{OnBad, ReaderBuilder};
    ///
    /// let data = "a,b\n1,2\n3\n4,5\n";
    /// let mut rdr = ReaderBuilder::new().on_bad(OnBad::PutAside).from_reader(data.as_bytes())?;
    /// let mut good = Vec::new();
    /// while let Some(rec) = rdr.next_record()? {
    ///     good.push(rec.get_str(0)?.to_string());
    /// }
    /// assert_eq!(good, ["1", "4"]);
    /// let bad = rdr.take_bad_records();
    /// assert_eq!(bad[0].bytes(), b"3\n");
    /// assert_eq!(bad[0].position().record, 3);
    /// assert_eq!(bad[0].error().to_string(), "record 3 (line 3, byte 8): record has 1 fields, expected 2");
    /// # Ok::<(), swath_csv::Error>(())
    /// ```
    pub fn on_bad(&mut self, on_bad: crate::OnBad) -> &mut Self {
        self.cfg.on_bad = on_bad;
        self
    }

    /// The longest record accepted, in bytes, terminator excluded (at least
    /// 1; default [`DEFAULT_MAX_RECORD_BYTES`](crate::DEFAULT_MAX_RECORD_BYTES)).
    ///
    /// This bounds memory: a reader's buffer grows only to hold one record
    /// and never past this limit; from 1 MiB on it grows in place (`mremap`,
    /// see `swath::buffer`), so it never holds an old and a new copy at
    /// once. Peak RSS of `swath csv count` and `csv select` is the longest
    /// record read (at most this limit) plus about 8 MiB (the process and
    /// per-thread 256 KiB buffers), tested at 12 MiB; measured 100 MiB
    /// field: 106 MiB.
    pub fn max_record_bytes(&mut self, max: usize) -> &mut Self {
        self.cfg.max_record = max.clamp(1, usize::MAX / 4);
        self
    }

    /// The most fields one record may have (at least 1; default
    /// [`DEFAULT_MAX_FIELDS`](crate::DEFAULT_MAX_FIELDS)).
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
    /// [`ErrorKind::Config`](crate::ErrorKind::Config) when the delimiter is not ASCII or is `\r`,
    /// `\n` or the quote byte; when the quote, escape or comment byte is
    /// `\r`, `\n` or equals the delimiter; when the escape equals the quote.
    pub fn validate(&self) -> Result<()> {
        self.cfg.validate()
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
        self.validate()?;
        Ok(Reader::over_source(src, self.cfg.clone()))
    }

    /// Open `path` (`-` for stdin) and read it.
    ///
    /// # Errors
    ///
    /// As [`validate`](Self::validate), and the open error with the path.
    pub fn from_path(&self, path: impl AsRef<Path>) -> Result<Reader<Source>> {
        self.validate()?;
        self.from_source(self.open_source(path)?)
    }

    /// How a file's text is decoded to UTF-8 when it is opened by path
    /// ([`from_path`](Self::from_path), the parallel reader): its encoding,
    /// `auto`, and lossy or not (default: UTF-8, or what a byte order mark
    /// says). A reader over an `io::Read` takes its bytes as UTF-8.
    pub fn encoding(&mut self, how: swath::text::Decoding) -> &mut Self {
        self.cfg.decoding = how;
        self
    }

    /// The decoding set by [`encoding`](Self::encoding).
    pub fn decoding(&self) -> swath::text::Decoding {
        self.cfg.decoding
    }

    /// Open `path` (`-` for stdin), decompressed and its text decoded as
    /// [`encoding`](Self::encoding) says: the source every reader of a
    /// path reads.
    ///
    /// # Errors
    ///
    /// The open error with the path, or the error reading its first bytes.
    pub fn open_source(&self, path: impl AsRef<Path>) -> swath::Result<Source> {
        Source::open(path)?.decoded_text(self.cfg.decoding)?.with_body(self.cfg.body())
    }

    /// As [`open_source`](Self::open_source), for a reader of the whole
    /// file by ranges on every core: a file in a single-byte encoding is
    /// its text by ranges ([`Source::decoded_text_by_ranges`]).
    ///
    /// # Errors
    ///
    /// As [`open_source`](Self::open_source).
    pub fn open_source_by_ranges(&self, path: impl AsRef<Path>) -> swath::Result<Source> {
        Source::open(path)?.decoded_text_by_ranges(self.cfg.decoding)?.with_body(self.cfg.body())
    }

    /// The bytes of the file or object at `path` by ranges, as they are
    /// (not decompressed, not decoded), with its preamble and footer left
    /// out as [`skip`](Self::skip) and [`footer_lines`](Self::footer_lines)
    /// say: what a split plan cuts. Returns them and their length (where
    /// the footer starts).
    ///
    /// # Errors
    ///
    /// The open error, an I/O error, or the preamble's (no line matched).
    pub fn open_ranged(
        &self,
        path: impl AsRef<Path>,
    ) -> swath::Result<(std::sync::Arc<dyn swath::ReadAt>, u64)> {
        let path = path.as_ref();
        let (file, len) = swath::range::open_ranged(path)?;
        self.body_of(file, len, path)
    }

    /// As [`open_ranged`](Self::open_ranged), of bytes already open.
    pub(crate) fn body_of(
        &self,
        file: std::sync::Arc<dyn swath::ReadAt>,
        len: u64,
        path: &Path,
    ) -> swath::Result<(std::sync::Arc<dyn swath::ReadAt>, u64)> {
        let src = Source::ranged(file, len, path).with_body(self.cfg.body())?;
        match (src.shared_ranged_source()?, src.len()) {
            (Some(file), Some(len)) => Ok((file, len)),
            _ => unreachable!("a ranged source stays ranged"),
        }
    }

    /// Skip lines before the records (the header row, or the first record
    /// without one): the first N, or every line before the first that
    /// matches. Lines are split at `\n`, as an editor numbers them; every
    /// position reported is still the file's. Default: none, but an Excel
    /// `sep=X` first line, which is never a record (with another delimiter
    /// than X it is an error). Needs empty lines skipped
    /// ([`skip_empty_lines`](Self::skip_empty_lines)).
    pub fn skip(&mut self, skip: crate::preamble::Skip) -> &mut Self {
        self.cfg.skip = skip;
        self
    }

    /// Leave out the last `n` lines (a footer such as "Totals"; empty lines
    /// at the very end are not counted). Default 0.
    pub fn footer_lines(&mut self, n: u64) -> &mut Self {
        self.cfg.footer_lines = n;
        self
    }
}

//! `WriterBuilder`: every option of the writer, and the precomputed tables
//! the hot path uses (which bytes force quoting).

use std::fs::File;
use std::io;
use std::path::Path;

use super::encode::Encoder;
use super::error::WriteError;
use super::special::Specials;
use super::Writer;

/// Default size of the writer's output buffer: 256 KiB, like the reader's
/// buffer (fewer `write` calls than 64 KiB, still inside L2).
pub const DEFAULT_BUFFER_CAPACITY: usize = 256 * 1024;

/// When a field is quoted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum QuoteStyle {
    /// Only when needed for the field to read back unchanged: it holds the
    /// delimiter, the quote, the escape byte, `\r` or `\n`, starts with the
    /// comment byte (when one is set), or is the only, empty field of its
    /// record.
    #[default]
    Necessary,
    /// Every field.
    Always,
    /// Every field that is not a number, plus the fields that need it.
    /// Typed numbers (whose [`ToField::kind`](super::ToField::kind) is [`FieldKind::Number`](super::FieldKind::Number)) are
    /// numbers; raw bytes are numbers when they parse as an integer or a
    /// float (as the `csv` crate decides).
    NonNumeric,
    /// Never. A field holding the delimiter, `\r` or `\n`, or a record of
    /// one empty field, then cannot be read back as written: this style is
    /// for data known to be plain.
    Never,
}

/// The record terminator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Terminator {
    /// `\n` (the default).
    #[default]
    Lf,
    /// `\r\n` (RFC 4180).
    CrLf,
}

/// Options of a [`Writer`]. `&mut self` setters, then
/// [`from_writer`](WriterBuilder::from_writer) or
/// [`from_path`](WriterBuilder::from_path).
///
/// ```
/// use swath_csv::{QuoteStyle, Terminator, WriterBuilder};
///
/// let mut wtr = WriterBuilder::new()
///     .delimiter(b';')
///     .terminator(Terminator::CrLf)
///     .quote_style(QuoteStyle::Necessary)
///     .from_writer(Vec::new());
/// wtr.write_row((1u32, "a;b", 2.5f64)).unwrap();
/// assert_eq!(wtr.finish().unwrap(), b"1;\"a;b\";2.5\r\n");
/// ```
#[derive(Clone, Debug)]
pub struct WriterBuilder {
    pub(crate) delimiter: u8,
    pub(crate) quote: u8,
    pub(crate) escape: Option<u8>,
    pub(crate) terminator: Terminator,
    pub(crate) style: QuoteStyle,
    pub(crate) fields: Option<usize>,
    pub(crate) formula_guard: bool,
    pub(crate) comment: Option<u8>,
    pub(crate) capacity: usize,
    pub(crate) has_headers: bool,
}

impl Default for WriterBuilder {
    fn default() -> WriterBuilder {
        WriterBuilder::new()
    }
}

impl WriterBuilder {
    /// The defaults: `,`, `"` escaped by doubling, `\n`,
    /// [`QuoteStyle::Necessary`], any field count, no formula guard, no
    /// comment byte, a 256 KiB buffer, headers written by `serialize`.
    pub fn new() -> WriterBuilder {
        WriterBuilder {
            delimiter: b',',
            quote: b'"',
            escape: None,
            terminator: Terminator::Lf,
            style: QuoteStyle::Necessary,
            fields: None,
            formula_guard: false,
            comment: None,
            capacity: DEFAULT_BUFFER_CAPACITY,
            has_headers: true,
        }
    }

    /// The field delimiter (default `,`).
    pub fn delimiter(&mut self, delimiter: u8) -> &mut WriterBuilder {
        self.delimiter = delimiter;
        self
    }

    /// The quote byte (default `"`).
    pub fn quote(&mut self, quote: u8) -> &mut WriterBuilder {
        self.quote = quote;
        self
    }

    /// How a quote inside a quoted field is escaped: `None` (the default)
    /// doubles it (`""`); `Some(b'\\')` writes `\"`, and then the escape
    /// byte itself is escaped too (`\\`) so that it reads back unchanged
    /// (a field holding the escape byte is quoted).
    pub fn escape(&mut self, escape: Option<u8>) -> &mut WriterBuilder {
        self.escape = escape;
        self
    }

    /// The record terminator (default `\n`).
    pub fn terminator(&mut self, terminator: Terminator) -> &mut WriterBuilder {
        self.terminator = terminator;
        self
    }

    /// When fields are quoted (default [`QuoteStyle::Necessary`]).
    pub fn quote_style(&mut self, style: QuoteStyle) -> &mut WriterBuilder {
        self.style = style;
        self
    }

    /// Require every record to have exactly `n` fields. A record with
    /// another count is an error before any byte of it is written, and the
    /// writer stays usable. `None` (the default) allows any count.
    pub fn fields(&mut self, n: Option<usize>) -> &mut WriterBuilder {
        self.fields = n;
        self
    }

    /// Spreadsheet-formula guard (off by default). When on, a text field
    /// that starts with `=`, `+`, `-`, `@`, tab or `\r` is written quoted
    /// with a `'` in front (`=1+2` becomes `"'=1+2"`), so a spreadsheet
    /// shows it as text instead of running it (OWASP "CSV injection").
    ///
    /// This changes the data: such a field no longer reads back as written.
    /// Typed numbers (whose [`ToField::kind`](super::ToField::kind) is [`FieldKind::Number`](super::FieldKind::Number),
    /// e.g. `-5i32` or `-0.5f64`) are not guarded: a negative number is
    /// data, not a formula.
    pub fn formula_guard(&mut self, yes: bool) -> &mut WriterBuilder {
        self.formula_guard = yes;
        self
    }

    /// The comment byte of the reader that will read this output (default
    /// none). A field that starts with it is quoted, so that it is not read
    /// back as a comment line.
    pub fn comment(&mut self, comment: Option<u8>) -> &mut WriterBuilder {
        self.comment = comment;
        self
    }

    /// Size of the output buffer (default 256 KiB, at least 1). The buffer
    /// is written out with one `write_all` when a record ends past this
    /// size; it grows beyond it only to hold one record that is longer.
    pub fn buffer_capacity(&mut self, cap: usize) -> &mut WriterBuilder {
        self.capacity = cap.max(1);
        self
    }

    /// Whether `Writer::serialize` (feature `serde`) writes a header row (the struct's
    /// field names) before the first record (default true). Other write
    /// methods never write headers.
    pub fn has_headers(&mut self, yes: bool) -> &mut WriterBuilder {
        self.has_headers = yes;
        self
    }

    /// A writer over `wtr` with these options.
    pub fn from_writer<W: io::Write>(&self, wtr: W) -> Writer<W> {
        Writer::with_config(Config::new(self), wtr)
    }

    /// A writer that encodes straight into `buf`, after the bytes it
    /// already holds: no buffer of its own, so no copy, and no limit but
    /// memory (the buffer capacity is not used). Take the bytes back with
    /// [`Writer::into_vec`]. For output built in memory, such as the
    /// chunks of a parallel job that are written out in order later.
    pub fn from_vec(&self, buf: Vec<u8>) -> Writer<Vec<u8>> {
        let mut cfg = Config::new(self);
        cfg.capacity = usize::MAX;
        Writer::with_encoder(Encoder::with_buffer(cfg, buf), Vec::new())
    }

    /// A writer that creates (or truncates) the file at `path`.
    ///
    /// # Errors
    ///
    /// When the file cannot be created.
    pub fn from_path<P: AsRef<Path>>(&self, path: P) -> Result<Writer<File>, WriteError> {
        let file = File::create(path.as_ref()).map_err(|e| WriteError::io(e, 0))?;
        Ok(self.from_writer(file))
    }
}

/// Bytes numbers can produce: digits, sign, point, exponent, `inf`, `NaN`.
const NUMBER_BYTES: &[u8] = b"0123456789+-.eEinfNa";

/// The builder's options, frozen, plus the lookup tables of the hot path.
#[derive(Clone, Debug)]
pub(crate) struct Config {
    pub(crate) delimiter: u8,
    pub(crate) quote: u8,
    pub(crate) escape: Option<u8>,
    pub(crate) terminator: Terminator,
    pub(crate) style: QuoteStyle,
    pub(crate) fields: Option<usize>,
    pub(crate) formula_guard: bool,
    pub(crate) comment: Option<u8>,
    pub(crate) capacity: usize,
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    pub(crate) has_headers: bool,
    /// `special[b]`: a field holding `b` must be quoted.
    pub(crate) special: [bool; 256],
    /// `escaped[b]`: inside quotes, `b` is preceded by the escape (or
    /// doubled when escaping by doubling).
    pub(crate) escaped: [bool; 256],
    /// The same bytes as `special`, for the word-at-a-time scan.
    pub(crate) specials: Specials,
    /// No byte a number can produce is special, so typed numbers skip the
    /// quoting scan (false for odd setups like `.` as the delimiter).
    pub(crate) numbers_plain: bool,
}

impl Config {
    pub(crate) fn new(b: &WriterBuilder) -> Config {
        let mut special = [false; 256];
        let mut escaped = [false; 256];
        for byte in [b.delimiter, b.quote, b'\r', b'\n'] {
            special[byte as usize] = true;
        }
        escaped[b.quote as usize] = true;
        if let Some(esc) = b.escape {
            special[esc as usize] = true;
            escaped[esc as usize] = true;
        }
        let specials = Specials::new(b.delimiter, b.quote, b.escape);
        let numbers_plain = NUMBER_BYTES.iter().all(|&x| !special[x as usize])
            && !matches!(b.comment, Some(c) if NUMBER_BYTES.contains(&c));
        Config {
            delimiter: b.delimiter,
            quote: b.quote,
            escape: b.escape,
            terminator: b.terminator,
            style: b.style,
            fields: b.fields,
            formula_guard: b.formula_guard,
            comment: b.comment,
            capacity: b.capacity,
            has_headers: b.has_headers,
            special,
            escaped,
            specials,
            numbers_plain,
        }
    }
}

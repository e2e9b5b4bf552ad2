//! `WriterBuilder`: every option of the writer, and the precomputed tables
//! the hot path uses (which bytes force quoting).

use std::fs::File;
use std::io;
use std::path::Path;

use super::config::{Config, Options, QuoteStyle, Terminator};
use super::encode::Encoder;
use super::error::WriteError;
use super::Writer;

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
#[derive(Clone, Debug, Default)]
pub struct WriterBuilder {
    opts: Options,
}

impl WriterBuilder {
    /// The defaults: `,`, `"` escaped by doubling, `\n`,
    /// [`QuoteStyle::Necessary`], any field count, no formula guard, no
    /// comment byte, a 256 KiB buffer, headers written by `serialize`.
    pub fn new() -> WriterBuilder {
        WriterBuilder::default()
    }

    /// The field delimiter (default `,`).
    pub fn delimiter(&mut self, delimiter: u8) -> &mut WriterBuilder {
        self.opts.delimiter = delimiter;
        self
    }

    /// The quote byte (default `"`).
    pub fn quote(&mut self, quote: u8) -> &mut WriterBuilder {
        self.opts.quote = quote;
        self
    }

    /// How a quote inside a quoted field is escaped: `None` (the default)
    /// doubles it (`""`); `Some(b'\\')` writes `\"`, and then the escape
    /// byte itself is escaped too (`\\`) so that it reads back unchanged
    /// (a field holding the escape byte is quoted).
    pub fn escape(&mut self, escape: Option<u8>) -> &mut WriterBuilder {
        self.opts.escape = escape;
        self
    }

    /// The record terminator (default `\n`).
    pub fn terminator(&mut self, terminator: Terminator) -> &mut WriterBuilder {
        self.opts.terminator = terminator;
        self
    }

    /// When fields are quoted (default [`QuoteStyle::Necessary`]).
    pub fn quote_style(&mut self, style: QuoteStyle) -> &mut WriterBuilder {
        self.opts.style = style;
        self
    }

    /// Require every record to have exactly `n` fields. A record with
    /// another count is an error before any byte of it is written, and the
    /// writer stays usable. `None` (the default) allows any count.
    pub fn fields(&mut self, n: Option<usize>) -> &mut WriterBuilder {
        self.opts.fields = n;
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
        self.opts.formula_guard = yes;
        self
    }

    /// The comment byte of the reader that will read this output (default
    /// none). A field that starts with it is quoted, so that it is not read
    /// back as a comment line.
    pub fn comment(&mut self, comment: Option<u8>) -> &mut WriterBuilder {
        self.opts.comment = comment;
        self
    }

    /// Size of the output buffer (default 256 KiB, at least 1). The buffer
    /// is written out with one `write_all` when a record ends past this
    /// size; it grows beyond it only to hold one record that is longer.
    pub fn buffer_capacity(&mut self, cap: usize) -> &mut WriterBuilder {
        self.opts.capacity = cap.max(1);
        self
    }

    /// Whether `Writer::serialize` (feature `serde`) writes a header row (the struct's
    /// field names) before the first record (default true). Other write
    /// methods never write headers.
    pub fn has_headers(&mut self, yes: bool) -> &mut WriterBuilder {
        self.opts.has_headers = yes;
        self
    }

    /// A writer over `wtr` with these options.
    pub fn from_writer<W: io::Write>(&self, wtr: W) -> Writer<W> {
        Writer::with_config(Config::new(&self.opts), wtr)
    }

    /// A writer that encodes straight into `buf`, after the bytes it
    /// already holds: no buffer of its own, so no copy, and no limit but
    /// memory (the buffer capacity is not used). Take the bytes back with
    /// [`Writer::into_vec`]. For output built in memory, such as the
    /// chunks of a parallel job that are written out in order later.
    pub fn from_vec(&self, buf: Vec<u8>) -> Writer<Vec<u8>> {
        let mut cfg = Config::new(&self.opts);
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

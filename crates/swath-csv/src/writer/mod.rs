//! The CSV writer: typed records with no allocation per record, every
//! quoting style, and no byte lost.
//!
//! [`Writer`] encodes records into its own buffer and writes the buffer out
//! when a record ends past its capacity (256 KiB by default). Write records
//! three ways:
//!
//! - [`Writer::write_row`]: a tuple (up to 12), array or slice of typed
//!   [`ToField`] values; integers and floats are formatted straight into the
//!   buffer (`itoa`; `zmij`, which writes the same bytes as `ryu`).
//! - [`Writer::write_record`]: any iterator of byte slices.
//! - [`Writer::write_field`] then [`Writer::end_record`]: one field at a
//!   time.
//! - with the `serde` feature, `Writer::serialize` for structs.
//!
//! Quoting is minimal and correct by default ([`QuoteStyle::Necessary`]):
//! reading the output back gives the same records, byte for byte (NUL and
//! invalid UTF-8 included; a UTF-8 byte order mark at the very start of the
//! output is quoted, since readers drop a bare one), with two exceptions no
//! CSV can express: a record
//! of zero fields (written as an empty line, which readers skip) and, under
//! [`QuoteStyle::Never`], any field that needs quotes.
//!
//! ```
//! use swath_csv::Writer;
//!
//! let mut wtr = Writer::from_writer(Vec::new());
//! wtr.write_row((1u64, "Alice", 98.5, true, None::<&str>)).unwrap();
//! wtr.write_record(["a,b", "say \"hi\""]).unwrap();
//! wtr.write_row([""]).unwrap();
//! let out = wtr.finish().unwrap();
//! assert_eq!(out, b"1,Alice,98.5,true,\n\"a,b\",\"say \"\"hi\"\"\"\n\"\"\n");
//! ```
//!
//! # Errors and what is written
//!
//! Every I/O error of the inner writer is returned by the call that hit it
//! (a `write_*` call that filled the buffer) or by [`Writer::flush`] /
//! [`Writer::finish`]. The bytes the inner writer did not take stay in the
//! buffer, and the next flush tries them again, so a transient error (a
//! full disk that is then cleared) loses nothing. A record with the wrong
//! field count ([`WriterBuilder::fields`]) is refused before any byte of it
//! is written. Dropping a writer without `finish` flushes its complete
//! records best-effort and ignores errors: call `finish` to see them.

mod builder;
mod config;
mod encode;
mod error;
mod quote;
mod row;
#[cfg(feature = "serde")]
mod serialize;
mod special;
mod to_field;

use std::fs::File;
use std::io;
use std::path::Path;

pub use builder::WriterBuilder;
pub use config::{QuoteStyle, Terminator, DEFAULT_BUFFER_CAPACITY};
pub use error::{WriteError, WriteErrorKind};
pub use row::{RowBuf, ToRow};
pub use to_field::{FieldBuf, FieldKind, ToField};

use config::{Config, Options};
use encode::{CountMismatch, Encoder};

/// A CSV writer over any `io::Write`. Build one with [`WriterBuilder`], or
/// [`Writer::from_writer`] / [`Writer::from_path`] for the defaults.
///
/// # Examples
///
/// ```
/// use swath_csv::Writer;
///
/// let mut wtr = Writer::from_writer(Vec::new());
/// wtr.write_record(["id", "name"])?;
/// wtr.write_row((1u64, "Ada, Countess"))?;   // typed row, no allocation
/// let bytes = wtr.finish().map_err(|e| e.into_error())?;
/// assert_eq!(bytes, b"id,name\n1,\"Ada, Countess\"\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Writer<W: io::Write> {
    enc: Encoder,
    /// `None` only after `finish` took it.
    wtr: Option<W>,
    /// Bytes at the front of the buffer already taken by `wtr`.
    written: usize,
    /// Records completed so far.
    records: u64,
    /// The inner writer panicked inside `write`: do not touch it in `drop`.
    panicked: bool,
    #[cfg_attr(not(feature = "serde"), allow(dead_code))]
    header_done: bool,
}

/// The error of [`Writer::finish`]: the flush failed. It holds the writer,
/// with its unwritten bytes, so nothing is lost: retry, or take the inner
/// writer back.
pub struct FinishError<W: io::Write> {
    // Boxed: the writer carries its lookup tables, and `Result`s stay small.
    wtr: Box<Writer<W>>,
    err: WriteError,
}

impl<W: io::Write> FinishError<W> {
    /// The error that stopped the flush.
    pub fn error(&self) -> &WriteError {
        &self.err
    }

    /// The writer, to retry `finish` or inspect it.
    pub fn into_writer(self) -> Writer<W> {
        *self.wtr
    }

    /// The error, dropping the writer (whose drop retries the flush once,
    /// best-effort).
    pub fn into_error(self) -> WriteError {
        self.err
    }
}

impl<W: io::Write> std::fmt::Debug for FinishError<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FinishError").field("err", &self.err).finish()
    }
}

impl<W: io::Write> std::fmt::Display for FinishError<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.err)
    }
}

impl<W: io::Write> std::error::Error for FinishError<W> {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.err)
    }
}

impl<W: io::Write> From<FinishError<W>> for WriteError {
    fn from(err: FinishError<W>) -> WriteError {
        err.into_error()
    }
}

impl Writer<File> {
    /// A writer with the default options that creates (or truncates) the
    /// file at `path`.
    ///
    /// # Errors
    ///
    /// When the file cannot be created.
    pub fn from_path<P: AsRef<Path>>(path: P) -> Result<Writer<File>, WriteError> {
        let file = File::create(path.as_ref()).map_err(|e| WriteError::io(e, 0))?;
        Ok(Writer::from_writer(file))
    }
}

impl<W: io::Write> Writer<W> {
    /// A writer with the default options (see [`WriterBuilder::new`]).
    pub fn from_writer(wtr: W) -> Writer<W> {
        Writer::with_config(Config::new(&Options::default()), wtr)
    }

    pub(crate) fn with_config(cfg: Config, wtr: W) -> Writer<W> {
        Writer::with_encoder(Encoder::new(cfg), wtr)
    }

    pub(crate) fn with_encoder(enc: Encoder, wtr: W) -> Writer<W> {
        Writer { enc, wtr: Some(wtr), written: 0, records: 0, panicked: false, header_done: false }
    }

    /// Write one record of typed fields: a tuple of up to 12 [`ToField`]
    /// values, an array, a slice or a `Vec`. Continues a record opened
    /// with [`write_field`](Writer::write_field), if any, and ends it.
    ///
    /// # Errors
    ///
    /// A field-count mismatch (nothing of the record is written), or an
    /// I/O error while writing out the full buffer (the record itself is
    /// then encoded and waits in the buffer).
    #[inline]
    pub fn write_row<R: ToRow>(&mut self, row: R) -> Result<(), WriteError> {
        let n = row.field_count();
        self.enc.check_exact(n).map_err(|e| self.count_error(e))?;
        row.append_fields(&mut RowBuf::new(&mut self.enc));
        // A `ToRow` whose count lied: refuse it here rather than write it.
        self.enc.check_exact(0).map_err(|e| self.count_error(e))?;
        self.end_and_maybe_flush()
    }

    /// Write one record from any iterator of byte slices (`&str`,
    /// `String`, `&[u8]`, a `csv::ByteRecord`, ...). Continues a record
    /// opened with [`write_field`](Writer::write_field), if any, and ends
    /// it.
    ///
    /// # Errors
    ///
    /// As [`write_row`](Writer::write_row).
    pub fn write_record<I, T>(&mut self, record: I) -> Result<(), WriteError>
    where
        I: IntoIterator<Item = T>,
        T: AsRef<[u8]>,
    {
        for field in record {
            self.enc.check_more(1).map_err(|e| self.count_error(e))?;
            self.enc.bytes(field.as_ref());
        }
        self.end_record()
    }

    /// Write one typed field of the open record (opening one if none is).
    /// Finish the record with [`end_record`](Writer::end_record).
    ///
    /// # Errors
    ///
    /// A field beyond the expected count: the whole open record is
    /// discarded, nothing of it is written.
    #[inline(always)]
    pub fn write_field<T: ToField + ?Sized>(&mut self, field: &T) -> Result<(), WriteError> {
        self.enc.check_more(1).map_err(|e| self.count_error(e))?;
        self.enc.field(field);
        Ok(())
    }

    /// End the open record (a record of no fields is an empty line).
    ///
    /// # Errors
    ///
    /// As [`write_row`](Writer::write_row).
    #[inline]
    pub fn end_record(&mut self) -> Result<(), WriteError> {
        self.enc.check_exact(0).map_err(|e| self.count_error(e))?;
        self.end_and_maybe_flush()
    }

    /// Write Excel's `sep=X` line, X the delimiter, as the output's first
    /// line: Excel then splits the file at X whatever its locale's list
    /// separator is (a `;` file in an English Excel, a `,` file in a
    /// German one). It is no record ([`records`](Writer::records) does
    /// not count it); swath's readers skip it and take the delimiter from
    /// it.
    ///
    /// ```
    /// let mut wtr = swath_csv::WriterBuilder::new().delimiter(b';').from_writer(Vec::new());
    /// wtr.write_excel_sep()?;
    /// wtr.write_record(["a", "b"])?;
    /// assert_eq!(wtr.finish().unwrap(), b"sep=;\na;b\n");
    ///
    /// // After a record: refused.
    /// let mut wtr = swath_csv::WriterBuilder::new().from_writer(Vec::new());
    /// wtr.write_record(["a"])?;
    /// assert!(wtr.write_excel_sep().is_err());
    /// # Ok::<(), swath_csv::WriteError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`WriteErrorKind::Io`] of kind `InvalidInput` once anything was
    /// written: the line must come first.
    pub fn write_excel_sep(&mut self) -> Result<(), WriteError> {
        if !self.enc.is_at_start() || self.written > 0 || self.records > 0 {
            let err = io::Error::new(
                io::ErrorKind::InvalidInput,
                "Excel's sep= line must be the output's first line",
            );
            return Err(WriteError::io(err, self.records));
        }
        let text = [&b"sep="[..], &[self.enc.cfg.delimiter]].concat();
        self.enc.line(&text);
        Ok(())
    }

    /// Records completed so far (written out or buffered).
    pub fn records(&self) -> u64 {
        self.records
    }

    /// The inner writer.
    pub fn get_ref(&self) -> &W {
        self.wtr.as_ref().expect("writer present until finish")
    }

    /// Write out every complete record, then flush the inner writer. An
    /// open record (fields without `end_record`) stays buffered.
    ///
    /// # Errors
    ///
    /// The I/O error of the inner writer. What it did not take stays
    /// buffered; calling `flush` again retries.
    pub fn flush(&mut self) -> Result<(), WriteError> {
        self.write_out().map_err(|e| WriteError::io(e, self.records))?;
        let wtr = self.wtr.as_mut().expect("writer present until finish");
        wtr.flush().map_err(|e| WriteError::io(e, self.records))
    }

    /// End an open record, if any, flush everything and return the inner
    /// writer.
    ///
    /// # Errors
    ///
    /// On a field-count mismatch of the open record or an I/O error; the
    /// error holds the writer so that nothing is lost.
    pub fn finish(mut self) -> Result<W, FinishError<W>> {
        if self.enc.fields > 0 {
            if let Err(err) = self.end_record() {
                return Err(FinishError { wtr: Box::new(self), err });
            }
        }
        match self.flush() {
            Ok(()) => Ok(self.wtr.take().expect("writer present until finish")),
            Err(err) => Err(FinishError { wtr: Box::new(self), err }),
        }
    }

    fn count_error(&self, CountMismatch(expected, got): CountMismatch) -> WriteError {
        WriteError::new(WriteErrorKind::FieldCount { expected, got }, self.records + 1)
    }

    #[inline]
    fn end_and_maybe_flush(&mut self) -> Result<(), WriteError> {
        self.enc.end_row();
        self.records += 1;
        if self.enc.buf.len() >= self.enc.cfg.capacity {
            self.write_out().map_err(|e| WriteError::io(e, self.records))?;
        }
        Ok(())
    }

    /// Hand every complete record to the inner writer: the loop of
    /// `write_all`, keeping count of what was taken so that an error leaves
    /// exactly the untaken bytes buffered.
    fn write_out(&mut self) -> io::Result<()> {
        let end = self.enc.row_start;
        let wtr = self.wtr.as_mut().expect("writer present until finish");
        while self.written < end {
            self.panicked = true;
            let res = wtr.write(&self.enc.buf[self.written..end]);
            self.panicked = false;
            match res {
                Ok(0) => {
                    return Err(io::Error::new(
                        io::ErrorKind::WriteZero,
                        "the inner writer took no bytes",
                    ))
                }
                Ok(n) => self.written += n.min(end - self.written),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        // Everything complete is out: keep the open record (if any) at the
        // front for the next round.
        self.enc.buf.copy_within(end.., 0);
        self.enc.buf.truncate(self.enc.buf.len() - end);
        self.enc.row_start = 0;
        self.written = 0;
        // One record far longer than the buffer grew it: give that back.
        let cap = self.enc.cfg.capacity;
        // Saturating: a writer from `WriterBuilder::from_vec` has no limit.
        let limit = cap.saturating_mul(4).saturating_add(4096);
        if self.enc.buf.capacity() > limit && self.enc.buf.len() <= cap {
            self.enc.buf.shrink_to(cap + (cap / 4).max(64));
        }
        Ok(())
    }
}

impl Writer<Vec<u8>> {
    /// End an open record, if any, and return every byte written: the
    /// `Vec` given to [`WriterBuilder::from_vec`] (or the one given to
    /// `from_writer`) with the records appended. From `from_vec`, the
    /// bytes were encoded in place and are not copied.
    ///
    /// # Errors
    ///
    /// A field-count mismatch of the open record.
    pub fn into_vec(mut self) -> Result<Vec<u8>, WriteError> {
        if self.enc.fields > 0 {
            self.end_record()?;
        }
        let mut out = self.wtr.take().expect("writer present until finish");
        let end = self.enc.row_start;
        if out.is_empty() && self.written == 0 {
            // Nothing went to the inner Vec: the buffer is the output.
            let mut buf = std::mem::take(&mut self.enc.buf);
            buf.truncate(end);
            return Ok(buf);
        }
        out.extend_from_slice(&self.enc.buf[self.written..end]);
        Ok(out)
    }
}

impl<W: io::Write> Drop for Writer<W> {
    /// Best-effort: write out the complete records and flush, ignoring
    /// errors (call [`Writer::finish`] to see them). An open record is
    /// lost. Nothing is done if the inner writer panicked.
    fn drop(&mut self) {
        if self.wtr.is_some() && !self.panicked {
            let _ = self.flush();
        }
    }
}

impl<W: io::Write> std::fmt::Debug for Writer<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer")
            .field("records", &self.records)
            .field("buffered", &(self.enc.buf.len() - self.written))
            .finish()
    }
}

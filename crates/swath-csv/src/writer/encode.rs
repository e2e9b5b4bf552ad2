//! The encoder: turns fields into bytes in the output buffer, one record at
//! a time, with no I/O. The [`Writer`](super::Writer) owns one and drains
//! its buffer into the inner writer.

use super::config::{Config, QuoteStyle, Terminator};
use super::quote::{
    is_formula_start, looks_numeric, needs_quotes, prefix_in_place, quote_from, quote_in_place,
};
use super::to_field::{extend_small, FieldBuf, FieldKind, ToField};

/// A record that broke the expected field count: `(expected, got)`.
pub(crate) struct CountMismatch(pub(crate) usize, pub(crate) usize);

pub(crate) struct Encoder {
    pub(crate) cfg: Config,
    /// Encoded bytes not yet written out. Complete records end at
    /// `row_start`; the open record (if any) follows.
    pub(crate) buf: Vec<u8>,
    /// Where the open record starts in `buf`.
    pub(crate) row_start: usize,
    /// Fields written to the open record.
    pub(crate) fields: usize,
    /// No record ended yet: the next field may be the first bytes of the
    /// output, where readers (the `csv` crate) strip a UTF-8 byte order mark.
    at_start: bool,
    /// Minimal quoting, no guard, past the first record: the one flag the
    /// hot path tests (set once the first record ends).
    fast: bool,
}

use swath::UTF8_BOM as BOM;

impl Encoder {
    pub(crate) fn new(cfg: Config) -> Encoder {
        // Room for the flush threshold plus one ordinary record past it, so
        // the buffer is allocated once.
        let cap = cfg.capacity + (cfg.capacity / 4).max(64);
        Encoder::with_buffer(cfg, Vec::with_capacity(cap))
    }

    /// An encoder that appends to `buf`, after the bytes it holds (complete
    /// records, as far as it is concerned: the output does not start here).
    pub(crate) fn with_buffer(cfg: Config, buf: Vec<u8>) -> Encoder {
        let at_start = buf.is_empty();
        Encoder { cfg, row_start: buf.len(), buf, fields: 0, at_start, fast: false }
    }

    /// Checks that `n` more fields keep the open record within the
    /// expected count; on failure the open record is discarded.
    #[inline]
    pub(crate) fn check_more(&mut self, n: usize) -> Result<(), CountMismatch> {
        match self.cfg.fields {
            Some(expected) if self.fields + n > expected => {
                let got = self.fields + n;
                self.discard_row();
                Err(CountMismatch(expected, got))
            }
            _ => Ok(()),
        }
    }

    /// Checks that the open record has exactly the expected count once
    /// `n` more fields are added; on failure it is discarded.
    #[inline]
    pub(crate) fn check_exact(&mut self, n: usize) -> Result<(), CountMismatch> {
        match self.cfg.fields {
            Some(expected) if self.fields + n != expected => {
                let got = self.fields + n;
                self.discard_row();
                Err(CountMismatch(expected, got))
            }
            _ => Ok(()),
        }
    }

    /// Forget the open record: nothing of it is written.
    pub(crate) fn discard_row(&mut self) {
        self.buf.truncate(self.row_start);
        self.fields = 0;
    }

    /// Append one typed field (no count check: see `check_more`).
    #[inline(always)]
    pub(crate) fn field<T: ToField + ?Sized>(&mut self, value: &T) {
        if self.fields > 0 {
            self.buf.push(self.cfg.delimiter);
        }
        self.fields += 1;
        let start = self.buf.len();
        value.append_to(&mut FieldBuf::new(&mut self.buf));
        self.finish_field(start, value.kind(), value.as_bytes());
    }

    /// Append one field of raw bytes.
    #[inline]
    pub(crate) fn bytes(&mut self, value: &[u8]) {
        self.field(value)
    }

    /// Quote (and guard) the field at `buf[start..]` as the style says.
    /// The common case (minimal quoting, no guard, past the first record)
    /// is decided inline; the rest goes to `finish_field_general`.
    #[inline(always)]
    fn finish_field(&mut self, start: usize, kind: FieldKind, src: Option<&[u8]>) {
        let cfg = &self.cfg;
        if self.fast {
            if kind == FieldKind::Number && cfg.numbers_plain {
                return;
            }
            let comment = match (cfg.comment, self.buf.get(start)) {
                (Some(c), Some(&first)) => c == first,
                _ => false,
            };
            match src {
                Some(src) if comment || cfg.specials.any_in(src) => {
                    quote_from(&self.cfg, &mut self.buf, start, src);
                }
                None if comment || cfg.specials.any_in_tail(&self.buf, start) => {
                    quote_in_place(&self.cfg, &mut self.buf, start);
                }
                _ => {}
            }
            return;
        }
        self.finish_field_general(start, kind);
    }

    /// Every style and option; the slow path and the fast path's twin.
    #[inline(never)]
    fn finish_field_general(&mut self, start: usize, kind: FieldKind) {
        let cfg = &self.cfg;
        let field = &self.buf[start..];
        let guard = cfg.formula_guard
            && kind != FieldKind::Number
            && field.first().is_some_and(|&b| is_formula_start(b));
        // A field that starts the output with a BOM is quoted, or a reader
        // would take the BOM for an encoding mark and drop it.
        let bom = self.at_start && self.fields == 1 && field.starts_with(BOM);
        let quote = match cfg.style {
            QuoteStyle::Never => false,
            QuoteStyle::Always => true,
            QuoteStyle::Necessary => guard || bom || needs_quotes(cfg, field, kind),
            QuoteStyle::NonNumeric => {
                let number = match kind {
                    FieldKind::Number => true,
                    FieldKind::Text => false,
                    FieldKind::Bytes => looks_numeric(field),
                };
                guard || bom || !number || needs_quotes(cfg, field, kind)
            }
        };
        if guard {
            prefix_in_place(&mut self.buf, start, b'\'');
        }
        if quote {
            quote_in_place(&self.cfg, &mut self.buf, start);
        }
    }

    /// Whether nothing was encoded yet: the output starts with the next
    /// byte.
    pub(crate) fn is_at_start(&self) -> bool {
        self.at_start && self.buf.is_empty()
    }

    /// A line that is no record, `text` and the terminator, at the start
    /// of the output (Excel's `sep=X`); the first record then no longer
    /// starts the output.
    pub(crate) fn line(&mut self, text: &[u8]) {
        self.buf.extend_from_slice(text);
        match self.cfg.terminator {
            Terminator::Lf => self.buf.push(b'\n'),
            Terminator::CrLf => extend_small(&mut self.buf, b"\r\n"),
        }
        self.row_start = self.buf.len();
        self.at_start = false;
    }

    /// Close the open record (no count check: see `check_exact`).
    #[inline(always)]
    pub(crate) fn end_row(&mut self) {
        // One empty field alone would be an empty line, which readers skip.
        if self.fields == 1
            && self.buf.len() == self.row_start
            && self.cfg.style != QuoteStyle::Never
        {
            self.buf.push(self.cfg.quote);
            self.buf.push(self.cfg.quote);
        }
        match self.cfg.terminator {
            Terminator::Lf => self.buf.push(b'\n'),
            Terminator::CrLf => extend_small(&mut self.buf, b"\r\n"),
        }
        self.row_start = self.buf.len();
        self.fields = 0;
        if !self.fast {
            self.at_start = false;
            self.fast = self.cfg.style == QuoteStyle::Necessary && !self.cfg.formula_guard;
        }
    }
}

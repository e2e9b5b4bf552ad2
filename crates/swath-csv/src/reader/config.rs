//! The reader's settings, validated once: a leaf that the builder, the
//! reader and the state machine all read and none of them owns.

use swath::buffer::DEFAULT_CAPACITY;

use crate::classify::Kernel;
use crate::error::{Error, ErrorKind, Result};

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
    /// How a file's text is decoded when opened by path (the readers of
    /// an `io::Read` take its bytes as UTF-8).
    pub(crate) decoding: swath::text::Decoding,
    /// Lines before the records a reader of a path skips, and lines after
    /// them it leaves out (`crate::preamble`).
    pub(crate) skip: crate::preamble::Skip,
    pub(crate) footer_lines: u64,
    /// What to do with a record that has a recoverable error (`crate::bad`).
    pub(crate) on_bad: crate::OnBad,
}

impl Default for Config {
    /// The defaults that [`ReaderBuilder`](crate::ReaderBuilder) documents.
    fn default() -> Config {
        Config {
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
            decoding: swath::text::Decoding::DEFAULT,
            skip: crate::preamble::Skip::Nothing,
            footer_lines: 0,
            on_bad: crate::OnBad::Fail,
        }
    }
}

impl Config {
    /// How `swath::Source::with_body` finds the records: the skip rule and
    /// Excel's `sep=` line (not looked for when empty lines are records:
    /// a skipped line reads as one), and the footer.
    pub(crate) fn body(&self) -> swath::preamble::Body {
        let mut body = swath::preamble::Body::whole();
        body.footer_lines = self.footer_lines;
        body.max_line = self.max_record.min(1 << 20);
        body.max_footer = self.max_record;
        if self.skip_empty_lines {
            let rules = crate::preamble::Rules { skip: self.skip.clone(), delimiter: self.delim };
            body.preamble = Some(Box::new(rules));
        }
        body
    }

    /// Check the settings (see [`ReaderBuilder::validate`](crate::ReaderBuilder::validate)).
    pub(crate) fn validate(&self) -> Result<()> {
        let c = self;
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
        if c.skip != crate::preamble::Skip::Nothing && !c.skip_empty_lines {
            return bad("skipping lines before the records needs empty lines skipped too \
                 (a skipped line reads as an empty one)"
                .to_string());
        }
        if c.quoting && c.escape == Some(c.quote) {
            return bad(format!(
                "the escape and the quote are both '{}' (use double_quote)",
                show(c.quote)
            ));
        }
        Ok(())
    }
}

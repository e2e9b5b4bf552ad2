//! A reader's settings as plain values, for a builder that must travel:
//! a query plan shipped to another process (swath's scan on a Ballista
//! executor) carries its dialect this way and rebuilds the same reader.

use crate::reader::builder::ReaderBuilder;
use crate::reader::config::FieldCount;

/// Every setting of a [`ReaderBuilder`] but its classifier kernel (each
/// machine picks the fastest it has): what [`ReaderBuilder::settings`]
/// reads and [`ReaderBuilder::from_settings`] builds from.
///
/// ```
/// use swath_csv::ReaderBuilder;
/// let mut b = ReaderBuilder::new();
/// b.delimiter(b';').escape(Some(b'\\')).has_headers(false);
/// let again = ReaderBuilder::from_settings(&b.settings());
/// assert_eq!(again.settings(), b.settings());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReaderSettings {
    /// [`ReaderBuilder::delimiter`].
    pub delimiter: u8,
    /// [`ReaderBuilder::quote`].
    pub quote: u8,
    /// [`ReaderBuilder::quoting`].
    pub quoting: bool,
    /// [`ReaderBuilder::double_quote`].
    pub double_quote: bool,
    /// [`ReaderBuilder::escape`].
    pub escape: Option<u8>,
    /// [`ReaderBuilder::comment`].
    pub comment: Option<u8>,
    /// [`ReaderBuilder::has_headers`].
    pub has_headers: bool,
    /// [`ReaderBuilder::field_count`].
    pub field_count: FieldCount,
    /// [`ReaderBuilder::skip_empty_lines`].
    pub skip_empty_lines: bool,
    /// [`ReaderBuilder::lenient`].
    pub lenient: bool,
    /// [`ReaderBuilder::max_record_bytes`].
    pub max_record_bytes: usize,
    /// [`ReaderBuilder::max_fields`].
    pub max_fields: usize,
    /// [`ReaderBuilder::capacity`].
    pub capacity: usize,
}

impl ReaderBuilder {
    /// Its settings as plain values (all but the kernel).
    pub fn settings(&self) -> ReaderSettings {
        let c = self.config();
        ReaderSettings {
            delimiter: c.delim,
            quote: c.quote,
            quoting: c.quoting,
            double_quote: c.double_quote,
            escape: c.escape,
            comment: c.comment,
            has_headers: c.has_headers,
            field_count: c.fields,
            skip_empty_lines: c.skip_empty_lines,
            lenient: c.lenient,
            max_record_bytes: c.max_record,
            max_fields: c.max_fields,
            capacity: c.capacity,
        }
    }

    /// A builder with these settings and this machine's fastest kernel
    /// (not validated here: the reader it builds validates, as always).
    pub fn from_settings(s: &ReaderSettings) -> ReaderBuilder {
        let mut b = ReaderBuilder::new();
        b.delimiter(s.delimiter)
            .quote(s.quote)
            .quoting(s.quoting)
            .double_quote(s.double_quote)
            .escape(s.escape)
            .comment(s.comment)
            .has_headers(s.has_headers)
            .field_count(s.field_count)
            .skip_empty_lines(s.skip_empty_lines)
            .lenient(s.lenient)
            .max_record_bytes(s.max_record_bytes)
            .max_fields(s.max_fields)
            .capacity(s.capacity);
        b
    }
}

//! The writer's settings: the options as set and, frozen from them, the
//! lookup tables of the hot path. A leaf the builder, the encoder and the
//! quoting rules all read.

use super::special::Specials;

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

/// The builder's options as set, before they are frozen into a [`Config`].
#[derive(Clone, Debug)]
pub(crate) struct Options {
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

impl Default for Options {
    /// The defaults that [`WriterBuilder::new`](super::WriterBuilder::new) documents.
    fn default() -> Options {
        Options {
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
    pub(crate) fn new(b: &Options) -> Config {
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

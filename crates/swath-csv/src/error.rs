//! Errors that say where: every CSV error carries the [`Position`] of the
//! offending byte and, when a record is involved, of the record's start.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

pub use swath::Position;

/// A CSV error: a boxed [`ErrorKind`] plus where it happened. Boxed so that
/// `Result<T, Error>` stays one word wide.
pub struct Error(Box<Inner>);

struct Inner {
    kind: ErrorKind,
    pos: Option<Position>,
    record: Option<Position>,
    path: Option<PathBuf>,
}

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Reading the source failed (I/O, or the file shrank while being
    /// read). Sticky: every later read fails too.
    Io(swath::Error),
    /// The builder was given an impossible configuration.
    Config(String),
    /// Strict mode: a quote inside an unquoted field, as in `a"b`.
    BareQuote,
    /// Strict mode: a byte other than a delimiter or terminator right after
    /// a closing quote, as in `"a"b`.
    TextAfterQuote,
    /// Strict mode: a quoted field still open at end of input. The error's
    /// position is the opening quote.
    UnterminatedQuote,
    /// A record with a different number of fields than expected. Not fatal:
    /// the record is still readable and reading can go on.
    FieldCount {
        /// The expected number of fields.
        expected: usize,
        /// The number of fields of this record.
        got: usize,
    },
    /// A record longer than the configured maximum. Sticky.
    RecordTooLarge {
        /// The configured maximum, in bytes (terminator excluded).
        limit: usize,
        /// Where a quote that is still open was opened, if one is: the
        /// usual reason a record runs away.
        open_quote: Option<Position>,
    },
    /// A record with more fields than the configured maximum. Sticky.
    TooManyFields {
        /// The configured maximum.
        limit: usize,
    },
    /// The input starts with a UTF-16 or UTF-32 byte order mark; this reader
    /// reads UTF-8 (or ASCII-compatible bytes) only. Strict mode only.
    UnsupportedEncoding(&'static str),
    /// A field asked for as `&str` is not valid UTF-8.
    InvalidUtf8 {
        /// The field's index (0-based).
        field: usize,
        /// Offset of the first invalid byte within the field.
        valid_up_to: usize,
    },
    /// A record has fewer fields than a typed scan asked for.
    MissingField {
        /// The index (0-based) of the first missing field.
        field: usize,
    },
    /// A field could not be converted to the requested type.
    Parse {
        /// The field's index (0-based).
        field: usize,
        /// The field's header, when the reader has headers.
        header: Option<String>,
        /// The field's text (lossily decoded, cut to 64 bytes).
        text: String,
        /// The requested type.
        ty: &'static str,
        /// Why it failed.
        reason: String,
    },
    /// A serde deserialization error.
    Deserialize(String),
    /// A split (`crate::split`) did not end where its plan said the next
    /// split begins: the file changed, or the plan was made with other
    /// settings. Never a silent wrong record.
    SplitMismatch {
        /// Where the plan says the next split's first record starts
        /// (`None`: at the end of input).
        planned: Option<u64>,
        /// Where the reader found it (`None`: at the end of input).
        found: Option<u64>,
    },
    /// A split ended where its plan said the next one begins, but held
    /// another number of records than the plan said: the file changed, or
    /// the plan was made with other settings.
    SplitRecordsMismatch {
        /// Records the plan says the split holds (the header row included).
        planned: u64,
        /// Records the reader found in it.
        found: u64,
    },
}

impl Error {
    /// A new error of the given kind, without position.
    pub fn new(kind: ErrorKind) -> Error {
        Error(Box::new(Inner { kind, pos: None, record: None, path: None }))
    }

    /// Attach the position of the offending byte.
    pub fn at(mut self, pos: Position) -> Error {
        self.0.pos = Some(pos);
        self
    }

    /// Attach the position of the start of the record involved.
    pub fn in_record(mut self, record: Position) -> Error {
        self.0.record = Some(record);
        self
    }

    /// Attach the input's path (kept if one is set already).
    pub fn with_path(mut self, path: &Path) -> Error {
        if self.0.path.is_none() {
            self.0.path = Some(path.to_path_buf());
        }
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// Consume the error and return its kind.
    pub fn into_kind(self) -> ErrorKind {
        self.0.kind
    }

    /// Where it went wrong: the offending byte (for an unterminated quote,
    /// the opening quote), with its line and record numbers.
    pub fn position(&self) -> Option<Position> {
        self.0.pos
    }

    /// Add `records` to the record numbers and `lines` to the lines of
    /// both positions (numbers counted from a chunk's start made the
    /// input's).
    pub(crate) fn shift(&mut self, records: u64, lines: u64) {
        for p in [&mut self.0.pos, &mut self.0.record].into_iter().flatten() {
            *p = crate::bad::shifted(*p, records, lines);
        }
    }

    /// The start of the record the error is about, when there is one.
    pub fn record_position(&self) -> Option<Position> {
        self.0.record
    }

    /// The input's path, when known.
    pub fn path(&self) -> Option<&Path> {
        self.0.path.as_deref()
    }

    /// True when reading can go on after this error (a field count
    /// mismatch, a strict-mode quoting problem, a conversion error).
    pub fn is_recoverable(&self) -> bool {
        !matches!(
            self.0.kind,
            ErrorKind::Io(_)
                | ErrorKind::Config(_)
                | ErrorKind::RecordTooLarge { .. }
                | ErrorKind::TooManyFields { .. }
                | ErrorKind::UnsupportedEncoding(_)
                | ErrorKind::SplitMismatch { .. }
                | ErrorKind::SplitRecordsMismatch { .. }
        )
    }

    /// True for an I/O error whose kind is `BrokenPipe`.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(&self.0.kind, ErrorKind::Io(e) if e.is_broken_pipe())
    }
}

impl From<swath::Error> for Error {
    fn from(err: swath::Error) -> Error {
        let pos = err.position();
        let path = err.path().map(Path::to_path_buf);
        let mut e = Error::new(ErrorKind::Io(err));
        e.0.pos = pos;
        e.0.path = path;
        e
    }
}

impl From<io::Error> for Error {
    fn from(err: io::Error) -> Error {
        Error::from(swath::Error::from(err))
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Io(e) => write!(f, "{}", e.kind()),
            ErrorKind::Config(msg) => write!(f, "invalid CSV configuration: {msg}"),
            ErrorKind::BareQuote => write!(f, "quote inside an unquoted field"),
            ErrorKind::TextAfterQuote => {
                write!(f, "text after a closing quote (expected a delimiter or end of record)")
            }
            ErrorKind::UnterminatedQuote => write!(f, "quoted field not closed before end of input"),
            ErrorKind::FieldCount { expected, got } => {
                write!(f, "record has {got} fields, expected {expected}")
            }
            ErrorKind::RecordTooLarge { limit, open_quote } => {
                write!(f, "record longer than the limit of {limit} bytes")?;
                if let Some(q) = open_quote {
                    write!(f, " (a quote opened at {q} is still open)")?;
                }
                Ok(())
            }
            ErrorKind::TooManyFields { limit } => {
                write!(f, "record has more than the limit of {limit} fields")
            }
            ErrorKind::UnsupportedEncoding(enc) => write!(
                f,
                "input looks like {enc} (byte order mark); only UTF-8 is supported"
            ),
            ErrorKind::InvalidUtf8 { field, valid_up_to } => write!(
                f,
                "field {field} is not valid UTF-8 (invalid byte at offset {valid_up_to} of the field)"
            ),
            ErrorKind::MissingField { field } => {
                write!(f, "record has no field {field}")
            }
            ErrorKind::Parse {
                field,
                header,
                text,
                ty,
                reason,
            } => {
                write!(f, "field {field}")?;
                if let Some(h) = header {
                    write!(f, " ({h:?})")?;
                }
                write!(f, ": cannot parse {text:?} as {}: {reason}", short_type_name(ty))
            }
            ErrorKind::Deserialize(msg) => write!(f, "{msg}"),
            ErrorKind::SplitMismatch { planned, found } => {
                let at = |b: &Option<u64>| b.map_or("the end of input".to_string(), |b| format!("byte {b}"));
                write!(
                    f,
                    "split plan disagrees with the file: the next record starts at {}, the plan says at {} (the file changed, or the plan was made with other settings)",
                    at(found),
                    at(planned)
                )
            }
            ErrorKind::SplitRecordsMismatch { planned, found } => write!(
                f,
                "split plan disagrees with the file: the split holds {found} records, the plan says {planned} (the file changed, or the plan was made with other settings)"
            ),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.0.path {
            write!(f, "{}: ", path.display())?;
        }
        if let Some(pos) = &self.0.pos {
            write!(f, "{pos}: ")?;
        } else if let Some(pos) = &self.0.record {
            write!(f, "{pos}: ")?;
        }
        write!(f, "{}", self.0.kind)?;
        if let (Some(rec), Some(pos)) = (&self.0.record, &self.0.pos) {
            if rec.byte != pos.byte {
                write!(f, " (record starts at line {}, byte {})", rec.line, rec.byte)?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.0.kind)
            .field("position", &self.0.pos)
            .field("record", &self.0.record)
            .field("path", &self.0.path)
            .finish()
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0.kind {
            ErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

/// A type's name without module paths, for people:
/// `core::option::Option<f64>` becomes `Option<f64>`.
fn short_type_name(full: &str) -> String {
    let mut out = String::with_capacity(full.len());
    let mut segment_start = 0;
    let mut chars = full.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        if c == ':' && chars.peek().is_some_and(|&(_, n)| n == ':') {
            chars.next();
            // Drop the path segment just written.
            out.truncate(segment_start);
            continue;
        }
        out.push(c);
        if !(c.is_alphanumeric() || c == '_') {
            segment_start = out.len();
        }
    }
    out
}

/// A `Result` with the CSV [`Error`] unless another error type is given.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    #[test]
    fn type_names_lose_their_paths() {
        let short = super::short_type_name;
        assert_eq!(short("core::option::Option<f64>"), "Option<f64>");
        assert_eq!(short("u64"), "u64");
        assert_eq!(short("&str"), "&str");
        assert_eq!(short("(alloc::string::String, my::Type)"), "(String, Type)");
    }

    #[test]
    fn a_split_mismatch_says_what_differs() {
        use super::{Error, ErrorKind};
        let at_end = Error::new(ErrorKind::SplitMismatch { planned: None, found: Some(12) });
        assert!(at_end
            .to_string()
            .contains("starts at byte 12, the plan says at the end of input"));
        let held = Error::new(ErrorKind::SplitRecordsMismatch { planned: 5, found: 4 });
        let msg = held.to_string();
        assert!(msg.contains("the split holds 4 records, the plan says 5"), "{msg}");
    }
}

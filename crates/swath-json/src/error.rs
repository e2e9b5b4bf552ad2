//! One error type for reading JSON lines: every error about the input says
//! where (record, line, byte; the field for a value that does not fit).

use std::fmt;
use std::path::PathBuf;

use arrow_schema::ArrowError;
use swath::Position;

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// A line that is not one JSON object, or a value that does not fit
    /// its field's type.
    Line {
        /// The input's name, when it has one.
        path: Option<PathBuf>,
        /// Record (the n-th object), line and byte of the problem.
        pos: Position,
        /// The field's dotted path, for a value that does not fit.
        field: Option<String>,
        /// Why.
        reason: String,
    },
    /// Reading the input (I/O, a line over the limit, a truncated gzip),
    /// with its own position.
    Read(swath::Error),
    /// A schema that cannot be used.
    Schema(String),
    /// Arrow itself.
    Arrow(ArrowError),
    /// The consumer of the batches stopped with its own error.
    Consumer(Box<dyn std::error::Error + Send + Sync>),
}

/// A `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Where in the input, for errors about the input.
    pub fn position(&self) -> Option<Position> {
        match self {
            Error::Line { pos, .. } => Some(*pos),
            Error::Read(e) => e.position(),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Line { path, pos, field, reason } => {
                if let Some(p) = path {
                    write!(f, "{}: ", p.display())?;
                }
                write!(f, "{pos}: ")?;
                if let Some(field) = field {
                    write!(f, "field {field:?}: ")?;
                }
                write!(f, "{reason}")
            }
            Error::Read(e) => write!(f, "{e}"),
            Error::Schema(m) => write!(f, "schema: {m}"),
            Error::Arrow(e) => write!(f, "arrow: {e}"),
            Error::Consumer(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Read(e) => Some(e),
            Error::Arrow(e) => Some(e),
            Error::Consumer(e) => Some(&**e),
            _ => None,
        }
    }
}

impl From<swath::Error> for Error {
    fn from(e: swath::Error) -> Error {
        Error::Read(e)
    }
}

impl From<ArrowError> for Error {
    fn from(e: ArrowError) -> Error {
        Error::Arrow(e)
    }
}

impl From<Error> for ArrowError {
    fn from(e: Error) -> ArrowError {
        match e {
            Error::Arrow(a) => a,
            other => ArrowError::ExternalError(Box::new(other)),
        }
    }
}

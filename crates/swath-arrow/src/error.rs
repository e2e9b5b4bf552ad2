//! One error type for reading CSV into Arrow and writing it out.

use std::fmt;

use arrow_schema::ArrowError;

/// What went wrong. CSV errors (quoting, a field that does not fit its
/// column's type, invalid UTF-8) carry their position: record, line, byte
/// and column, through [`swath_csv::Error`].
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// Reading or decoding the CSV input, with its position.
    Csv(swath_csv::Error),
    /// A schema that cannot be used (an unknown type name, a column that
    /// is not in the file, a schema file that does not parse).
    Schema(String),
    /// Arrow itself (building a batch, IPC writing).
    Arrow(ArrowError),
    /// The Parquet writer (feature `parquet`).
    #[cfg(feature = "parquet")]
    Parquet(parquet::errors::ParquetError),
    /// Writing output.
    Io(std::io::Error),
}

/// A `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// The CSV error, when this is one (its position says where).
    pub fn csv(&self) -> Option<&swath_csv::Error> {
        match self {
            Error::Csv(e) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Csv(e) => write!(f, "{e}"),
            Error::Schema(m) => write!(f, "schema: {m}"),
            Error::Arrow(e) => write!(f, "arrow: {e}"),
            #[cfg(feature = "parquet")]
            Error::Parquet(e) => write!(f, "parquet: {e}"),
            Error::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Csv(e) => Some(e),
            Error::Arrow(e) => Some(e),
            #[cfg(feature = "parquet")]
            Error::Parquet(e) => Some(e),
            Error::Io(e) => Some(e),
            Error::Schema(_) => None,
        }
    }
}

impl From<swath_csv::Error> for Error {
    fn from(e: swath_csv::Error) -> Error {
        Error::Csv(e)
    }
}

impl From<swath::Error> for Error {
    fn from(e: swath::Error) -> Error {
        Error::Csv(swath_csv::Error::from(e))
    }
}

impl From<ArrowError> for Error {
    fn from(e: ArrowError) -> Error {
        match e {
            // A CSV error that went through an Arrow interface comes back.
            ArrowError::ExternalError(b) => match b.downcast::<Error>() {
                Ok(e) => *e,
                Err(b) => Error::Arrow(ArrowError::ExternalError(b)),
            },
            e => Error::Arrow(e),
        }
    }
}

#[cfg(feature = "parquet")]
impl From<parquet::errors::ParquetError> for Error {
    fn from(e: parquet::errors::ParquetError) -> Error {
        Error::Parquet(e)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::Io(e)
    }
}

/// Arrow's iterators ([`arrow_array::RecordBatchReader`]) carry
/// `ArrowError`; the CSV error rides inside and comes back out with
/// `Error::from(arrow_error)`.
impl From<Error> for ArrowError {
    fn from(e: Error) -> ArrowError {
        match e {
            Error::Arrow(e) => e,
            e => ArrowError::ExternalError(Box::new(e)),
        }
    }
}

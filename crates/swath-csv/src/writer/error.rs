//! The writer's error: what went wrong and at which record.

use std::fmt;
use std::io;

/// An error from a [`Writer`](super::Writer): boxed, so results stay one
/// word wide.
pub struct WriteError(Box<Inner>);

struct Inner {
    kind: WriteErrorKind,
    record: u64,
}

/// What went wrong while writing.
#[derive(Debug)]
#[non_exhaustive]
pub enum WriteErrorKind {
    /// The inner writer failed (disk full, closed pipe, ...). The bytes it
    /// did not take stay in the writer's buffer: `flush()` tries again.
    Io(io::Error),
    /// A record did not have the field count set with
    /// [`WriterBuilder::fields`](super::WriterBuilder::fields). Nothing of
    /// that record was written.
    FieldCount {
        /// The count the writer was built with.
        expected: usize,
        /// The count the record had (or would have had, for a field too
        /// many).
        got: usize,
    },
    /// `serialize` was given a value it cannot write as one record (a map,
    /// a nested struct or sequence, ...). Nothing of that record was
    /// written.
    Serialize(String),
}

impl WriteError {
    pub(crate) fn new(kind: WriteErrorKind, record: u64) -> WriteError {
        WriteError(Box::new(Inner { kind, record }))
    }

    pub(crate) fn io(err: io::Error, record: u64) -> WriteError {
        WriteError::new(WriteErrorKind::Io(err), record)
    }

    /// What went wrong.
    pub fn kind(&self) -> &WriteErrorKind {
        &self.0.kind
    }

    /// Consume the error and return its kind.
    pub fn into_kind(self) -> WriteErrorKind {
        self.0.kind
    }

    /// The 1-based number of the record being written when the error
    /// happened (0 before the first). An I/O error during a flush names the
    /// record whose write triggered it, not the one whose bytes failed.
    pub fn record(&self) -> u64 {
        self.0.record
    }

    /// True for an I/O error of kind `BrokenPipe` (a closed `| head`).
    pub fn is_broken_pipe(&self) -> bool {
        matches!(&self.0.kind, WriteErrorKind::Io(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for WriteErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteErrorKind::Io(e) => write!(f, "{e}"),
            WriteErrorKind::FieldCount { expected, got } => {
                write!(f, "record has {got} fields, expected {expected}")
            }
            WriteErrorKind::Serialize(msg) => write!(f, "cannot serialize: {msg}"),
        }
    }
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.record > 0 {
            write!(f, "writing record {}: ", self.0.record)?;
        }
        write!(f, "{}", self.0.kind)
    }
}

impl fmt::Debug for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WriteError")
            .field("kind", &self.0.kind)
            .field("record", &self.0.record)
            .finish()
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.0.kind {
            WriteErrorKind::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl From<WriteError> for io::Error {
    fn from(err: WriteError) -> io::Error {
        match err.into_kind() {
            WriteErrorKind::Io(e) => e,
            other => io::Error::new(io::ErrorKind::InvalidInput, other.to_string()),
        }
    }
}

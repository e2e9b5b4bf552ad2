//! Errors that say where: every error carries the path (when there is one)
//! and a [`Position`] (byte, line, record) when it applies.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Where something happened in an input.
///
/// `byte` is 0-based (an absolute offset from the start of the input);
/// `line` and `record` are 1-based. A field that is not known is 0.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Position {
    /// Absolute byte offset, 0-based.
    pub byte: u64,
    /// Line number, 1-based (0 when unknown).
    pub line: u64,
    /// Record number, 1-based (0 when unknown or not meaningful).
    pub record: u64,
}

impl Position {
    /// A position with all three coordinates.
    pub fn new(byte: u64, line: u64, record: u64) -> Position {
        Position { byte, line, record }
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.record > 0 {
            write!(f, "record {} (line {}, byte {})", self.record, self.line, self.byte)
        } else if self.line > 0 {
            write!(f, "line {} (byte {})", self.line, self.byte)
        } else {
            write!(f, "byte {}", self.byte)
        }
    }
}

/// The error type of the core library: a boxed [`ErrorKind`] plus where it
/// happened. Boxed so that `Result<T, Error>` stays one word wide.
pub struct Error(Box<Inner>);

struct Inner {
    kind: ErrorKind,
    path: Option<PathBuf>,
    position: Option<Position>,
}

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An I/O error from the operating system or the underlying reader.
    Io(io::Error),
    /// A line longer than the configured maximum. The line is not returned
    /// truncated: the reader stops here.
    LineTooLong {
        /// The configured maximum, in bytes (terminator included).
        limit: usize,
    },
    /// The file was shorter at the end of reading than when it was opened:
    /// it was truncated (or replaced) while being read.
    Truncated {
        /// The size recorded when the file was opened.
        expected: u64,
        /// The number of bytes actually read.
        got: u64,
    },
    /// The path names a directory, which has no lines.
    IsADirectory,
    /// A line was asked for as `&str` but is not valid UTF-8.
    InvalidUtf8 {
        /// Offset of the first invalid byte within the line.
        valid_up_to: usize,
    },
}

impl Error {
    /// A new error of the given kind, without path or position.
    pub fn new(kind: ErrorKind) -> Error {
        Error(Box::new(Inner { kind, path: None, position: None }))
    }

    /// Attach the position where the error happened.
    pub fn at(mut self, pos: Position) -> Error {
        self.0.position = Some(pos);
        self
    }

    /// Attach the path of the input (kept if one is set already).
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

    /// Where it went wrong, when known.
    pub fn position(&self) -> Option<Position> {
        self.0.position
    }

    /// The path of the input, when known.
    pub fn path(&self) -> Option<&Path> {
        self.0.path.as_deref()
    }

    /// True for an I/O error whose kind is `BrokenPipe` (a closed `| head`).
    pub fn is_broken_pipe(&self) -> bool {
        matches!(&self.0.kind, ErrorKind::Io(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl From<io::Error> for Error {
    fn from(err: io::Error) -> Error {
        Error::new(ErrorKind::Io(err))
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Io(e) => write!(f, "{e}"),
            ErrorKind::LineTooLong { limit } => {
                write!(f, "line longer than the limit of {limit} bytes")
            }
            ErrorKind::Truncated { expected, got } => {
                write!(f, "file shrank while being read: {expected} bytes at open, only {got} read")
            }
            ErrorKind::IsADirectory => write!(f, "is a directory"),
            ErrorKind::InvalidUtf8 { valid_up_to } => {
                write!(f, "invalid UTF-8 after {valid_up_to} bytes of the line")
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(path) = &self.0.path {
            write!(f, "{}: ", path.display())?;
        }
        if let Some(pos) = &self.0.position {
            write!(f, "{pos}: ")?;
        }
        write!(f, "{}", self.0.kind)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("kind", &self.0.kind)
            .field("path", &self.0.path)
            .field("position", &self.0.position)
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

/// A `Result` with the core [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

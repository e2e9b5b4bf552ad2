//! CSV over swath's buffer: a zero-allocation reader and writer.

#![deny(missing_docs)]

pub mod writer;
pub use writer::{
    FieldBuf, FieldKind, FinishError, QuoteStyle, RowBuf, Terminator, ToField, ToRow, WriteError,
    WriteErrorKind, Writer, WriterBuilder,
};

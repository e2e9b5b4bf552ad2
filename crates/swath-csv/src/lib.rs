//! CSV over swath's buffer: a zero-allocation reader with typed scanning
//! and exact positions in every error.
//!
//! - [`Reader`] / [`ReaderBuilder`]: records borrowed from one reused,
//!   page-aligned buffer ([`Reader::next_record`] returns a [`Record`] valid
//!   until the next call), a reuse form ([`Reader::read_into`] an
//!   [`OwnedRecord`]) and an easy owning iterator ([`Reader::records`]).
//! - Strict quoting by default (bare quotes, text after a closing quote and
//!   unterminated quotes are errors naming the byte, line and record);
//!   [`ReaderBuilder::lenient`] behaves exactly like the `csv` crate,
//!   minus its known defects (`docs/bad-inputs.md` A3
//!   in the repository).
//! - Typed scanning: [`Record::scan`] into tuples through [`FromField`].
//! - [`ParallelReader`]: the same records on every core, exactly (quoted
//!   newlines included): fold/reduce, for-each and ordered output, verified
//!   against the sequential reader chunk by chunk ([`parallel`]).
//! - Structural bytes are found by a SIMD classifier ([`classify::Kernel`],
//!   AVX2/SSE2/scalar), with a scalar twin the tests compare it against.
//!
//! # Examples
//!
//! ```
//! use swath_csv::ReaderBuilder;
//!
//! let data = "name,score\n\"Smith, J\",9.5\nLee,7\n";
//! let mut rdr = ReaderBuilder::new().from_reader(data.as_bytes())?;
//! let mut names = Vec::new();
//! while let Some(rec) = rdr.next_record()? {
//!     let (name, score): (&str, f64) = rec.scan()?;
//!     names.push(format!("{name}={score}"));
//! }
//! assert_eq!(names, ["Smith, J=9.5", "Lee=7"]);
//! # Ok::<(), swath_csv::Error>(())
//! ```
//!
//! Errors say where:
//!
//! ```
//! use swath_csv::{ErrorKind, ReaderBuilder};
//!
//! let mut rdr = ReaderBuilder::new().has_headers(false).from_reader(&b"a,b\nc,\"d\n"[..])?;
//! rdr.next_record()?;
//! let err = rdr.next_record().unwrap_err();
//! assert!(matches!(err.kind(), ErrorKind::UnterminatedQuote));
//! assert_eq!(err.position().unwrap().byte, 6); // the opening quote
//! assert_eq!(err.to_string(), "record 2 (line 2, byte 6): quoted field not closed before end of input (record starts at line 2, byte 4)");
//! # Ok::<(), swath_csv::Error>(())
//! ```

//! # Semantics, where readers differ
//!
//! - Terminators: `\n`, `\r\n` and a lone `\r`, mixed freely, also when a
//!   `\r\n` pair is split between two reads. Empty lines are skipped (as
//!   the `csv` crate does) unless [`ReaderBuilder::skip_empty_lines`] is
//!   off, which makes each one a record of one empty field.
//! - Positions: bytes are 0-based absolute offsets (a stripped BOM
//!   included); lines are 1-based and counted by `\n`, as the `csv` crate
//!   and `wc -l` count them; records are 1-based and the header row is
//!   record 1.
//! - A UTF-8 BOM is stripped at byte 0 however the input is chunked (the
//!   `csv` crate needs it in its first read, `docs/bad-inputs.md` A3.3). In strict
//!   mode a UTF-16/32 BOM is an error rather than a file of NULs.
//! - Comments end at `\n` or `\r` (A3.2), and a comment at end of input
//!   makes no record (A3.1).
//! - Strict mode reads on past a quoting error as lenient mode would, so
//!   `swath csv check` can list every problem; the error is reported once,
//!   for the record, with the offending byte and the record's start.
//!
//! # Parallel reading
//!
//! [`ParallelReader`] reads byte ranges on many cores exactly: one SIMD pass
//! per chunk finds the first record boundary under both "starts outside
//! quotes" and "starts inside quotes", a short serial chain of quote
//! parities picks the real one, and each chunk's records are then read and
//! verified against its neighbour's start (see [`parallel`]).

#![deny(missing_docs)]

pub mod bad;
pub mod classify;
mod error;
pub mod index;
pub mod parallel;
pub mod preamble;
mod reader;
pub mod sniff;
pub mod split;
pub mod typed;

#[cfg(feature = "serde")]
pub use reader::deserialize as de;

pub use bad::{BadRecord, OnBad};
pub use error::{Error, ErrorKind, Position, Result};
pub use parallel::{ChunkRecords, ParallelReader};
pub use reader::builder::ReaderBuilder;
pub use reader::config::{FieldCount, DEFAULT_MAX_FIELDS, DEFAULT_MAX_RECORD_BYTES};
pub use reader::record::{Fields, OwnedRecord, Record};
pub use reader::settings::ReaderSettings;
pub use reader::{BlockColumn, IntoRecords, Reader, RecordBlock, Records};
pub use split::{
    plan_splits, plan_splits_checked, plan_splits_speculative, Split, SplitPlan, SplitReader,
    SplitSize,
};
pub use typed::{FromField, FromRecord};
pub mod writer;
pub use writer::{
    FieldBuf, FieldKind, FinishError, QuoteStyle, RowBuf, Terminator, ToField, ToRow, WriteError,
    WriteErrorKind, Writer, WriterBuilder,
};

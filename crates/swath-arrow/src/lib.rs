//! CSV into Arrow: typed columns from any CSV, exactly, in parallel, with
//! flat memory; Parquet and Arrow IPC out.
//!
//! - [`ArrowReaderBuilder`]: the CSV dialect (a [`swath_csv::ReaderBuilder`]),
//!   the schema (given whole, per column by name, or inferred:
//!   [`Infer`]), batch size (default 16Ki rows), projection, null text and
//!   [`OnError`] policy. It builds:
//!   - [`ArrowReader`]: sequential; an iterator of batches and an Arrow
//!     `RecordBatchReader` ([`ArrowReaderBuilder::from_path`],
//!     [`ArrowReaderBuilder::from_reader`]);
//!   - [`ArrowReader`] over one byte range of a file, from a known record
//!     start to the last record that starts before the range's end
//!     ([`ArrowReaderBuilder::from_range`]), for engines that split files;
//!   - [`ParallelArrowReader`]: every core, batches in file order, bounded
//!     in flight ([`ArrowReaderBuilder::build_parallel`]).
//! - Inference ([`ArrowReaderBuilder::infer_schema`]): Int64, Float64,
//!   Boolean, Date32, Timestamp (µs; `UTC` when the text has `Z` or an
//!   offset), else Utf8; from the head and records at exact record starts
//!   spread over the file, or from every record ([`Infer::Full`]).
//! - Decoding goes from the reader's borrowed fields straight into Arrow
//!   builders with swath's own parsers ([`swath_csv::FromField`]): no
//!   `String` per field, no allocation per record. A field that does not
//!   fit is an error naming record, line, byte, column, text and type.
//! - [`schema_file`]: the one JSON form of a schema, nested, that every
//!   format's `schema --json` writes and `--schema FILE` reads.
//! - [`ParquetSink`] (feature `parquet`, on by default) and [`IpcSink`]
//!   write batches out.
//!
//! # Examples
//!
//! ```
//! use arrow_array::cast::AsArray;
//! use arrow_array::types::Int64Type;
//! use swath_arrow::ArrowReaderBuilder;
//!
//! let csv = "id,name\n1,\"Smith, J\"\n2,Lee\n";
//! let mut b = ArrowReaderBuilder::new();
//! b.batch_size(1);
//! let rdr = b.from_reader(csv.as_bytes())?;
//! let mut ids = Vec::new();
//! for batch in rdr {
//!     let batch = batch?;
//!     ids.extend(batch.column(0).as_primitive::<Int64Type>().values().iter().copied());
//! }
//! assert_eq!(ids, [1, 2]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Errors say where:
//!
//! ```
//! use swath_arrow::{ArrowReaderBuilder, ColumnSpec, ColumnType};
//!
//! let mut b = ArrowReaderBuilder::new();
//! b.column_types(vec![ColumnSpec { name: "n".into(), ty: ColumnType::Int64, nullable: true }]);
//! let mut rdr = b.from_reader(&b"n\n1\nx2\n"[..])?;
//! let err = rdr.next_batch().unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "record 3 (line 3, byte 4): field 0 (\"n\"): cannot parse \"x2\" as int64: not a 64-bit integer"
//! );
//! # Ok::<(), swath_arrow::Error>(())
//! ```

#![deny(missing_docs)]

mod builder;
pub mod column;
pub mod date_format;
mod decode;
#[cfg(feature = "parquet")]
mod encode;
mod error;
mod fits;
mod infer;
mod ipc;
#[cfg(feature = "parquet")]
mod long_values;
mod nulls;
mod numbers;
mod parallel;
#[cfg(feature = "parquet")]
mod parquet_sink;
mod range;
mod reader;
pub mod schema_file;
mod split;
pub mod text;
mod thread_batches;
mod types;

pub use builder::{
    ArrowReaderBuilder, ColumnReport, InferredSchema, DEFAULT_BATCH_SIZE, FORMAT_KEY,
};
pub use date_format::{DateFormat, Dates};
pub use decode::OnError;
pub use error::{Error, Result};
pub use fits::Fits;
pub use infer::{ColumnGuess, Guesses, Infer, Written};
pub use ipc::IpcSink;
pub use nulls::{Nulls, COMMON as COMMON_NULLS};
pub use numbers::{Number, Numbers};
pub use parallel::{ParallelArrowReader, ParallelBatches};
#[cfg(feature = "parquet")]
pub use parquet_sink::{encode_threads_for, ParquetCompression, ParquetOptions, ParquetSink};
pub use range::FileRange;
pub use reader::{ArrowReader, StreamInput};
pub use schema_file::SchemaFile;
pub use split::SplitArrowReader;
pub use thread_batches::ThreadBatches;
pub use types::{parse_schema_text, ColumnSpec, ColumnType, UTC};

// Re-exported so that users build schemas and read batches with the same
// Arrow this crate was built with.
pub use arrow_array;
pub use arrow_ipc;
pub use arrow_schema;
#[cfg(feature = "parquet")]
pub use parquet;

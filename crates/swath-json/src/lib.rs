//! JSON lines into Arrow: exactly, on every core, with flat memory.
//!
//! A JSON-lines record cannot hold a raw newline, so every line start is a
//! record start: a regular file (or a remote object) is cut into byte
//! ranges read on many threads, each owning the lines that start in it,
//! and the results come back in file order ([`swath::line_chunks`], the driver every line-framed format shares). Streams (pipes,
//! gzip, zstd) are read front to back the same way on one thread.
//!
//! - [`scan`]: the JSON grammar, our own (chosen by measurement over
//!   `serde_json`, `sonic-rs` and `simd-json`: docs/design.md), with a
//!   SWAR loop through strings; every error a byte and a reason.
//! - [`infer`]: schema inference on a join lattice (Int64, Float64,
//!   Boolean, Utf8, Date32, Timestamp, Struct, List; mixed fields are Utf8
//!   with each value's JSON text).
//! - [`decode`]: lines straight into Arrow builders, driven by the schema.
//! - [`JsonReaderBuilder`]: batches in file order, `count`, `check`, and
//!   inference from the head and places spread over the file, or from
//!   every line ([`Infer::Full`]).
//!
//! # Examples
//!
//! ```
//! use std::io::Write;
//! use swath::Source;
//! use swath_json::JsonReaderBuilder;
//!
//! let mut f = tempfile::NamedTempFile::new()?;
//! f.write_all(b"{\"id\":1,\"req\":{\"ms\":1.5}}\n{\"id\":2,\"tags\":[\"a\"]}\n")?;
//! let b = JsonReaderBuilder::new();
//! let schema = b.infer_schema(f.path())?.schema;
//! assert_eq!(schema.field(0).name(), "id");
//! let mut rows = 0;
//! b.for_each_batch(&mut Source::open(f.path())?, schema, |batch| {
//!     rows += batch.num_rows();
//!     Ok(())
//! })?;
//! assert_eq!(rows, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Errors say where:
//!
//! ```
//! # use std::io::Write;
//! # use swath::Source;
//! # use swath_json::JsonReaderBuilder;
//! let mut f = tempfile::NamedTempFile::new()?;
//! f.write_all(b"{\"a\":1}\n{\"a\":2,}\n")?;
//! let err = JsonReaderBuilder::new().count(&mut Source::open(f.path())?).unwrap_err();
//! assert!(err.to_string().ends_with("record 2 (line 2, byte 15): expected a key in double quotes"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]

pub mod bad;
mod batches;
pub mod checkpoints;
pub mod decode;
mod error;
pub mod infer;
mod key_order;
mod reader;
pub mod records;
pub mod scan;
pub mod select;

pub use bad::{BadRecord, OnBad};
pub use batches::JsonBatches;
pub use error::{Error, Result};
pub use reader::{
    line_at, Counted, Infer, Inferred, JsonReaderBuilder, Problem, RangeBatches,
    DEFAULT_BATCH_SIZE, DEFAULT_CHUNK, DEFAULT_MAX_LINE,
};
pub use records::{Records, Shape};

// Re-exported so that users build schemas and read batches with the same
// Arrow this crate was built with.
pub use arrow_array;
pub use arrow_schema;

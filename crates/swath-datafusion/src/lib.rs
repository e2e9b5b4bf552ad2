//! swath's readers as DataFusion tables: SQL over big CSV and JSON-lines
//! files on every core, exact when quoted fields hold newlines.
//!
//! DataFusion's own CSV reader splits a file at byte offsets and starts
//! each partition at the next newline, which is wrong when a quoted field
//! holds one; with `newlines_in_values` it reads the whole file on one
//! partition instead. Here each CSV file gets an exact split plan
//! ([`swath_csv::plan_splits`]: the quote-parity pass, on every core, once
//! per file and query session), partitions are runs of its splits, and
//! each is decoded by swath-arrow from its first record's byte, record
//! number and line, so errors name the file and the record as a read of
//! the whole file would. A JSON-lines file needs no plan: any byte cut is
//! exact once a range starts at its first line start.
//!
//! Both formats are one scan ([`scan`]): a [`ScanFormat`] says what is the
//! format's own (inference, where a file may be cut, how a piece is
//! decoded) and [`SwathFormat`] and [`SwathSource`] do the rest, the same
//! for both: projection and `LIMIT` pushed down to decoding, pieces dealt
//! to partitions, compressed files read whole.
//!
//! - [`SwathCsvFormat`], [`SwathJsonFormat`]: DataFusion
//!   [`FileFormat`](datafusion::datasource::file_format::FileFormat)s
//!   (schema by swath's inference or the user's; CSV row counts from the
//!   plan), scanned by [`SwathCsvSource`] and [`SwathJsonSource`].
//! - [`SwathCsvExt::register_swath_csv`], [`SwathJsonExt::register_swath_json`]:
//!   a file or directory as a table.
//! - [`memory_limited_session`]: queries held to a memory limit, spilling
//!   to disk.
//!
//! # Examples
//!
//! ```
//! use datafusion::prelude::SessionContext;
//! use swath_datafusion::{SwathCsvExt, SwathCsvOptions};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("t.csv");
//! std::fs::write(&path, "city,note\nOslo,\"two\nlines\"\nOslo,x\nRome,y\n")?;
//! let ctx = SessionContext::new();
//! ctx.register_swath_csv("t", path.to_str().unwrap(), SwathCsvOptions::new()).await?;
//! let batches = ctx.sql("SELECT city, count(*) FROM t GROUP BY city").await?.collect().await?;
//! assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 2);
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

pub mod bad;
#[cfg(feature = "codec")]
pub mod codec;
mod csv;
pub mod json;
mod memory;
mod paths;
pub mod scan;

pub use bad::PutAside;
pub use csv::{
    csv_error, CsvScan, SwathCsvExt, SwathCsvFormat, SwathCsvOptions, SwathCsvSource, SwathCsvTable,
};
/// The DataFusion this crate is built on (its version: use this one).
pub use datafusion;
pub use json::{
    json_error, JsonScan, SwathJsonExt, SwathJsonFormat, SwathJsonOptions, SwathJsonSource,
};
pub use memory::{is_out_of_memory, memory_limited_session};
pub use scan::{ScanFormat, SwathFormat, SwathSource};

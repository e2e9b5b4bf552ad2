//! swath's exact CSV splits as a DataFusion table: SQL over big CSV files
//! on every core, exact when quoted fields hold newlines.
//!
//! DataFusion's own CSV reader splits a file at byte offsets and starts
//! each partition at the next newline, which is wrong when a quoted field
//! holds one; with `newlines_in_values` it reads the whole file on one
//! partition instead. Here each file gets an exact split plan
//! ([`swath_csv::plan_splits`]: the quote-parity pass, on every core, once
//! per file and query session), partitions are runs of its splits, and
//! each is decoded by swath-arrow from its first record's byte, record
//! number and line, so errors name the file and the record as a read of
//! the whole file would.
//!
//! - [`SwathCsvFormat`]: a DataFusion [`FileFormat`](datafusion::datasource::file_format::FileFormat)
//!   (schema by swath's inference or the user's; row-count statistics from
//!   the plan), scanned by [`SwathCsvSource`] (projection and `LIMIT`
//!   pushed down to decoding).
//! - [`SwathCsvExt::register_swath_csv`]: a file or directory as a table.
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

#[cfg(feature = "codec")]
pub mod codec;
mod error;
mod format;
pub mod json;
mod memory;
mod opener;
mod options;
mod paths;
mod plan_cache;
mod register;
mod source;
mod table;

/// The DataFusion this crate is built on (its version: use this one).
pub use datafusion;
pub use error::csv_error;
pub use format::SwathCsvFormat;
pub use json::{json_error, SwathJsonExt, SwathJsonOptions};
pub use memory::{is_out_of_memory, memory_limited_session};
pub use options::SwathCsvOptions;
pub use register::SwathCsvExt;
pub use source::SwathCsvSource;
pub use table::SwathCsvTable;

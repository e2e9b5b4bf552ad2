//! CSV as DataFusion tables: swath's exact split plans behind the shared
//! scan ([`crate::scan`]).
//!
//! Each file gets an exact split plan ([`swath_csv::plan_splits`]: the
//! quote-parity pass, on every core, once per file and query session, or
//! the checkpoint index beside the file); partitions are runs of its
//! splits, each decoded by swath-arrow from its first record's byte,
//! record number and line, so errors name the file and the record as a
//! read of the whole file would.

pub(crate) mod error;
pub(crate) mod options;
pub(crate) mod plan_cache;
mod register;
mod scan;
mod table;

pub use error::csv_error;
pub use options::SwathCsvOptions;
pub use register::SwathCsvExt;
pub use scan::{CsvScan, SwathCsvFormat, SwathCsvSource};
pub use table::SwathCsvTable;

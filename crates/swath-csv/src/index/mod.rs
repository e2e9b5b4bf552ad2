//! The checkpoint index of a CSV file (see [`swath::index`] for the
//! sidecar and what identifies a file): a record start every few MiB with
//! its record number and line, found in one parallel pass by the
//! quote-parity chain of [`plan_splits`](crate::plan_splits), and the
//! dialect it was built with.
//!
//! - [`dialect`]: the settings that decide where records start.
//! - [`build`]: making the index.
//! - [`open`]: a valid index back as a [`SplitPlan`](crate::SplitPlan)
//!   whose splits start at the checkpoints; a stale one is refused.
//!
//! # Examples
//!
//! ```
//! use swath_csv::index::{index_csv, plan_from_index, IndexCheck};
//! use swath_csv::ReaderBuilder;
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("t.csv");
//! std::fs::write(&path, "a,b\n1,\"x\ny\"\n2,z\n")?;
//! let b = ReaderBuilder::new();
//! let index = index_csv(&b, &path, 4)?;
//! assert_eq!(index.records, 3); // the header row included
//! match plan_from_index(&b, &path, &index)? {
//!     IndexCheck::Fresh(plan) => assert_eq!(plan.records(), 3),
//!     IndexCheck::Stale(why) => panic!("{why}"),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod build;
pub mod dialect;
pub mod open;

pub use build::index_csv;
pub use dialect::dialect_string;
pub use open::{plan_from_index, IndexCheck};

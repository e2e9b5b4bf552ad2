//! The reading lab: every way of reading a file, measured.
//!
//! - [`gen`]: the generators of the lab's and the benches' data (the seed's
//!   log file, a 6-column CSV), streaming, deterministic, with the counts a
//!   reader must find.
//! - [`units`]: sizes as people type and read them.

#![deny(missing_docs)]

pub mod gen;
pub mod units;

//! The reading lab: every way of reading a file, measured.

#![deny(missing_docs)]

//! CSV over swath's buffer: a zero-allocation reader and writer.

#![deny(missing_docs)]

//! Test support shared by the swath crates' tests, so that each helper is
//! written once:
//!
//! - [`alloc`]: a counting global allocator ([`CountingAlloc`]), counting
//!   allocations and bytes for the whole process and for the calling thread.
//! - [`read`]: a reader that hands out a few bytes per `read` ([`Chunked`]),
//!   so every buffer seam of a reader runs.
//! - [`csv`]: generated CSV documents with quoted newlines everywhere
//!   ([`csv_document`]), for the tests that cut files.
//! - [`json`]: generated JSON lines with the shapes that break readers
//!   ([`json_document`]).
//! - [`body`]: the obvious twin of `swath::preamble` ([`body::body_model`]):
//!   a text's lines counted off the top and the bottom.
//! - [`rng`]: a deterministic xorshift generator ([`Rng`]) for generated
//!   inputs; the same seed gives the same input on every machine.
//! - [`file`](mod@file): a temporary file of given bytes, removed on drop
//!   ([`TempFile`]), for checks that need a path.
//! - [`regressions`]: the fuzzers' kept inputs replayed through their
//!   checks ([`replay_kept_inputs`]).
//! - [`http`] (feature `http`): loopback HTTP/1.1 servers for the
//!   remote-input tests: a ranged object server with ETags on hyper
//!   ([`RangeServer`]) and a proxy on raw sockets that fails, delays or
//!   cuts responses on a plan ([`FaultProxy`], [`Faults`]).
//! - [`s3`]: a real S3-compatible server (moto's) on loopback, killed on
//!   drop ([`MotoServer`]).
//!
//! Only ever a dev-dependency: nothing a user builds links it. It depends
//! on no swath crate (and without features on nothing), so even the core
//! crate's unit tests can use it.
//! The lab's `swath_lab::CountingAlloc` is a separate, product-side
//! allocator (it measures the lab's methods in the `swath` binary); this one
//! is for tests, and adds the per-thread count they need.

#![deny(missing_docs)]

pub mod alloc;
pub mod body;
pub mod csv;
pub mod file;
#[cfg(feature = "http")]
pub mod http;
pub mod json;
pub mod read;
pub mod regressions;
pub mod rng;
pub mod s3;

pub use alloc::CountingAlloc;
pub use csv::{csv_document, CsvShape};
pub use file::TempFile;
#[cfg(feature = "http")]
pub use http::{FaultProxy, Faults, RangeServer};
pub use json::json_document;
pub use read::Chunked;
pub use regressions::replay_kept_inputs;
pub use rng::Rng;
pub use s3::MotoServer;

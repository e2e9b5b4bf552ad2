//! The reading lab: every way of reading a file, measured.
//!
//! - [`methods`]: the ways of reading (buffer sizes, line readers, mmap,
//!   threads, 1-byte reads) and writing, each checking its own answer.
//! - [`runner`] runs each method in a child process that calls
//!   [`measure::measure`] and prints a [`sample::Sample`]; [`report`] turns
//!   the series into a table with recipes, JSON and an SVG chart.
//! - [`alloc`]: a counting global allocator ([`CountingAlloc`]).
//! - [`os`]: resource usage, free space, page-cache residency and eviction.
//! - [`gen`]: the generators of the lab's and the benches' data (the seed's
//!   log file, a 6-column CSV), streaming, deterministic, with the counts a
//!   reader must find.
//! - [`units`]: sizes as people type and read them.
//! - [`article`]: the figures the texts swath grew out of published, shown
//!   beside this machine's; [`go`]: those texts' Go programs, built and run
//!   here (`--go`).

#![deny(missing_docs)]

pub mod aligned;
pub mod alloc;
pub mod article;
pub mod gen;
pub mod go;
pub mod measure;
pub mod methods;
pub mod os;
pub mod report;
pub mod runner;
pub mod sample;
pub mod units;

pub use alloc::CountingAlloc;

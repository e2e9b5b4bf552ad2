//! Lines skipped before the records and after them, by every reader,
//! against the obvious twin (see `checks::preamble`).
//!
//! `cargo fuzz run csv_preamble` (from `fuzz/`).

#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::preamble(data));

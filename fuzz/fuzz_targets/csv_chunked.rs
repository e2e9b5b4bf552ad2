//! 1-byte reads against whole input (see `checks::chunked`).
//!
//! `cargo fuzz run csv_chunked` (from `fuzz/`).

#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::chunked(data));

//! Lenient mode against the `csv` crate (see `checks::oracle`).
//!
//! `cargo fuzz run csv_vs_oracle` (from `fuzz/`).

#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::oracle(data));

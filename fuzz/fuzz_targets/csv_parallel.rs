//! Parallel reading against the sequential reader (see
//! `checks::parallel`).
//!
//! `cargo fuzz run csv_parallel` (from `fuzz/`).

#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::parallel(data));

//! Arrow values against `Reader` + `FromField` (see `arrow_checks::values`).
//!
//! `cargo fuzz run arrow_values` (from `fuzz/`).

#![no_main]

#[path = "../arrow_checks.rs"]
mod arrow_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| arrow_checks::values(data));

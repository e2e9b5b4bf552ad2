//! Inferred types fit; parallel Arrow equals sequential (see
//! `arrow_checks::inferred`).
//!
//! `cargo fuzz run arrow_inferred` (from `fuzz/`).

#![no_main]

#[path = "../arrow_checks.rs"]
mod arrow_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| arrow_checks::inferred(data));

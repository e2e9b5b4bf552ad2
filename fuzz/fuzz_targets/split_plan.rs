//! Exact split plans against the sequential reader (see `checks::split_plan`).
//!
//! `cargo fuzz run split_plan` (from `fuzz/`).

#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::split_plan(data));

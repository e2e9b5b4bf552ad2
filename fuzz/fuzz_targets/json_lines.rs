//! JSON lines against serde_json and arrow-json (see `json_checks::lines`).
//!
//! `cargo fuzz run json_lines` (from `fuzz/`).

#![no_main]

#[path = "../json_checks.rs"]
mod json_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| json_checks::lines(data));

//! JSON documents: the parallel framing and an engine's ranges against
//! the sequential framing, and serde_json (see
//! `json_document_checks::document`).
//!
//! `cargo fuzz run json_documents` (from `fuzz/`).

#![no_main]

#[path = "../json_document_checks.rs"]
mod json_document_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| json_document_checks::document(data));

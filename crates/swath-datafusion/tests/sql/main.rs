//! swath's SQL tables against DataFusion's own readers, arrow-json and the
//! sequential readers: one test binary (each links DataFusion), a module
//! each.

mod common;
mod csv_tables;
mod json_tables;
mod one_scan;

//! The lab's and the benches' data generators.
//!
//! Both stream through one reused buffer into any [`std::io::Write`], with no
//! allocation per line or row, and both say in advance what a reader must
//! find ([`log::line_count`], [`csv::summary`]), so a bench can check its
//! answer.

pub mod access_log;
pub mod csv;
pub mod jsonl;
pub mod log;
mod prng;

pub use prng::Prng;

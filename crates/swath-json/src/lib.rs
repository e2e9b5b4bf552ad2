//! JSON lines into Arrow.

#![deny(missing_docs)]

pub mod decode;
pub mod infer;
pub mod scan;

//! An owned reader of a file (or a remote object) from one byte to an end:
//! what a byte-range reader runs over (owned, so it can move to another
//! thread). It is the core's [`swath::range::OwnedRange`], under the name
//! swath-arrow's API has always used.

/// Reads a ranged source from `start` up to `end` (its length, or less).
pub use swath::range::OwnedRange as FileRange;

//! The slow, obvious twin of the vector kernels.

/// Count `needle` in `hay`, one byte at a time.
pub(super) fn count(hay: &[u8], needle: u8) -> u64 {
    hay.iter().filter(|&&b| b == needle).count() as u64
}

//! The scalar twin of the vector classifiers.

use super::BLOCK;

pub(super) fn masks<const N: usize>(block: &[u8; BLOCK], needles: &[u8; N]) -> [u64; N] {
    let mut out = [0u64; N];
    for (i, &b) in block.iter().enumerate() {
        for (m, &n) in out.iter_mut().zip(needles) {
            *m |= u64::from(b == n) << i;
        }
    }
    out
}

//! Quote parity as bits: which bytes of a 64-byte block are inside quotes.
//!
//! With doubled-quote escaping, a byte is inside quotes when an odd number
//! of quote bytes come before it (and it), counting from a point known to
//! be outside: the prefix XOR of the quote mask.

/// Bit `i` of the result is the XOR of bits `0..=i` of `x` (the core's).
pub(crate) use swath::swar::prefix_xor;

/// [`prefix_xor`] as one carry-less multiplication by all ones.
///
/// # Safety
///
/// The CPU must support PCLMULQDQ.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "pclmulqdq")]
pub(crate) unsafe fn prefix_xor_clmul(x: u64) -> u64 {
    use std::arch::x86_64::{_mm_clmulepi64_si128, _mm_cvtsi128_si64, _mm_set_epi64x};
    let r = _mm_clmulepi64_si128(_mm_set_epi64x(0, x as i64), _mm_set_epi64x(0, -1), 0);
    _mm_cvtsi128_si64(r) as u64
}

#[cfg(test)]
/// Deterministic bytes from `alphabet` (xorshift), for the scans' tests.
pub(crate) fn noise(len: usize, alphabet: &[u8], seed: u64) -> Vec<u8> {
    swath_testkit::Rng::new(seed).bytes(len, alphabet)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn carry_less_prefix_xor_matches() {
        if !std::is_x86_feature_detected!("pclmulqdq") {
            eprintln!("skipped: no PCLMULQDQ on this CPU");
            return;
        }
        let mut rng = swath_testkit::Rng::new(0x9e3779b97f4a7c15);
        for _ in 0..10_000 {
            let x = rng.next_u64();
            // SAFETY: checked above.
            assert_eq!(unsafe { prefix_xor_clmul(x) }, prefix_xor(x), "{x:#x}");
        }
        for x in [0, 1, 1 << 63, !0] {
            // SAFETY: checked above.
            assert_eq!(unsafe { prefix_xor_clmul(x) }, prefix_xor(x), "{x:#x}");
        }
    }
}

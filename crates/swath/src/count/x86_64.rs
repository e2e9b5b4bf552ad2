//! SSE2 and AVX2 byte counting.
//!
//! Each vector step compares a block with the needle (0xFF where equal) and
//! subtracts that from byte-wide accumulators, so a match adds 1. After at
//! most 255 steps a byte lane could overflow, so we fold the lanes into
//! 64-bit sums with `sad_epu8` and start again.

use std::arch::x86_64::*;

use super::scalar;

/// Steps before the byte-wide accumulators must be folded.
const MAX_STEPS: usize = 255;

/// # Safety
///
/// The CPU must support SSE2 (every x86_64 CPU does).
#[target_feature(enable = "sse2")]
pub(super) unsafe fn count_sse2(hay: &[u8], needle: u8) -> u64 {
    const W: usize = 16;
    let n = _mm_set1_epi8(needle as i8);
    let zero = _mm_setzero_si128();
    let ptr = hay.as_ptr();
    let vec_end = hay.len() - hay.len() % W;
    let mut total = 0u64;
    let mut i = 0;
    while i < vec_end {
        let block_end = vec_end.min(i + MAX_STEPS * W);
        let mut acc = zero;
        while i < block_end {
            // SAFETY: `i + W <= vec_end <= hay.len()`; unaligned load.
            let v = unsafe { _mm_loadu_si128(ptr.add(i) as *const __m128i) };
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, n));
            i += W;
        }
        let sums = _mm_sad_epu8(acc, zero);
        total += (_mm_cvtsi128_si64(sums) + _mm_extract_epi16::<4>(sums) as i64) as u64;
    }
    total + scalar::count(&hay[vec_end..], needle)
}

/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn count_avx2(hay: &[u8], needle: u8) -> u64 {
    const W: usize = 32;
    let n = _mm256_set1_epi8(needle as i8);
    let zero = _mm256_setzero_si256();
    let ptr = hay.as_ptr();
    let vec_end = hay.len() - hay.len() % W;
    let mut total = 0u64;
    let mut i = 0;
    while i < vec_end {
        let block_end = vec_end.min(i + MAX_STEPS * W);
        let mut acc = zero;
        while i < block_end {
            // SAFETY: `i + W <= vec_end <= hay.len()`; unaligned load.
            let v = unsafe { _mm256_loadu_si256(ptr.add(i) as *const __m256i) };
            acc = _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(v, n));
            i += W;
        }
        let sums = _mm256_sad_epu8(acc, zero);
        total += (_mm256_extract_epi64::<0>(sums)
            + _mm256_extract_epi64::<1>(sums)
            + _mm256_extract_epi64::<2>(sums)
            + _mm256_extract_epi64::<3>(sums)) as u64;
    }
    // The tail is under 32 bytes: the SSE2 kernel and then scalar finish it.
    // SAFETY: AVX2 implies SSE2.
    total + unsafe { count_sse2(&hay[vec_end..], needle) }
}

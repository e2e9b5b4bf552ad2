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

/// One vector width's operations, so that the counting loop is written
/// once (memchr's `Vector` trait in small). Every method is `unsafe`: the
/// CPU must support the vector's feature.
trait Vector: Copy {
    /// Bytes per vector.
    const WIDTH: usize;
    /// # Safety
    /// The CPU has the feature.
    unsafe fn splat(b: u8) -> Self;
    /// # Safety
    /// The CPU has the feature.
    unsafe fn zero() -> Self;
    /// # Safety
    /// The CPU has the feature, and `p..p + WIDTH` is readable.
    unsafe fn load(p: *const u8) -> Self;
    /// `acc` minus (0xFF where `v == n`): a match adds 1 to its byte lane.
    /// # Safety
    /// The CPU has the feature.
    unsafe fn count_eq(acc: Self, v: Self, n: Self) -> Self;
    /// The sum of the byte lanes.
    /// # Safety
    /// The CPU has the feature.
    unsafe fn sum_lanes(acc: Self) -> u64;
}

impl Vector for __m128i {
    const WIDTH: usize = 16;
    #[inline(always)]
    unsafe fn splat(b: u8) -> Self {
        // SAFETY: the caller's CPU has SSE2.
        unsafe { _mm_set1_epi8(b as i8) }
    }
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: as above.
        unsafe { _mm_setzero_si128() }
    }
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller guarantees 16 readable bytes; unaligned load.
        unsafe { _mm_loadu_si128(p as *const __m128i) }
    }
    #[inline(always)]
    unsafe fn count_eq(acc: Self, v: Self, n: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm_sub_epi8(acc, _mm_cmpeq_epi8(v, n)) }
    }
    #[inline(always)]
    unsafe fn sum_lanes(acc: Self) -> u64 {
        // SAFETY: as above.
        unsafe {
            let sums = _mm_sad_epu8(acc, _mm_setzero_si128());
            (_mm_cvtsi128_si64(sums) + _mm_extract_epi16::<4>(sums) as i64) as u64
        }
    }
}

impl Vector for __m256i {
    const WIDTH: usize = 32;
    #[inline(always)]
    unsafe fn splat(b: u8) -> Self {
        // SAFETY: the caller's CPU has AVX2.
        unsafe { _mm256_set1_epi8(b as i8) }
    }
    #[inline(always)]
    unsafe fn zero() -> Self {
        // SAFETY: as above.
        unsafe { _mm256_setzero_si256() }
    }
    #[inline(always)]
    unsafe fn load(p: *const u8) -> Self {
        // SAFETY: the caller guarantees 32 readable bytes; unaligned load.
        unsafe { _mm256_loadu_si256(p as *const __m256i) }
    }
    #[inline(always)]
    unsafe fn count_eq(acc: Self, v: Self, n: Self) -> Self {
        // SAFETY: as above.
        unsafe { _mm256_sub_epi8(acc, _mm256_cmpeq_epi8(v, n)) }
    }
    #[inline(always)]
    unsafe fn sum_lanes(acc: Self) -> u64 {
        // SAFETY: as above.
        unsafe {
            let sums = _mm256_sad_epu8(acc, _mm256_setzero_si256());
            (_mm256_extract_epi64::<0>(sums)
                + _mm256_extract_epi64::<1>(sums)
                + _mm256_extract_epi64::<2>(sums)
                + _mm256_extract_epi64::<3>(sums)) as u64
        }
    }
}

/// The counting loop for any vector width; returns the count over the
/// whole vectors and where they end (the caller counts the tail).
///
/// # Safety
///
/// The CPU must support `V`'s feature.
#[inline(always)]
unsafe fn count_vectors<V: Vector>(hay: &[u8], needle: u8) -> (u64, usize) {
    let w = V::WIDTH;
    // SAFETY: the caller's CPU has the feature (for every call below).
    let n = unsafe { V::splat(needle) };
    let ptr = hay.as_ptr();
    let vec_end = hay.len() - hay.len() % w;
    let mut total = 0u64;
    let mut i = 0;
    while i < vec_end {
        let block_end = vec_end.min(i + MAX_STEPS * w);
        // SAFETY: as above.
        let mut acc = unsafe { V::zero() };
        while i < block_end {
            // SAFETY: `i + w <= vec_end <= hay.len()`.
            acc = unsafe { V::count_eq(acc, V::load(ptr.add(i)), n) };
            i += w;
        }
        // SAFETY: as above.
        total += unsafe { V::sum_lanes(acc) };
    }
    (total, vec_end)
}

/// # Safety
///
/// The CPU must support SSE2 (every x86_64 CPU does).
#[target_feature(enable = "sse2")]
pub(super) unsafe fn count_sse2(hay: &[u8], needle: u8) -> u64 {
    // SAFETY: this function's feature is SSE2.
    let (total, end) = unsafe { count_vectors::<__m128i>(hay, needle) };
    total + scalar::count(&hay[end..], needle)
}

/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn count_avx2(hay: &[u8], needle: u8) -> u64 {
    // SAFETY: this function's feature is AVX2.
    let (total, end) = unsafe { count_vectors::<__m256i>(hay, needle) };
    // The tail is under 32 bytes: the SSE2 kernel and then scalar finish it.
    // SAFETY: AVX2 implies SSE2.
    total + unsafe { count_sse2(&hay[end..], needle) }
}

//! SSE2 and AVX2 classifiers: compare, then `movemask` one bit per byte.

use std::arch::x86_64::*;

use super::{run_blocks, RunMasks, BLOCK};

/// # Safety
///
/// The CPU must support SSE2 (every x86_64 CPU does).
#[target_feature(enable = "sse2")]
pub(super) unsafe fn masks_sse2<const N: usize>(
    block: &[u8; BLOCK],
    needles: &[u8; N],
) -> [u64; N] {
    let p = block.as_ptr() as *const __m128i;
    // SAFETY: `block` is 64 bytes long: four unaligned 16-byte loads.
    let v = unsafe {
        [
            _mm_loadu_si128(p),
            _mm_loadu_si128(p.add(1)),
            _mm_loadu_si128(p.add(2)),
            _mm_loadu_si128(p.add(3)),
        ]
    };
    let mut out = [0u64; N];
    for (m, &n) in out.iter_mut().zip(needles) {
        let n = _mm_set1_epi8(n as i8);
        let mut acc = 0u64;
        for (j, v) in v.iter().enumerate() {
            let bits = _mm_movemask_epi8(_mm_cmpeq_epi8(*v, n)) as u32 as u64;
            acc |= bits << (16 * j);
        }
        *m = acc;
    }
    out
}

/// # Safety
///
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn masks_avx2<const N: usize>(
    block: &[u8; BLOCK],
    needles: &[u8; N],
) -> [u64; N] {
    let p = block.as_ptr() as *const __m256i;
    // SAFETY: `block` is 64 bytes long: two unaligned 32-byte loads.
    let (lo, hi) = unsafe { (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1))) };
    let mut out = [0u64; N];
    for (m, &n) in out.iter_mut().zip(needles) {
        let n = _mm256_set1_epi8(n as i8);
        let a = _mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, n)) as u32 as u64;
        let b = _mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, n)) as u32 as u64;
        *m = a | (b << 32);
    }
    out
}

/// The reader's masks over a run of blocks (see `Kernel::reader_masks`):
/// the needles broadcast once, the comparisons OR-ed as vectors, so one
/// `movemask` per half and mask.
///
/// # Safety
///
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn reader_masks_avx2(data: &[u8], n: &[u8; 5], out: &mut RunMasks) {
    let [d, q, cr, lf, e] = n.map(|b| _mm256_set1_epi8(b as i8));
    let half = |v: __m256i| {
        let (eq_q, eq_lf, eq_d) =
            (_mm256_cmpeq_epi8(v, q), _mm256_cmpeq_epi8(v, lf), _mm256_cmpeq_epi8(v, d));
        let both = _mm256_or_si256(eq_q, eq_lf);
        let out = _mm256_or_si256(both, _mm256_or_si256(eq_d, _mm256_cmpeq_epi8(v, cr)));
        let ins = _mm256_or_si256(both, _mm256_cmpeq_epi8(v, e));
        [out, ins, eq_d].map(|m| _mm256_movemask_epi8(m) as u32 as u64)
    };
    run_blocks(data, out, |block| {
        let p = block.as_ptr() as *const __m256i;
        // SAFETY: `block` is 64 bytes long: two unaligned 32-byte loads.
        let (lo, hi) = unsafe { (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1))) };
        let (l, h) = (half(lo), half(hi));
        [l[0] | (h[0] << 32), l[1] | (h[1] << 32), l[2] | (h[2] << 32)]
    });
}

/// As [`reader_masks_avx2`], 16 bytes at a time.
///
/// # Safety
///
/// The CPU must support SSE2 (every x86_64 CPU does).
#[target_feature(enable = "sse2")]
pub(super) unsafe fn reader_masks_sse2(data: &[u8], n: &[u8; 5], out: &mut RunMasks) {
    let [d, q, cr, lf, e] = n.map(|b| _mm_set1_epi8(b as i8));
    run_blocks(data, out, |block| {
        let p = block.as_ptr() as *const __m128i;
        let mut m = [0u64; 3];
        for j in 0..4 {
            // SAFETY: `block` is 64 bytes long: four unaligned 16-byte loads.
            let v = unsafe { _mm_loadu_si128(p.add(j)) };
            let eq_d = _mm_cmpeq_epi8(v, d);
            let both = _mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, lf));
            let o = _mm_or_si128(both, _mm_or_si128(eq_d, _mm_cmpeq_epi8(v, cr)));
            let i = _mm_or_si128(both, _mm_cmpeq_epi8(v, e));
            for (m, v) in m.iter_mut().zip([o, i, eq_d]) {
                *m |= (_mm_movemask_epi8(v) as u32 as u64) << (16 * j);
            }
        }
        m
    });
}

//! Classifying structural bytes, 64 at a time.
//!
//! A kernel compares a 64-byte block with up to a handful of needle bytes
//! (delimiter, quote, `\r`, `\n`, escape) and returns one bit mask per
//! needle: bit `i` is set when byte `i` equals the needle. The reader turns
//! those masks into "where is the next interesting byte" with a
//! trailing-zero count, so a run of plain bytes costs nothing per byte.
//!
//! Every vector kernel has the scalar twin beside it that the tests compare
//! it against; [`Kernel::detect`] picks the best one the CPU has.

mod scalar;
#[cfg(target_arch = "x86_64")]
mod x86_64;

/// Bytes per classified block: one bit per byte of a `u64` mask.
pub const BLOCK: usize = 64;

/// Blocks the reader classifies per call ([`reader_masks`]):
/// a call's fixed cost (dispatch, needle broadcasts, spills) was about 55
/// of the 80 instructions it took for one block (callgrind), paid about
/// once a record. Typed scan, instructions a record: 1 block 746, 4 blocks
/// 733 (then 668 after other changes), 8 blocks 660, 16 blocks 656; 1 KiB
/// classified ahead costs nothing that matters against a 256 KiB buffer.
pub(crate) const RUN: usize = 16;

/// The classifier's kernels: the CPU's instruction level, swath's one
/// token ([`swath::kernel`]); only kernels the CPU supports can be
/// constructed, so running one is always safe.
pub use swath::kernel::Kernel;
use swath::kernel::Level;

/// Classifying with a [`Kernel`]: bring this trait into scope to call
/// [`masks`](Classify::masks) on one.
pub trait Classify: Copy {
    /// One mask per needle over `block`: bit `i` of `out[k]` is set when
    /// `block[i] == needles[k]`.
    fn masks<const N: usize>(self, block: &[u8; BLOCK], needles: &[u8; N]) -> [u64; N];

    /// Like [`masks`](Self::masks) for a block of up to 64 bytes: bits past
    /// `block.len()` are clear.
    fn masks_partial<const N: usize>(self, block: &[u8], needles: &[u8; N]) -> [u64; N];
}

impl Classify for Kernel {
    #[inline]
    fn masks<const N: usize>(self, block: &[u8; BLOCK], needles: &[u8; N]) -> [u64; N] {
        match self.level() {
            Level::Scalar => scalar::masks(block, needles),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: SSE2 is part of the x86_64 baseline.
            Level::Sse2 => unsafe { x86_64::masks_sse2(block, needles) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a kernel's `Avx2` level is only made by `Kernel::avx2`,
            // after checking that the CPU supports AVX2.
            Level::Avx2 => unsafe { x86_64::masks_avx2(block, needles) },
        }
    }

    #[inline]
    fn masks_partial<const N: usize>(self, block: &[u8], needles: &[u8; N]) -> [u64; N] {
        if let Ok(full) = <&[u8; BLOCK]>::try_from(block) {
            return self.masks(full, needles);
        }
        let n = block.len().min(BLOCK);
        let mut pad = [0u8; BLOCK];
        pad[..n].copy_from_slice(&block[..n]);
        let keep = if n == BLOCK { !0 } else { (1u64 << n) - 1 };
        let mut out = self.masks(&pad, needles);
        for m in out.iter_mut() {
            *m &= keep;
        }
        out
    }
}

/// The masks the CSV reader needs from needles `[delim, quote, \r, \n,
/// escape]`, for up to [`RUN`] blocks at once: for block `j` of `data`,
/// "outside" (any of the first four: what ends or opens things outside
/// quotes), "inside" (quote, `\n`, escape) and "delim" (the delimiter
/// alone). The same as OR-ing [`Classify::masks`] (the tests check),
/// with the ORs done before the bit extraction. Returns how many bytes
/// were classified (`data.len()`, at most `RUN * BLOCK`); bits past
/// them are clear.
#[inline]
pub(crate) fn reader_masks(kernel: Kernel, data: &[u8], n: &[u8; 5], out: &mut RunMasks) -> usize {
    let data = &data[..data.len().min(RUN * BLOCK)];
    match kernel.level() {
        Level::Scalar => run_blocks(data, out, |b| {
            let [d, q, cr, lf, e] = scalar::masks(b, n);
            [d | q | cr | lf, q | e | lf, d]
        }),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE2 is part of the x86_64 baseline.
        Level::Sse2 => unsafe { x86_64::reader_masks_sse2(data, n, out) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a kernel's `Avx2` level is only made by `Kernel::avx2`,
        // after checking that the CPU supports AVX2.
        Level::Avx2 => unsafe { x86_64::reader_masks_avx2(data, n, out) },
    }
    data.len()
}

/// What the CSV reader classifies with: a kernel and its needles
/// `[delim, quote, \r, \n, escape]` (quote `\n` when quoting is off,
/// escape the quote when there is none). The reader's state machine owns
/// one and lends it to its cursor of cached masks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ReaderClassifier {
    kernel: Kernel,
    needles: [u8; 5],
}

impl ReaderClassifier {
    pub(crate) fn new(kernel: Kernel, needles: [u8; 5]) -> ReaderClassifier {
        ReaderClassifier { kernel, needles }
    }

    /// [`reader_masks`] of `data` with these needles.
    #[inline]
    pub(crate) fn classify(&self, data: &[u8], out: &mut RunMasks) -> usize {
        reader_masks(self.kernel, data, &self.needles, out)
    }
}

/// The reader's masks of a run of up to [`RUN`] blocks (see
/// [`reader_masks`]).
#[derive(Clone, Debug, Default)]
pub(crate) struct RunMasks {
    pub(crate) outside: [u64; RUN],
    pub(crate) inside: [u64; RUN],
    /// The delimiter alone: the plain path tells a field's end from a
    /// terminator or quote by this bit rather than by loading the byte.
    pub(crate) delim: [u64; RUN],
}

/// Classify `data` (at most `RUN` blocks) block by block with `f`, which
/// returns a block's outside, inside and delimiter masks; the last partial
/// block is zero-padded and its bits past the data cleared.
#[inline(always)]
fn run_blocks(data: &[u8], out: &mut RunMasks, mut f: impl FnMut(&[u8; BLOCK]) -> [u64; 3]) {
    let mut chunks = data.chunks_exact(BLOCK);
    let mut j = 0;
    for c in &mut chunks {
        let full: &[u8; BLOCK] = c.try_into().expect("a whole block");
        [out.outside[j % RUN], out.inside[j % RUN], out.delim[j % RUN]] = f(full);
        j += 1;
    }
    let rest = chunks.remainder();
    if !rest.is_empty() && j < RUN {
        let mut pad = [0u8; BLOCK];
        pad[..rest.len()].copy_from_slice(rest);
        let keep = (1u64 << rest.len()) - 1;
        let [o, i, d] = f(&pad);
        [out.outside[j], out.inside[j], out.delim[j]] = [o & keep, i & keep, d & keep];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_matches_the_scalar_twin() {
        let alphabet = b",\"\r\n\\#a \x00\xff";
        let data = swath_testkit::Rng::new(0x2545f4914f6cdd1d).bytes(4096, alphabet);
        let needles = [b',', b'"', b'\r', b'\n', b'\\'];
        for k in Kernel::available() {
            for lead in 0..BLOCK {
                for len in [0, 1, 15, 16, 17, 31, 32, 33, 63, 64] {
                    let block = &data[lead * 7..lead * 7 + len];
                    assert_eq!(
                        k.masks_partial(block, &needles),
                        Kernel::scalar().masks_partial(block, &needles),
                        "{} lead {lead} len {len}",
                        k.name()
                    );
                }
            }
        }
        // The reader's two masks, in runs of blocks: the ORs of the scalar
        // twin's, block by block.
        for k in Kernel::available() {
            for lead in 0..BLOCK {
                for len in
                    [0, 1, 63, 64, 65, 127, 128, 200, 255, 256, 257, 400, 1023, 1024, 1025, 1100]
                {
                    let data = &data[lead * 7..lead * 7 + len];
                    let mut m =
                        RunMasks { outside: [!0; RUN], inside: [!0; RUN], delim: [!0; RUN] };
                    let n = reader_masks(k, data, &needles, &mut m);
                    assert_eq!(n, len.min(RUN * BLOCK));
                    for (j, c) in data[..n].chunks(BLOCK).enumerate() {
                        let [d, q, cr, lf, e] = Kernel::scalar().masks_partial(c, &needles);
                        let want = (d | q | cr | lf, q | e | lf, d);
                        let got = (m.outside[j], m.inside[j], m.delim[j]);
                        assert_eq!(got, want, "{} {lead} {len} {j}", k.name());
                    }
                }
            }
        }
        // Spot-check the scalar twin itself.
        let m = Kernel::scalar().masks_partial(b"a,\"\n", b",\"\n");
        assert_eq!(m, [0b10, 0b100, 0b1000]);
    }
}

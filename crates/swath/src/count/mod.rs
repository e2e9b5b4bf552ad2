//! Counting newlines (or any byte) at memory bandwidth.
//!
//! The vectorised routines live beside a plain scalar twin that the tests
//! compare them against; [`Kernel::detect`] picks the best one the CPU has,
//! once per call (the feature check is itself a cached atomic load).

mod input;
mod scalar;
#[cfg(target_arch = "x86_64")]
mod x86_64;

pub use input::{count_source, CountOptions};

/// The counting kernels: the CPU's instruction level ([`crate::kernel`]),
/// which callers (tests, the lab) may force instead of the best available.
pub use crate::kernel::Kernel;
use crate::kernel::Level;

impl Kernel {
    /// Count the occurrences of `needle` in `hay` with this kernel.
    pub fn count(self, hay: &[u8], needle: u8) -> u64 {
        match self.level() {
            Level::Scalar => scalar::count(hay, needle),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: SSE2 is part of the x86_64 baseline.
            Level::Sse2 => unsafe { x86_64::count_sse2(hay, needle) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a kernel's `Avx2` level is only made when the CPU has AVX2.
            Level::Avx2 => unsafe { x86_64::count_avx2(hay, needle) },
        }
    }
}

/// Count occurrences of `needle` in `hay` with the fastest kernel.
#[inline]
pub fn count_byte(hay: &[u8], needle: u8) -> u64 {
    Kernel::detect().count(hay, needle)
}

/// Count `\n` bytes: exactly what `wc -l` prints.
#[inline]
pub fn count_newlines(hay: &[u8]) -> u64 {
    count_byte(hay, b'\n')
}

/// Count lines: newlines, plus one for a final line without a terminator.
/// An empty input has 0 lines; `"\n"` has 1.
pub fn count_lines(hay: &[u8]) -> u64 {
    let newlines = count_newlines(hay);
    match hay.last() {
        Some(&b) if b != b'\n' => newlines + 1,
        _ => newlines,
    }
}

/// Accumulates a line count over an input seen in pieces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineCount {
    /// `\n` bytes seen.
    pub newlines: u64,
    /// Bytes seen.
    pub bytes: u64,
    /// The last byte seen, if any.
    pub last: Option<u8>,
}

impl LineCount {
    /// Count one more piece of the input.
    #[inline]
    pub fn add(&mut self, piece: &[u8]) {
        if let Some(&b) = piece.last() {
            self.newlines += count_newlines(piece);
            self.bytes += piece.len() as u64;
            self.last = Some(b);
        }
    }

    /// Lines: newlines plus one for an unterminated last line.
    pub fn lines(&self) -> u64 {
        match self.last {
            Some(b) if b != b'\n' => self.newlines + 1,
            _ => self.newlines,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_matches_the_scalar_twin_at_every_alignment() {
        // Needles at every position, inputs padded by 0..64 bytes on both sides.
        let mut rng = swath_testkit::Rng::new(0x9e3779b97f4a7c15);
        let mut data = vec![0u8; 4096 + 128];
        for b in data.iter_mut() {
            let seed = rng.next_u64();
            *b = if seed % 5 == 0 { b'\n' } else { (seed >> 8) as u8 };
        }
        for kernel in Kernel::available() {
            for lead in 0..64 {
                for len in (0..600).chain([1000, 4000]) {
                    let hay = &data[lead..lead + len];
                    assert_eq!(
                        kernel.count(hay, b'\n'),
                        scalar::count(hay, b'\n'),
                        "{kernel:?} lead {lead} len {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn long_runs_do_not_overflow_the_byte_accumulators() {
        let all = vec![b'\n'; 255 * 32 * 3 + 77];
        for kernel in Kernel::available() {
            assert_eq!(kernel.count(&all, b'\n'), all.len() as u64, "{kernel:?}");
        }
    }

    #[test]
    fn lines_versus_newlines() {
        assert_eq!(count_lines(b""), 0);
        assert_eq!(count_lines(b"\n"), 1);
        assert_eq!(count_lines(b"a"), 1);
        assert_eq!(count_lines(b"a\nb"), 2);
        assert_eq!(count_newlines(b"a\nb"), 1);
        let mut c = LineCount::default();
        c.add(b"a\nb");
        c.add(b"");
        assert_eq!(c.lines(), 2);
        c.add(b"\n");
        assert_eq!(c.lines(), 2);
    }
}

//! HyperLogLog: the number of distinct values of a column whose values no
//! longer fit the memory budget, estimated in 16 KiB (2^14 one-byte
//! registers; a relative standard error of 1.04 / sqrt(2^14), about 0.8%).
//!
//! Flajolet, Fusy, Gandouet, Meunier (2007), with the linear-counting
//! correction for small counts. The hash is 64 bits, so no large-range
//! correction is needed. Two sketches merge by the registers' maximum, so
//! per-thread sketches give the sequential estimate exactly.

/// Register index bits.
const P: u32 = 14;
/// Registers.
const M: usize = 1 << P;

/// The relative standard error of an estimate.
pub const STANDARD_ERROR: f64 = 1.04 / 128.0;

/// A HyperLogLog sketch over 64-bit hashes.
#[derive(Clone, Debug)]
pub struct Hll {
    registers: Box<[u8]>,
}

impl Default for Hll {
    fn default() -> Hll {
        Hll { registers: vec![0u8; M].into_boxed_slice() }
    }
}

impl Hll {
    /// Count a value by its 64-bit hash (a well-mixed one: every bit used).
    #[inline]
    pub fn add(&mut self, hash: u64) {
        let idx = (hash >> (64 - P)) as usize;
        // The rank of the first 1 bit in the other 50 bits (a sentinel bit
        // caps it at 51).
        let rest = (hash << P) | (1 << (P - 1));
        let rank = rest.leading_zeros() as u8 + 1;
        let r = &mut self.registers[idx];
        if rank > *r {
            *r = rank;
        }
    }

    /// Take in `other`'s values.
    pub fn merge(&mut self, other: &Hll) {
        for (a, b) in self.registers.iter_mut().zip(other.registers.iter()) {
            *a = (*a).max(*b);
        }
    }

    /// The estimated number of distinct values added.
    pub fn estimate(&self) -> u64 {
        let m = M as f64;
        let alpha = 0.7213 / (1.0 + 1.079 / m);
        let (mut sum, mut zeros) = (0.0f64, 0usize);
        for &r in self.registers.iter() {
            sum += 2f64.powi(-i32::from(r));
            zeros += usize::from(r == 0);
        }
        let raw = alpha * m * m / sum;
        let est = if raw <= 2.5 * m && zeros > 0 {
            // Linear counting: exact enough while most registers are empty.
            m * (m / zeros as f64).ln()
        } else {
            raw
        };
        est.round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    fn hash(i: u64) -> u64 {
        crate::cmd::csv::stats::hash::Seeded::default().hash_one(i.to_string().as_bytes())
    }

    #[test]
    fn estimates_are_within_four_standard_errors() {
        for n in [0u64, 1, 10, 1000, 50_000, 300_000] {
            let mut h = Hll::default();
            for i in 0..n {
                h.add(hash(i));
                // Repeats change nothing.
                h.add(hash(i / 2));
            }
            let est = h.estimate() as f64;
            let tol = (4.0 * STANDARD_ERROR * n as f64).max(2.0);
            assert!((est - n as f64).abs() <= tol, "n={n} est={est}");
        }
    }

    #[test]
    fn merged_sketches_equal_one_sketch_over_both() {
        let (mut a, mut b, mut both) = (Hll::default(), Hll::default(), Hll::default());
        for i in 0..20_000 {
            let h = hash(i);
            if i % 3 == 0 {
                a.add(h)
            } else {
                b.add(h)
            }
            both.add(h);
        }
        a.merge(&b);
        assert_eq!(a.registers, both.registers);
    }
}

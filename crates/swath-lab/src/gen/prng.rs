//! A tiny deterministic PRNG (SplitMix64), so generated data depends only on
//! the seed and not on a `rand` version.

/// SplitMix64: 8 bytes of state, passes BigCrush, trivially reproducible.
#[derive(Clone, Debug)]
pub struct Prng(u64);

impl Prng {
    /// A generator started from `seed` (every seed, 0 included, is fine).
    pub fn new(seed: u64) -> Prng {
        Prng(seed)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`), by multiply-shift: no division, and the
    /// bias is below 2^-32 for the small `n` we use.
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        ((self.next_u64() >> 32) * n) >> 32
    }

    /// True with probability `pct` percent.
    #[inline]
    pub fn percent(&mut self, pct: u8) -> bool {
        self.below(100) < u64::from(pct)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_below_stays_in_range() {
        let mut a = Prng::new(7);
        let mut b = Prng::new(7);
        let mut c = Prng::new(8);
        let xs: Vec<u64> = (0..100).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..100).map(|_| b.next_u64()).collect();
        let zs: Vec<u64> = (0..100).map(|_| c.next_u64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs, zs);
        let mut hits = [0u32; 10];
        for _ in 0..10_000 {
            let v = a.below(10);
            assert!(v < 10);
            hits[v as usize] += 1;
        }
        // Every bucket is hit: a broken multiply-shift would leave some empty.
        assert!(hits.iter().all(|&h| h > 800), "{hits:?}");
    }
}

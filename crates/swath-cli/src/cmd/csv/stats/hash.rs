//! The distinct sets' hasher: short field values hashed a word at a time.
//!
//! The standard SipHash was a seventh of `stats`'s time. This one mixes
//! eight bytes per multiplication and starts from a per-process random
//! seed (taken from the standard library's own), so a file cannot be
//! crafted to collide; the sets are capped anyway.

use std::hash::{BuildHasher, Hasher};

const K: u64 = 0x9e37_79b9_7f4a_7c15;

/// Builds [`WordHasher`]s with this process's seed.
#[derive(Clone, Copy, Debug)]
pub struct Seeded(u64);

impl Default for Seeded {
    fn default() -> Seeded {
        static SEED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
        Seeded(*SEED.get_or_init(|| std::collections::hash_map::RandomState::new().hash_one(0u64)))
    }
}

impl BuildHasher for Seeded {
    type Hasher = WordHasher;
    fn build_hasher(&self) -> WordHasher {
        WordHasher(self.0)
    }
}

/// Multiply-rotate over 8-byte words, with a final avalanche.
#[derive(Clone, Copy, Debug)]
pub struct WordHasher(u64);

impl WordHasher {
    #[inline]
    fn mix(&mut self, w: u64) {
        self.0 = (self.0 ^ w).wrapping_mul(K).rotate_left(29);
    }
}

impl Hasher for WordHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut words = bytes.chunks_exact(8);
        for w in &mut words {
            self.mix(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        }
        let rest = words.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.mix(u64::from_le_bytes(last));
        }
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        // The length `Hash for [u8]` writes first: tells "a" from "a\0".
        self.mix(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        // Spread the last multiplication's high bits to the low ones that
        // pick a bucket.
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^ (h >> 33)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn distinct_values_stay_distinct() {
        let mut set: HashSet<Vec<u8>, Seeded> = HashSet::default();
        let values: Vec<Vec<u8>> = (0..5000u32)
            .map(|i| i.to_string().into_bytes())
            .chain([b"a".to_vec(), b"a\0".to_vec(), Vec::new(), b"abcdefgh".to_vec()])
            .collect();
        for v in &values {
            assert!(set.insert(v.clone()));
        }
        for v in &values {
            assert!(!set.insert(v.clone()), "{v:?}");
        }
        assert_eq!(set.len(), values.len());
        // Equal bytes hash equally, different ones (here) differently.
        let h = |b: &[u8]| Seeded::default().hash_one(b);
        assert_eq!(h(b"Paris"), h(b"Paris"));
        assert_ne!(h(b"a"), h(b"a\0"));
    }
}

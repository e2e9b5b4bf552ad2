//! Choosing a uniform sample of record numbers for `sample`: Floyd's
//! algorithm picks `k` distinct numbers of `0..n`, every subset equally
//! likely, in `k` steps and memory for `k` numbers, whatever `n` is; the
//! generator is the lab's SplitMix64 (`swath_lab::gen::Prng`), so a seed
//! gives the same sample everywhere.

use std::collections::HashSet;

pub use swath_lab::gen::Prng;

/// A number of `0..=max`, uniform (rejection, no modulo bias: a sample
/// must not favour low record numbers, whatever the file's size).
fn up_to(rng: &mut Prng, max: u64) -> u64 {
    if max == u64::MAX {
        return rng.next_u64();
    }
    let n = max + 1;
    let zone = u64::MAX - (u64::MAX % n) - 1;
    loop {
        let x = rng.next_u64();
        if x <= zone {
            return x % n;
        }
    }
}

/// `k` distinct numbers of `0..n` (all of them when `k >= n`), sorted.
pub fn choose(n: u64, k: u64, rng: &mut Prng) -> Vec<u64> {
    if k >= n {
        return (0..n).collect();
    }
    let mut set = HashSet::with_capacity(k as usize);
    for j in n - k..n {
        let t = up_to(rng, j);
        if !set.insert(t) {
            set.insert(j);
        }
    }
    let mut out: Vec<u64> = set.into_iter().collect();
    out.sort_unstable();
    out
}

/// The seed to use: the one given, else one from the clock and the
/// process (said on stderr with `verbose`, so a run can be repeated).
pub fn seed(given: Option<u64>) -> u64 {
    given.unwrap_or_else(|| {
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Prng::new(t ^ (u64::from(std::process::id()) << 32)).next_u64()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_are_distinct_sorted_and_in_range() {
        let mut rng = Prng::new(1);
        for (n, k) in [(0, 3), (5, 5), (5, 9), (10, 3), (1000, 999), (1 << 40, 50)] {
            let c = choose(n, k, &mut rng);
            assert_eq!(c.len() as u64, k.min(n));
            assert!(c.windows(2).all(|w| w[0] < w[1]));
            assert!(c.iter().all(|&x| x < n));
        }
    }

    /// Every element is about equally likely: 20000 draws of 3 of 10, each
    /// number chosen 6000 times expected; a biased pick is far outside.
    #[test]
    fn every_number_is_about_equally_likely() {
        let mut rng = Prng::new(42);
        let mut hits = [0u32; 10];
        for _ in 0..20_000 {
            for x in choose(10, 3, &mut rng) {
                hits[x as usize] += 1;
            }
        }
        for (i, h) in hits.iter().enumerate() {
            assert!((5600..6400).contains(h), "{i}: {h} of 6000 expected");
        }
    }

    #[test]
    fn a_seed_gives_the_same_sample() {
        let a = choose(1_000_000, 20, &mut Prng::new(7));
        let b = choose(1_000_000, 20, &mut Prng::new(7));
        assert_eq!(a, b);
        assert_ne!(a, choose(1_000_000, 20, &mut Prng::new(8)));
    }
}

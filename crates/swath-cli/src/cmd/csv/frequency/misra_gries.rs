//! The Misra-Gries step that keeps a table of counts within its budget:
//! subtract the (k+1)-th largest count from every count and drop those
//! that reach zero, leaving at most k.
//!
//! Each step takes at most `d` (the subtracted amount) from any one value's
//! count, so after steps d1, d2, ... every kept count is at most
//! `delta = d1 + d2 + ...` below the true one, and a value that was dropped
//! occurred at most `delta` times. Each step takes `d` from at least k+1
//! counts, so `delta <= n / (k+1)` for n values counted (the batched and
//! mergeable form of Misra and Gries (1982); Agarwal et al., "Mergeable
//! Summaries", 2012: two tables merge by adding their counts and their
//! deltas, then one step).

use std::collections::HashMap;
use std::hash::BuildHasher;

/// Keep at most `k` counts of `counts` (k >= 1): returns the amount taken
/// from each kept count (0 when there were at most `k`).
pub fn prune<K, S: BuildHasher>(counts: &mut HashMap<K, u64, S>, k: usize) -> u64 {
    let k = k.max(1);
    if counts.len() <= k {
        return 0;
    }
    let mut all: Vec<u64> = counts.values().copied().collect();
    // The (k+1)-th largest: index k in descending order.
    let (_, &mut d, _) = all.select_nth_unstable_by(k, |a, b| b.cmp(a));
    counts.retain(|_, c| {
        *c -= d.min(*c);
        *c > 0
    });
    d
}

#[cfg(test)]
mod tests {
    use super::prune;
    use std::collections::HashMap;

    #[test]
    fn keeps_at_most_k_and_says_what_it_took() {
        let mut m: HashMap<&str, u64> = [("a", 10), ("b", 5), ("c", 5), ("d", 1)].into();
        assert_eq!(prune(&mut m, 4), 0);
        assert_eq!(m.len(), 4);
        // The 3rd largest is 5: b and c tie with it and go.
        assert_eq!(prune(&mut m, 2), 5);
        assert_eq!(m, [("a", 5)].into());
        let mut m: HashMap<&str, u64> = [("a", 3), ("b", 2), ("c", 1)].into();
        assert_eq!(prune(&mut m, 2), 1);
        assert_eq!(m, [("a", 2), ("b", 1)].into());
    }
}

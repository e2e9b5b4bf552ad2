//! One column's counts: exact while its distinct values fit the budget,
//! then a Misra-Gries table (`misra_gries.rs`) with a known error bound
//! and a HyperLogLog estimate of the distinct values (`hll.rs`).
//!
//! The budget is in estimated heap bytes: a value's length plus
//! [`ENTRY_BYTES`] for its table slot, box and allocator overhead. When a
//! table goes over it, the table is cut to half its entries (Misra-Gries:
//! the amount taken is added to the bound); if the values kept are long
//! enough to stay over three quarters of the budget, it is cut again to
//! half as many.

use std::collections::HashMap;
use std::hash::BuildHasher;

use super::hll::Hll;
use super::misra_gries;
use crate::cmd::csv::stats::hash::Seeded;

/// Estimated bytes a distinct value costs besides its own bytes: the hash
/// table's slot (a 16-byte box and an 8-byte count, at up to 7/8 load and
/// up to half empty after growing) and the allocator's header and rounding.
pub const ENTRY_BYTES: usize = 80;

/// The fewest counts a sketch keeps, however small the budget.
pub const MIN_COUNTERS: usize = 16;

/// What a column switched to when it outgrew the budget.
#[derive(Clone, Debug)]
pub struct Sketch {
    /// Counts kept after each cut.
    pub counters: usize,
    /// The most any count is below the true one; also the most a value
    /// that is not in the table occurred.
    pub bound: u64,
    /// Every distinct value seen, estimated.
    pub hll: Hll,
}

/// One column's counts.
#[derive(Clone, Debug)]
pub struct Tally {
    counts: HashMap<Box<[u8]>, u64, Seeded>,
    /// Estimated heap bytes of `counts`.
    bytes: usize,
    budget: usize,
    /// Non-empty values counted.
    pub values: u64,
    /// Empty values (not in the table).
    pub empty: u64,
    /// Set once the column outgrew the budget.
    pub sketch: Option<Sketch>,
}

impl Tally {
    /// An empty tally that keeps its table within about `budget` bytes.
    pub fn new(budget: usize) -> Tally {
        Tally { counts: HashMap::default(), bytes: 0, budget, values: 0, empty: 0, sketch: None }
    }

    /// Let the table grow to `budget` bytes (when that is more): a chunk's
    /// table that becomes the merged one.
    pub fn raise_budget(&mut self, budget: usize) {
        self.budget = self.budget.max(budget);
    }

    /// Count one value.
    #[inline]
    pub fn add(&mut self, field: &[u8]) {
        if field.is_empty() {
            self.empty += 1;
            return;
        }
        self.values += 1;
        if let Some(c) = self.counts.get_mut(field) {
            *c += 1;
            return;
        }
        self.insert(field, 1);
    }

    /// A value not in the table. Every value in the table has been given
    /// to the HyperLogLog (when there is one): on insert, or when the
    /// sketch was made from the exact table; a value cut from the table
    /// was given on its first insert. So only inserts feed it.
    fn insert(&mut self, field: &[u8], n: u64) {
        if let Some(s) = &mut self.sketch {
            s.hll.add(self.counts.hasher().hash_one(field));
        }
        self.counts.insert(field.into(), n);
        self.bytes += field.len() + ENTRY_BYTES;
        if self.bytes > self.budget {
            self.cut();
        }
    }

    /// Become a sketch (when still exact), then cut the table to its
    /// counters (fewer when its values are long).
    fn cut(&mut self) {
        let counts = &mut self.counts;
        let s = self.sketch.get_or_insert_with(|| {
            let mut hll = Hll::default();
            for v in counts.keys() {
                hll.add(counts.hasher().hash_one(v));
            }
            Sketch { counters: (counts.len() / 2).max(MIN_COUNTERS), bound: 0, hll }
        });
        loop {
            s.bound += misra_gries::prune(counts, s.counters);
            self.bytes = counts.keys().map(|v| v.len() + ENTRY_BYTES).sum();
            if self.bytes <= self.budget / 4 * 3 || s.counters == MIN_COUNTERS {
                break;
            }
            s.counters = (s.counters / 2).max(MIN_COUNTERS);
        }
    }

    /// Take in `other`'s counts (another chunk of the same column).
    pub fn merge(&mut self, other: Tally) {
        self.values += other.values;
        self.empty += other.empty;
        if let Some(o) = &other.sketch {
            let counts = &self.counts;
            let s = self.sketch.get_or_insert_with(|| {
                let mut hll = Hll::default();
                for v in counts.keys() {
                    hll.add(counts.hasher().hash_one(v));
                }
                Sketch { counters: o.counters, bound: 0, hll }
            });
            s.hll.merge(&o.hll);
            s.bound += o.bound;
            s.counters = s.counters.min(o.counters);
        }
        for (v, n) in other.counts {
            match self.counts.get_mut(&v) {
                Some(c) => *c += n,
                None => self.insert(&v, n),
            }
        }
    }

    /// The number of distinct non-empty values: exact, or `None` when the
    /// column is a sketch (then see [`Sketch::hll`]).
    pub fn exact_distinct(&self) -> Option<u64> {
        self.sketch.is_none().then_some(self.counts.len() as u64)
    }

    /// The `limit` most frequent values (all with 0), most frequent first,
    /// ties in byte order.
    pub fn top(&self, limit: usize) -> Vec<(&[u8], u64)> {
        let mut all: Vec<(&[u8], u64)> = self.counts.iter().map(|(v, &n)| (&v[..], n)).collect();
        let order = |a: &(&[u8], u64), b: &(&[u8], u64)| b.1.cmp(&a.1).then(a.0.cmp(b.0));
        if limit > 0 && limit < all.len() {
            all.select_nth_unstable_by(limit, order);
            all.truncate(limit);
        }
        all.sort_unstable_by(order);
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_within_the_budget_and_merges_add_up() {
        let mut a = Tally::new(1 << 20);
        let mut b = Tally::new(1 << 20);
        for v in ["x", "y", "x", "", "z"] {
            a.add(v.as_bytes());
        }
        for v in ["y", "y", ""] {
            b.add(v.as_bytes());
        }
        a.merge(b);
        assert!(a.sketch.is_none());
        assert_eq!((a.values, a.empty, a.exact_distinct()), (6, 2, Some(3)));
        assert_eq!(a.top(2), [(&b"y"[..], 3), (&b"x"[..], 2)]);
        assert_eq!(a.top(0).len(), 3);
    }

    #[test]
    fn over_the_budget_counts_stay_within_the_bound() {
        // Value i % 50 for every other value (heavy), unique ones between.
        let mut t = Tally::new(64 * (ENTRY_BYTES + 8));
        let mut truth: HashMap<Vec<u8>, u64> = HashMap::new();
        for i in 0..20_000u64 {
            let v = if i % 2 == 0 { format!("h{}", i % 50) } else { format!("u{i}") };
            t.add(v.as_bytes());
            *truth.entry(v.into_bytes()).or_default() += 1;
        }
        let s = t.sketch.clone().expect("a sketch");
        assert!(s.bound > 0 && s.bound <= 20_000 / (s.counters as u64 + 1), "{s:?}");
        for (v, n) in t.top(0) {
            let real = truth[v];
            assert!(n <= real && real <= n + s.bound, "{v:?}: {n} vs {real}");
        }
        for (v, &real) in &truth {
            if real > s.bound {
                assert!(t.top(0).iter().any(|(w, _)| *w == &v[..]), "{v:?} lost");
            }
        }
        let est = s.hll.estimate() as f64;
        assert!((est - 10_050.0).abs() < 400.0, "{est}");
    }
}

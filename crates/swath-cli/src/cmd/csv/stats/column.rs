//! One column's statistics, accumulated per chunk and merged in file order.
//!
//! Everything here is mergeable: counts add, minima and maxima compare,
//! mean and variance merge by Chan's formula (Welford within a chunk), the
//! distinct set is a union that gives up past its cap. Memory is flat: a
//! few numbers, two copies of the lexicographic extremes, and at most
//! `cap` distinct values per column, of which those of [`LONG`] bytes or
//! more are kept as a 128-bit digest rather than a copy (so a huge field is
//! held twice here, as the extremes, not three times: `docs/memory.md`).

use std::collections::HashSet;

use super::hash::Seeded;
use super::infer::{classify, Kind};

/// Kinds seen, as bits.
pub const INTEGER: u8 = 1;
/// A float was seen.
pub const FLOAT: u8 = 2;
/// A boolean was seen.
pub const BOOLEAN: u8 = 4;
/// A date/time was seen.
pub const DATE: u8 = 8;
/// Something else was seen.
pub const STRING: u8 = 16;

/// Statistics of one column.
#[derive(Clone, Debug, Default)]
pub struct Column {
    /// Non-empty values.
    pub count: u64,
    /// Empty values.
    pub empty: u64,
    /// Kinds seen (bits above).
    pub kinds: u8,
    /// Numbers seen (integers and floats): Welford's running moments.
    pub n: u64,
    /// Mean of the numbers.
    pub mean: f64,
    /// Sum of squared deviations from the mean.
    pub m2: f64,
    /// Smallest and largest number.
    pub min: f64,
    /// Largest number.
    pub max: f64,
    /// Sum of the numbers.
    pub fsum: f64,
    /// Exact sum and extremes while every number is an integer.
    pub isum: i128,
    /// Smallest integer.
    pub imin: i64,
    /// Largest integer.
    pub imax: i64,
    /// Byte lengths of non-empty values.
    pub min_len: usize,
    /// Longest value.
    pub max_len: usize,
    /// Lexicographically first and last non-empty value.
    pub first: Option<Vec<u8>>,
    /// Lexicographically last value.
    pub last: Option<Vec<u8>>,
    /// Distinct non-empty values shorter than [`LONG`], until there are
    /// more than the cap (with `long_distinct`).
    pub distinct: HashSet<Vec<u8>, Seeded>,
    /// Distinct values of [`LONG`] bytes or more, by length and digest.
    pub long_distinct: HashSet<Digest>,
    /// More distinct values than the cap.
    pub overflow: bool,
}

/// Values this long or longer are counted as distinct by their digest.
pub const LONG: usize = 4096;

/// A long value's length and two SipHash values under keys random per
/// process: two values collide with a chance of about 2^-128.
pub type Digest = (usize, u64, u64);

fn digest(field: &[u8]) -> Digest {
    use std::hash::BuildHasher;
    static KEYS: std::sync::OnceLock<[std::collections::hash_map::RandomState; 2]> =
        std::sync::OnceLock::new();
    let keys = KEYS.get_or_init(Default::default);
    (field.len(), keys[0].hash_one(field), keys[1].hash_one(field))
}

impl Column {
    /// Distinct non-empty values (meaningless once `overflow` is set).
    pub fn distinct_count(&self) -> usize {
        self.distinct.len() + self.long_distinct.len()
    }

    /// Stop counting distinct values: more than the cap.
    fn give_up_distinct(&mut self) {
        self.overflow = true;
        self.distinct = HashSet::default();
        self.long_distinct = HashSet::default();
    }

    /// Account for one field.
    pub fn add(&mut self, field: &[u8], cap: usize) {
        if field.is_empty() {
            self.empty += 1;
            return;
        }
        if self.count == 0 {
            self.min_len = field.len();
            self.max_len = field.len();
        } else {
            self.min_len = self.min_len.min(field.len());
            self.max_len = self.max_len.max(field.len());
        }
        self.count += 1;
        match classify(field) {
            Kind::Integer(i) => {
                self.kinds |= INTEGER;
                if self.kinds & FLOAT == 0 {
                    self.isum += i128::from(i);
                }
                if self.n == 0 {
                    (self.imin, self.imax) = (i, i);
                } else {
                    (self.imin, self.imax) = (self.imin.min(i), self.imax.max(i));
                }
                self.number(i as f64);
            }
            Kind::Float(x) => {
                self.kinds |= FLOAT;
                self.number(x);
            }
            Kind::Boolean => self.kinds |= BOOLEAN,
            Kind::Date => self.kinds |= DATE,
            Kind::String => self.kinds |= STRING,
        }
        match &mut self.first {
            Some(f) if before(field, f) => replace(f, field),
            None => self.first = Some(field.to_vec()),
            _ => {}
        }
        match &mut self.last {
            Some(l) if before(l, field) => replace(l, field),
            None => self.last = Some(field.to_vec()),
            _ => {}
        }
        if self.overflow {
            return;
        }
        if field.len() >= LONG {
            let d = digest(field);
            if !self.long_distinct.contains(&d) {
                if self.distinct_count() >= cap {
                    self.give_up_distinct();
                } else {
                    self.long_distinct.insert(d);
                }
            }
        } else if !self.distinct.contains(field) {
            if self.distinct_count() >= cap {
                self.give_up_distinct();
            } else {
                self.distinct.insert(field.to_vec());
            }
        }
    }

    fn number(&mut self, x: f64) {
        if self.n == 0 {
            (self.min, self.max) = (x, x);
        } else {
            (self.min, self.max) = (self.min.min(x), self.max.max(x));
        }
        self.n += 1;
        self.fsum += x;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
    }

    /// Fold `other` (a later chunk) into this one.
    pub fn merge(&mut self, other: Column, cap: usize) {
        if other.count == 0 && other.empty == 0 {
            return;
        }
        if self.count == 0 {
            let empty = self.empty;
            *self = Column { empty: empty + other.empty, ..other };
            return;
        }
        self.empty += other.empty;
        if other.count == 0 {
            return;
        }
        self.min_len = self.min_len.min(other.min_len);
        self.max_len = self.max_len.max(other.max_len);
        self.count += other.count;
        let had_float = self.kinds & FLOAT != 0;
        self.kinds |= other.kinds;
        if !had_float && other.kinds & FLOAT == 0 {
            self.isum += other.isum;
        }
        if other.n > 0 {
            if self.n == 0 {
                (self.n, self.mean, self.m2, self.fsum) =
                    (other.n, other.mean, other.m2, other.fsum);
                (self.min, self.max, self.imin, self.imax) =
                    (other.min, other.max, other.imin, other.imax);
            } else {
                let n = self.n + other.n;
                let d = other.mean - self.mean;
                self.mean += d * other.n as f64 / n as f64;
                self.m2 += other.m2 + d * d * (self.n as f64 * other.n as f64 / n as f64);
                self.n = n;
                self.fsum += other.fsum;
                (self.min, self.max) = (self.min.min(other.min), self.max.max(other.max));
                (self.imin, self.imax) = (self.imin.min(other.imin), self.imax.max(other.imax));
            }
        }
        if let (Some(a), Some(b)) = (&self.first, &other.first) {
            if b < a {
                self.first = other.first;
            }
        }
        if let (Some(a), Some(b)) = (&self.last, &other.last) {
            if b > a {
                self.last = other.last;
            }
        }
        if self.overflow || other.overflow {
            self.give_up_distinct();
            return;
        }
        for v in other.distinct {
            if self.distinct_count() >= cap && !self.distinct.contains(&v) {
                self.give_up_distinct();
                return;
            }
            self.distinct.insert(v);
        }
        for d in other.long_distinct {
            if self.distinct_count() >= cap && !self.long_distinct.contains(&d) {
                self.give_up_distinct();
                return;
            }
            self.long_distinct.insert(d);
        }
    }

    /// The inferred type: the narrowest that holds every non-empty value.
    pub fn type_name(&self) -> &'static str {
        match self.kinds {
            0 => "empty",
            INTEGER => "integer",
            k if k & !(INTEGER | FLOAT) == 0 => "float",
            BOOLEAN => "boolean",
            DATE => "date",
            _ => "string",
        }
    }

    /// True when the column is integer or float.
    pub fn is_numeric(&self) -> bool {
        self.kinds != 0 && self.kinds & !(INTEGER | FLOAT) == 0
    }

    /// Population standard deviation of the numbers.
    pub fn stddev(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            (self.m2 / self.n as f64).max(0.0).sqrt()
        }
    }
}

/// Copy `src` into `dst`, reusing its allocation.
/// `a < b`, bytewise. Most values differ from the extremes in their first
/// byte: that decides without a `memcmp` call (a seventh of `stats`).
#[inline]
fn before(a: &[u8], b: &[u8]) -> bool {
    match (a.first(), b.first()) {
        (Some(x), Some(y)) if x != y => x < y,
        _ => a < b,
    }
}

fn replace(dst: &mut Vec<u8>, src: &[u8]) {
    dst.clear();
    dst.extend_from_slice(src);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn col(values: &[&str], cap: usize) -> Column {
        let mut c = Column::default();
        for v in values {
            c.add(v.as_bytes(), cap);
        }
        c
    }

    #[test]
    fn merging_chunks_equals_one_pass() {
        let values = ["3", "", "1.5", "-2", "7", "", "10", "1.5", "4"];
        let whole = col(&values, 1000);
        for split in 0..=values.len() {
            let mut a = col(&values[..split], 1000);
            a.merge(col(&values[split..], 1000), 1000);
            assert_eq!(
                (a.count, a.empty, a.kinds, a.n),
                (whole.count, whole.empty, whole.kinds, whole.n)
            );
            assert!((a.mean - whole.mean).abs() < 1e-12 && (a.m2 - whole.m2).abs() < 1e-9);
            assert_eq!(
                (a.min, a.max, a.min_len, a.max_len),
                (whole.min, whole.max, whole.min_len, whole.max_len)
            );
            assert_eq!(
                (&a.first, &a.last, &a.distinct),
                (&whole.first, &whole.last, &whole.distinct)
            );
        }
        assert_eq!(whole.type_name(), "float");
        assert_eq!(whole.distinct.len(), 6);
        // Population standard deviation of 3, 1.5, -2, 7, 10, 1.5, 4.
        let xs = [3.0, 1.5, -2.0, 7.0, 10.0, 1.5, 4.0];
        let mean = xs.iter().sum::<f64>() / 7.0;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / 7.0;
        assert!((whole.stddev() - var.sqrt()).abs() < 1e-12);
    }

    #[test]
    fn types_and_the_distinct_cap() {
        assert_eq!(col(&["1", "2"], 10).type_name(), "integer");
        assert_eq!(col(&["1", "x"], 10).type_name(), "string");
        assert_eq!(col(&["true", "FALSE", ""], 10).type_name(), "boolean");
        assert_eq!(col(&["2024-01-01", "2024-02-01T10:00Z"], 10).type_name(), "date");
        assert_eq!(col(&["", ""], 10).type_name(), "empty");
        assert_eq!(col(&["1", "true"], 10).type_name(), "string");
        let c = col(&["a", "b", "c", "a"], 3);
        assert!(!c.overflow && c.distinct.len() == 3);
        let c = col(&["a", "b", "c", "d"], 3);
        assert!(c.overflow && c.distinct.is_empty());
        let mut a = col(&["a", "b"], 3);
        a.merge(col(&["c", "d"], 3), 3);
        assert!(a.overflow);
        let mut a = col(&["a", "b"], 3);
        a.merge(col(&["b", "c"], 3), 3);
        assert!(!a.overflow && a.distinct.len() == 3);
        let i = col(&["9223372036854775807", "9223372036854775807"], 3);
        assert_eq!(i.isum, 2 * i128::from(i64::MAX));
    }

    /// Long values count by digest, short ones by value: the same counts,
    /// the same cap, the same merge, with one copy fewer of a long value.
    #[test]
    fn long_values_are_counted_by_digest() {
        let long = |c: char, n: usize| c.to_string().repeat(n);
        let (a, b) = (long('a', LONG), long('b', LONG));
        let a2 = format!("{a}a");
        let values: Vec<&str> = vec![&a, "x", &b, &a, &a2, "x", &b];
        let c = col(&values, 10);
        assert_eq!((c.distinct.len(), c.long_distinct.len(), c.distinct_count()), (1, 3, 4));
        assert_eq!(
            (c.first.as_deref(), c.last.as_deref()),
            (Some(a.as_bytes()), Some(b"x".as_ref()))
        );
        assert!(col(&values, 3).overflow);
        for split in 0..=values.len() {
            let mut m = col(&values[..split], 10);
            m.merge(col(&values[split..], 10), 10);
            assert_eq!((m.distinct_count(), m.overflow), (4, false), "split at {split}");
            let mut m = col(&values[..split], 3);
            m.merge(col(&values[split..], 3), 3);
            assert!(m.overflow, "split at {split}");
        }
        // One short of the length is a value, not a digest.
        assert_eq!(col(&[&long('a', LONG - 1)], 10).long_distinct.len(), 0);
    }
}

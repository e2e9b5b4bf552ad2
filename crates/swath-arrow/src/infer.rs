//! Schema inference: which type fits every value seen, per column.
//!
//! A column starts as "could be any type" and each non-empty value rules
//! out the types that do not parse it; the most specific type left wins
//! (Int64, Float64, Boolean, Date32, Timestamp, TimestampTz, else Utf8):
//! the lattice of [`Fits`], which JSON's strings use too.
//! The values come from the head of the file and from records spread over
//! all of it, read from record starts found from the bytes at each place
//! alone, exact on valid CSV ([`swath_csv::ParallelReader::sample_starts`]:
//! no pass over the whole file), or from every record ([`Infer::Full`]).

use swath_csv::Record;

use crate::fits::Fits;
use crate::nulls::Nulls;
use crate::numbers::Numbers;
use crate::types::ColumnType;

/// How to find the types of the columns that have none given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Infer {
    /// Sample `head` records from the top and `per_point` records at each of
    /// up to `points` exact record starts spread over the file (regular
    /// files only; a stream gives the head). Every column is then
    /// nullable: a sample cannot promise there is no empty field.
    Sample {
        /// Records read from the top.
        head: usize,
        /// Places spread over the file to read records at.
        points: usize,
        /// Records read at each place.
        per_point: usize,
    },
    /// Read every record first (in parallel): the types are guaranteed to
    /// fit, and a column is nullable only if it has an empty field.
    Full,
}

impl Default for Infer {
    fn default() -> Infer {
        Infer::Sample { head: 10_000, points: 64, per_point: 200 }
    }
}

/// What the values seen of one column allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColumnGuess {
    /// The types not yet ruled out.
    fits: Fits,
    /// Why (bits: [`Fits::LEADING_ZERO`], [`Fits::BIG_INTEGER`]).
    why: u8,
    /// Values seen (empty ones included).
    pub values: u64,
    /// Empty values (the null text) seen, and missing fields.
    pub empty: u64,
}

impl Default for ColumnGuess {
    fn default() -> ColumnGuess {
        ColumnGuess { fits: Fits::ANY, why: 0, values: 0, empty: 0 }
    }
}

impl ColumnGuess {
    /// A column that none of `records` records reached (short records,
    /// when flexible): each of them is a missing field, that is, null.
    pub(crate) fn missing_in(records: u64) -> ColumnGuess {
        ColumnGuess { fits: Fits::ANY, why: 0, values: records, empty: records }
    }

    /// Rule out the types `f` does not parse as.
    #[inline]
    pub fn see(&mut self, f: Option<&[u8]>, null: &Nulls) {
        self.see_written(
            f,
            &Written { nulls: null.clone(), ..Written::default() },
            &mut Vec::new(),
        );
    }

    /// [`see`](Self::see) with values written as `how` says (`scratch`
    /// holds a number's standard text).
    #[inline]
    pub fn see_written(&mut self, f: Option<&[u8]>, how: &Written, scratch: &mut Vec<u8>) {
        self.values += 1;
        let f = match f {
            Some(f) if !how.nulls.is_null(f) => f,
            _ => {
                self.empty += 1;
                return;
            }
        };
        self.why |= if how.numbers.is_standard() {
            self.fits.see(f)
        } else {
            self.fits.see_with(f, &how.numbers, scratch)
        };
    }

    /// Combine with what another part of the file allowed.
    pub fn merge(&mut self, other: &ColumnGuess) {
        self.fits = self.fits.join(other.fits);
        self.why |= other.why;
        self.values += other.values;
        self.empty += other.empty;
    }

    /// The most specific type every value fits (Utf8 when no value was
    /// seen).
    pub fn column_type(&self) -> ColumnType {
        if self.values == self.empty {
            return ColumnType::Utf8;
        }
        self.fits.column_type()
    }

    /// Why the column has its type, when there is more to say than
    /// "every value parses as it": the text kept for values with a leading
    /// zero, or integers past the 64-bit range read as float64.
    pub fn note(&self) -> Option<&'static str> {
        match self.column_type() {
            ColumnType::Utf8 if self.why & Fits::LEADING_ZERO != 0 => {
                Some("numbers with a leading zero (codes such as 00501) kept as text")
            }
            ColumnType::Float64 if self.why & Fits::BIG_INTEGER != 0 => {
                Some("integers past the 64-bit range: float64, exact only to 2^53")
            }
            _ => None,
        }
    }
}

/// How values are written: the texts of a null, and the numbers' marks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// The texts read as null.
    pub nulls: Nulls,
    /// The decimal mark and thousands separator.
    pub numbers: Numbers,
}

/// Guesses for every column of a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Guesses {
    /// One per column.
    pub columns: Vec<ColumnGuess>,
    /// Records seen.
    pub records: u64,
    /// A number's standard text, between fields.
    scratch: Vec<u8>,
}

impl Guesses {
    /// Note every field of `rec`.
    #[inline]
    pub fn see(&mut self, rec: &Record<'_>, how: &Written) {
        if self.columns.len() < rec.len() {
            // A column first seen now was missing (empty) before.
            self.columns.resize(rec.len(), ColumnGuess::missing_in(self.records));
        }
        for (i, g) in self.columns.iter_mut().enumerate() {
            g.see_written(rec.get(i), how, &mut self.scratch);
        }
        self.records += 1;
    }

    /// Combine with another part's guesses.
    pub fn merge(&mut self, other: &Guesses) {
        let n = self.columns.len().max(other.columns.len());
        let pad = |g: &mut Guesses, n| g.columns.resize(n, ColumnGuess::missing_in(g.records));
        pad(self, n);
        let mut other = other.clone();
        pad(&mut other, n);
        for (a, b) in self.columns.iter_mut().zip(&other.columns) {
            a.merge(b);
        }
        self.records += other.records;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guess(vals: &[&str]) -> ColumnType {
        let mut g = ColumnGuess::default();
        for v in vals {
            g.see(Some(v.as_bytes()), &Nulls::default());
        }
        g.column_type()
    }

    #[test]
    fn lattice() {
        assert_eq!(guess(&["1", "-2", ""]), ColumnType::Int64);
        assert_eq!(guess(&["1", "2.5"]), ColumnType::Float64);
        assert_eq!(guess(&["true", "false"]), ColumnType::Boolean);
        assert_eq!(guess(&["2024-01-01"]), ColumnType::Date32);
        assert_eq!(guess(&["2024-01-01T00:00:00"]), ColumnType::Timestamp);
        assert_eq!(
            guess(&["2024-01-01T00:00:00Z", "2024-01-01 00:00:00+02:00"]),
            ColumnType::TimestampTz
        );
        assert_eq!(guess(&["2024-01-01T00:00:00Z", "2024-01-01T00:00:00"]), ColumnType::Utf8);
        assert_eq!(guess(&["2024-01-01", "2024-01-01T00:00:00"]), ColumnType::Utf8);
        assert_eq!(guess(&["1", "x"]), ColumnType::Utf8);
        assert_eq!(guess(&[""]), ColumnType::Utf8);
        assert_eq!(guess(&[]), ColumnType::Utf8);
    }

    fn note(vals: &[&str]) -> (ColumnType, Option<&'static str>) {
        let mut g = ColumnGuess::default();
        for v in vals {
            g.see(Some(v.as_bytes()), &Nulls::default());
        }
        (g.column_type(), g.note())
    }

    /// Codes keep their text (`00501` read as 501 lost the user's data);
    /// `0`, `-0`, `0.5` are numbers; and `schema` can say why.
    #[test]
    fn leading_zeros_keep_the_text() {
        assert_eq!(note(&["00501", "02134"]).0, ColumnType::Utf8);
        assert!(note(&["501", "00501"]).1.unwrap().contains("leading zero"));
        assert_eq!(note(&["1.5", "007.5"]).0, ColumnType::Utf8);
        assert_eq!(note(&["0", "-0", "10"]), (ColumnType::Int64, None));
        assert_eq!(note(&["0.5", "0", "-0.25", "0e3"]), (ColumnType::Float64, None));
        assert_eq!(note(&["x", "abc"]), (ColumnType::Utf8, None));
        let big = note(&["1", "123456789012345678901234"]);
        assert_eq!(big.0, ColumnType::Float64);
        assert!(big.1.unwrap().contains("64-bit"));
        // The reason survives the merge of guesses from two places.
        let (mut a, mut b) = (ColumnGuess::default(), ColumnGuess::default());
        a.see(Some(b"12"), &Nulls::default());
        b.see(Some(b"012"), &Nulls::default());
        a.merge(&b);
        assert_eq!(a.column_type(), ColumnType::Utf8);
        assert!(a.note().is_some());
    }
}

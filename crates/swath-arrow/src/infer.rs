//! Schema inference: which type fits every value seen, per column.
//!
//! A column starts as "could be any type" and each non-empty value rules
//! out the types that do not parse it; the most specific type left wins
//! (Int64, Float64, Boolean, Date32, Timestamp, TimestampTz, else Utf8).
//! The values come from the head of the file and from records spread over
//! all of it, read from record starts found from the bytes at each place
//! alone, exact on valid CSV ([`swath_csv::ParallelReader::sample_starts`]:
//! no pass over the whole file), or from every record ([`Infer::Full`]).

use swath_csv::typed::{has_leading_zero, is_integer_text};
use swath_csv::{FromField, Record};

use crate::text::{parse_date, parse_timestamp};
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

const INT: u8 = 1;
const FLOAT: u8 = 2;
const BOOL: u8 = 4;
const DATE: u8 = 8;
const TS: u8 = 16;
const TSTZ: u8 = 32;
const ALL: u8 = INT | FLOAT | BOOL | DATE | TS | TSTZ;

/// Why a column got its type, beyond "every value parses as it".
/// A value with a leading zero (`00501`) ruled out the numbers.
const LEADING_ZERO: u8 = 1;
/// An integer past the 64-bit range made the column float64.
const BIG_INTEGER: u8 = 2;

/// What the values seen of one column allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ColumnGuess {
    /// The types not yet ruled out (bits).
    fits: u8,
    /// Why (bits: [`LEADING_ZERO`], [`BIG_INTEGER`]).
    why: u8,
    /// Values seen (empty ones included).
    pub values: u64,
    /// Empty values (the null text) seen, and missing fields.
    pub empty: u64,
}

impl Default for ColumnGuess {
    fn default() -> ColumnGuess {
        ColumnGuess { fits: ALL, why: 0, values: 0, empty: 0 }
    }
}

impl ColumnGuess {
    /// A column that none of `records` records reached (short records,
    /// when flexible): each of them is a missing field, that is, null.
    pub(crate) fn missing_in(records: u64) -> ColumnGuess {
        ColumnGuess { fits: ALL, why: 0, values: records, empty: records }
    }

    /// Rule out the types `f` does not parse as.
    #[inline]
    pub fn see(&mut self, f: Option<&[u8]>, null: &[u8]) {
        self.values += 1;
        let f = match f {
            Some(f) if f != null => f,
            _ => {
                self.empty += 1;
                return;
            }
        };
        // Each test runs only while its type is still possible, so a text
        // column stops costing anything after its first word.
        let mut fits = self.fits;
        if fits & (INT | FLOAT) != 0 && has_leading_zero(f) {
            // A code, not a quantity: as a number it would lose its text.
            fits &= !(INT | FLOAT);
            self.why |= LEADING_ZERO;
        }
        if fits & INT != 0 && i64::from_field(f).is_err() {
            fits &= !INT;
        }
        if fits & FLOAT != 0 && f64::from_field(f).is_err() {
            fits &= !FLOAT;
        }
        // Only a long value can be an integer past 64 bits (19 digits).
        if f.len() > 18 && fits & FLOAT != 0 && is_integer_text(f) && i64::from_field(f).is_err() {
            self.why |= BIG_INTEGER;
        }
        if fits & BOOL != 0 && bool::from_field(f).is_err() {
            fits &= !BOOL;
        }
        if fits & DATE != 0 && parse_date(f).is_none() {
            fits &= !DATE;
        }
        if fits & (TS | TSTZ) != 0 {
            match parse_timestamp(f) {
                Some((_, true)) => fits &= !TS,
                Some((_, false)) => fits &= !TSTZ,
                None => fits &= !(TS | TSTZ),
            }
        }
        self.fits = fits;
    }

    /// Combine with what another part of the file allowed.
    pub fn merge(&mut self, other: &ColumnGuess) {
        self.fits &= other.fits;
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
        let order = [
            (INT, ColumnType::Int64),
            (FLOAT, ColumnType::Float64),
            (BOOL, ColumnType::Boolean),
            (DATE, ColumnType::Date32),
            (TS, ColumnType::Timestamp),
            (TSTZ, ColumnType::TimestampTz),
        ];
        order.iter().find(|(b, _)| self.fits & b != 0).map_or(ColumnType::Utf8, |&(_, t)| t)
    }

    /// Why the column has its type, when there is more to say than
    /// "every value parses as it": the text kept for values with a leading
    /// zero, or integers past the 64-bit range read as float64.
    pub fn note(&self) -> Option<&'static str> {
        match self.column_type() {
            ColumnType::Utf8 if self.why & LEADING_ZERO != 0 => {
                Some("numbers with a leading zero (codes such as 00501) kept as text")
            }
            ColumnType::Float64 if self.why & BIG_INTEGER != 0 => {
                Some("integers past the 64-bit range: float64, exact only to 2^53")
            }
            _ => None,
        }
    }
}

/// Guesses for every column of a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Guesses {
    /// One per column.
    pub columns: Vec<ColumnGuess>,
    /// Records seen.
    pub records: u64,
}

impl Guesses {
    /// Note every field of `rec`.
    #[inline]
    pub fn see(&mut self, rec: &Record<'_>, null: &[u8]) {
        if self.columns.len() < rec.len() {
            // A column first seen now was missing (empty) before.
            self.columns.resize(rec.len(), ColumnGuess::missing_in(self.records));
        }
        for (i, g) in self.columns.iter_mut().enumerate() {
            g.see(rec.get(i), null);
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
            g.see(Some(v.as_bytes()), b"");
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
            g.see(Some(v.as_bytes()), b"");
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
        a.see(Some(b"12"), b"");
        b.see(Some(b"012"), b"");
        a.merge(&b);
        assert_eq!(a.column_type(), ColumnType::Utf8);
        assert!(a.note().is_some());
    }
}

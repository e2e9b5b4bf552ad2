//! The inference lattice of text, one for every format: which column
//! types every text seen so far parses as.
//!
//! A CSV field starts as any type ([`Fits::ANY`]); a JSON string as the
//! temporal ones ([`Fits::TEMPORAL`]: a JSON number is typed by its
//! grammar, a string never is a number). Each text rules out the types
//! that do not parse it, two parts of a file join by keeping what both
//! allow (an AND, so the join is associative and chunks inferred on many
//! threads give the one-pass answer), and the most specific type left
//! wins: Int64, Float64, Boolean, Date32, Timestamp, TimestampTz, else
//! Utf8.

use swath_csv::typed::{has_leading_zero, is_integer_text};
use swath_csv::FromField;

use crate::numbers::{Number, Numbers};
use crate::text::{parse_date, parse_timestamp};
use crate::types::ColumnType;

/// The column types every text seen so far parses as (a bitset).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fits(u8);

const INT: u8 = 1;
const FLOAT: u8 = 2;
const BOOL: u8 = 4;
const DATE: u8 = 8;
const TS: u8 = 16;
const TSTZ: u8 = 32;

impl Fits {
    /// Every type: a CSV column before its first value.
    pub const ANY: Fits = Fits(INT | FLOAT | BOOL | DATE | TS | TSTZ);
    /// Date, timestamp, timestamp with offset: a JSON string before its
    /// text is looked at.
    pub const TEMPORAL: Fits = Fits(DATE | TS | TSTZ);
    /// None: plain text (Utf8).
    pub const TEXT: Fits = Fits(0);

    /// A reason from [`see`](Fits::see): a value with a leading zero
    /// (`00501`) ruled out the numbers.
    pub const LEADING_ZERO: u8 = 1;
    /// A reason from [`see`](Fits::see): an integer past the 64-bit range
    /// leaves float64 as the only number.
    pub const BIG_INTEGER: u8 = 2;

    /// Rule out the types `text` does not parse as; returns the reasons
    /// beyond "does not parse" ([`LEADING_ZERO`](Fits::LEADING_ZERO),
    /// [`BIG_INTEGER`](Fits::BIG_INTEGER)) as bits.
    ///
    /// Each test runs only while its type is still possible, so a text
    /// column stops costing anything after its first word.
    #[inline]
    pub fn see(&mut self, text: &[u8]) -> u8 {
        let (mut fits, mut why) = (self.0, 0);
        if fits & (INT | FLOAT) != 0 && has_leading_zero(text) {
            // A code, not a quantity: as a number it would lose its text.
            fits &= !(INT | FLOAT);
            why |= Fits::LEADING_ZERO;
        }
        if fits & INT != 0 && i64::from_field(text).is_err() {
            fits &= !INT;
        }
        if fits & FLOAT != 0 && f64::from_field(text).is_err() {
            fits &= !FLOAT;
        }
        // Only a long value can be an integer past 64 bits (19 digits).
        if text.len() > 18
            && fits & FLOAT != 0
            && is_integer_text(text)
            && i64::from_field(text).is_err()
        {
            why |= Fits::BIG_INTEGER;
        }
        if fits & BOOL != 0 && bool::from_field(text).is_err() {
            fits &= !BOOL;
        }
        if fits & DATE != 0 && parse_date(text).is_none() {
            fits &= !DATE;
        }
        if fits & (TS | TSTZ) != 0 {
            match parse_timestamp(text) {
                Some((_, true)) => fits &= !TS,
                Some((_, false)) => fits &= !TSTZ,
                None => fits &= !(TS | TSTZ),
            }
        }
        self.0 = fits;
        why
    }

    /// [`see`](Fits::see) with numbers written as `numbers` says: a number
    /// by its standard text (`1.299,99` as `1299.99`), a text that is no
    /// number under them ruling the numbers out; `scratch` holds the text.
    #[inline]
    pub fn see_with(&mut self, text: &[u8], numbers: &Numbers, scratch: &mut Vec<u8>) -> u8 {
        match numbers.read(text, scratch) {
            Number::Same => self.see(text),
            Number::Is(n) => {
                // A number is no boolean or date (`1.299` is no date here).
                self.0 &= INT | FLOAT;
                self.see(n)
            }
            Number::Not => {
                self.0 &= !(INT | FLOAT);
                self.see(text)
            }
        }
    }

    /// What `self` and `other` both allow.
    #[must_use]
    pub fn join(self, other: Fits) -> Fits {
        Fits(self.0 & other.0)
    }

    /// The most specific type left (Utf8 when none is).
    pub fn column_type(self) -> ColumnType {
        const ORDER: [(u8, ColumnType); 6] = [
            (INT, ColumnType::Int64),
            (FLOAT, ColumnType::Float64),
            (BOOL, ColumnType::Boolean),
            (DATE, ColumnType::Date32),
            (TS, ColumnType::Timestamp),
            (TSTZ, ColumnType::TimestampTz),
        ];
        ORDER.iter().find(|(bit, _)| self.0 & bit != 0).map_or(ColumnType::Utf8, |&(_, t)| t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(start: Fits, texts: &[&str]) -> ColumnType {
        let mut fits = start;
        for t in texts {
            fits.see(t.as_bytes());
        }
        fits.column_type()
    }

    /// A JSON string is never a number or a boolean, whatever its text;
    /// its temporal types are the CSV field's.
    #[test]
    fn json_strings_start_temporal() {
        assert_eq!(of(Fits::TEMPORAL, &["12", "true"]), ColumnType::Utf8);
        assert_eq!(of(Fits::TEMPORAL, &["2024-01-01"]), ColumnType::Date32);
        assert_eq!(of(Fits::TEMPORAL, &["2024-01-01T00:00:00"]), ColumnType::Timestamp);
        assert_eq!(of(Fits::TEMPORAL, &["2024-01-01T00:00:00.123Z"]), ColumnType::TimestampTz);
        assert_eq!(of(Fits::TEMPORAL, &["2024-01-01", "2024-01-01T00:00:00"]), ColumnType::Utf8);
        assert_eq!(of(Fits::TEMPORAL, &[""]), ColumnType::Utf8);
        assert_eq!(Fits::TEXT.column_type(), ColumnType::Utf8);
    }

    /// Joining in any grouping gives the one-pass answer.
    #[test]
    fn the_join_is_what_one_pass_gives() {
        let seen = |texts: &[&str]| {
            let mut fits = Fits::ANY;
            for t in texts {
                fits.see(t.as_bytes());
            }
            fits
        };
        let texts = ["1", "2.5", "x", "2024-01-01", "true", "007"];
        for n in 0..=texts.len() {
            let (a, b) = texts.split_at(n);
            assert_eq!(seen(a).join(seen(b)), seen(&texts), "split at {n}");
        }
    }
}

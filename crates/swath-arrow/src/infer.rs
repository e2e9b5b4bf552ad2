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

use crate::date_format::{Chosen, DateFormat, Dates};
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
    /// The date and timestamp forms every value fits (a bitset over
    /// [`Dates::list`]).
    dates: u16,
    /// Values that fit a day-first form and not its month-first twin, and
    /// the other way round: the evidence of the order.
    day_first: u64,
    month_first: u64,
}

impl Default for ColumnGuess {
    fn default() -> ColumnGuess {
        ColumnGuess {
            fits: Fits::ANY,
            why: 0,
            values: 0,
            empty: 0,
            dates: u16::MAX,
            day_first: 0,
            month_first: 0,
        }
    }
}

impl ColumnGuess {
    /// A column that none of `records` records reached (short records,
    /// when flexible): each of them is a missing field, that is, null.
    pub(crate) fn missing_in(records: u64) -> ColumnGuess {
        ColumnGuess { values: records, empty: records, ..ColumnGuess::default() }
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
        // Other forms of dates: while some still fit (a text column rules
        // them all out at its first word, a number column at its first
        // number).
        if self.dates != 0 {
            // The pairs are tried even when ruled out: the evidence is the
            // value's own, whatever came before (so parts join exactly).
            let fit = how.dates.fitting(f, self.dates | how.dates.pairs());
            match how.dates.decides(fit) {
                Some(true) => self.day_first += 1,
                Some(false) => self.month_first += 1,
                None => {}
            }
            self.dates &= fit;
        }
    }

    /// Combine with what another part of the file allowed.
    pub fn merge(&mut self, other: &ColumnGuess) {
        self.fits = self.fits.join(other.fits);
        self.dates &= other.dates;
        self.day_first += other.day_first;
        self.month_first += other.month_first;
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

    /// The type, and the form of its dates when they are not ISO 8601
    /// (one of `dates`' forms that every value fits, day-first and
    /// month-first told apart by a value over 12).
    pub fn typed<'d>(&self, dates: &'d Dates) -> (ColumnType, Option<&'d DateFormat>) {
        match self.column_type() {
            ColumnType::Utf8 if self.values > self.empty => match dates.choose(self.dates) {
                Chosen::One(f) if f.has_time() => (ColumnType::Timestamp, Some(f)),
                Chosen::One(f) => (ColumnType::Date32, Some(f)),
                _ => (ColumnType::Utf8, None),
            },
            ty => (ty, None),
        }
    }

    /// [`note`](Self::note), and what decided a date's form: `date32 as
    /// %d/%m/%Y: 13 of 2,000 values have a day over 12`, or why a column
    /// of dates is text (day-first and month-first cannot be told apart).
    pub fn note_with(&self, dates: &Dates) -> Option<String> {
        let values = self.values - self.empty;
        match (self.typed(dates), dates.choose(self.dates)) {
            ((ty, Some(f)), _) => {
                let day_first = f.text().find("%d") < f.text().find("%m");
                let decided = if day_first { self.day_first } else { self.month_first };
                let which = if day_first { "a day" } else { "a month" };
                Some(if decided > 0 {
                    format!(
                        "{} as {}: {decided} of {values} values have {which} over 12",
                        ty.name(),
                        f.text()
                    )
                } else {
                    format!("{} as {}", ty.name(), f.text())
                })
            }
            ((ColumnType::Utf8, None), Chosen::Ambiguous(a, b)) if values > 0 => Some(format!(
                "dates that read day-first and month-first alike (no day or month over 12 in \
                 {values} values): text; give --date-format {} or {}",
                a.text(),
                b.text()
            )),
            _ => self.note().map(str::to_string),
        }
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

/// How values are written: the texts of a null, the numbers' marks, the
/// forms of dates.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// The texts read as null.
    pub nulls: Nulls,
    /// The decimal mark and thousands separator.
    pub numbers: Numbers,
    /// The forms of dates and timestamps other than ISO 8601.
    pub dates: Dates,
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

#[cfg(test)]
mod date_tests {
    use super::*;

    fn typed(vals: &[&str]) -> (ColumnType, Option<String>, Option<String>) {
        let how = Written::default();
        let mut g = ColumnGuess::default();
        for v in vals {
            g.see_written(Some(v.as_bytes()), &how, &mut Vec::new());
        }
        let (ty, f) = g.typed(&how.dates);
        (ty, f.map(|f| f.text().to_string()), g.note_with(&how.dates))
    }

    #[test]
    fn day_first_or_month_first_is_decided_by_a_value_over_12() {
        let (ty, f, note) = typed(&["01/02/2023", "13/02/2023", "05/06/2023"]);
        assert_eq!((ty, f.as_deref()), (ColumnType::Date32, Some("%d/%m/%Y")));
        assert_eq!(note.as_deref(), Some("date32 as %d/%m/%Y: 1 of 3 values have a day over 12"));
        let (ty, f, _) = typed(&["01/02/2023", "02/13/2023"]);
        assert_eq!((ty, f.as_deref()), (ColumnType::Date32, Some("%m/%d/%Y")));
        // Both fit every value: text, and the note says what to give.
        let (ty, f, note) = typed(&["01/02/2023", "05/06/2023"]);
        assert_eq!((ty, f), (ColumnType::Utf8, None));
        assert!(note.unwrap().contains("--date-format %d/%m/%Y or %m/%d/%Y"));
        // One of each: neither order fits every value.
        assert_eq!(typed(&["13/02/2023", "02/13/2023"]).0, ColumnType::Utf8);
        let (ty, f, _) = typed(&["31-OCT-2023", "01-Jan-2024"]);
        assert_eq!((ty, f.as_deref()), (ColumnType::Date32, Some("%d-%b-%Y")));
        let (ty, f, _) = typed(&["2023-10-31 14:03", "2023-11-01 00:00"]);
        assert_eq!((ty, f.as_deref()), (ColumnType::Timestamp, Some("%Y-%m-%d %H:%M")));
        // ISO dates stay the ISO type; numbers stay numbers.
        assert_eq!(typed(&["2023-10-31"]), (ColumnType::Date32, None, None));
        assert_eq!(typed(&["20231031"]).0, ColumnType::Int64);
        assert_eq!(typed(&["31/10/2023", "x"]).0, ColumnType::Utf8);
    }

    #[test]
    fn parts_join_as_one_pass() {
        let how = Written::default();
        let vals = ["01/02/2023", "13/02/2023", "05/06/2023", "", "28/12/1999"];
        let mut one = ColumnGuess::default();
        for v in vals {
            one.see_written(Some(v.as_bytes()), &how, &mut Vec::new());
        }
        for cut in 0..=vals.len() {
            let (mut a, mut b) = (ColumnGuess::default(), ColumnGuess::default());
            for v in &vals[..cut] {
                a.see_written(Some(v.as_bytes()), &how, &mut Vec::new());
            }
            for v in &vals[cut..] {
                b.see_written(Some(v.as_bytes()), &how, &mut Vec::new());
            }
            a.merge(&b);
            assert_eq!(a, one, "cut at {cut}");
        }
    }
}

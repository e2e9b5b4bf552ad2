//! Dates and timestamps written another way than ISO 8601: a strftime
//! pattern (`--date-format %d/%m/%Y`, `--timestamp-format '%d.%m.%Y
//! %H:%M'`), and the forms inference tries by itself ([`candidates`]).
//!
//! Inference keeps, for each column, the candidates every value fits (a
//! bitset: two parts of a file join by AND, so parallel inference gives the
//! one-pass answer). Day-first and month-first forms come in pairs; a
//! column where both of a pair still fit (no day and no month over 12) is
//! ambiguous and stays text, with a note naming `--date-format`.

use std::sync::OnceLock;

/// A pattern, compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DateFormat {
    text: String,
    items: Vec<Item>,
    time: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Item {
    /// `%Y`: four digits.
    Year,
    /// `%y`: two digits, 1970-2069.
    Year2,
    /// `%m`: one or two digits.
    Month,
    /// `%b`, `%h`: Jan .. Dec, any case.
    MonthAbbr,
    /// `%B`: January .. December, any case.
    MonthName,
    /// `%d`: one or two digits.
    Day,
    /// `%e`: one or two digits, or a space and one digit.
    DayPadded,
    /// `%H`: one or two digits, 0-23.
    Hour,
    /// `%I`: one or two digits, 1-12, with `%p`.
    Hour12,
    /// `%M`: two digits.
    Minute,
    /// `%S`: two digits.
    Second,
    /// `%f`: one to nine fraction digits (microseconds kept; more digits
    /// must be zeros).
    Fraction,
    /// `%p`: AM or PM, any case.
    AmPm,
    /// Any other byte, as written.
    Byte(u8),
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

impl DateFormat {
    /// Compile `pattern`.
    ///
    /// # Errors
    ///
    /// A `%` code swath does not read (it says which it reads), or a
    /// pattern without a year, month and day.
    pub fn parse(pattern: &str) -> Result<DateFormat, String> {
        let mut items = Vec::new();
        let mut bytes = pattern.bytes();
        while let Some(b) = bytes.next() {
            if b != b'%' {
                items.push(Item::Byte(b));
                continue;
            }
            items.push(match bytes.next() {
                Some(b'Y') => Item::Year,
                Some(b'y') => Item::Year2,
                Some(b'm') => Item::Month,
                Some(b'b' | b'h') => Item::MonthAbbr,
                Some(b'B') => Item::MonthName,
                Some(b'd') => Item::Day,
                Some(b'e') => Item::DayPadded,
                Some(b'H') => Item::Hour,
                Some(b'I') => Item::Hour12,
                Some(b'M') => Item::Minute,
                Some(b'S') => Item::Second,
                Some(b'f') => Item::Fraction,
                Some(b'p') => Item::AmPm,
                Some(b'%') => Item::Byte(b'%'),
                other => {
                    let code = other.map_or(String::new(), |c| (c as char).to_string());
                    return Err(format!(
                        "{pattern:?}: %{code} is not a code swath reads (%Y %y %m %b %B %d %e %H \
                         %I %M %S %f %p %%)"
                    ));
                }
            });
        }
        let has = |f: fn(&Item) -> bool| items.iter().any(f);
        if !has(|i| matches!(i, Item::Year | Item::Year2))
            || !has(|i| matches!(i, Item::Month | Item::MonthAbbr | Item::MonthName))
            || !has(|i| matches!(i, Item::Day | Item::DayPadded))
        {
            return Err(format!("{pattern:?}: a date needs a year, a month and a day"));
        }
        if has(|i| matches!(i, Item::Hour12)) != has(|i| matches!(i, Item::AmPm)) {
            return Err(format!("{pattern:?}: %I and %p go together"));
        }
        let time = has(|i| matches!(i, Item::Hour | Item::Hour12));
        Ok(DateFormat { text: pattern.to_string(), items, time })
    }

    /// The pattern as written.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Whether it has a time of day (a timestamp's pattern).
    pub fn has_time(&self) -> bool {
        self.time
    }

    /// Days since 1970-01-01 of `b`, read whole by a date's pattern.
    #[inline]
    pub fn date(&self, b: &[u8]) -> Option<i32> {
        if self.time {
            return None;
        }
        self.read(b).map(|(days, _)| days)
    }

    /// Microseconds since the epoch of `b` (the wall clock as written),
    /// read whole by a timestamp's pattern.
    #[inline]
    pub fn timestamp(&self, b: &[u8]) -> Option<i64> {
        if !self.time {
            return None;
        }
        self.read(b).map(|(days, micros)| i64::from(days) * 86_400_000_000 + micros)
    }

    /// `b` read whole: days and microseconds in the day.
    fn read(&self, b: &[u8]) -> Option<(i32, i64)> {
        let (mut y, mut m, mut d) = (None, None, None);
        let (mut h, mut mi, mut s, mut us, mut pm) = (0u32, 0u32, 0u32, 0i64, None);
        let mut at = 0usize;
        let digits = |at: &mut usize, min: usize, max: usize| -> Option<u32> {
            let n = b[*at..].iter().take(max).take_while(|c| c.is_ascii_digit()).count();
            if n < min {
                return None;
            }
            let v = b[*at..*at + n].iter().fold(0u32, |v, c| v * 10 + u32::from(c - b'0'));
            *at += n;
            Some(v)
        };
        for item in &self.items {
            match *item {
                Item::Year => y = Some(digits(&mut at, 4, 4)?),
                Item::Year2 => {
                    let v = digits(&mut at, 2, 2)?;
                    y = Some(if v < 70 { 2000 + v } else { 1900 + v });
                }
                Item::Month => m = Some(digits(&mut at, 1, 2)?),
                Item::Day => d = Some(digits(&mut at, 1, 2)?),
                Item::DayPadded => {
                    if b.get(at) == Some(&b' ') {
                        at += 1;
                        d = Some(digits(&mut at, 1, 1)?);
                    } else {
                        d = Some(digits(&mut at, 1, 2)?);
                    }
                }
                Item::MonthAbbr | Item::MonthName => {
                    let word = b[at..].iter().take_while(|c| c.is_ascii_alphabetic()).count();
                    let w = &b[at..at + word];
                    let i = MONTHS.iter().position(|name| {
                        let name = name.as_bytes();
                        match item {
                            Item::MonthAbbr => w.len() == 3 && w.eq_ignore_ascii_case(&name[..3]),
                            _ => w.eq_ignore_ascii_case(name),
                        }
                    })?;
                    m = Some(i as u32 + 1);
                    at += word;
                }
                Item::Hour => h = digits(&mut at, 1, 2)?,
                Item::Hour12 => h = digits(&mut at, 1, 2)?,
                Item::Minute => mi = digits(&mut at, 2, 2)?,
                Item::Second => s = digits(&mut at, 2, 2)?,
                Item::Fraction => {
                    let n = b[at..].iter().take(9).take_while(|c| c.is_ascii_digit()).count();
                    if n == 0 {
                        return None;
                    }
                    let frac = &b[at..at + n];
                    if frac.len() > 6 && frac[6..].iter().any(|&c| c != b'0') {
                        return None;
                    }
                    let kept = &frac[..n.min(6)];
                    let v = kept.iter().fold(0i64, |v, c| v * 10 + i64::from(c - b'0'));
                    us = v * 10i64.pow(6 - kept.len() as u32);
                    at += n;
                }
                Item::AmPm => {
                    let w = b.get(at..at + 2)?;
                    pm = Some(if w.eq_ignore_ascii_case(b"pm") {
                        true
                    } else if w.eq_ignore_ascii_case(b"am") {
                        false
                    } else {
                        return None;
                    });
                    at += 2;
                }
                Item::Byte(c) => {
                    if b.get(at) != Some(&c) {
                        return None;
                    }
                    at += 1;
                }
            }
        }
        if at != b.len() {
            return None;
        }
        if let Some(pm) = pm {
            if !(1..=12).contains(&h) {
                return None;
            }
            h = h % 12 + if pm { 12 } else { 0 };
        }
        if h > 23 || mi > 59 || s > 59 {
            return None;
        }
        let days = civil_days(y?, m?, d?)?;
        Some((days, i64::from(h * 3600 + mi * 60 + s) * 1_000_000 + us))
    }
}

/// Days since 1970-01-01, for a real date of years 0-9999.
fn civil_days(y: u32, m: u32, d: u32) -> Option<i32> {
    if !(1..=12).contains(&m) || d == 0 || y > 9999 {
        return None;
    }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days_in = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if d > days_in[m as usize - 1] {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = i64::from(y) - i64::from(m <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(m) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some((era * 146_097 + doe - 719_468) as i32)
}

/// The forms inference tries, day-first before month-first in each pair
/// (see [`pair`]).
pub const CANDIDATES: [&str; 16] = [
    "%d/%m/%Y",
    "%m/%d/%Y",
    "%d-%m-%Y",
    "%m-%d-%Y",
    "%d/%m/%Y %H:%M",
    "%m/%d/%Y %H:%M",
    "%d/%m/%Y %H:%M:%S",
    "%m/%d/%Y %H:%M:%S",
    "%d.%m.%Y",
    "%d.%m.%Y %H:%M",
    "%d.%m.%Y %H:%M:%S",
    "%d-%b-%Y",
    "%d %b %Y",
    "%Y/%m/%d",
    "%Y-%m-%d %H:%M",
    "%Y/%m/%d %H:%M:%S",
];

/// The other of a day-first and month-first pair (the first eight
/// candidates), for candidate `i`.
pub fn pair(i: usize) -> Option<usize> {
    (i < 8).then_some(i ^ 1)
}

/// The forms a column's dates and timestamps may have: the
/// [`CANDIDATES`], or the ones the user gave.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dates {
    /// Empty: the candidates.
    given: Vec<DateFormat>,
}

/// What a column's values allow of the forms.
#[derive(Debug, PartialEq, Eq)]
pub enum Chosen<'a> {
    /// No form fits every value.
    None,
    /// This one (the first that fits every value).
    One(&'a DateFormat),
    /// Day-first and month-first both fit every value.
    Ambiguous(&'a DateFormat, &'a DateFormat),
}

impl Dates {
    /// The user's forms: `--date-format`, `--timestamp-format` (the
    /// candidates when neither is given).
    pub fn given(date: Option<DateFormat>, timestamp: Option<DateFormat>) -> Dates {
        Dates { given: date.into_iter().chain(timestamp).collect() }
    }

    /// The forms, in the order tried.
    pub fn list(&self) -> &[DateFormat] {
        if self.given.is_empty() {
            candidates()
        } else {
            &self.given
        }
    }

    /// Every form, as a bitset.
    pub fn all(&self) -> u16 {
        ((1u32 << self.list().len()) - 1) as u16
    }

    /// The form the user gave for a date (`false`) or timestamp column.
    pub fn given_for(&self, time: bool) -> Option<&DateFormat> {
        self.given.iter().find(|f| f.has_time() == time)
    }

    /// The forms among `live` that `text` fits.
    #[inline]
    pub fn fitting(&self, text: &[u8], live: u16) -> u16 {
        if self.given.is_empty() {
            return fitting(text, live);
        }
        let mut out = 0;
        for (i, f) in self.given.iter().enumerate() {
            if live & (1 << i) != 0 && f.read(text).is_some() {
                out |= 1 << i;
            }
        }
        out
    }

    /// The forms in day-first and month-first pairs, as a bitset.
    pub fn pairs(&self) -> u16 {
        if self.given.is_empty() {
            0xff
        } else {
            0
        }
    }

    /// Whether `fit` (one value's forms) tells day-first (`Some(true)`)
    /// or month-first (`Some(false)`) apart: it fits one of a pair and
    /// not the other.
    pub fn decides(&self, fit: u16) -> Option<bool> {
        if !self.given.is_empty() {
            return None;
        }
        (0..8).step_by(2).find_map(|i| match (fit >> i & 1, fit >> (i + 1) & 1) {
            (1, 0) => Some(true),
            (0, 1) => Some(false),
            _ => None,
        })
    }

    /// The form of a column whose every value fits the forms in `live`.
    pub fn choose(&self, live: u16) -> Chosen<'_> {
        let list = self.list();
        let mut ambiguous = None;
        for (i, f) in list.iter().enumerate() {
            if live & (1 << i) == 0 {
                continue;
            }
            match pair(i).filter(|_| self.given.is_empty()) {
                Some(j) if live & (1 << j) != 0 => {
                    ambiguous.get_or_insert((i.min(j), i.max(j)));
                }
                _ => return Chosen::One(f),
            }
        }
        match ambiguous {
            Some((a, b)) => Chosen::Ambiguous(&list[a], &list[b]),
            None => Chosen::None,
        }
    }
}

/// [`CANDIDATES`], compiled once.
pub fn candidates() -> &'static [DateFormat] {
    static ALL: OnceLock<Vec<DateFormat>> = OnceLock::new();
    ALL.get_or_init(|| {
        CANDIDATES.iter().map(|p| DateFormat::parse(p).expect("a candidate compiles")).collect()
    })
}

/// The candidates `text` fits among those in `live` (a bitset over
/// [`CANDIDATES`]), cheaply ruling all out for a text that cannot be a
/// date (too short or long, no digit first or second).
#[inline]
pub fn fitting(text: &[u8], live: u16) -> u16 {
    if live == 0 || !(6..=26).contains(&text.len()) || !text[..2].iter().any(u8::is_ascii_digit) {
        return 0;
    }
    let mut out = 0;
    for (i, f) in candidates().iter().enumerate() {
        let bit = 1u16 << i;
        if live & bit != 0 && f.read(text).is_some() {
            out |= bit;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(p: &str, t: &str) -> Option<i32> {
        DateFormat::parse(p).unwrap().date(t.as_bytes())
    }

    #[test]
    fn patterns_read_what_they_say() {
        let oct31 = crate::text::parse_date(b"2023-10-31");
        assert!(oct31.is_some());
        assert_eq!(date("%d/%m/%Y", "31/10/2023"), oct31);
        assert_eq!(date("%m/%d/%Y", "10/31/2023"), oct31);
        assert_eq!(date("%d-%b-%Y", "31-OCT-2023"), oct31);
        assert_eq!(date("%d-%b-%Y", "31-oct-2023"), oct31);
        assert_eq!(date("%d %B %Y", "31 October 2023"), oct31);
        assert_eq!(date("%Y%m%d", "20231031"), oct31);
        assert_eq!(date("%d.%m.%y", "31.10.23"), oct31);
        assert_eq!(date("%d/%m/%Y", "1/2/2023"), crate::text::parse_date(b"2023-02-01"));
        for bad in ["31/13/2023", "29/02/2023", "31/10/23", "31/10/2023 ", "x", "31/10/20234"] {
            assert_eq!(date("%d/%m/%Y", bad), None, "{bad}");
        }
        assert_eq!(date("%d/%m/%Y", "29/02/2024"), crate::text::parse_date(b"2024-02-29"));
        let ts = DateFormat::parse("%d.%m.%Y %H:%M").unwrap();
        assert_eq!(
            ts.timestamp(b"31.10.2023 14:03"),
            crate::text::parse_timestamp(b"2023-10-31T14:03:00").map(|t| t.0)
        );
        let ts = DateFormat::parse("%m/%d/%Y %I:%M:%S %p").unwrap();
        assert_eq!(
            ts.timestamp(b"10/31/2023 02:03:04 PM"),
            crate::text::parse_timestamp(b"2023-10-31T14:03:04").map(|t| t.0)
        );
        assert_eq!(
            ts.timestamp(b"10/31/2023 12:00:00 am"),
            crate::text::parse_timestamp(b"2023-10-31T00:00:00").map(|t| t.0)
        );
        let f = DateFormat::parse("%Y-%m-%d %H:%M:%S.%f").unwrap();
        assert_eq!(
            f.timestamp(b"1969-12-31 23:59:59.5"),
            crate::text::parse_timestamp(b"1969-12-31T23:59:59.500000").map(|t| t.0)
        );
        assert!(DateFormat::parse("%d/%m").is_err());
        assert!(DateFormat::parse("%d/%m/%Y %Q").is_err());
        assert!(DateFormat::parse("%d/%m/%Y %I:%M").is_err());
    }

    #[test]
    fn candidates_pair_day_and_month_first() {
        for i in 0..8 {
            let (a, b) = (CANDIDATES[i], CANDIDATES[pair(i).unwrap()]);
            assert_eq!(a.replace("%d", "D").replace("%m", "%d").replace('D', "%m"), b);
        }
        let all = (1u32 << CANDIDATES.len()) - 1;
        let all = all as u16;
        assert_eq!(fitting(b"13/10/2023", all), 1);
        assert_eq!(fitting(b"10/13/2023", all), 2);
        assert_eq!(fitting(b"10/11/2023", all), 3);
        assert_eq!(fitting(b"31-Oct-2023", all), 1 << 11);
        assert_eq!(fitting(b"2023-10-31 14:03", all), 1 << 14);
        assert_eq!(fitting(b"12345", all), 0);
        assert_eq!(fitting(b"hello world", all), 0);
    }
}

//! Shared by the tests: generated CSV with every hard case, and the slow,
//! obvious reading of it (swath's CSV reader + `FromField`, and a
//! day-by-day date twin) to compare batches against.

#![allow(dead_code)]

use arrow_array::cast::AsArray;
use arrow_array::types::{Date32Type, Float64Type, Int64Type, TimestampMicrosecondType};
use arrow_array::{Array, RecordBatch};
use swath_csv::ReaderBuilder;

/// One column's values, as the slow path sees them.
#[derive(Debug, Clone, PartialEq)]
pub enum Col {
    I(Vec<Option<i64>>),
    /// Floats compared by bits (-0 and NaN exactly).
    F(Vec<Option<u64>>),
    B(Vec<Option<bool>>),
    D(Vec<Option<i32>>),
    T(Vec<Option<i64>>),
    S(Vec<Option<String>>),
}

/// The shared deterministic generator, with the pick of a string that
/// these tests use.
pub struct Rng(swath_testkit::Rng);
impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(swath_testkit::Rng::new(seed))
    }
    pub fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
    pub fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.0.index(xs.len())]
    }
}

/// `rows` records of `i,f,b,d,ts,s` with nulls, extremes, quoted newlines,
/// Unicode; `crlf` ends lines with CRLF, `bom` starts with a UTF-8 BOM.
pub fn generate(rows: usize, seed: u64, crlf: bool, bom: bool) -> Vec<u8> {
    let mut r = Rng::new(seed | 1);
    let nl = if crlf { "\r\n" } else { "\n" };
    let mut out = String::new();
    if bom {
        out.push('\u{feff}');
    }
    out.push_str("i,f,b,d,ts,s");
    out.push_str(nl);
    for row in 0..rows {
        let i = match r.next() % 8 {
            0 => String::new(),
            1 => i64::MIN.to_string(),
            2 => i64::MAX.to_string(),
            3 => "-0".to_string(),
            _ => ((r.next() as i64) >> (r.next() % 60)).to_string(),
        };
        let f = match r.next() % 10 {
            0 => String::new(),
            1 => "5e-324".into(),
            2 => "2.2250738585072014e-308".into(),
            3 => "1.7976931348623157e308".into(),
            4 => "-0".into(),
            5 => "-0.0".into(),
            6 => "1e300".into(),
            _ => format!(
                "{}",
                f64::from_bits(r.next() >> 2) * if r.next() % 2 == 0 { 1.0 } else { -1.0 }
            ),
        };
        let b = r.pick(&["true", "false", ""]);
        let d = match r.next() % 6 {
            0 => String::new(),
            1 => "1969-12-31".into(),
            2 => "2000-02-29".into(),
            _ => format!(
                "{:04}-{:02}-{:02}",
                1900 + r.next() % 200,
                1 + r.next() % 12,
                1 + r.next() % 28
            ),
        };
        let ts = match r.next() % 6 {
            0 => String::new(),
            1 => format!("2024-01-02T03:04:{:02}Z", r.next() % 60),
            2 => format!("1969-12-31 23:59:59.{:06}+05:30", r.next() % 1_000_000),
            3 => "2038-01-19T03:14:07-08:00".to_string(),
            _ => format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
                1970 + r.next() % 80,
                1 + r.next() % 12,
                1 + r.next() % 28,
                r.next() % 24,
                r.next() % 60,
                r.next() % 60,
                r.next() % 1000
            ),
        };
        let s = match r.next() % 9 {
            0 => String::new(),
            1 => format!("\"line one{nl}line two\""),
            2 => "\"comma, inside\"".into(),
            3 => "\"a \"\"quoted\"\" word\"".into(),
            4 => "Zoë ✓ 日本語 🎉".into(),
            5 => "\"\"".into(),
            _ => format!("row{row}"),
        };
        out.push_str(&format!("{i},{f},{b},{d},{ts},{s}{nl}"));
    }
    out.into_bytes()
}

/// Days since the epoch, counted the slow way (year by year, month by month).
pub fn slow_days(t: &str) -> i32 {
    let y: i64 = t[0..4].parse().unwrap();
    let m: u32 = t[5..7].parse().unwrap();
    let d: i64 = t[8..10].parse().unwrap();
    let leap = |y: i64| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let mut days = 0i64;
    if y >= 1970 {
        for yy in 1970..y {
            days += if leap(yy) { 366 } else { 365 };
        }
    } else {
        for yy in y..1970 {
            days -= if leap(yy) { 366 } else { 365 };
        }
    }
    let ml = [31, if leap(y) { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    days += ml[..(m - 1) as usize].iter().sum::<i64>();
    (days + d - 1) as i32
}

/// Microseconds UTC of `YYYY-MM-DD[T ]HH:MM:SS[.f]Z|±HH:MM`, the slow way.
pub fn slow_micros(t: &str) -> i64 {
    let days = slow_days(&t[..10]) as i64;
    let h: i64 = t[11..13].parse().unwrap();
    let mi: i64 = t[14..16].parse().unwrap();
    let s: i64 = t[17..19].parse().unwrap();
    let rest = &t[19..];
    let (frac, tz) = match rest.strip_prefix('.') {
        Some(r) => {
            let n = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
            let digits = format!("{:0<6}", &r[..n]);
            (digits.parse::<i64>().unwrap(), &r[n..])
        }
        None => (0, rest),
    };
    let off = if tz == "Z" || tz.is_empty() {
        0
    } else {
        let sign = if tz.starts_with('-') { -1 } else { 1 };
        let hh: i64 = tz[1..3].parse().unwrap();
        let mm: i64 = tz[4..6].parse().unwrap();
        sign * (hh * 3600 + mm * 60)
    };
    ((days * 86400 + h * 3600 + mi * 60 + s - off) * 1_000_000) + frac
}

/// The slow reading of a generated file: swath's CSV reader and FromField.
#[allow(clippy::type_complexity)]
pub fn slow_read(data: &[u8]) -> Vec<Col> {
    let mut rdr = ReaderBuilder::new().from_reader(data).unwrap();
    let (mut i, mut f, mut b, mut d, mut t, mut s) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    while let Some(rec) = rdr.next_record().unwrap() {
        let (ii, ff, bb, dd, tt, ss): (
            Option<i64>,
            Option<f64>,
            Option<bool>,
            Option<&str>,
            Option<&str>,
            Option<String>,
        ) = rec.scan().unwrap();
        i.push(ii);
        f.push(ff.map(f64::to_bits));
        b.push(bb);
        d.push(dd.map(slow_days));
        t.push(tt.map(slow_micros));
        s.push(ss);
    }
    vec![Col::I(i), Col::F(f), Col::B(b), Col::D(d), Col::T(t), Col::S(s)]
}

/// The columns of batches, concatenated, in the shape of [`slow_read`].
pub fn columns(batches: &[RecordBatch]) -> Vec<Col> {
    let Some(first) = batches.first() else { return Vec::new() };
    let mut cols = Vec::new();
    for c in 0..first.num_columns() {
        let arrays: Vec<_> = batches.iter().map(|b| b.column(c).clone()).collect();
        let col = match first.column(c).data_type() {
            arrow_schema::DataType::Int64 => Col::I(
                arrays
                    .iter()
                    .flat_map(|a| a.as_primitive::<Int64Type>().iter().collect::<Vec<_>>())
                    .collect(),
            ),
            arrow_schema::DataType::Float64 => Col::F(
                arrays
                    .iter()
                    .flat_map(|a| {
                        a.as_primitive::<Float64Type>()
                            .iter()
                            .map(|v| v.map(f64::to_bits))
                            .collect::<Vec<_>>()
                    })
                    .collect(),
            ),
            arrow_schema::DataType::Boolean => Col::B(
                arrays.iter().flat_map(|a| a.as_boolean().iter().collect::<Vec<_>>()).collect(),
            ),
            arrow_schema::DataType::Date32 => Col::D(
                arrays
                    .iter()
                    .flat_map(|a| a.as_primitive::<Date32Type>().iter().collect::<Vec<_>>())
                    .collect(),
            ),
            arrow_schema::DataType::Timestamp(..) => Col::T(
                arrays
                    .iter()
                    .flat_map(|a| {
                        a.as_primitive::<TimestampMicrosecondType>().iter().collect::<Vec<_>>()
                    })
                    .collect(),
            ),
            arrow_schema::DataType::Utf8 => Col::S(
                arrays
                    .iter()
                    .flat_map(|a| {
                        a.as_string::<i32>()
                            .iter()
                            .map(|v| v.map(str::to_string))
                            .collect::<Vec<_>>()
                    })
                    .collect(),
            ),
            other => panic!("unexpected type {other}"),
        };
        cols.push(col);
    }
    cols
}

/// Total rows of batches.
pub fn rows(batches: &[RecordBatch]) -> usize {
    batches.iter().map(|b| b.num_rows()).sum()
}

/// Null counts must match the values (a cheap consistency check).
pub fn check_nulls(batches: &[RecordBatch]) {
    for b in batches {
        for c in b.columns() {
            assert_eq!(c.null_count(), (0..c.len()).filter(|&i| c.is_null(i)).count());
        }
    }
}

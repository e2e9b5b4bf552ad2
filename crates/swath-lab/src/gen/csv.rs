//! A 6-column CSV: `id,name,score,active,city,ts`, deterministic from a seed.
//!
//! ```text
//! id,name,score,active,city,ts
//! 1,Alice,98.5,true,Paris,2024-01-02T03:04:05Z
//! 2,"Martin, Bob",12.0,false,Lima,2024-07-19T22:41:09Z
//! ```
//!
//! About 10% of names are quoted: half hold the delimiter (`"Martin, Bob"`),
//! half a doubled quote (`"Ada ""Countess"" Lovelace"`). With
//! [`CsvOptions::quoted_newlines_pct`] set, that percentage of rows instead
//! has a name holding a newline inside quotes (`"Grace\nHopper"`), the case
//! that defeats a reader splitting on `\n`. `id` is the row number (from 1),
//! so every row is distinct and a reader can check the order.

use std::io::{self, Write};

use super::prng::Prng;

/// The header line.
pub const HEADER: &[u8] = b"id,name,score,active,city,ts\n";

/// Columns per record.
pub const COLUMNS: usize = 6;

const FIRST: [&str; 16] = [
    "Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory",
    "Niaj", "Olivia", "Peggy", "Rupert", "Sybil",
];
const LAST: [&str; 8] =
    ["Martin", "Hopper", "Lovelace", "Turing", "Knuth", "Liskov", "Ritchie", "Kernighan"];
const NICK: [&str; 4] = ["Ace", "Countess", "Doc", "Boss"];
const CITIES: [&str; 12] = [
    "Paris", "Lima", "Tokyo", "Oslo", "Nairobi", "Quito", "New York", "Zürich", "Cairo", "Perth",
    "Lagos", "Seoul",
];

/// Flush the buffer to the writer once it holds this much.
const FLUSH_AT: usize = 64 * 1024;
/// Room left past `FLUSH_AT` for one row, so the buffer never grows.
const ROW_MAX: usize = 256;

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvOptions {
    /// Data rows (the header is not counted).
    pub rows: u64,
    /// Seed of the generator: the same seed gives the same bytes.
    pub seed: u64,
    /// Percentage (0-100) of rows whose name holds a quoted newline.
    pub quoted_newlines_pct: u8,
}

impl Default for CsvOptions {
    /// 1000 rows, seed 1, no quoted newlines.
    fn default() -> Self {
        CsvOptions { rows: 1000, seed: 1, quoted_newlines_pct: 0 }
    }
}

/// What was generated: the answers a reader must find.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CsvSummary {
    /// Data rows (records after the header).
    pub rows: u64,
    /// Bytes written.
    pub bytes: u64,
    /// `\n` bytes, including those inside quotes (what `wc -l` prints).
    pub newlines: u64,
    /// Names quoted because they hold a comma or a quote.
    pub quoted_names: u64,
    /// Names holding a newline inside quotes.
    pub quoted_newlines: u64,
}

impl CsvSummary {
    /// Records including the header.
    pub fn records(&self) -> u64 {
        self.rows + 1
    }
}

/// Write the header and `opts.rows` rows to `out`.
///
/// Rows are formatted into one reused buffer (no allocation per row) that is
/// written out in blocks of about 64 KiB.
///
/// # Errors
///
/// The first error of `out`.
pub fn write<W: Write + ?Sized>(out: &mut W, opts: &CsvOptions) -> io::Result<CsvSummary> {
    let pct = opts.quoted_newlines_pct.min(100);
    let mut rng = Prng::new(opts.seed);
    let mut buf = Vec::with_capacity(FLUSH_AT + ROW_MAX);
    let mut sum = CsvSummary::default();
    buf.extend_from_slice(HEADER);
    sum.newlines += 1;
    for id in 1..=opts.rows {
        push_uint(&mut buf, id, 1);
        buf.push(b',');
        let first = FIRST[rng.below(FIRST.len() as u64) as usize].as_bytes();
        let last = LAST[rng.below(LAST.len() as u64) as usize].as_bytes();
        if pct > 0 && rng.percent(pct) {
            push_all(&mut buf, &[b"\"", first, b"\n", last, b"\""]);
            sum.quoted_newlines += 1;
            sum.newlines += 1;
        } else {
            match rng.below(20) {
                0 => push_all(&mut buf, &[b"\"", last, b", ", first, b"\""]),
                1 => {
                    let nick = NICK[rng.below(NICK.len() as u64) as usize].as_bytes();
                    push_all(&mut buf, &[b"\"", first, b" \"\"", nick, b"\"\" ", last, b"\""]);
                }
                _ => buf.extend_from_slice(first),
            }
            if buf.ends_with(b"\"") {
                sum.quoted_names += 1;
            }
        }
        // Score: 0.0 to 100.0 in tenths.
        let tenths = rng.below(1001);
        buf.push(b',');
        push_uint(&mut buf, tenths / 10, 1);
        buf.push(b'.');
        push_uint(&mut buf, tenths % 10, 1);
        let active: &[u8] = if rng.below(2) == 0 { b",true," } else { b",false," };
        buf.extend_from_slice(active);
        buf.extend_from_slice(CITIES[rng.below(CITIES.len() as u64) as usize].as_bytes());
        buf.extend_from_slice(b",2024-");
        push_uint(&mut buf, 1 + rng.below(12), 2);
        buf.push(b'-');
        push_uint(&mut buf, 1 + rng.below(28), 2);
        buf.push(b'T');
        push_uint(&mut buf, rng.below(24), 2);
        buf.push(b':');
        push_uint(&mut buf, rng.below(60), 2);
        buf.push(b':');
        push_uint(&mut buf, rng.below(60), 2);
        buf.extend_from_slice(b"Z\n");
        sum.newlines += 1;
        if buf.len() >= FLUSH_AT {
            out.write_all(&buf)?;
            sum.bytes += buf.len() as u64;
            buf.clear();
        }
    }
    out.write_all(&buf)?;
    sum.bytes += buf.len() as u64;
    sum.rows = opts.rows;
    Ok(sum)
}

/// What [`write()`] would produce for `opts`, without keeping the bytes (it
/// generates them into a sink: cheap, and it cannot drift from `write`).
pub fn summary(opts: &CsvOptions) -> CsvSummary {
    write(&mut io::sink(), opts).expect("io::sink never fails")
}

fn push_all(buf: &mut Vec<u8>, parts: &[&[u8]]) {
    for p in parts {
        buf.extend_from_slice(p);
    }
}

/// Append `v` in decimal, zero-padded to at least `width` digits, with no
/// allocation (a `format!` per field would be one per row).
#[inline]
pub(super) fn push_uint(buf: &mut Vec<u8>, mut v: u64, width: usize) {
    let mut digits = [b'0'; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    let start = i.min(digits.len() - width.min(digits.len()));
    buf.extend_from_slice(&digits[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slow, obvious CSV parser the generator is checked against.
    fn parse(data: &[u8]) -> Vec<Vec<Vec<u8>>> {
        let mut records = Vec::new();
        let mut rec = Vec::new();
        let mut field = Vec::new();
        let mut quoted = false;
        let mut i = 0;
        while i < data.len() {
            let b = data[i];
            if quoted {
                if b == b'"' && data.get(i + 1) == Some(&b'"') {
                    field.push(b'"');
                    i += 1;
                } else if b == b'"' {
                    quoted = false;
                } else {
                    field.push(b);
                }
            } else if b == b'"' {
                quoted = true;
            } else if b == b',' {
                rec.push(std::mem::take(&mut field));
            } else if b == b'\n' {
                rec.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut rec));
            } else {
                field.push(b);
            }
            i += 1;
        }
        assert!(field.is_empty() && rec.is_empty(), "unterminated last record");
        records
    }

    #[test]
    fn numbers_are_padded() {
        let mut buf = Vec::new();
        push_uint(&mut buf, 0, 1);
        push_uint(&mut buf, 7, 2);
        push_uint(&mut buf, 123, 2);
        push_uint(&mut buf, u64::MAX, 1);
        assert_eq!(buf, b"00712318446744073709551615");
    }

    #[test]
    fn rows_parse_back_with_six_typed_fields_and_the_summary_is_right() {
        for pct in [0u8, 20, 100] {
            let opts = CsvOptions { rows: 5000, seed: 42, quoted_newlines_pct: pct };
            let mut out = Vec::new();
            let sum = write(&mut out, &opts).unwrap();
            assert_eq!(sum, summary(&opts));
            assert_eq!(sum.bytes, out.len() as u64);
            assert_eq!(sum.newlines, swath::count_newlines(&out));
            assert!(out.starts_with(HEADER));
            let recs = parse(&out);
            assert_eq!(recs.len() as u64, sum.records());
            let mut with_newline = 0;
            let mut with_comma_or_quote = 0;
            for (i, rec) in recs.iter().enumerate().skip(1) {
                assert_eq!(rec.len(), COLUMNS, "record {i}");
                let text: Vec<&str> = rec.iter().map(|f| std::str::from_utf8(f).unwrap()).collect();
                assert_eq!(text[0].parse::<u64>().unwrap(), i as u64);
                let score: f64 = text[2].parse().unwrap();
                assert!((0.0..=100.0).contains(&score));
                assert!(text[3] == "true" || text[3] == "false");
                assert!(CITIES.contains(&text[4]));
                assert_eq!(text[5].len(), 20);
                assert!(text[5].starts_with("2024-") && text[5].ends_with('Z'));
                with_newline += usize::from(text[1].contains('\n'));
                with_comma_or_quote += usize::from(text[1].contains([',', '"']));
            }
            assert_eq!(with_newline as u64, sum.quoted_newlines);
            assert_eq!(with_comma_or_quote as u64, sum.quoted_names);
            let rows = opts.rows as f64;
            let expect_nl = rows * f64::from(pct) / 100.0;
            assert!((with_newline as f64 - expect_nl).abs() <= rows * 0.03, "pct {pct}");
            let expect_q = (rows - expect_nl) * 0.10;
            assert!((with_comma_or_quote as f64 - expect_q).abs() <= rows * 0.03, "pct {pct}");
        }
    }

    #[test]
    fn same_seed_same_bytes_other_seed_other_bytes() {
        let gen = |seed| {
            let mut out = Vec::new();
            let opts = CsvOptions { rows: 3000, seed, quoted_newlines_pct: 5 };
            write(&mut out, &opts).unwrap();
            out
        };
        assert_eq!(gen(9), gen(9));
        assert_ne!(gen(9), gen(10));
    }

    #[test]
    fn zero_rows_is_just_the_header() {
        let mut out = Vec::new();
        let sum = write(&mut out, &CsvOptions { rows: 0, ..CsvOptions::default() }).unwrap();
        assert_eq!(out, HEADER);
        assert_eq!(sum.records(), 1);
    }
}

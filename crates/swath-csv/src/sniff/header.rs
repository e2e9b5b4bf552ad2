//! Whether the first record is a header row: a header's values do not
//! look like the values below them (a name over a column of numbers or
//! dates), as Python's `csv.Sniffer.has_header` reasons.

/// A value's rough kind, for comparing the first row with the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Empty,
    Integer,
    Float,
    Boolean,
    Date,
    Text,
}

fn kind(v: &[u8]) -> Kind {
    let t = v.trim_ascii();
    if t.is_empty() {
        return Kind::Empty;
    }
    let digits = t.strip_prefix(b"-").or_else(|| t.strip_prefix(b"+")).unwrap_or(t);
    if !digits.is_empty() && digits.iter().all(u8::is_ascii_digit) {
        return Kind::Integer;
    }
    if t.eq_ignore_ascii_case(b"true") || t.eq_ignore_ascii_case(b"false") {
        return Kind::Boolean;
    }
    if t.len() >= 10
        && t[..4].iter().all(u8::is_ascii_digit)
        && t[4] == b'-'
        && t[5..7].iter().all(u8::is_ascii_digit)
        && t[7] == b'-'
        && t[8..10].iter().all(u8::is_ascii_digit)
    {
        return Kind::Date;
    }
    let number = std::str::from_utf8(t).ok().and_then(|s| s.parse::<f64>().ok());
    if number.is_some_and(f64::is_finite) && t.iter().any(u8::is_ascii_digit) {
        return Kind::Float;
    }
    Kind::Text
}

/// The verdict and how it was reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeaderGuess {
    /// The first record is a header row.
    pub has_headers: bool,
    /// Columns whose types decided (0: a guess from the first row alone).
    pub by_types: usize,
}

/// Guess from the first record and the records after it (same dialect).
pub fn guess(first: &[Vec<u8>], rest: &[Vec<Vec<u8>>]) -> HeaderGuess {
    let (mut header, mut data) = (0usize, 0usize);
    for (col, top) in first.iter().enumerate() {
        let kinds: Vec<Kind> = rest
            .iter()
            .filter_map(|r| r.get(col))
            .map(|v| kind(v))
            .filter(|&k| k != Kind::Empty)
            .collect();
        if kinds.is_empty() {
            continue;
        }
        let body = kinds[0];
        let typed = body != Kind::Text && kinds.iter().all(|&k| k == body || numeric_pair(k, body));
        let top_kind = kind(top);
        if typed {
            if top_kind == body || numeric_pair(top_kind, body) {
                data += 1;
            } else if top_kind == Kind::Text {
                header += 1;
            }
        } else if top_kind != Kind::Text && top_kind != Kind::Empty {
            // A number over a text column: data more likely.
            data += 1;
        }
    }
    if header != data {
        return HeaderGuess { has_headers: header > data, by_types: header.max(data) };
    }
    // No column decides: a header row is non-empty, distinct text, and not
    // a repeat of values below it.
    let distinct = first.iter().collect::<std::collections::HashSet<_>>().len() == first.len();
    let texts = first.iter().all(|v| kind(v) == Kind::Text);
    let repeated = first.iter().enumerate().any(|(c, v)| rest.iter().any(|r| r.get(c) == Some(v)));
    HeaderGuess { has_headers: distinct && texts && !repeated, by_types: 0 }
}

/// The share of `rows`' values that have a type (a number, boolean, date
/// or empty), as CleverCSV's type score: a wrong delimiter glues typed
/// values into text.
pub fn typed_share(rows: &[Vec<Vec<u8>>]) -> f64 {
    let (mut typed, mut all) = (0usize, 0usize);
    for v in rows.iter().flatten() {
        all += 1;
        typed += usize::from(kind(v) != Kind::Text);
    }
    if all == 0 {
        0.0
    } else {
        typed as f64 / all as f64
    }
}

fn numeric_pair(a: Kind, b: Kind) -> bool {
    matches!((a, b), (Kind::Integer, Kind::Float) | (Kind::Float, Kind::Integer))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str) -> Vec<Vec<Vec<u8>>> {
        text.lines().map(|l| l.split(',').map(|f| f.as_bytes().to_vec()).collect()).collect()
    }

    fn check(text: &str) -> HeaderGuess {
        let r = rows(text);
        guess(&r[0], &r[1..])
    }

    #[test]
    fn names_over_numbers_are_a_header() {
        assert!(check("id,score,when\n1,2.5,2024-01-01\n2,3,2024-01-02").has_headers);
        assert!(!check("1,2.5,2024-01-01\n2,3,2024-01-02").has_headers);
        // All text: a guess from the first row.
        let g = check("name,city\nada,paris\nbob,lyon");
        assert_eq!(g, HeaderGuess { has_headers: true, by_types: 0 });
        assert!(!check("ada,paris\nbob,paris").has_headers);
    }
}

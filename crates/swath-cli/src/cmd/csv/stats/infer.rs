//! What one field looks like: integer, float, boolean, date/time, string.

/// The kind of one non-empty field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// An optionally signed run of digits that fits an `i64`.
    Integer(i64),
    /// A decimal or scientific number (not `inf` or `NaN`).
    Float(f64),
    /// `true` or `false`, in any case.
    Boolean,
    /// An ISO 8601 date, `YYYY-MM-DD`, optionally with a time
    /// (`T` or space, `HH:MM[:SS[.f]]`, then `Z` or `+HH:MM`).
    Date,
    /// Anything else.
    String,
}

/// Classify `field` (non-empty). Every kind but `String` is ASCII, so
/// the bytes need no UTF-8 check (it was a tenth of `stats`).
pub fn classify(field: &[u8]) -> Kind {
    // A code such as 00501 is text, as `schema` infers it: its min is
    // "00501", not 501.
    if swath_csv::typed::has_leading_zero(field) {
        return Kind::String;
    }
    if let Some(n) = integer(field) {
        return Kind::Integer(n);
    }
    if looks_numeric(field) {
        let x = std::str::from_utf8(field).ok().and_then(|s| s.parse::<f64>().ok());
        if let Some(x) = x.filter(|x| x.is_finite()) {
            return Kind::Float(x);
        }
    }
    if field.eq_ignore_ascii_case(b"true") || field.eq_ignore_ascii_case(b"false") {
        return Kind::Boolean;
    }
    if is_date(field) {
        return Kind::Date;
    }
    Kind::String
}

fn integer(f: &[u8]) -> Option<i64> {
    let (neg, digits) = match f.first()? {
        b'-' => (true, &f[1..]),
        b'+' => (false, &f[1..]),
        _ => (false, f),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut n: i64 = 0;
    for &d in digits {
        let d = i64::from(d - b'0');
        n = n.checked_mul(10)?;
        n = if neg { n.checked_sub(d)? } else { n.checked_add(d)? };
    }
    Some(n)
}

/// Only digits, sign, point and exponent: keeps `inf`, `NaN` and `1_0` out.
fn looks_numeric(f: &[u8]) -> bool {
    f.iter().any(u8::is_ascii_digit)
        && f.iter().all(|&b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
}

fn is_date(f: &[u8]) -> bool {
    let digits =
        |r: std::ops::Range<usize>| f.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let date = f.len() >= 10
        && digits(0..4)
        && f[4] == b'-'
        && digits(5..7)
        && f[7] == b'-'
        && digits(8..10);
    if !(date && b"01".contains(&f[5]) && b"0123".contains(&f[8])) {
        return false;
    }
    let rest = &f[10..];
    if rest.is_empty() {
        return true;
    }
    let t = &rest[1..];
    if !(rest[0] == b'T' || rest[0] == b' ') || t.len() < 5 {
        return false;
    }
    let tdig =
        |r: std::ops::Range<usize>| t.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    if !(tdig(0..2) && t[2] == b':' && tdig(3..5)) {
        return false;
    }
    let mut i = 5;
    if t.get(i) == Some(&b':') {
        if !tdig(i + 1..i + 3) {
            return false;
        }
        i += 3;
        if t.get(i) == Some(&b'.') {
            i += 1;
            let start = i;
            while t.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == start {
                return false;
            }
        }
    }
    match &t[i..] {
        b"" | b"Z" => true,
        [b'+' | b'-', h1, h2, b':', m1, m2] => [h1, h2, m1, m2].iter().all(|d| d.is_ascii_digit()),
        [b'+' | b'-', h1, h2, m1, m2] => [h1, h2, m1, m2].iter().all(|d| d.is_ascii_digit()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(classify(b"42"), Kind::Integer(42));
        assert_eq!(classify(b"-9223372036854775808"), Kind::Integer(i64::MIN));
        assert_eq!(classify(b"9223372036854775808"), Kind::Float(9223372036854775808.0));
        assert_eq!(classify(b"1.5e3"), Kind::Float(1500.0));
        assert_eq!(classify(b"-.5"), Kind::Float(-0.5));
        for s in ["inf", "NaN", "1_0", "-", "+", ".", "e", "1.2.3", "0x10"] {
            assert_eq!(classify(s.as_bytes()), Kind::String, "{s}");
        }
        for s in ["00501", "-007", "01.5", "+02"] {
            assert_eq!(classify(s.as_bytes()), Kind::String, "{s}: a code keeps its text");
        }
        assert_eq!(classify(b"0"), Kind::Integer(0));
        assert_eq!(classify(b"0.5"), Kind::Float(0.5));
        assert_eq!(classify(b"TRUE"), Kind::Boolean);
        assert_eq!(classify(b"false"), Kind::Boolean);
        for s in [
            "2024-01-31",
            "2024-01-31T23:59",
            "2024-01-31 23:59:59.123Z",
            "2024-12-01T00:00:00+02:00",
        ] {
            assert_eq!(classify(s.as_bytes()), Kind::Date, "{s}");
        }
        for s in [
            "2024-1-31",
            "2024-01-31T",
            "2024-01-31X",
            "2024-21-01",
            "2024-01-31T25",
            "2024-01-31T10:00:0",
        ] {
            assert_eq!(classify(s.as_bytes()), Kind::String, "{s}");
        }
        // Bytes that are not UTF-8 never pass for a number, boolean or date.
        for b in [&b"\xff"[..], b"12\xff", b"\xef\xbb\xbf1", b"tru\xe9", b"2024-01-31\xff"] {
            assert_eq!(classify(b), Kind::String, "{b:?}");
        }
    }
}

//! Dates and timestamps from text: `YYYY-MM-DD` and
//! `YYYY-MM-DD[T ]HH:MM:SS[.ffffff][Z|+HH:MM|+HHMM|+HH]`, exactly (no
//! rounding: more than 6 fraction digits is not a microsecond timestamp).

/// Days since 1970-01-01 of `YYYY-MM-DD`, or `None`.
#[inline]
pub fn parse_date(b: &[u8]) -> Option<i32> {
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let y = digits(&b[0..4])? as i64;
    let m = digits(&b[5..7])?;
    let d = digits(&b[8..10])?;
    if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    Some(days_from_civil(y, m, d) as i32)
}

/// A timestamp: microseconds since the epoch (UTC when an offset was
/// given, else the wall clock as written) and whether it had an offset.
#[inline]
pub fn parse_timestamp(b: &[u8]) -> Option<(i64, bool)> {
    if b.len() < 19 || !(b[10] == b'T' || b[10] == b' ') || b[13] != b':' || b[16] != b':' {
        return None;
    }
    let days = parse_date(&b[..10])? as i64;
    let h = digits(&b[11..13])?;
    let mi = digits(&b[14..16])?;
    let s = digits(&b[17..19])?;
    if h > 23 || mi > 59 || s > 59 {
        return None;
    }
    let mut rest = &b[19..];
    let mut micros = 0i64;
    if let Some((b'.', frac)) = rest.split_first() {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 || n > 6 {
            return None;
        }
        micros = digits(&frac[..n])? as i64 * 10i64.pow(6 - n as u32);
        rest = &frac[n..];
    }
    let (offset, tz) = match rest {
        [] => (0, false),
        [b'Z'] | [b'z'] => (0, true),
        [sign @ (b'+' | b'-'), tail @ ..] => {
            let (oh, om) = match tail {
                [a, b] => (digits(&[*a, *b])?, 0),
                [a, b, b':', c, d] | [a, b, c, d] => (digits(&[*a, *b])?, digits(&[*c, *d])?),
                _ => return None,
            };
            if oh > 23 || om > 59 {
                return None;
            }
            let secs = (oh * 3600 + om * 60) as i64;
            (if *sign == b'-' { -secs } else { secs }, true)
        }
        _ => return None,
    };
    let secs = days * 86_400 + (h * 3600 + mi * 60 + s) as i64 - offset;
    Some((secs * 1_000_000 + micros, tz))
}

#[inline]
fn digits(b: &[u8]) -> Option<u32> {
    let mut v = 0u32;
    for &c in b {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v * 10 + d as u32;
    }
    Some(v)
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Howard Hinnant's `days_from_civil`.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(parse_date(b"1970-01-01"), Some(0));
        assert_eq!(parse_date(b"1969-12-31"), Some(-1));
        assert_eq!(parse_date(b"2000-03-01"), Some(11017));
        assert_eq!(parse_date(b"2024-02-29"), Some(19782));
        assert_eq!(parse_date(b"2023-02-29"), None);
        assert_eq!(parse_date(b"2023-13-01"), None);
        assert_eq!(parse_date(b"2023-1-01"), None);
        assert_eq!(parse_date(b"0000-01-01"), Some(-719528));
    }

    #[test]
    fn timestamps() {
        assert_eq!(parse_timestamp(b"1970-01-01T00:00:00"), Some((0, false)));
        assert_eq!(parse_timestamp(b"1970-01-01 00:00:01.5"), Some((1_500_000, false)));
        assert_eq!(parse_timestamp(b"1970-01-01T00:00:00Z"), Some((0, true)));
        assert_eq!(parse_timestamp(b"1970-01-01T01:00:00+01:00"), Some((0, true)));
        assert_eq!(parse_timestamp(b"1970-01-01T00:00:00-0130"), Some((5_400_000_000, true)));
        assert_eq!(parse_timestamp(b"1970-01-01T00:00:00+02"), Some((-7_200_000_000, true)));
        assert_eq!(
            parse_timestamp(b"2024-01-02T03:04:05.123456Z"),
            Some((1_704_164_645_123_456, true))
        );
        assert_eq!(parse_timestamp(b"2024-01-02T03:04:05.1234567Z"), None);
        assert_eq!(parse_timestamp(b"2024-01-02T24:00:00"), None);
        assert_eq!(parse_timestamp(b"2024-01-02"), None);
        assert_eq!(parse_timestamp(b"2024-01-02T03:04:05+"), None);
    }
}

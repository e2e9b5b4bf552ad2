//! Dates and timestamps from text: `YYYY-MM-DD` and
//! `YYYY-MM-DD[T ]HH:MM:SS[.ffffff][Z|+HH:MM|+HHMM|+HH]`, exactly (no
//! rounding: more than 6 fraction digits is not a microsecond timestamp).

/// Days since 1970-01-01 of `YYYY-MM-DD`, or `None`.
#[inline]
pub fn parse_date(b: &[u8]) -> Option<i32> {
    let b: &[u8; 10] = b.try_into().ok()?;
    date10(b)
}

/// A timestamp: microseconds since the epoch (UTC when an offset was
/// given, else the wall clock as written) and whether it had an offset.
#[inline]
pub fn parse_timestamp(b: &[u8]) -> Option<(i64, bool)> {
    let fixed = match b.len() {
        19 | 20 => fixed_timestamp(b),
        // Milliseconds or microseconds, with or without `Z`: what JSON logs
        // write (`general_timestamp` was 2.5% of a JSON-lines decode).
        23 | 24 | 26 | 27 => fixed_fraction(b),
        _ => None,
    };
    match fixed {
        Some(t) => Some(t),
        None => general_timestamp(b),
    }
}

/// `'0'` in every byte of a word.
const ZEROS: u64 = 0x3030_3030_3030_3030;

/// True when every byte of `x` (each a byte XOR `'0'`) is 0..=9: a byte
/// above 9 gets its top bit from the add (without a carry below 0x80) or
/// has it already (the integer parser's check).
#[inline(always)]
fn all_digits(x: u64) -> bool {
    (x.wrapping_add(0x7676_7676_7676_7676) | x) & 0x8080_8080_8080_8080 == 0
}

/// The common shape, `YYYY-MM-DD[T ]HH:MM:SS` with or without a `Z`
/// (what logs and exports write), checked in three word compares rather
/// than byte by byte: the digits' lanes with [`all_digits`], the
/// separators' lanes against their bytes. `None` for anything else,
/// which the general parser reads (or refuses). Before it, a timestamp
/// took about 25 ns (perf: `parse_timestamp`, `date10` and
/// `days_from_civil` each out of line, 11.6% of a `to-arrow`).
#[inline(always)]
fn fixed_timestamp(b: &[u8]) -> Option<(i64, bool)> {
    let (head, tail) = b.split_first_chunk::<19>()?;
    let tz = match tail {
        [] => false,
        [b'Z'] => true,
        _ => return None,
    };
    let word = |i: usize| {
        u64::from_le_bytes([
            head[i],
            head[i + 1],
            head[i + 2],
            head[i + 3],
            head[i + 4],
            head[i + 5],
            head[i + 6],
            head[i + 7],
        ])
    };
    // Bytes 0..8 `YYYY-MM-`: `-` in lanes 4 and 7. Bytes 11..19
    // `HH:MM:SS`: `:` in lanes 2 and 5. Bytes 8, 9 the day, 10 `T` or ` `.
    const DATE_SEP: u64 = 0xFF00_00FF_0000_0000;
    const TIME_SEP: u64 = 0x0000_FF00_00FF_0000;
    let (date, time) = (word(0), word(11));
    let day = u64::from(head[8]) | u64::from(head[9]) << 8;
    let date_x = (date ^ ZEROS) & !DATE_SEP;
    let time_x = (time ^ ZEROS) & !TIME_SEP;
    let day_x = day ^ 0x3030;
    let shape = date & DATE_SEP == 0x2D00_002D_0000_0000
        && time & TIME_SEP == 0x0000_3A00_003A_0000
        && (head[10] == b'T' || head[10] == b' ');
    if !(shape && all_digits(date_x) && all_digits(time_x) && all_digits(day_x)) {
        return None;
    }
    let lane = |x: u64, i: u32| ((x >> (8 * i)) & 0xFF) as u32;
    let y = lane(date_x, 0) * 1000 + lane(date_x, 1) * 100 + lane(date_x, 2) * 10 + lane(date_x, 3);
    let m = lane(date_x, 5) * 10 + lane(date_x, 6);
    let d = lane(day_x, 0) * 10 + lane(day_x, 1);
    let h = lane(time_x, 0) * 10 + lane(time_x, 1);
    let mi = lane(time_x, 3) * 10 + lane(time_x, 4);
    let sec = lane(time_x, 6) * 10 + lane(time_x, 7);
    // One branch for every range; February 29th is looked at apart.
    let month_ok = m.wrapping_sub(1) < 12;
    let day_ok = d.wrapping_sub(1) < u32::from(MONTH_DAYS[(m as usize) & 15]);
    if !(month_ok & day_ok & (h < 24) & (mi < 60) & (sec < 60)) {
        return None;
    }
    if m == 2 && d == 29 && !is_leap(y) {
        return None;
    }
    let days = i64::from(days_from_civil(y, m, d));
    let secs = days * 86_400 + i64::from(h * 3600 + mi * 60 + sec);
    Some((secs * 1_000_000, tz))
}

/// The common shape with 3 or 6 fraction digits: `YYYY-MM-DDTHH:MM:SS.fff`
/// or `.ffffff`, with or without a `Z`. `None` for anything else.
#[inline(always)]
fn fixed_fraction(b: &[u8]) -> Option<(i64, bool)> {
    let (head, tail) = b.split_first_chunk::<19>()?;
    let (tail, tz) = match tail.split_last() {
        Some((b'Z', rest)) => (rest, true),
        _ => (tail, false),
    };
    let (b'.', digits) = tail.split_first()? else { return None };
    if !(digits.len() == 3 || digits.len() == 6) || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let (base, _) = fixed_timestamp(head)?;
    let frac = digits.iter().fold(0i64, |v, &d| v * 10 + i64::from(d - b'0'));
    Some((base + frac * if digits.len() == 3 { 1000 } else { 1 }, tz))
}

/// Every shape [`parse_timestamp`] reads: fractions and offsets too.
#[inline(never)]
fn general_timestamp(b: &[u8]) -> Option<(i64, bool)> {
    let (head, mut rest) = b.split_first_chunk::<19>()?;
    if !(head[10] == b'T' || head[10] == b' ') || head[13] != b':' || head[16] != b':' {
        return None;
    }
    let days = date10(head[..10].try_into().ok()?)? as i64;
    let h = two(head[11], head[12])?;
    let mi = two(head[14], head[15])?;
    let s = two(head[17], head[18])?;
    if h > 23 || mi > 59 || s > 59 {
        return None;
    }
    let mut micros = 0i64;
    if let Some((b'.', frac)) = rest.split_first() {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 || n > 6 {
            return None;
        }
        let mut v = 0i64;
        for &c in &frac[..n] {
            v = v * 10 + (c - b'0') as i64;
        }
        micros = v * POW10_MICROS[n];
        rest = &frac[n..];
    }
    let (offset, tz) = match rest {
        [] => (0, false),
        [b'Z'] | [b'z'] => (0, true),
        [sign @ (b'+' | b'-'), tail @ ..] => {
            let (oh, om) = match *tail {
                [a, b] => (two(a, b)?, 0),
                [a, b, b':', c, d] | [a, b, c, d] => (two(a, b)?, two(c, d)?),
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

/// What `n` fraction digits are multiplied by to make microseconds.
const POW10_MICROS: [i64; 7] = [1_000_000, 100_000, 10_000, 1_000, 100, 10, 1];

/// Days in each month (February as in a leap year; the 29th is checked
/// apart, rarely), 0 past December so that any index below 16 is safe.
const MONTH_DAYS: [u8; 16] = [0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31, 0, 0, 0];

/// `YYYY-MM-DD`, its length known.
#[inline]
fn date10(b: &[u8; 10]) -> Option<i32> {
    if b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let y = two(b[0], b[1])? * 100 + two(b[2], b[3])?;
    let m = two(b[5], b[6])?;
    let d = two(b[8], b[9])?;
    if !(1..=12).contains(&m) || d == 0 || d > u32::from(MONTH_DAYS[m as usize]) {
        return None;
    }
    if m == 2 && d == 29 && !is_leap(y) {
        return None;
    }
    Some(days_from_civil(y, m, d))
}

/// Two ASCII digits as a number.
#[inline(always)]
fn two(a: u8, b: u8) -> Option<u32> {
    let (a, b) = (a.wrapping_sub(b'0'), b.wrapping_sub(b'0'));
    if (a > 9) | (b > 9) {
        return None;
    }
    Some(u32::from(a) * 10 + u32::from(b))
}

#[inline]
fn is_leap(y: u32) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

/// Howard Hinnant's `days_from_civil` for years 0..=9999, in unsigned
/// arithmetic without a branch: the year is moved 400 years on (one era,
/// 146,097 days) so that it stays positive once March starts it, and the
/// divisions are by constants.
#[inline]
fn days_from_civil(y: u32, m: u32, d: u32) -> i32 {
    let before_march = u32::from(m <= 2);
    let y = y + 400 - before_march;
    let era = y / 400;
    let yoe = y - era * 400;
    // March is month 0: m - 3, or m + 9 for January and February.
    let mp = m + 9 - 12 * (1 - before_march);
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe) as i32 - 719_468 - 146_097
}

/// The first, obvious parsers: the fast ones above are tested against them.
#[cfg(test)]
mod slow {
    /// Days since 1970-01-01 of `YYYY-MM-DD`, or `None`.
    pub(super) fn parse_date(b: &[u8]) -> Option<i32> {
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
    pub(super) fn parse_timestamp(b: &[u8]) -> Option<(i64, bool)> {
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

    #[test]
    fn every_date_equals_the_slow_parser() {
        for y in 0..=9999 {
            for m in 0..=13 {
                for d in [0, 1, 2, 27, 28, 29, 30, 31, 32] {
                    let t = format!("{y:04}-{m:02}-{d:02}");
                    assert_eq!(parse_date(t.as_bytes()), slow::parse_date(t.as_bytes()), "{t}");
                }
            }
        }
    }

    #[test]
    fn the_fixed_shape_equals_the_general_parser() {
        // Every day of four centuries' edge years, times at and past the
        // limits, with `T` or ` `, `Z` or none: where the fast path reads
        // a timestamp, the general one reads the same; where the general
        // one reads this shape, so does the fast one.
        let mut n = 0;
        for y in [0, 1, 1600, 1899, 1900, 1970, 2000, 2023, 2024, 2100, 9999] {
            for m in 0..=13 {
                for d in 0..=32 {
                    for (h, mi, sec) in
                        [(0, 0, 0), (23, 59, 59), (24, 0, 0), (12, 60, 1), (1, 2, 60)]
                    {
                        for (sep, frac) in [
                            ('T', ""),
                            (' ', ""),
                            ('t', ""),
                            ('T', ".123"),
                            (' ', ".000001"),
                            ('T', ".12345"),
                        ] {
                            for z in ["", "Z", "z"] {
                                let t = format!(
                                    "{y:04}-{m:02}-{d:02}{sep}{h:02}:{mi:02}:{sec:02}{frac}{z}"
                                );
                                let b = t.as_bytes();
                                let general = general_timestamp(b);
                                let fixed = if frac.is_empty() {
                                    fixed_timestamp(b)
                                } else {
                                    fixed_fraction(b)
                                };
                                match fixed {
                                    Some(v) => assert_eq!(Some(v), general, "{t}"),
                                    None => assert!(
                                        general.is_none()
                                            || sep == 't'
                                            || z == "z"
                                            || frac == ".12345",
                                        "{t}: the fast path refused what the general one reads"
                                    ),
                                }
                                assert_eq!(parse_timestamp(b), slow::parse_timestamp(b), "{t}");
                                n += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(n > 200_000);
    }

    #[test]
    fn mutated_timestamps_equal_the_slow_parser() {
        let seeds: [&[u8]; 8] = [
            b"2024-11-15T06:47:24Z",
            b"1969-12-31 23:59:59.999999",
            b"0000-01-01T00:00:00+23:59",
            b"9999-12-31T23:59:59.1-0130",
            b"2000-02-29T12:00:00+05",
            b"1900-02-28T00:00:00.123z",
            b"2024-01-02",
            b"2024-03-01T00:00:00.000000+0000",
        ];
        let alphabet = b"0123456789:-+.TZz /x\x80\xff";
        let mut rng = swath_testkit::Rng::new(0x7157_a11e);
        for seed in seeds {
            assert_eq!(parse_timestamp(seed), slow::parse_timestamp(seed));
            assert_eq!(parse_date(seed), slow::parse_date(seed));
            for _ in 0..20_000 {
                let mut t = seed.to_vec();
                for _ in 0..1 + rng.next_u64() % 3 {
                    let r = rng.next_u64() as usize;
                    match r % 4 {
                        0 if !t.is_empty() => {
                            let i = (r >> 8) % t.len();
                            t[i] = alphabet[(r >> 32) % alphabet.len()];
                        }
                        1 if !t.is_empty() => {
                            t.truncate((r >> 8) % t.len());
                        }
                        2 => t.push(alphabet[(r >> 8) % alphabet.len()]),
                        _ if !t.is_empty() => {
                            t.remove((r >> 8) % t.len());
                        }
                        _ => {}
                    }
                }
                assert_eq!(parse_timestamp(&t), slow::parse_timestamp(&t), "{t:?}");
                assert_eq!(parse_date(&t), slow::parse_date(&t), "{t:?}");
            }
        }
    }
}

//! Integers straight from bytes: eight digits at a time (SWAR) and a
//! checked loop, the slow twin the tests compare it with.

use swath::swar::splat;

use super::{FieldError, FromField};

/// Digits straight from bytes: no UTF-8 pass, no allocation.
macro_rules! unsigned {
    ($($t:ty)*) => {$(
        impl FromField<'_> for $t {
            #[inline]
            fn from_field(f: &[u8]) -> std::result::Result<Self, FieldError> {
                // Up to 8 plain digits, the common case, before looking for
                // a sign: a `+` is not a digit, so it fails here and takes
                // the general path, errors included.
                if (1..=8).contains(&f.len()) {
                    if let Some(v) = eight_digits(f) {
                        return <$t>::from_u64(v, false).ok_or_else(|| "number out of range".into());
                    }
                }
                let digits = f.strip_prefix(b"+").unwrap_or(f);
                parse_digits::<$t>(digits, false)
            }
        }
    )*};
}

macro_rules! signed {
    ($($t:ty)*) => {$(
        impl FromField<'_> for $t {
            #[inline]
            fn from_field(f: &[u8]) -> std::result::Result<Self, FieldError> {
                match f.strip_prefix(b"-") {
                    Some(d) => parse_digits::<$t>(d, true),
                    None => parse_digits::<$t>(f.strip_prefix(b"+").unwrap_or(f), false),
                }
            }
        }
    )*};
}

/// An `i64` as [`FromField`] reads it, `None` where that fails, without
/// the error (and its allocation): for decoders that say why themselves.
#[inline]
pub fn parse_i64(f: &[u8]) -> Option<i64> {
    let (neg, d) = match f.split_first() {
        Some((b'-', d)) => (true, d),
        Some((b'+', d)) => (false, d),
        _ => (false, f),
    };
    let v = match d.len() {
        1..=8 => eight_digits(d)?,
        9..=16 => {
            let (hi, lo) = d.split_at(d.len() - 8);
            eight_digits(hi)? * 100_000_000 + eight_digits(lo)?
        }
        17..=19 => pair_digits(d)?,
        0 => return None,
        _ => return parse_digits_checked::<i64>(d, neg).ok(),
    };
    i64::from_u64(v, neg)
}

trait Int: Copy {
    const ZERO: Self;
    /// Whether any 19-digit magnitude fits through `u64` (all but 128-bit).
    const NARROW: bool;
    fn step(self, d: u8, neg: bool) -> Option<Self>;
    fn from_u64(v: u64, neg: bool) -> Option<Self>;
}

macro_rules! int {
    ($($t:ty)*) => {$(
        impl Int for $t {
            const ZERO: Self = 0;
            const NARROW: bool = <$t>::BITS <= 64;
            #[inline]
            #[allow(unused_comparisons)]
            fn step(self, d: u8, neg: bool) -> Option<Self> {
                let v = self.checked_mul(10)?;
                // Accumulate negatives downwards so that MIN parses.
                if neg { v.checked_sub(d as $t) } else { v.checked_add(d as $t) }
            }
            #[inline]
            fn from_u64(v: u64, neg: bool) -> Option<Self> {
                // i128 holds every u64 and its negation.
                let x = if neg { -(v as i128) } else { v as i128 };
                <$t>::try_from(x).ok()
            }
        }
    )*};
}

int!(u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize);
unsigned!(u8 u16 u32 u64 u128 usize);
signed!(i8 i16 i32 i64 i128 isize);

/// Digits to an integer. Up to 19 digits cannot overflow a `u64`
/// (10^19 - 1 < 2^64), so they are summed without a check per digit and
/// range-checked once: up to 16 by eight at a time ([`eight_digits`]), 17 to
/// 19 two a step; longer inputs (and 128-bit types) take the checked loop,
/// [`parse_digits_checked`], the slow twin the tests compare with.
#[inline]
fn parse_digits<T: Int>(d: &[u8], neg: bool) -> std::result::Result<T, FieldError> {
    if !T::NARROW || d.len() > 19 {
        return parse_digits_checked(d, neg);
    }
    if d.is_empty() {
        return Err("no digits".into());
    }
    let v = if d.len() <= 8 {
        eight_digits(d)
    } else if d.len() <= 16 {
        let (hi, lo) = d.split_at(d.len() - 8);
        eight_digits(hi).zip(eight_digits(lo)).map(|(h, l)| h * 100_000_000 + l)
    } else {
        pair_digits(d)
    };
    let Some(v) = v else {
        return Err("invalid digit".into());
    };
    T::from_u64(v, neg).ok_or_else(|| "number out of range".into())
}

/// 17 to 19 digits, two a step; `None` at a byte that is not one.
#[inline(never)]
fn pair_digits(d: &[u8]) -> Option<u64> {
    let mut v = 0u64;
    let mut pairs = d.chunks_exact(2);
    for p in &mut pairs {
        let (a, b) = (p[0].wrapping_sub(b'0'), p[1].wrapping_sub(b'0'));
        if (a > 9) | (b > 9) {
            return None;
        }
        v = v * 100 + u64::from(a) * 10 + u64::from(b);
    }
    if let [c] = pairs.remainder() {
        let a = c.wrapping_sub(b'0');
        if a > 9 {
            return None;
        }
        v = v * 10 + u64::from(a);
    }
    Some(v)
}

/// The bytes of `f` (at most 8) as the low bytes of a little-endian word,
/// zeros above: two overlapping loads rather than a byte loop.
#[inline(always)]
fn load_word(f: &[u8]) -> u64 {
    let n = f.len();
    debug_assert!(n <= 8);
    let half = |i: usize| u64::from(u32::from_le_bytes(f[i..i + 4].try_into().unwrap_or([0; 4])));
    if n >= 4 {
        half(0) | half(n - 4) << (8 * (n - 4))
    } else if n > 0 {
        u64::from(f[0])
            | u64::from(f[n / 2]) << (8 * (n / 2))
            | u64::from(f[n - 1]) << (8 * (n - 1))
    } else {
        0
    }
}

/// 1 to 8 ASCII digits at once (SWAR), `None` when a byte is not a digit.
/// The pair loop took about 16 instructions per two digits, 60 for the
/// bench's 7-digit ids (callgrind); this takes about 25 for any length.
#[inline(always)]
fn eight_digits(d: &[u8]) -> Option<u64> {
    let n = d.len();
    debug_assert!((1..=8).contains(&n));
    // A digit becomes its value 0..=9; anything else a byte above 9.
    let x = (load_word(d) ^ splat(b'0')) & (u64::MAX >> (64 - 8 * n));
    // A byte above 9 gets its top bit from the add (no carry below 0x80)
    // or has it already; a carry from such a byte is past a failure.
    if (x.wrapping_add(splat(0x76)) | x) & splat(0x80) != 0 {
        return None;
    }
    Some(digits_value(x, n))
}

/// The value of the `n` (1..=8) digits held as byte values in the low
/// bytes of `x`, the first (most significant) lowest: pairs, then fours,
/// then eight, each step a multiply-add of neighbouring lanes.
#[inline(always)]
fn digits_value(x: u64, n: usize) -> u64 {
    // Left-align: the bytes shifted in are leading zeros.
    let x = x << (8 * (8 - n));
    let x = (x.wrapping_mul(10).wrapping_add(x >> 8)) & 0x00FF_00FF_00FF_00FF;
    let x = (x.wrapping_mul(100).wrapping_add(x >> 16)) & 0x0000_FFFF_0000_FFFF;
    (x.wrapping_mul(10_000).wrapping_add(x >> 32)) & 0xFFFF_FFFF
}

#[inline]
fn parse_digits_checked<T: Int>(d: &[u8], neg: bool) -> std::result::Result<T, FieldError> {
    if d.is_empty() {
        return Err("no digits".into());
    }
    let mut v = T::ZERO;
    for &b in d {
        let x = b.wrapping_sub(b'0');
        if x > 9 {
            return Err("invalid digit".into());
        }
        v = v.step(x, neg).ok_or("number out of range")?;
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_equal_the_checked_loop_and_std() {
        let mut rng = swath_testkit::Rng::new(0x2545f4914f6cdd1d);
        let mut next = || rng.next_u64();
        fn both<T>(s: &str)
        where
            T: Int + for<'a> FromField<'a> + std::str::FromStr + PartialEq + std::fmt::Debug,
        {
            let (neg, d) = match s.strip_prefix('-') {
                Some(d) => (true, d),
                None => (false, s.strip_prefix('+').unwrap_or(s)),
            };
            let fast = parse_digits::<T>(d.as_bytes(), neg).ok();
            let slow = parse_digits_checked::<T>(d.as_bytes(), neg).ok();
            assert_eq!(fast, slow, "{s}");
            // The standard parser agrees on every decimal string (ours
            // also reads "-0" for unsigned types as an error, like std).
            assert_eq!(T::from_field(s.as_bytes()).ok(), s.parse::<T>().ok(), "{s}");
        }
        fn same_i64(s: &str) {
            assert_eq!(parse_i64(s.as_bytes()), i64::from_field(s.as_bytes()).ok(), "{s}");
        }
        let edges = [
            "",
            "-",
            "+",
            "0",
            "-0",
            "+0",
            "00000000000000000000000001",
            "255",
            "256",
            "-128",
            "-129",
            "127",
            "128",
            "65535",
            "65536",
            "4294967295",
            "4294967296",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "9999999999999999999",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999",
            "1a",
            "a1",
            " 1",
            "1 ",
            "--1",
            "12/4",
            "12:4",
            "1234567/",
            "/1234567",
            "123456789:",
            "1é",
            "12345678",
            "123456789",
            "1234567890123456",
            "12345678901234567",
        ];
        let mut cases: Vec<String> = edges.iter().map(|s| s.to_string()).collect();
        for _ in 0..20_000 {
            let digits = (next() % 22) as usize + 1;
            let mut s: String = ["", "-", "+"][(next() % 3) as usize].to_string();
            for _ in 0..digits {
                s.push((b'0' + (next() % 10) as u8) as char);
            }
            if next() % 10 == 0 {
                s.insert((next() as usize) % (s.len() + 1), 'x');
            }
            cases.push(s);
        }
        for s in &cases {
            both::<u8>(s);
            both::<i8>(s);
            both::<u16>(s);
            both::<i16>(s);
            both::<u32>(s);
            both::<i32>(s);
            both::<u64>(s);
            both::<i64>(s);
            same_i64(s);
            both::<u128>(s);
            both::<i128>(s);
            both::<usize>(s);
            both::<isize>(s);
        }
    }
}

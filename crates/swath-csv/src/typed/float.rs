//! Floats: Clinger's fast path for plain decimals, the standard parser
//! for everything else.

use super::ascii::ascii_str;
use super::{FieldError, FromField};

impl FromField<'_> for f64 {
    #[inline]
    fn from_field(f: &[u8]) -> std::result::Result<Self, FieldError> {
        if let Some(v) = fast_decimal(f) {
            return Ok(v);
        }
        Ok(ascii_str(f)?.parse::<f64>()?)
    }
}

impl FromField<'_> for f32 {
    #[inline]
    fn from_field(f: &[u8]) -> std::result::Result<Self, FieldError> {
        Ok(ascii_str(f)?.parse::<f32>()?)
    }
}

/// An `f64` as [`FromField`] reads it, `None` where that fails, without
/// the error (and its allocation): for decoders that say why themselves.
#[inline]
pub fn parse_f64(f: &[u8]) -> Option<f64> {
    match fast_decimal(f) {
        Some(v) => Some(v),
        None => parse_f64_slow(f),
    }
}

#[inline(never)]
fn parse_f64_slow(f: &[u8]) -> Option<f64> {
    ascii_str(f).ok()?.parse().ok()
}

/// Exact powers of ten: every one up to 1e22 is representable in an f64.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Clinger's fast path for plain decimals (`-12.345`, no exponent, at most
/// 15 digits): the digits as an integer are exact in an f64 (< 2^53), so is
/// the power of ten, and IEEE division rounds correctly, so the result is
/// the correctly rounded value, the same as `str::parse`. Anything else
/// returns `None` and takes the standard parser (a test compares the two).
#[inline]
pub(crate) fn fast_decimal(f: &[u8]) -> Option<f64> {
    let (neg, rest) = match f.first()? {
        b'-' => (true, &f[1..]),
        b'+' => (false, &f[1..]),
        _ => (false, f),
    };
    // At most 15 digits and a point: then no digit count per byte is needed.
    if rest.len() > 16 {
        return None;
    }
    // Every byte is a digit but at most one point, so the counts come
    // from the length and where the point is: the loops keep one index
    // (three before, callgrind: 12 instructions a digit, now 9).
    let n = rest.len();
    let mut mant = 0u64;
    let mut i = 0;
    while i < n {
        let d = rest[i].wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        mant = mant * 10 + u64::from(d);
        i += 1;
    }
    let (digits, scale) = if i < n {
        if rest[i] != b'.' {
            return None;
        }
        let point = i;
        i += 1;
        while i < n {
            let d = rest[i].wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            mant = mant * 10 + u64::from(d);
            i += 1;
        }
        (n - 1, n - 1 - point)
    } else {
        (n, 0)
    };
    // "." alone or an empty string are not numbers, and 16 digits may not
    // be exact: let the slow path decide.
    if digits == 0 || digits > 15 {
        return None;
    }
    // Through i64 (exact: below 10^15): x86_64 converts it in one
    // instruction, a u64 in six.
    let v = mant as i64 as f64 / POW10[scale];
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_decimals_equal_the_standard_parser() {
        let mut rng = swath_testkit::Rng::new(0x9e3779b97f4a7c15);
        let mut next = || rng.next_u64();
        let mut checked = 0;
        for _ in 0..200_000 {
            let int = next() % 10u64.pow((next() % 12) as u32 + 1);
            let frac_digits = (next() % 8) as usize;
            let frac = next() % 10u64.pow(frac_digits as u32);
            let sign = ["", "-", "+"][(next() % 3) as usize];
            let s = if frac_digits == 0 {
                format!("{sign}{int}")
            } else {
                format!("{sign}{int}.{frac:0frac_digits$}")
            };
            let want: f64 = s.parse().unwrap();
            if let Some(got) = fast_decimal(s.as_bytes()) {
                assert_eq!(got.to_bits(), want.to_bits(), "{s}");
                checked += 1;
            }
            assert_eq!(f64::from_field(s.as_bytes()).unwrap().to_bits(), want.to_bits(), "{s}");
            assert_eq!(parse_f64(s.as_bytes()).map(f64::to_bits), Some(want.to_bits()), "{s}");
        }
        assert!(checked > 150_000);
        for odd in [
            "",
            ".",
            "-",
            "1.2.3",
            "1e5",
            "0x1",
            " 1",
            "nan",
            "1234567890123456",
            "-0",
            "1.",
            ".5",
            "-.5",
            "1..2",
            "+-1",
            "12345678901234.5",
            "1234567890123.45",
            "123456789012345.6",
            "1.a",
            "a.1",
            "1.2.",
            "-",
            "+",
            "+.",
            "0.000000000000001",
            "1.2/",
            "1.2:",
            "/.5",
            "1234567.",
            ".1234567",
            "12345678",
            "1234.5678",
            "1é",
            "..",
            "-.",
        ] {
            let fast = fast_decimal(odd.as_bytes());
            let std = odd.parse::<f64>().ok();
            assert!(fast.is_none() || fast.map(f64::to_bits) == std.map(f64::to_bits), "{odd}");
            assert_eq!(
                f64::from_field(odd.as_bytes()).ok().map(f64::to_bits),
                std.map(f64::to_bits),
                "{odd}"
            );
            assert_eq!(parse_f64(odd.as_bytes()).map(f64::to_bits), std.map(f64::to_bits), "{odd}");
        }
    }
}

//! Typed scanning: `record.scan::<(u64, &str, f64)>()` without allocating.
//!
//! [`FromField`] converts one field's bytes; it is implemented for every
//! integer and float type, `bool`, `&str`, `&[u8]`, `String`, `Option<T>`
//! (an empty field is `None`), and any user type that implements it.
//! [`FromRecord`] is implemented for tuples of 1 to 12 `FromField` types.

use crate::error::{Error, ErrorKind, Result};
use crate::record::Record;

/// Why a field did not convert (allocated only on failure).
pub type FieldError = Box<dyn std::error::Error + Send + Sync>;

/// A type that can be read from one field, borrowing from the record for
/// `'r` when it wants to (`&str`, `&[u8]`).
///
/// ```
/// use swath_csv::{FromField, Reader};
///
/// struct Celsius(f64);
/// impl FromField<'_> for Celsius {
///     fn from_field(f: &[u8]) -> Result<Self, swath_csv::typed::FieldError> {
///         let s = std::str::from_utf8(f)?.strip_suffix("C").ok_or("no C suffix")?;
///         Ok(Celsius(s.parse()?))
///     }
/// }
/// let mut rdr = Reader::new(&b"city,t\nOslo,-3.5C\n"[..]);
/// let rec = rdr.next_record()?.unwrap();
/// let (_, t): (&str, Celsius) = rec.scan()?;
/// assert_eq!(t.0, -3.5);
/// # Ok::<(), swath_csv::Error>(())
/// ```
pub trait FromField<'r>: Sized {
    /// Convert the field's (unescaped) bytes.
    ///
    /// # Errors
    ///
    /// Any reason the bytes are not a valid `Self`.
    fn from_field(field: &'r [u8]) -> std::result::Result<Self, FieldError>;
}

/// A type that can be read from a whole record: tuples of [`FromField`].
pub trait FromRecord<'r>: Sized {
    /// Convert the record's first fields (fields past the tuple are ignored).
    ///
    /// # Errors
    ///
    /// [`ErrorKind::MissingField`] when the record is too short,
    /// [`ErrorKind::Parse`] naming the field index, header and text.
    fn from_record(rec: &Record<'r>) -> Result<Self>;
}

impl<'r> Record<'r> {
    /// Convert the record's fields into a tuple of types, in order.
    ///
    /// # Errors
    ///
    /// As [`FromRecord::from_record`].
    #[inline]
    pub fn scan<T: FromRecord<'r>>(&self) -> Result<T> {
        T::from_record(self)
    }

    /// Convert field `i`.
    ///
    /// # Errors
    ///
    /// As [`FromRecord::from_record`], for one field.
    #[inline(always)]
    pub fn parse<T: FromField<'r>>(&self, i: usize) -> Result<T> {
        let f = self.get(i).ok_or_else(|| self.missing(i))?;
        T::from_field(f).map_err(|e| self.parse_error::<T>(i, f, e))
    }

    #[cold]
    fn parse_error<T>(&self, i: usize, f: &[u8], e: FieldError) -> Error {
        let cut = &f[..f.len().min(64)];
        Error::new(ErrorKind::Parse {
            field: i,
            header: self.header(i).map(|h| String::from_utf8_lossy(h).into_owned()),
            text: String::from_utf8_lossy(cut).into_owned(),
            ty: std::any::type_name::<T>(),
            reason: e.to_string(),
        })
        .at(self.field_position(i))
        .in_record(self.position())
    }
}

impl<'r> FromField<'r> for &'r [u8] {
    #[inline]
    fn from_field(f: &'r [u8]) -> std::result::Result<Self, FieldError> {
        Ok(f)
    }
}

impl<'r> FromField<'r> for &'r str {
    #[inline]
    fn from_field(f: &'r [u8]) -> std::result::Result<Self, FieldError> {
        Ok(ascii_str(f)?)
    }
}

impl FromField<'_> for String {
    fn from_field(f: &[u8]) -> std::result::Result<Self, FieldError> {
        Ok(std::str::from_utf8(f)?.to_owned())
    }
}

impl FromField<'_> for bool {
    #[inline]
    fn from_field(f: &[u8]) -> std::result::Result<Self, FieldError> {
        // Without a branch on which one it is: true and false come in no
        // order a branch predictor can learn (the slow twin, a `match`, is
        // in the tests).
        let (Some(h), Some(&last)) = (f.get(..4), f.last()) else {
            return Err("expected true or false".into());
        };
        let head = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
        let yes = (f.len() == 4) & (head == u32::from_le_bytes(*b"true"));
        let no = (f.len() == 5) & (head == u32::from_le_bytes(*b"fals")) & (last == b'e');
        if yes | no {
            Ok(yes)
        } else {
            Err("expected true or false".into())
        }
    }
}

impl<'r, T: FromField<'r>> FromField<'r> for Option<T> {
    #[inline]
    fn from_field(f: &'r [u8]) -> std::result::Result<Self, FieldError> {
        if f.is_empty() {
            Ok(None)
        } else {
            T::from_field(f).map(Some)
        }
    }
}

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

/// Every byte set to `b`.
const fn splat(b: u8) -> u64 {
    u64::from_le_bytes([b; 8])
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

/// `&str` of a field, skipping full validation for ASCII: most fields are
/// ASCII, and an ASCII check is much cheaper than `from_utf8` on short
/// fields (which was 17% of a typed scan).
#[inline]
pub(crate) fn ascii_str(f: &[u8]) -> std::result::Result<&str, std::str::Utf8Error> {
    if is_ascii(f) {
        // SAFETY: ASCII bytes are valid UTF-8.
        return Ok(unsafe { std::str::from_utf8_unchecked(f) });
    }
    std::str::from_utf8(f)
}

/// `<[u8]>::is_ascii` (its slow twin in the tests) for short fields: a few
/// overlapping word loads instead of a byte loop below 8 bytes and a
/// head/body/tail split above.
#[inline]
pub(crate) fn is_ascii(f: &[u8]) -> bool {
    const HI: u64 = 0x8080_8080_8080_8080;
    let n = f.len();
    let word = |i: usize| u64::from_le_bytes(f[i..i + 8].try_into().unwrap_or([0; 8]));
    let half = |i: usize| u32::from_le_bytes(f[i..i + 4].try_into().unwrap_or([0; 4]));
    if n >= 8 {
        // Whole words, then the last 8 bytes (overlapping the last word).
        let mut acc = word(n - 8);
        let mut i = 0;
        while i + 8 <= n {
            acc |= word(i);
            i += 8;
        }
        acc & HI == 0
    } else if n >= 4 {
        (half(0) | half(n - 4)) & 0x8080_8080 == 0
    } else {
        f.iter().all(|&b| b < 0x80)
    }
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

macro_rules! tuple {
    ($($t:ident $i:tt)+) => {
        impl<'r, $($t: FromField<'r>),+> FromRecord<'r> for ($($t,)+) {
            #[inline(always)]
            fn from_record(rec: &Record<'r>) -> Result<Self> {
                // One length check for the tuple, so that the compiler drops
                // the one per field; a short record reports its first
                // error, a parse or a missing field, in field order.
                if rec.len() < [$($i),+].len() {
                    return cold(|| Ok(($(rec.parse::<$t>($i)?,)+)));
                }
                Ok(($(rec.parse::<$t>($i)?,)+))
            }
        }
    };
}

/// Run `f` out of line: the rare path of a tuple scan.
#[cold]
#[inline(never)]
fn cold<T>(f: impl FnOnce() -> T) -> T {
    f()
}

tuple!(A 0);
tuple!(A 0 B 1);
tuple!(A 0 B 1 C 2);
tuple!(A 0 B 1 C 2 D 3);
tuple!(A 0 B 1 C 2 D 3 E 4);
tuple!(A 0 B 1 C 2 D 3 E 4 F 5);
tuple!(A 0 B 1 C 2 D 3 E 4 F 5 G 6);
tuple!(A 0 B 1 C 2 D 3 E 4 F 5 G 6 H 7);
tuple!(A 0 B 1 C 2 D 3 E 4 F 5 G 6 H 7 I 8);
tuple!(A 0 B 1 C 2 D 3 E 4 F 5 G 6 H 7 I 8 J 9);
tuple!(A 0 B 1 C 2 D 3 E 4 F 5 G 6 H 7 I 8 J 9 K 10);
tuple!(A 0 B 1 C 2 D 3 E 4 F 5 G 6 H 7 I 8 J 9 K 10 L 11);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bools_equal_a_match() {
        let words: [&[u8]; 16] = [
            b"true", b"false", b"", b"t", b"tru", b"truee", b"True", b"TRUE", b"fals", b"falsee",
            b"falsf", b"False", b"true ", b" true", b"1", b"trua",
        ];
        for w in words {
            let want = match w {
                b"true" => Some(true),
                b"false" => Some(false),
                _ => None,
            };
            assert_eq!(bool::from_field(w).ok(), want, "{:?}", String::from_utf8_lossy(w));
        }
    }

    #[test]
    fn ascii_check_equals_the_standard_one() {
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut buf = [b'a'; 80];
        for n in 0..=80 {
            for hi in 0..=n {
                // No high byte, then one at each place, over shifting
                // starts so loads see every alignment.
                let f = &mut buf[..n];
                f.fill(b'a' + (n % 26) as u8);
                if hi < n {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    f[hi] = 0x80 | (seed as u8);
                }
                assert_eq!(is_ascii(f), f.is_ascii(), "n {n} hi {hi}");
                for lead in 0..n.min(8) {
                    assert_eq!(is_ascii(&f[lead..]), f[lead..].is_ascii(), "{n} {hi} {lead}");
                }
            }
        }
    }

    #[test]
    fn integers_equal_the_checked_loop_and_std() {
        let mut seed = 0x2545f4914f6cdd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
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
            both::<u128>(s);
            both::<i128>(s);
            both::<usize>(s);
            both::<isize>(s);
        }
    }

    #[test]
    fn fast_decimals_equal_the_standard_parser() {
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
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
        }
    }
}

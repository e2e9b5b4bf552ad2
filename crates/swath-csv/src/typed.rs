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
        match f {
            b"true" => Ok(true),
            b"false" => Ok(false),
            _ => Err("expected true or false".into()),
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
    fn step(self, d: u8, neg: bool) -> Option<Self>;
}

macro_rules! int {
    ($($t:ty)*) => {$(
        impl Int for $t {
            const ZERO: Self = 0;
            #[inline]
            #[allow(unused_comparisons)]
            fn step(self, d: u8, neg: bool) -> Option<Self> {
                let v = self.checked_mul(10)?;
                // Accumulate negatives downwards so that MIN parses.
                if neg { v.checked_sub(d as $t) } else { v.checked_add(d as $t) }
            }
        }
    )*};
}

int!(u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize);
unsigned!(u8 u16 u32 u64 u128 usize);
signed!(i8 i16 i32 i64 i128 isize);

#[inline]
fn parse_digits<T: Int>(d: &[u8], neg: bool) -> std::result::Result<T, FieldError> {
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
/// ASCII, and `is_ascii` is much cheaper than `from_utf8` on short fields
/// (which was 17% of a typed scan).
#[inline]
pub(crate) fn ascii_str(f: &[u8]) -> std::result::Result<&str, std::str::Utf8Error> {
    if f.is_ascii() {
        // SAFETY: ASCII bytes are valid UTF-8.
        return Ok(unsafe { std::str::from_utf8_unchecked(f) });
    }
    std::str::from_utf8(f)
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
    let mut mant = 0u64;
    let mut digits = 0;
    let mut frac = None;
    for (i, &b) in rest.iter().enumerate() {
        let d = b.wrapping_sub(b'0');
        if d <= 9 {
            mant = mant * 10 + u64::from(d);
            digits += 1;
            if digits > 15 {
                return None;
            }
        } else if b == b'.' && frac.is_none() {
            frac = Some(i + 1);
        } else {
            return None;
        }
    }
    let scale = frac.map_or(0, |start| rest.len() - start);
    // "." alone or an empty string are not numbers; let the slow path say so.
    if digits == 0 {
        return None;
    }
    let v = mant as f64 / POW10[scale];
    Some(if neg { -v } else { v })
}

macro_rules! tuple {
    ($($t:ident $i:tt)+) => {
        impl<'r, $($t: FromField<'r>),+> FromRecord<'r> for ($($t,)+) {
            #[inline(always)]
            fn from_record(rec: &Record<'r>) -> Result<Self> {
                Ok(($(rec.parse::<$t>($i)?,)+))
            }
        }
    };
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
        for odd in ["", ".", "-", "1.2.3", "1e5", "0x1", " 1", "nan", "1234567890123456", "-0"] {
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

//! Typed scanning: `record.scan::<(u64, &str, f64)>()` without allocating.
//!
//! [`FromField`] converts one field's bytes; it is implemented for every
//! integer and float type, `bool`, `&str`, `&[u8]`, `String`, `Option<T>`
//! (an empty field is `None`), and any user type that implements it.
//! [`FromRecord`] is implemented for tuples of 1 to 12 `FromField` types.

mod ascii;
mod float;
mod int;
mod tuples;

pub(crate) use ascii::ascii_str;
pub use ascii::is_utf8;
pub use float::parse_f64;
pub use int::parse_i64;

use crate::error::{Error, ErrorKind, Result};
use crate::Record;

/// Whether `f` is a number written with a significant leading zero
/// (`00501`, `-007`, `01.5`): a code (ZIP code, account number, product
/// code) rather than a quantity. Read as a number it would lose the text
/// the user had, so inference keeps such a column as text. `0` alone,
/// `-0`, `0.5` and `0e3` have no such zero.
///
/// ```
/// use swath_csv::typed::has_leading_zero;
/// assert!(has_leading_zero(b"00501") && has_leading_zero(b"-01") && has_leading_zero(b"+007.5"));
/// assert!(!has_leading_zero(b"0") && !has_leading_zero(b"-0") && !has_leading_zero(b"0.5"));
/// assert!(!has_leading_zero(b"501") && !has_leading_zero(b"0x1") && !has_leading_zero(b"0e3"));
/// ```
#[inline]
pub fn has_leading_zero(f: &[u8]) -> bool {
    let digits = match f.first() {
        Some(b'-' | b'+') => &f[1..],
        _ => f,
    };
    matches!(digits, [b'0', b'0'..=b'9', ..])
}

/// Whether `f` is an integer's text (an optional sign, then digits): with
/// [`has_leading_zero`], what says why a column got its type.
#[inline]
pub fn is_integer_text(f: &[u8]) -> bool {
    let digits = match f.first() {
        Some(b'-' | b'+') => &f[1..],
        _ => f,
    };
    !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
}

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
        parse_bool(f).ok_or_else(|| "expected true or false".into())
    }
}

/// `true` or `false`, as [`FromField`] reads a `bool`; `None` for
/// anything else.
#[inline]
pub fn parse_bool(f: &[u8]) -> Option<bool> {
    // Without a branch on which one it is: true and false come in no
    // order a branch predictor can learn (the slow twin, a `match`, is
    // in the tests).
    let (Some(h), Some(&last)) = (f.get(..4), f.last()) else {
        return None;
    };
    let head = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
    let yes = (f.len() == 4) & (head == u32::from_le_bytes(*b"true"));
    let no = (f.len() == 5) & (head == u32::from_le_bytes(*b"fals")) & (last == b'e');
    (yes | no).then_some(yes)
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
}

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
    #[inline]
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
        Ok(std::str::from_utf8(f)?)
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

macro_rules! float {
    ($($t:ty)*) => {$(
        impl FromField<'_> for $t {
            #[inline]
            fn from_field(f: &[u8]) -> std::result::Result<Self, FieldError> {
                Ok(std::str::from_utf8(f)?.parse::<$t>()?)
            }
        }
    )*};
}

float!(f32 f64);

macro_rules! tuple {
    ($($t:ident $i:tt)+) => {
        impl<'r, $($t: FromField<'r>),+> FromRecord<'r> for ($($t,)+) {
            #[inline]
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

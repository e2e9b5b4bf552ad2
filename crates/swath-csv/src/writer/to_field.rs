//! `ToField`: how one value becomes the bytes of one field, appended to the
//! writer's buffer with no allocation (integers through `itoa`, floats
//! through `zmij` in ryu's exact form, text copied as is).

use std::borrow::Cow;
use std::fmt;
use std::io;

/// What the bytes of a field are, for quoting decisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FieldKind {
    /// A number written by a number type (integers, floats): never quoted
    /// by [`QuoteStyle::NonNumeric`](super::QuoteStyle::NonNumeric) and, with
    /// ordinary delimiters, never scanned for bytes that need quoting. Not
    /// touched by the formula guard (`-5` is a number, not a formula).
    Number,
    /// Text that is not a number (bool, char): quoted by `NonNumeric`.
    Text,
    /// Bytes of unknown meaning (`&str`, `&[u8]`, user types by default):
    /// `NonNumeric` quotes them unless they parse as a number.
    Bytes,
}

/// The end of the writer's buffer where one field's bytes go. Append with
/// [`push`](FieldBuf::push) / [`extend`](FieldBuf::extend), or `write!`
/// (it implements `fmt::Write` and `io::Write`). Write the raw value:
/// the writer quotes and escapes it afterwards.
pub struct FieldBuf<'b> {
    buf: &'b mut Vec<u8>,
}

impl<'b> FieldBuf<'b> {
    pub(crate) fn new(buf: &'b mut Vec<u8>) -> FieldBuf<'b> {
        FieldBuf { buf }
    }

    /// Append one byte.
    #[inline]
    pub fn push(&mut self, byte: u8) {
        self.buf.push(byte);
    }

    /// Append bytes.
    #[inline(always)]
    pub fn extend(&mut self, bytes: &[u8]) {
        extend_small(self.buf, bytes);
    }
}

/// `buf.extend_from_slice(bytes)`, without the call to `memcpy` for the
/// short fields that make most of CSV: that call was 9% of `write_row`'s
/// instructions (cachegrind, bench `csv_write`).
#[inline(always)]
pub(crate) fn extend_small(buf: &mut Vec<u8>, bytes: &[u8]) {
    let n = bytes.len();
    if n > 32 {
        buf.extend_from_slice(bytes);
        return;
    }
    buf.reserve(32);
    let len = buf.len();
    let src = bytes.as_ptr();
    // SAFETY: `reserve(32)` left at least 32 writable bytes past `len` and
    // `n <= 32`; every read stays inside `bytes` (the two loads of a pair
    // may overlap, which is fine for reads), every write inside
    // `len..len + n`; the bytes up to `len + n` are then initialised.
    unsafe {
        let dst = buf.as_mut_ptr().add(len);
        if n >= 16 {
            let a = std::ptr::read_unaligned(src as *const u128);
            let b = std::ptr::read_unaligned(src.add(n - 16) as *const u128);
            std::ptr::write_unaligned(dst as *mut u128, a);
            std::ptr::write_unaligned(dst.add(n - 16) as *mut u128, b);
        } else if n >= 8 {
            let a = std::ptr::read_unaligned(src as *const u64);
            let b = std::ptr::read_unaligned(src.add(n - 8) as *const u64);
            std::ptr::write_unaligned(dst as *mut u64, a);
            std::ptr::write_unaligned(dst.add(n - 8) as *mut u64, b);
        } else if n >= 4 {
            let a = std::ptr::read_unaligned(src as *const u32);
            let b = std::ptr::read_unaligned(src.add(n - 4) as *const u32);
            std::ptr::write_unaligned(dst as *mut u32, a);
            std::ptr::write_unaligned(dst.add(n - 4) as *mut u32, b);
        } else if n > 0 {
            *dst = *src;
            *dst.add(n / 2) = *src.add(n / 2);
            *dst.add(n - 1) = *src.add(n - 1);
        }
        buf.set_len(len + n);
    }
}

impl fmt::Write for FieldBuf<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.extend(s.as_bytes());
        Ok(())
    }
}

impl io::Write for FieldBuf<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.extend(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A value that can be written as one CSV field.
///
/// Implemented for all integers, `f32`/`f64`, `bool`, `char`, `str`,
/// `[u8]`, `String`, `Vec<u8>`, `Cow`, `Option<T>` (`None` is an empty
/// field) and references to them. For your own types, append the raw bytes:
///
/// ```
/// use swath_csv::{FieldBuf, ToField, Writer};
///
/// struct Celsius(i16);
///
/// impl ToField for Celsius {
///     fn append_to(&self, out: &mut FieldBuf<'_>) {
///         use std::fmt::Write;
///         let _ = write!(out, "{} C", self.0);
///     }
/// }
///
/// let mut wtr = Writer::from_writer(Vec::new());
/// wtr.write_row(("Oslo", Celsius(-3))).unwrap();
/// assert_eq!(wtr.finish().unwrap(), b"Oslo,-3 C\n");
/// ```
pub trait ToField {
    /// Append this value's bytes, unquoted, to `out`.
    fn append_to(&self, out: &mut FieldBuf<'_>);

    /// What the bytes are; [`FieldKind::Bytes`] unless overridden.
    fn kind(&self) -> FieldKind {
        FieldKind::Bytes
    }

    /// The bytes [`append_to`](ToField::append_to) appends, when they
    /// already exist as a slice (text types do this), so the writer checks
    /// the slice it copies from rather than re-reading its buffer (faster).
    /// The default, `None`, is always correct; a `Some` that differs from
    /// what `append_to` appends makes the quoting of this field wrong.
    fn as_bytes(&self) -> Option<&[u8]> {
        None
    }
}

impl<T: ToField + ?Sized> ToField for &T {
    #[inline]
    fn append_to(&self, out: &mut FieldBuf<'_>) {
        (**self).append_to(out)
    }

    #[inline]
    fn kind(&self) -> FieldKind {
        (**self).kind()
    }

    #[inline]
    fn as_bytes(&self) -> Option<&[u8]> {
        (**self).as_bytes()
    }
}

impl<T: ToField + ?Sized> ToField for &mut T {
    #[inline]
    fn append_to(&self, out: &mut FieldBuf<'_>) {
        (**self).append_to(out)
    }

    #[inline]
    fn kind(&self) -> FieldKind {
        (**self).kind()
    }

    #[inline]
    fn as_bytes(&self) -> Option<&[u8]> {
        (**self).as_bytes()
    }
}

macro_rules! int_fields {
    ($($t:ty)*) => {$(
        impl ToField for $t {
            #[inline]
            fn append_to(&self, out: &mut FieldBuf<'_>) {
                // itoa formats into a stack array; one copy, no heap.
                let mut tmp = itoa::Buffer::new();
                out.extend(tmp.format(*self).as_bytes());
            }

            #[inline]
            fn kind(&self) -> FieldKind {
                FieldKind::Number
            }
        }
    )*};
}

int_fields!(u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize);

macro_rules! float_fields {
    ($($t:ty => $large:literal),*) => {$(
        /// The shortest form that parses back to the same value, exactly as
        /// `ryu` (and so the `csv` crate) writes it: `1.0`, `0.1`, `1e20`.
        /// Not finite values are written `NaN`, `inf` and `-inf`, which
        /// Rust's `str::parse` (and so our reader's typed scan) reads back;
        /// the sign and payload of a NaN are not kept.
        impl ToField for $t {
            #[inline]
            fn append_to(&self, out: &mut FieldBuf<'_>) {
                append_float(out, (*self).abs() >= $large, zmij::Buffer::new().format(*self));
            }

            #[inline]
            fn kind(&self) -> FieldKind {
                FieldKind::Number
            }
        }
    )*};
}

/// Floats go through `zmij` (the same shortest round-trip digits as
/// `ryu`, about twice as fast in our measurement: 5M floats in 0.16 s
/// against 0.31 s). It writes a positive exponent as `1e+20` where `ryu`
/// writes `1e20`; that `+` is dropped so the bytes are ryu's (tested
/// against ryu on random bits). Only large values can have one.
#[inline(always)]
fn append_float(out: &mut FieldBuf<'_>, large: bool, text: &str) {
    let b = text.as_bytes();
    if large {
        if let Some(plus) = b.iter().position(|&c| c == b'+') {
            out.extend(&b[..plus]);
            out.extend(&b[plus + 1..]);
            return;
        }
    }
    out.extend(b);
}

// Below these, both write plain decimals (ryu uses an exponent from 1e16
// for f64 and earlier for f32; the thresholds are under that, on purpose).
float_fields!(f32 => 1e6, f64 => 1e15);

impl ToField for bool {
    /// `true` or `false`.
    #[inline]
    fn append_to(&self, out: &mut FieldBuf<'_>) {
        out.extend(self.as_bytes().unwrap_or_default());
    }

    #[inline]
    fn kind(&self) -> FieldKind {
        FieldKind::Text
    }

    #[inline]
    fn as_bytes(&self) -> Option<&[u8]> {
        Some(if *self { b"true" } else { b"false" })
    }
}

impl ToField for char {
    #[inline]
    fn append_to(&self, out: &mut FieldBuf<'_>) {
        let mut tmp = [0u8; 4];
        out.extend(str::as_bytes(self.encode_utf8(&mut tmp)));
    }

    #[inline]
    fn kind(&self) -> FieldKind {
        FieldKind::Text
    }
}

impl ToField for str {
    #[inline]
    fn append_to(&self, out: &mut FieldBuf<'_>) {
        out.extend(str::as_bytes(self));
    }

    #[inline]
    fn as_bytes(&self) -> Option<&[u8]> {
        Some(str::as_bytes(self))
    }
}

impl ToField for [u8] {
    #[inline]
    fn append_to(&self, out: &mut FieldBuf<'_>) {
        out.extend(self);
    }

    #[inline]
    fn as_bytes(&self) -> Option<&[u8]> {
        Some(self)
    }
}

impl<const N: usize> ToField for [u8; N] {
    #[inline]
    fn append_to(&self, out: &mut FieldBuf<'_>) {
        out.extend(self);
    }

    #[inline]
    fn as_bytes(&self) -> Option<&[u8]> {
        Some(self)
    }
}

impl ToField for String {
    #[inline]
    fn append_to(&self, out: &mut FieldBuf<'_>) {
        out.extend(String::as_bytes(self));
    }

    #[inline]
    fn as_bytes(&self) -> Option<&[u8]> {
        Some(String::as_bytes(self))
    }
}

impl ToField for Vec<u8> {
    #[inline]
    fn append_to(&self, out: &mut FieldBuf<'_>) {
        out.extend(self);
    }

    #[inline]
    fn as_bytes(&self) -> Option<&[u8]> {
        Some(self)
    }
}

impl ToField for Cow<'_, str> {
    #[inline]
    fn append_to(&self, out: &mut FieldBuf<'_>) {
        out.extend(str::as_bytes(self));
    }

    #[inline]
    fn as_bytes(&self) -> Option<&[u8]> {
        Some(str::as_bytes(self))
    }
}

impl ToField for Cow<'_, [u8]> {
    #[inline]
    fn append_to(&self, out: &mut FieldBuf<'_>) {
        out.extend(self);
    }

    #[inline]
    fn as_bytes(&self) -> Option<&[u8]> {
        Some(self)
    }
}

impl<T: ToField> ToField for Option<T> {
    /// `None` is an empty field.
    #[inline]
    fn append_to(&self, out: &mut FieldBuf<'_>) {
        if let Some(v) = self {
            v.append_to(out);
        }
    }

    #[inline]
    fn kind(&self) -> FieldKind {
        match self {
            Some(v) => v.kind(),
            None => FieldKind::Bytes,
        }
    }

    #[inline]
    fn as_bytes(&self) -> Option<&[u8]> {
        Some(match self {
            Some(v) => return v.as_bytes(),
            None => b"",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{FieldBuf, ToField};

    fn ours<T: ToField>(v: T) -> String {
        let mut buf = Vec::new();
        v.append_to(&mut FieldBuf::new(&mut buf));
        String::from_utf8(buf).unwrap()
    }

    /// The fast float path (zmij) against its slow twin (ryu): the same
    /// bytes for special values and for random bit patterns of both widths.
    #[test]
    fn floats_are_written_as_ryu_writes_them() {
        let mut r = ryu::Buffer::new();
        let specials = [
            0.0,
            -0.0,
            1.0,
            0.1,
            1e15,
            1e16,
            1e20,
            1e-7,
            123.451,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            5e-324,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            9007199254740993.0,
            9.99e15,
            1.5e16,
            123456789012345.6,
            1e6,
            1e7,
            1.5e7,
            16777216.0,
            999999.9,
        ];
        for x in specials {
            assert_eq!(ours(x), r.format(x), "{x:e}");
            assert_eq!(ours(x as f32), r.format(x as f32), "{x:e} as f32");
        }
        let mut rng = swath_testkit::Rng::new(0x9e37_79b9_7f4a_7c15);
        for i in 0..60_000u64 {
            let s = rng.next_u64();
            let x = if i % 2 == 0 { f64::from_bits(s) } else { (s % 10_000_000_000) as f64 / 1e3 };
            assert_eq!(ours(x), r.format(x), "{:#x}", x.to_bits());
            let y = f32::from_bits(s as u32);
            assert_eq!(ours(y), r.format(y), "{:#x}", y.to_bits());
        }
    }

    /// The short copy against `extend_from_slice`, every length 0..40 onto
    /// every starting length.
    #[test]
    fn extend_small_matches_extend_from_slice() {
        let src: Vec<u8> = (0..60u8).map(|b| b.wrapping_mul(37)).collect();
        for pre in 0..20 {
            for n in 0..60 {
                let mut a: Vec<u8> = (0..pre as u8).collect();
                let mut b = a.clone();
                super::extend_small(&mut a, &src[..n]);
                b.extend_from_slice(&src[..n]);
                assert_eq!(a, b, "pre {pre} n {n}");
            }
        }
    }
}

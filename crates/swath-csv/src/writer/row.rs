//! `ToRow`: a whole record of typed fields, for `Writer::write_row`.
//! Implemented for tuples of up to 12 [`ToField`]s, arrays, slices and
//! vectors.

use super::encode::Encoder;
use super::to_field::ToField;

/// The fields of the record being written; see [`ToRow`].
pub struct RowBuf<'e> {
    enc: &'e mut Encoder,
}

impl<'e> RowBuf<'e> {
    pub(crate) fn new(enc: &'e mut Encoder) -> RowBuf<'e> {
        RowBuf { enc }
    }

    /// Append one field.
    #[inline]
    pub fn field<T: ToField + ?Sized>(&mut self, value: &T) {
        self.enc.field(value);
    }
}

/// A value written as one record by [`Writer::write_row`](super::Writer::write_row).
///
/// For your own record types, say how many fields and append them:
///
/// ```
/// use swath_csv::{RowBuf, ToRow, Writer};
///
/// struct Point { x: i32, y: i32 }
///
/// impl ToRow for Point {
///     fn field_count(&self) -> usize { 2 }
///     fn append_fields(&self, row: &mut RowBuf<'_>) {
///         row.field(&self.x);
///         row.field(&self.y);
///     }
/// }
///
/// let mut wtr = Writer::from_writer(Vec::new());
/// wtr.write_row(Point { x: 1, y: -2 }).unwrap();
/// assert_eq!(wtr.finish().unwrap(), b"1,-2\n");
/// ```
pub trait ToRow {
    /// How many fields [`append_fields`](ToRow::append_fields) appends. The
    /// writer checks the expected field count against it before writing.
    fn field_count(&self) -> usize;

    /// Append exactly [`field_count`](ToRow::field_count) fields.
    fn append_fields(&self, row: &mut RowBuf<'_>);
}

impl<R: ToRow + ?Sized> ToRow for &R {
    #[inline]
    fn field_count(&self) -> usize {
        (**self).field_count()
    }

    #[inline]
    fn append_fields(&self, row: &mut RowBuf<'_>) {
        (**self).append_fields(row)
    }
}

macro_rules! tuple_rows {
    ($( $n:literal => ($($t:ident $i:tt),+) ;)*) => {$(
        impl<$($t: ToField),+> ToRow for ($($t,)+) {
            #[inline]
            fn field_count(&self) -> usize {
                $n
            }

            #[inline]
            fn append_fields(&self, row: &mut RowBuf<'_>) {
                $(row.field(&self.$i);)+
            }
        }
    )*};
}

tuple_rows! {
    1 => (A 0);
    2 => (A 0, B 1);
    3 => (A 0, B 1, C 2);
    4 => (A 0, B 1, C 2, D 3);
    5 => (A 0, B 1, C 2, D 3, E 4);
    6 => (A 0, B 1, C 2, D 3, E 4, F 5);
    7 => (A 0, B 1, C 2, D 3, E 4, F 5, G 6);
    8 => (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
    9 => (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
    10 => (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
    11 => (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
    12 => (A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);
}

impl<T: ToField> ToRow for [T] {
    #[inline]
    fn field_count(&self) -> usize {
        self.len()
    }

    #[inline]
    fn append_fields(&self, row: &mut RowBuf<'_>) {
        for v in self {
            row.field(v);
        }
    }
}

impl<T: ToField, const N: usize> ToRow for [T; N] {
    #[inline]
    fn field_count(&self) -> usize {
        N
    }

    #[inline]
    fn append_fields(&self, row: &mut RowBuf<'_>) {
        for v in self {
            row.field(v);
        }
    }
}

impl<T: ToField> ToRow for Vec<T> {
    #[inline]
    fn field_count(&self) -> usize {
        self.len()
    }

    #[inline]
    fn append_fields(&self, row: &mut RowBuf<'_>) {
        self.as_slice().append_fields(row)
    }
}

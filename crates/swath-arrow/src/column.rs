//! One leaf column of a batch being built, in Arrow's own layout: a `Vec`
//! of values (offsets and bytes for text), and validity bits made only at
//! the first null (arrow's `NullBufferBuilder`). The vectors become the
//! batch's buffers without a copy, and [`Leaf::finish`] leaves room for
//! the next batch, so batches that are alike neither regrow nor touch new
//! pages. Every format's decoder writes into it: CSV's (`decode.rs`, which
//! parses each field's bytes) and JSON's (`swath-json`'s `decode.rs`, whose
//! structs and lists hold leaves).
//!
//! A format pushes a value into [`Leaf::values`] and then marks it valid
//! in [`Leaf::nulls`] (or calls [`Leaf::push_null`]): the two must keep
//! the same length, which `finish` checks. Text is kept valid UTF-8 by
//! [`Text`]'s own ways in, so `finish` builds the array without checking
//! it again.

use std::sync::Arc;

use arrow_array::types::{Date32Type, Float64Type, Int64Type, TimestampMicrosecondType};
use arrow_array::{ArrayRef, ArrowPrimitiveType, BooleanArray, PrimitiveArray};
use arrow_array::{StringArray, StringViewArray};
use arrow_buffer::{BooleanBufferBuilder, Buffer, NullBuffer, NullBufferBuilder};
use arrow_buffer::{OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, TimeUnit};

/// Bytes of text a value to reserve before a column has had a batch.
const TEXT_BYTES_GUESS: usize = 16;

/// The error of a text value that would take a batch's text past what
/// `i32` offsets address.
pub const TEXT_FULL: &str = "over 2 GiB of text in one batch (make the batch smaller)";

/// One column's values and validity.
#[derive(Debug)]
pub struct Leaf {
    /// The values; a null's slot holds 0, `false` or an empty text.
    pub values: Values,
    /// One bit a value, kept only once a null is appended.
    pub nulls: NullBufferBuilder,
}

/// A column's values in Arrow's layout.
#[derive(Debug)]
pub enum Values {
    /// `Int64`.
    Int64(Vec<i64>),
    /// `Float64`.
    Float64(Vec<f64>),
    /// `Boolean`.
    Boolean(BooleanBufferBuilder),
    /// `Date32`: days since 1970-01-01.
    Date32(Vec<i32>),
    /// `Timestamp(Microsecond, tz)`.
    Timestamp {
        /// Microseconds since the epoch (in UTC when `tz` is set).
        micros: Vec<i64>,
        /// The column's time zone.
        tz: Option<Arc<str>>,
    },
    /// `Utf8` or `Utf8View`.
    Text(Text),
}

/// Text values: offsets into one byte buffer, valid UTF-8 by the way each
/// value comes in, finished as `Utf8` or (`view`) `Utf8View`.
#[derive(Debug)]
pub struct Text {
    /// Starts with 0; one more entry than there are values.
    offsets: Vec<i32>,
    data: Vec<u8>,
    view: bool,
}

impl Leaf {
    /// An empty column of type `ty`, with room for `rows` values; `None`
    /// for a type that is not a leaf this module builds (Boolean, Int64,
    /// Float64, Date32, Timestamp in microseconds, Utf8, Utf8View).
    #[must_use]
    pub fn new(ty: &DataType, rows: usize) -> Option<Leaf> {
        let values = Values::new(ty, rows, rows.saturating_mul(TEXT_BYTES_GUESS))?;
        Some(Leaf { values, nulls: NullBufferBuilder::new(rows) })
    }

    /// Values so far.
    #[must_use]
    pub fn len(&self) -> usize {
        self.nulls.len()
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.nulls.is_empty()
    }

    /// Append a null.
    #[inline]
    pub fn push_null(&mut self) {
        self.values.push_null();
        self.nulls.append_null();
    }

    /// Keep the first `rows` values.
    pub fn truncate(&mut self, rows: usize) {
        self.values.truncate(rows);
        self.nulls.truncate(rows);
    }

    /// The values as an array; the column starts again, with room for as
    /// many values and as much text as this batch had, and for `rows`
    /// values at least.
    ///
    /// # Panics
    ///
    /// When values and validity differ in length (a format's bug).
    pub fn finish(&mut self, rows: usize) -> ArrayRef {
        assert_eq!(self.values.len(), self.nulls.len(), "a column's values and validity");
        let nulls = self.nulls.finish();
        let room = self.values.len().max(rows);
        let text = self.values.text_len().max(rows.saturating_mul(TEXT_BYTES_GUESS));
        let fresh = self.values.empty_like(room, text);
        match std::mem::replace(&mut self.values, fresh) {
            Values::Int64(v) => primitive::<Int64Type>(v, nulls),
            Values::Float64(v) => primitive::<Float64Type>(v, nulls),
            Values::Date32(v) => primitive::<Date32Type>(v, nulls),
            Values::Timestamp { micros, tz } => Arc::new(
                PrimitiveArray::<TimestampMicrosecondType>::new(ScalarBuffer::from(micros), nulls)
                    .with_timezone_opt(tz),
            ),
            Values::Boolean(mut v) => Arc::new(BooleanArray::new(v.finish(), nulls)),
            Values::Text(t) => t.into_array(nulls),
        }
    }
}

impl Values {
    /// Room for `rows` values (and `text` bytes of text).
    fn new(ty: &DataType, rows: usize, text: usize) -> Option<Values> {
        Some(match ty {
            DataType::Int64 => Values::Int64(Vec::with_capacity(rows)),
            DataType::Float64 => Values::Float64(Vec::with_capacity(rows)),
            DataType::Boolean => Values::Boolean(BooleanBufferBuilder::new(rows)),
            DataType::Date32 => Values::Date32(Vec::with_capacity(rows)),
            DataType::Timestamp(TimeUnit::Microsecond, tz) => {
                Values::Timestamp { micros: Vec::with_capacity(rows), tz: tz.clone() }
            }
            DataType::Utf8 => Values::Text(Text::new(rows, text, false)),
            DataType::Utf8View => Values::Text(Text::new(rows, text, true)),
            _ => return None,
        })
    }

    /// An empty column of the same type, with room for `rows` values and
    /// `text` bytes.
    fn empty_like(&self, rows: usize, text: usize) -> Values {
        match self {
            Values::Int64(_) => Values::Int64(Vec::with_capacity(rows)),
            Values::Float64(_) => Values::Float64(Vec::with_capacity(rows)),
            Values::Boolean(_) => Values::Boolean(BooleanBufferBuilder::new(rows)),
            Values::Date32(_) => Values::Date32(Vec::with_capacity(rows)),
            Values::Timestamp { tz, .. } => {
                Values::Timestamp { micros: Vec::with_capacity(rows), tz: tz.clone() }
            }
            Values::Text(t) => Values::Text(Text::new(rows, text, t.view)),
        }
    }

    /// A null's slot.
    #[inline]
    fn push_null(&mut self) {
        match self {
            Values::Int64(v) | Values::Timestamp { micros: v, .. } => v.push(0),
            Values::Float64(v) => v.push(0.0),
            Values::Boolean(v) => v.append(false),
            Values::Date32(v) => v.push(0),
            Values::Text(t) => t.push_empty(),
        }
    }

    fn len(&self) -> usize {
        match self {
            Values::Int64(v) | Values::Timestamp { micros: v, .. } => v.len(),
            Values::Float64(v) => v.len(),
            Values::Boolean(v) => v.len(),
            Values::Date32(v) => v.len(),
            Values::Text(t) => t.len(),
        }
    }

    fn truncate(&mut self, rows: usize) {
        match self {
            Values::Int64(v) | Values::Timestamp { micros: v, .. } => v.truncate(rows),
            Values::Float64(v) => v.truncate(rows),
            Values::Boolean(v) => v.truncate(rows.min(v.len())),
            Values::Date32(v) => v.truncate(rows),
            Values::Text(t) => t.truncate(rows),
        }
    }

    /// Bytes of text so far (0 for other types).
    fn text_len(&self) -> usize {
        match self {
            Values::Text(t) => t.data.len(),
            _ => 0,
        }
    }
}

impl Text {
    fn new(rows: usize, text: usize, view: bool) -> Text {
        let mut offsets = Vec::with_capacity(rows + 1);
        offsets.push(0);
        Text { offsets, data: Vec::with_capacity(text), view }
    }

    /// Values so far.
    #[must_use]
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.offsets.len() == 1
    }

    /// Append `f` when it is UTF-8 (checked ASCII first, as `&str`'s
    /// parser does); else `Err` and nothing appended.
    ///
    /// # Errors
    ///
    /// "invalid UTF-8", or [`TEXT_FULL`].
    #[inline]
    pub fn push_checked(&mut self, f: &[u8]) -> Result<(), &'static str> {
        if !swath_csv::typed::is_utf8(f) {
            return Err("invalid UTF-8");
        }
        if self.data.len() + f.len() > i32::MAX as usize {
            return Err(TEXT_FULL);
        }
        self.data.extend_from_slice(f);
        self.offsets.push(self.data.len() as i32);
        Ok(())
    }

    /// The bytes of the values so far, to append the next value's bytes
    /// to, in one piece or several; [`end_value`](Self::end_value) then
    /// makes them a value.
    ///
    /// # Safety
    ///
    /// Whatever is appended before the next `end_value` must be valid
    /// UTF-8 as a whole (the array is built without checking it), and
    /// nothing before may change.
    #[inline]
    pub unsafe fn data_mut(&mut self) -> &mut Vec<u8> {
        &mut self.data
    }

    /// The bytes appended since the last value are the next value.
    ///
    /// # Errors
    ///
    /// [`TEXT_FULL`]: the caller truncates the column (or fails the
    /// batch).
    #[inline]
    pub fn end_value(&mut self) -> Result<(), &'static str> {
        let end = i32::try_from(self.data.len()).map_err(|_| TEXT_FULL)?;
        self.offsets.push(end);
        Ok(())
    }

    /// An empty value (a null's slot).
    #[inline]
    fn push_empty(&mut self) {
        self.offsets.push(self.data.len() as i32);
    }

    /// The offsets and bytes, for CSV's block loop, which checks UTF-8 a
    /// block at a time (the same promise as [`data_mut`](Self::data_mut)).
    #[inline]
    pub(crate) fn parts_mut(&mut self) -> (&mut Vec<i32>, &mut Vec<u8>) {
        (&mut self.offsets, &mut self.data)
    }

    fn truncate(&mut self, rows: usize) {
        self.offsets.truncate(rows + 1);
        self.data.truncate(self.offsets[self.offsets.len() - 1] as usize);
    }

    fn into_array(self, nulls: Option<NullBuffer>) -> ArrayRef {
        let data = Buffer::from_vec(self.data);
        if self.view {
            return string_view(&self.offsets, data, nulls);
        }
        let offsets = OffsetBuffer::new(ScalarBuffer::from(self.offsets));
        if cfg!(debug_assertions) {
            // Tests check what release builds trust.
            Arc::new(StringArray::new(offsets, data, nulls))
        } else {
            // SAFETY: every value came in through `push_checked` (checked),
            // or through `data_mut` or `parts_mut`, whose callers promise
            // UTF-8; nulls are empty. Each offset is the data's length
            // after a value, so they start at 0, never decrease and end
            // in bounds.
            Arc::new(unsafe { StringArray::new_unchecked(offsets, data, nulls) })
        }
    }
}

/// A batch's text as a `Utf8View` array: each value's view made from its
/// offsets, the text itself kept as the one data buffer, not copied (a
/// value of up to 12 bytes is also inlined in its view, as the format
/// requires; its bytes in the buffer are then unused).
fn string_view(offsets: &[i32], data: Buffer, nulls: Option<NullBuffer>) -> ArrayRef {
    let bytes = data.as_slice();
    let views: Vec<u128> =
        offsets.windows(2).map(|w| view(bytes, w[0] as usize, w[1] as usize, 0)).collect();
    let views = ScalarBuffer::from(views);
    if cfg!(debug_assertions) {
        // Tests check what release builds trust.
        Arc::new(StringViewArray::new(views, vec![data], nulls))
    } else {
        // SAFETY: each view is made by `view` from the offsets of one
        // value in `data`, which is valid UTF-8 (`Text`'s ways in), and
        // the offsets are in bounds and increasing: every view is in
        // bounds of buffer 0, and its bytes are valid UTF-8.
        Arc::new(unsafe { StringViewArray::new_unchecked(views, vec![data], nulls) })
    }
}

/// The view of `bytes[start..end]` in buffer `buffer`: little-endian, the
/// length in bits 0..32, then the value itself zero-padded when it is 12
/// bytes or less, else its first 4 bytes, the buffer's index and `start`
/// (Arrow's layout, arrow-array's `make_view`, inline here).
#[inline]
fn view(bytes: &[u8], start: usize, end: usize, buffer: u32) -> u128 {
    let len = end - start;
    if len <= 12 {
        let mut v = [0u8; 16];
        v[..4].copy_from_slice(&(len as u32).to_le_bytes());
        v[4..4 + len].copy_from_slice(&bytes[start..end]);
        u128::from_le_bytes(v)
    } else {
        let prefix = u32::from_le_bytes([
            bytes[start],
            bytes[start + 1],
            bytes[start + 2],
            bytes[start + 3],
        ]);
        len as u128 | (prefix as u128) << 32 | (buffer as u128) << 64 | (start as u128) << 96
    }
}

fn primitive<T: ArrowPrimitiveType>(v: Vec<T::Native>, nulls: Option<NullBuffer>) -> ArrayRef {
    Arc::new(PrimitiveArray::<T>::new(ScalarBuffer::from(v), nulls))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{Array, Int64Array, StringArray, StringViewArray};

    #[test]
    fn values_nulls_and_truncation_make_the_array_arrow_builds() {
        let mut c = Leaf::new(&DataType::Int64, 4).unwrap();
        for x in [1, 2, 3] {
            let Values::Int64(v) = &mut c.values else { unreachable!() };
            v.push(x);
            c.nulls.append_non_null();
        }
        c.push_null();
        let Values::Int64(v) = &mut c.values else { unreachable!() };
        v.push(5);
        c.nulls.append_non_null();
        c.truncate(4);
        assert_eq!(c.len(), 4);
        let a = c.finish(4);
        assert_eq!(
            a.as_ref(),
            &Int64Array::from(vec![Some(1), Some(2), Some(3), None]) as &dyn Array
        );
        // Started again, empty, no nulls kept.
        assert!(c.is_empty());
        let Values::Int64(v) = &mut c.values else { unreachable!() };
        v.push(9);
        c.nulls.append_non_null();
        assert_eq!(c.finish(4).null_count(), 0);
    }

    #[test]
    fn text_in_every_way_and_as_views() {
        for ty in [DataType::Utf8, DataType::Utf8View] {
            let mut c = Leaf::new(&ty, 0).unwrap();
            let Values::Text(t) = &mut c.values else { unreachable!() };
            t.push_checked(b"short").unwrap();
            assert_eq!(t.push_checked(b"\xFF"), Err("invalid UTF-8"));
            // SAFETY: the pieces are UTF-8.
            unsafe {
                t.data_mut().extend_from_slice("in two pieces, ".as_bytes());
                t.data_mut().extend_from_slice("é".as_bytes());
            }
            t.end_value().unwrap();
            c.nulls.append_n_non_nulls(2);
            c.push_null();
            let a = c.finish(0);
            let want = [Some("short"), Some("in two pieces, é"), None];
            if ty == DataType::Utf8 {
                assert_eq!(
                    a.as_any().downcast_ref::<StringArray>().unwrap(),
                    &StringArray::from(want.to_vec())
                );
            } else {
                let got = a.as_any().downcast_ref::<StringViewArray>().unwrap();
                assert_eq!(got.iter().collect::<Vec<_>>(), want);
            }
            assert_eq!(a.data_type(), &ty);
        }
    }

    #[test]
    fn truncation_takes_text_back() {
        let mut c = Leaf::new(&DataType::Utf8, 0).unwrap();
        let Values::Text(t) = &mut c.values else { unreachable!() };
        for s in ["a", "bb", "ccc"] {
            t.push_checked(s.as_bytes()).unwrap();
        }
        c.nulls.append_n_non_nulls(3);
        c.truncate(1);
        let Values::Text(t) = &mut c.values else { unreachable!() };
        t.push_checked(b"d").unwrap();
        c.nulls.append_non_null();
        let a = c.finish(0);
        assert_eq!(
            a.as_any().downcast_ref::<StringArray>().unwrap(),
            &StringArray::from(vec!["a", "d"])
        );
    }

    #[test]
    fn only_leaf_types_are_leaves() {
        let tz = DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()));
        let mut c = Leaf::new(&tz, 1).unwrap();
        c.push_null();
        assert_eq!(c.finish(1).data_type(), &tz);
        assert!(Leaf::new(&DataType::Int32, 1).is_none());
        assert!(Leaf::new(&DataType::Timestamp(TimeUnit::Millisecond, None), 1).is_none());
        assert!(Leaf::new(&DataType::new_list(DataType::Int64, true), 1).is_none());
    }

    #[test]
    fn a_view_equals_arrows_make_view() {
        let bytes: Vec<u8> = (0..64u8).map(|b| b'A' + b % 50).collect();
        for start in [0, 1, 7, 13] {
            for len in 0..=40 {
                for buffer in [0, 3] {
                    let want = arrow_array::builder::make_view(
                        &bytes[start..start + len],
                        buffer,
                        start as u32,
                    );
                    let got = view(&bytes, start, start + len, buffer);
                    assert_eq!(got, want, "{len} bytes at {start}, buffer {buffer}");
                }
            }
        }
    }
}

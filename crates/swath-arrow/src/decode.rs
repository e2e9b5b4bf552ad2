//! Records into Arrow columns: each field's borrowed bytes are parsed
//! straight into its column's values, kept in Arrow's own layout (a `Vec`
//! of values, offsets and bytes for text, a validity bitmap made only at
//! the first null), which become the batch's buffers without a copy. No
//! `String` per field, no allocation per record: the vectors are sized for
//! a batch up front. Its slow twin, on Arrow's builders, is
//! `reference.rs`; the tests in `decode_tests.rs` compare the two.
//!
//! Two ways in. [`Decoder::decode_block`] takes a block of records
//! ([`RecordBlock`]: the clean records of one buffer fill) column by
//! column: one loop per column and type, the values written into room
//! reserved for the whole block, the nulls' bits set after the loop. Per
//! record and field it does only the parse. [`Decoder::decode`] takes one
//! record, field by field: for the records a block leaves out, and for a
//! block in which a value does not fit (the block is then decoded again,
//! record by record, so errors and `OnError::Null` counts are exactly the
//! record-at-a-time ones).

use std::sync::Arc;

use arrow_array::types::{Date32Type, Float64Type, Int64Type, TimestampMicrosecondType};
use arrow_array::{ArrayRef, BooleanArray, PrimitiveArray, RecordBatch, RecordBatchOptions};
use arrow_array::{ArrowPrimitiveType, StringArray, StringViewArray};
use arrow_buffer::{BooleanBufferBuilder, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::SchemaRef;
use swath_csv::typed::{is_utf8, parse_bool, parse_f64, parse_i64};
use swath_csv::{BlockColumn, ErrorKind, FromField, Record, RecordBlock};

use crate::text::{parse_date, parse_timestamp};
use crate::types::{ColumnType, UTC};

/// What to do with a field that does not fit its column's type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum OnError {
    /// Stop with an error naming the record, line, byte, column, text and
    /// type (the default).
    #[default]
    Fail,
    /// Make the value null and count it ([`crate::ArrowReader::nulled`]).
    /// Every column is then nullable.
    Null,
}

/// Records a block at most. A block's spans (16 bytes a field) are
/// walked once a column: 2048 records of 6 fields are 192 KiB of them,
/// within the L2 cache beside the block's bytes; a whole 256 KiB buffer
/// fill (about 5,000 records of the bench's file) is 480 KiB, and was
/// about 5% slower (medians of 4 rounds of 5 runs, csv_arrow).
const BLOCK_RECORDS: usize = 2048;

/// Bytes of text a value to reserve before a column has had a batch.
const TEXT_BYTES_GUESS: usize = 16;

/// One output column: where its field is in the record, and its values.
struct Column {
    /// Index of the field in the CSV record.
    src: usize,
    name: Arc<str>,
    ty: ColumnType,
    nullable: bool,
    values: Values,
    /// One bit a value, made at the first null: until then every value is
    /// valid and no bit is kept.
    valid: Option<BooleanBufferBuilder>,
}

/// A column's values in Arrow's layout; a null's slot holds 0 (or an
/// empty text).
enum Values {
    Int64(Vec<i64>),
    Float64(Vec<f64>),
    Boolean(BooleanBufferBuilder),
    Date32(Vec<i32>),
    /// With or without a time zone, as the column's type says.
    Timestamp(Vec<i64>),
    /// `offsets` starts with 0 and has one more entry than there are values.
    /// Also a `Utf8View` column's, whose views are made at the end.
    Utf8 {
        offsets: Vec<i32>,
        data: Vec<u8>,
    },
}

impl Values {
    /// Room for `rows` values (and `text` bytes of text).
    fn new(ty: ColumnType, rows: usize, text: usize) -> Values {
        match ty {
            ColumnType::Int64 => Values::Int64(Vec::with_capacity(rows)),
            ColumnType::Float64 => Values::Float64(Vec::with_capacity(rows)),
            ColumnType::Boolean => Values::Boolean(BooleanBufferBuilder::new(rows)),
            ColumnType::Date32 => Values::Date32(Vec::with_capacity(rows)),
            ColumnType::Timestamp | ColumnType::TimestampTz => {
                Values::Timestamp(Vec::with_capacity(rows))
            }
            // The same text either way; `finish` makes the views.
            ColumnType::Utf8 | ColumnType::Utf8View => {
                let mut offsets = Vec::with_capacity(rows + 1);
                offsets.push(0);
                Values::Utf8 { offsets, data: Vec::with_capacity(text) }
            }
        }
    }

    /// Append `f` parsed; `Err(reason)` when it does not parse (nothing
    /// appended). The reason is a static string: no allocation on failure.
    #[inline(always)]
    fn push(&mut self, f: &[u8], tz: bool) -> Result<(), &'static str> {
        match self {
            Values::Int64(v) => match i64::from_field(f) {
                Ok(x) => v.push(x),
                Err(_) => return Err("not a 64-bit integer"),
            },
            Values::Float64(v) => match f64::from_field(f) {
                Ok(x) => v.push(x),
                Err(_) => return Err("not a number"),
            },
            Values::Boolean(v) => match bool::from_field(f) {
                Ok(x) => v.append(x),
                Err(_) => return Err("expected true or false"),
            },
            Values::Date32(v) => match parse_date(f) {
                Some(x) => v.push(x),
                None => return Err("not a date (YYYY-MM-DD)"),
            },
            Values::Timestamp(v) => match parse_timestamp(f) {
                Some((x, has_tz)) if has_tz == tz => v.push(x),
                Some(_) if tz => return Err("a timestamp without Z or an offset"),
                Some(_) => return Err("a timestamp with an offset in a column without time zone"),
                None => return Err("not a timestamp (YYYY-MM-DD[T ]HH:MM:SS[.ffffff][Z|+HH:MM])"),
            },
            Values::Utf8 { offsets, data } => {
                // `&str`'s parser: an ASCII check for short fields, full
                // validation only when a byte is not ASCII.
                if <&str>::from_field(f).is_err() {
                    return Err("invalid UTF-8");
                }
                let end = data.len() + f.len();
                if end > i32::MAX as usize {
                    return Err("over 2 GiB of text in one batch (make the batch smaller)");
                }
                data.extend_from_slice(f);
                offsets.push(end as i32);
            }
        }
        Ok(())
    }

    #[inline]
    fn push_null(&mut self) {
        match self {
            Values::Int64(v) | Values::Timestamp(v) => v.push(0),
            Values::Float64(v) => v.push(0.0),
            Values::Boolean(v) => v.append(false),
            Values::Date32(v) => v.push(0),
            Values::Utf8 { offsets, data } => offsets.push(data.len() as i32),
        }
    }

    /// Keep the first `rows` values.
    fn truncate(&mut self, rows: usize) {
        match self {
            Values::Int64(v) | Values::Timestamp(v) => v.truncate(rows),
            Values::Float64(v) => v.truncate(rows),
            Values::Boolean(v) => v.truncate(rows.min(v.len())),
            Values::Date32(v) => v.truncate(rows),
            Values::Utf8 { offsets, data } => {
                offsets.truncate(rows + 1);
                data.truncate(offsets[offsets.len() - 1] as usize);
            }
        }
    }

    /// Bytes of text so far (0 for other types).
    fn text_len(&self) -> usize {
        match self {
            Values::Utf8 { data, .. } => data.len(),
            _ => 0,
        }
    }
}

impl Column {
    #[inline(always)]
    fn push(&mut self, f: &[u8], tz: bool) -> Result<(), &'static str> {
        self.values.push(f, tz)?;
        if let Some(v) = &mut self.valid {
            v.append(true);
        }
        Ok(())
    }

    /// Append a null; `rows` is the column's length before it.
    #[inline]
    fn push_null(&mut self, rows: usize, capacity: usize) {
        self.values.push_null();
        self.valid
            .get_or_insert_with(|| {
                let mut v = BooleanBufferBuilder::new(capacity.max(rows + 1));
                v.append_n(rows, true);
                v
            })
            .append(false);
    }

    /// Keep the first `rows` values.
    fn truncate(&mut self, rows: usize) {
        self.values.truncate(rows);
        if let Some(v) = &mut self.valid {
            v.truncate(rows.min(v.len()));
        }
    }

    /// The values as an array; the column starts again, with room for
    /// `rows` values (and as much text as this batch had).
    fn finish(&mut self, rows: usize) -> ArrayRef {
        let text = self.values.text_len().max(rows * TEXT_BYTES_GUESS);
        let values = std::mem::replace(&mut self.values, Values::new(self.ty, rows, text));
        let nulls = self.valid.take().map(|mut v| NullBuffer::new(v.finish()));
        match values {
            Values::Int64(v) => primitive::<Int64Type>(v, nulls),
            Values::Float64(v) => primitive::<Float64Type>(v, nulls),
            Values::Date32(v) => primitive::<Date32Type>(v, nulls),
            Values::Timestamp(v) => {
                let a =
                    PrimitiveArray::<TimestampMicrosecondType>::new(ScalarBuffer::from(v), nulls);
                if self.ty == ColumnType::TimestampTz {
                    Arc::new(a.with_timezone(UTC))
                } else {
                    Arc::new(a)
                }
            }
            Values::Boolean(mut v) => Arc::new(BooleanArray::new(v.finish(), nulls)),
            Values::Utf8 { offsets, data } if self.ty == ColumnType::Utf8View => {
                string_view(&offsets, Buffer::from_vec(data), nulls)
            }
            Values::Utf8 { offsets, data } => {
                let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
                let data = Buffer::from_vec(data);
                if cfg!(debug_assertions) {
                    // Tests check what release builds trust.
                    Arc::new(StringArray::new(offsets, data, nulls))
                } else {
                    // SAFETY: every value appended passed a UTF-8 check
                    // (`push`), nulls and the offsets are at the ends of
                    // those values, so each value is valid UTF-8 and the
                    // offsets are in bounds and increasing.
                    Arc::new(unsafe { StringArray::new_unchecked(offsets, data, nulls) })
                }
            }
        }
    }
}

/// What a block's column loop needs besides the column: the null text,
/// the error policy, and room kept between blocks.
struct BlockCtx<'a> {
    null: &'a [u8],
    on_error: OnError,
    /// Rows of the batch before the block, and the batch's capacity.
    before: usize,
    capacity: usize,
    /// Rows (in the block) that are null, for the validity bits.
    nulls: &'a mut Vec<u32>,
    /// The block's booleans, packed, before they join the column.
    bits: &'a mut Vec<u8>,
    /// Fields made null under [`OnError::Null`].
    nulled: &'a mut u64,
    /// Whether the block's bytes are UTF-8, once a text column asked.
    utf8: Option<bool>,
}

/// How a block's field that did not parse counts: a null (the null text,
/// in a nullable column), a null made by [`OnError::Null`], or a misfit.
#[derive(Clone, Copy)]
struct Judge<'a> {
    null: &'a [u8],
    nullable: bool,
    /// [`OnError::Null`] on a nullable column.
    lenient: bool,
}

impl Judge<'_> {
    #[inline(always)]
    fn is_null(&self, f: &[u8]) -> bool {
        if self.null.is_empty() {
            f.is_empty()
        } else {
            f == self.null
        }
    }

    /// The cell of field `f`, `parsed` its value when it parsed.
    #[inline(always)]
    fn cell<T>(&self, f: &[u8], parsed: Option<T>, nulled: &mut u64) -> Cell<T> {
        match parsed {
            Some(x) => Cell::Value(x),
            None if self.is_null(f) => {
                if self.nullable {
                    Cell::Null
                } else {
                    Cell::Misfit
                }
            }
            None if self.lenient => {
                *nulled += 1;
                Cell::Null
            }
            None => Cell::Misfit,
        }
    }
}

/// One value of a block: a value, a null, or a field that does not fit.
enum Cell<T> {
    Value(T),
    Null,
    Misfit,
}

impl Column {
    /// Append field `src` of every record of `blk`; false at the first
    /// field that does not fit (a null where none is allowed, a value not
    /// of the type under [`OnError::Fail`]), the column then holding some
    /// of the block's values: the caller truncates it.
    fn append_block(&mut self, blk: &RecordBlock<'_>, cx: &mut BlockCtx<'_>) -> bool {
        cx.nulls.clear();
        let rows = blk.len();
        let judge = Judge {
            null: cx.null,
            nullable: self.nullable,
            lenient: cx.on_error == OnError::Null && self.nullable,
        };
        // The null text is looked for before the parse only where it
        // could parse; the empty default never does (but as text).
        let null_first = !cx.null.is_empty();
        let nulled = &mut *cx.nulled;
        let nulls = &mut *cx.nulls;
        let fields = blk.column(self.src);
        let tz = self.ty == ColumnType::TimestampTz;
        let ok = match &mut self.values {
            Values::Int64(v) => fill(v, fields, nulls, |f| {
                let x = if null_first && judge.is_null(f) { None } else { parse_i64(f) };
                judge.cell(f, x, nulled)
            }),
            Values::Float64(v) => fill(v, fields, nulls, |f| {
                let x = if null_first && judge.is_null(f) { None } else { parse_f64(f) };
                judge.cell(f, x, nulled)
            }),
            Values::Date32(v) => fill(v, fields, nulls, |f| {
                let x = if null_first && judge.is_null(f) { None } else { parse_date(f) };
                judge.cell(f, x, nulled)
            }),
            Values::Timestamp(v) => fill(v, fields, nulls, |f| {
                let x = if null_first && judge.is_null(f) {
                    None
                } else {
                    parse_timestamp(f).and_then(|(x, has_tz)| (has_tz == tz).then_some(x))
                };
                judge.cell(f, x, nulled)
            }),
            Values::Boolean(v) => {
                let bits = &mut *cx.bits;
                bits.clear();
                bits.resize(rows.div_ceil(8), 0);
                let mut done = rows;
                for (r, f) in fields.enumerate() {
                    let x = if null_first && judge.is_null(f) { None } else { parse_bool(f) };
                    match judge.cell(f, x, nulled) {
                        Cell::Value(x) => bits[r / 8] |= u8::from(x) << (r % 8),
                        Cell::Null => nulls.push(r as u32),
                        Cell::Misfit => {
                            done = r;
                            break;
                        }
                    }
                }
                v.append_packed_range(0..done, bits);
                done == rows
            }
            Values::Utf8 { offsets, data } => {
                let (bytes, scratch) = blk.bytes();
                // Every field's bytes are in the block's: room for all.
                let room = bytes.len() + scratch.len();
                if data.len() + room > i32::MAX as usize {
                    // Perhaps over 2 GiB: the record path says where.
                    return false;
                }
                // Valid UTF-8 as a whole, valid field by field: a field is
                // cut at ASCII bytes, never inside a character. Checked
                // once a block, for its first text column.
                let valid = *cx.utf8.get_or_insert_with(|| {
                    std::str::from_utf8(bytes).is_ok() && std::str::from_utf8(scratch).is_ok()
                });
                data.reserve(room);
                let base = offsets.len();
                offsets.reserve(rows);
                let out = &mut offsets.spare_capacity_mut()[..rows];
                let mut done = rows;
                for (r, (slot, f)) in out.iter_mut().zip(fields).enumerate() {
                    let text =
                        if judge.is_null(f) || !(valid || is_utf8(f)) { None } else { Some(f) };
                    match judge.cell(f, text, nulled) {
                        Cell::Value(t) => append_text(data, t),
                        Cell::Null => nulls.push(r as u32),
                        Cell::Misfit => {
                            done = r;
                            break;
                        }
                    }
                    // In bounds: `room` is checked above.
                    slot.write(data.len() as i32);
                }
                // SAFETY: the first `done` slots after `base` are written.
                unsafe { offsets.set_len(base + done) };
                done == rows
            }
        };
        if ok {
            self.mark_nulls(cx.before, rows, cx.nulls, cx.capacity);
        }
        ok
    }

    /// The validity bits of a block of `rows` just appended after `before`
    /// rows, `nulls` its null rows in order: kept only once a null has been
    /// seen, as [`Column::push_null`] does.
    fn mark_nulls(&mut self, before: usize, rows: usize, nulls: &[u32], capacity: usize) {
        if nulls.is_empty() {
            if let Some(v) = &mut self.valid {
                v.append_n(rows, true);
            }
            return;
        }
        let v = self.valid.get_or_insert_with(|| {
            let mut v = BooleanBufferBuilder::new(capacity.max(before + rows));
            v.append_n(before, true);
            v
        });
        let mut next = 0;
        for &n in nulls {
            let n = n as usize;
            v.append_n(n - next, true);
            v.append(false);
            next = n + 1;
        }
        v.append_n(rows - next, true);
    }
}

/// `data.extend_from_slice(t)` with the room already reserved: a short
/// field (most text is) is copied by two overlapping loads and stores of
/// 8 or 4 bytes inline, not by a call to `memcpy` (about 30 instructions
/// a field, callgrind).
#[inline(always)]
fn append_text(data: &mut Vec<u8>, t: &[u8]) {
    let (len, n) = (data.len(), t.len());
    if n > 16 || data.capacity() - len < 16 {
        data.extend_from_slice(t);
        return;
    }
    let word = |i: usize| u64::from_le_bytes(t[i..i + 8].try_into().expect("8 bytes"));
    let half = |i: usize| u32::from_le_bytes(t[i..i + 4].try_into().expect("4 bytes"));
    let dst = data.spare_capacity_mut().as_mut_ptr().cast::<u8>();
    // SAFETY: at least 16 bytes of spare capacity are after `len`
    // (checked above), every store below is within the first `n <= 16`
    // of them, and they are all written before the length takes them in.
    unsafe {
        if n >= 8 {
            dst.add(n - 8).cast::<u64>().write_unaligned(word(n - 8));
            dst.cast::<u64>().write_unaligned(word(0));
        } else if n >= 4 {
            dst.add(n - 4).cast::<u32>().write_unaligned(half(n - 4));
            dst.cast::<u32>().write_unaligned(half(0));
        } else if n > 0 {
            // 1 to 3 bytes: the first, middle and last (overlapping).
            dst.write(t[0]);
            dst.add(n / 2).write(t[n / 2]);
            dst.add(n - 1).write(t[n - 1]);
        }
        data.set_len(len + n);
    }
}

/// Append the values `cell` makes of `fields` to `v` (a null's slot holds
/// the default, its row goes to `nulls`); false at the first misfit, `v`
/// then holding the values before it. The room is reserved once, so the
/// loop writes without a capacity check.
#[inline(always)]
fn fill<'r, T: Copy + Default>(
    v: &mut Vec<T>,
    fields: BlockColumn<'r>,
    nulls: &mut Vec<u32>,
    mut cell: impl FnMut(&'r [u8]) -> Cell<T>,
) -> bool {
    let rows = fields.len();
    v.reserve(rows);
    let base = v.len();
    let out = &mut v.spare_capacity_mut()[..rows];
    for (r, (slot, f)) in out.iter_mut().zip(fields).enumerate() {
        match cell(f) {
            Cell::Value(x) => {
                slot.write(x);
            }
            Cell::Null => {
                slot.write(T::default());
                nulls.push(r as u32);
            }
            Cell::Misfit => {
                // SAFETY: the first `base + r` slots are written.
                unsafe { v.set_len(base + r) };
                return false;
            }
        }
    }
    // SAFETY: every one of the `rows` slots after `base` was written.
    unsafe { v.set_len(base + rows) };
    true
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
        // value in `data`, which passed a UTF-8 check (`push`, blocks),
        // and the offsets are in bounds and increasing: every view is in
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

/// The decoding settings shared by every decoder of one read.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// The output schema (projected).
    pub(crate) schema: SchemaRef,
    /// For each output column, its field index in the record and type.
    pub(crate) columns: Vec<(usize, ColumnType)>,
    pub(crate) null: Vec<u8>,
    pub(crate) on_error: OnError,
    pub(crate) batch_size: usize,
}

/// Builds batches from records.
pub(crate) struct Decoder {
    schema: SchemaRef,
    cols: Vec<Column>,
    null: Vec<u8>,
    on_error: OnError,
    rows: usize,
    capacity: usize,
    /// Fields made null under [`OnError::Null`].
    pub(crate) nulled: u64,
    /// Kept between blocks: a column's null rows, a block's booleans.
    nulls: Vec<u32>,
    bits: Vec<u8>,
}

impl Decoder {
    pub(crate) fn new(plan: &Plan) -> Decoder {
        let rows = plan.batch_size;
        let cols = plan
            .columns
            .iter()
            .zip(plan.schema.fields())
            .map(|(&(src, ty), f)| Column {
                src,
                name: Arc::from(f.name().as_str()),
                ty,
                nullable: f.is_nullable(),
                values: Values::new(ty, rows, rows.saturating_mul(TEXT_BYTES_GUESS)),
                valid: None,
            })
            .collect();
        Decoder {
            schema: plan.schema.clone(),
            cols,
            null: plan.null.clone(),
            on_error: plan.on_error,
            rows: 0,
            capacity: plan.batch_size,
            nulled: 0,
            nulls: Vec::new(),
            bits: Vec::new(),
        }
    }

    /// Records to ask of the next block: the room left in the batch, at
    /// most [`BLOCK_RECORDS`].
    #[inline]
    pub(crate) fn room(&self) -> usize {
        self.capacity.saturating_sub(self.rows).min(BLOCK_RECORDS)
    }

    /// Append every record of a block, column by column (the module's
    /// doc says how).
    ///
    /// # Errors
    ///
    /// As [`decode`](Self::decode) for the first record of the block that
    /// has a field that does not fit; the records before it are appended.
    pub(crate) fn decode_block(&mut self, blk: &RecordBlock<'_>) -> swath_csv::Result<()> {
        if self.cols.iter().any(|c| c.src >= blk.width()) {
            // A short record's missing fields: the record path's nulls.
            return self.decode_rows(blk);
        }
        let (before, nulled) = (self.rows, self.nulled);
        let mut cx = BlockCtx {
            null: &self.null,
            on_error: self.on_error,
            before,
            capacity: self.capacity,
            nulls: &mut self.nulls,
            bits: &mut self.bits,
            nulled: &mut self.nulled,
            utf8: None,
        };
        for i in 0..self.cols.len() {
            if !self.cols[i].append_block(blk, &mut cx) {
                for c in &mut self.cols[..=i] {
                    c.truncate(before);
                }
                self.nulled = nulled;
                return self.decode_rows(blk);
            }
        }
        self.rows += blk.len();
        Ok(())
    }

    /// A block record by record.
    #[cold]
    #[inline(never)]
    fn decode_rows(&mut self, blk: &RecordBlock<'_>) -> swath_csv::Result<()> {
        for r in 0..blk.len() {
            self.decode(&blk.record(r))?;
        }
        Ok(())
    }

    /// Rows decoded since the last batch.
    #[inline]
    pub(crate) fn rows(&self) -> usize {
        self.rows
    }

    /// Append one record's fields to the columns.
    ///
    /// # Errors
    ///
    /// A field that does not fit its column (under [`OnError::Fail`]), or
    /// a null in a column that is not nullable; the error names the
    /// record, line, byte, column, text and type. Nothing of the record is
    /// then appended.
    #[inline]
    pub(crate) fn decode(&mut self, rec: &Record<'_>) -> swath_csv::Result<()> {
        let null = self.null.as_slice();
        for i in 0..self.cols.len() {
            let c = &mut self.cols[i];
            let tz = c.ty == ColumnType::TimestampTz;
            let res = match rec.get(c.src) {
                Some(f) if f != null => c.push(f, tz),
                // A missing field (a short record, when flexible) is null.
                _ if c.nullable => {
                    c.push_null(self.rows, self.capacity);
                    Ok(())
                }
                _ => Err("empty (null) in a column that is not nullable"),
            };
            if let Err(why) = res {
                if self.on_error == OnError::Null && c.nullable {
                    c.push_null(self.rows, self.capacity);
                    self.nulled += 1;
                } else {
                    let err = field_error(rec, c, why);
                    self.undo(i);
                    return Err(err);
                }
            }
        }
        self.rows += 1;
        Ok(())
    }

    /// Take back the first `n` columns' values of a record that failed, so
    /// that every column has the same length.
    #[cold]
    fn undo(&mut self, n: usize) {
        for c in &mut self.cols[..n] {
            c.truncate(self.rows);
        }
    }

    /// The rows so far as a batch; the decoder starts a new one.
    pub(crate) fn finish(&mut self) -> swath_csv::Result<RecordBatch> {
        let rows = std::mem::take(&mut self.rows);
        // Sized for the next batch now, not by doubling as it fills.
        let capacity = self.capacity;
        let arrays: Vec<ArrayRef> = self.cols.iter_mut().map(|c| c.finish(capacity)).collect();
        let opts = RecordBatchOptions::new().with_row_count(Some(rows));
        RecordBatch::try_new_with_options(self.schema.clone(), arrays, &opts).map_err(|e| {
            swath_csv::Error::new(ErrorKind::Config(format!("building an Arrow batch: {e}")))
        })
    }
}

#[cold]
fn field_error(rec: &Record<'_>, c: &Column, why: &'static str) -> swath_csv::Error {
    let f = rec.get(c.src).unwrap_or(b"");
    let cut = &f[..f.len().min(64)];
    swath_csv::Error::new(ErrorKind::Parse {
        field: c.src,
        header: Some(c.name.to_string()),
        text: String::from_utf8_lossy(cut).into_owned(),
        ty: c.ty.name(),
        reason: why.to_string(),
    })
    .at(if c.src < rec.len() { rec.field_position(c.src) } else { rec.position() })
    .in_record(rec.position())
}

#[cfg(test)]
#[path = "reference.rs"]
mod reference;

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;

//! Records into Arrow columns: each field's borrowed bytes are parsed
//! straight into its column's values, kept in Arrow's own layout by the
//! one column module every format shares (`column.rs`: a `Vec` of values,
//! offsets and bytes for text, a validity bitmap made only at the first
//! null), which become the batch's buffers without a copy. No `String` per
//! field, no allocation per record: the vectors are sized for a batch up
//! front. Its slow twin, on Arrow's builders, is
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

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_buffer::NullBufferBuilder;
use arrow_schema::SchemaRef;
use swath_csv::typed::{is_utf8, parse_bool, parse_f64, parse_i64};
use swath_csv::{BadRecord, BlockColumn, ErrorKind, FromField, Record, RecordBlock};

use crate::column::{Leaf, Values};
use crate::date_format::DateFormat;
use crate::nulls::Nulls;
use crate::numbers::{Number, Numbers};
use crate::text::{parse_date, parse_timestamp};
use crate::types::ColumnType;

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
    /// Put the whole record aside, with the CSV reader's broken records
    /// ([`swath_csv::BadRecord`]; [`crate::ArrowReader::take_bad_records`],
    /// [`crate::ParallelArrowReader::for_each_batch_with_bad`]).
    PutAside,
}

/// Records a block at most. A block's spans (16 bytes a field) are
/// walked once a column: 2048 records of 6 fields are 192 KiB of them,
/// within the L2 cache beside the block's bytes; a whole 256 KiB buffer
/// fill (about 5,000 records of the bench's file) is 480 KiB, and was
/// about 5% slower (medians of 4 rounds of 5 runs, csv_arrow).
const BLOCK_RECORDS: usize = 2048;

/// One output column: where its field is in the record, and its values.
struct Column {
    /// Index of the field in the CSV record.
    src: usize,
    name: Arc<str>,
    ty: ColumnType,
    nullable: bool,
    leaf: Leaf,
    /// The form of a date or timestamp column's values, when not ISO 8601.
    format: Option<Arc<DateFormat>>,
}

impl Column {
    /// Append `f` parsed; `Err(reason)` when it does not parse (nothing
    /// appended). The reason is a static string: no allocation on failure.
    #[inline(always)]
    fn push(&mut self, f: &[u8], tz: bool) -> Result<(), &'static str> {
        if let Some(form) = &self.format {
            // Only date and timestamp columns have a form.
            match &mut self.leaf.values {
                Values::Date32(v) => v.push(form.date(f).ok_or("not a date in the column's form")?),
                Values::Timestamp { micros, .. } if !tz => {
                    micros.push(form.timestamp(f).ok_or("not a timestamp in the column's form")?)
                }
                _ => return Err("not a timestamp in the column's form"),
            }
            self.leaf.nulls.append_non_null();
            return Ok(());
        }
        match &mut self.leaf.values {
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
            Values::Timestamp { micros, .. } => match parse_timestamp(f) {
                Some((x, has_tz)) if has_tz == tz => micros.push(x),
                Some(_) if tz => return Err("a timestamp without Z or an offset"),
                Some(_) => return Err("a timestamp with an offset in a column without time zone"),
                None => return Err("not a timestamp (YYYY-MM-DD[T ]HH:MM:SS[.ffffff][Z|+HH:MM])"),
            },
            Values::Text(t) => t.push_checked(f)?,
        }
        self.leaf.nulls.append_non_null();
        Ok(())
    }
}

/// What a block's column loop needs besides the column: the null text,
/// the error policy, and room kept between blocks.
struct BlockCtx<'a> {
    null: &'a Nulls,
    numbers: &'a Numbers,
    scratch: &'a mut Vec<u8>,
    on_error: OnError,
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
    null: &'a Nulls,
    nullable: bool,
    /// [`OnError::Null`] on a nullable column.
    lenient: bool,
}

impl Judge<'_> {
    #[inline(always)]
    fn is_null(&self, f: &[u8]) -> bool {
        self.null.is_null(f)
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
        let null_first = !cx.null.only_empty();
        let nulled = &mut *cx.nulled;
        let nulls = &mut *cx.nulls;
        let fields = blk.column(self.src);
        let tz = self.ty == ColumnType::TimestampTz;
        let standard = cx.numbers.is_standard();
        let form = self.format.as_deref();
        let (numbers, scratch) = (cx.numbers, &mut *cx.scratch);
        let ok = match &mut self.leaf.values {
            // Numbers with a decimal comma or thousands separators: each
            // by its standard text.
            Values::Int64(v) if !standard => fill(v, fields, nulls, |f| {
                let x = if judge.is_null(f) {
                    None
                } else {
                    read_number(numbers, f, scratch, parse_i64)
                };
                judge.cell(f, x, nulled)
            }),
            Values::Float64(v) if !standard => fill(v, fields, nulls, |f| {
                let x = if judge.is_null(f) {
                    None
                } else {
                    read_number(numbers, f, scratch, parse_f64)
                };
                judge.cell(f, x, nulled)
            }),
            Values::Int64(v) => fill(v, fields, nulls, |f| {
                let x = if null_first && judge.is_null(f) { None } else { parse_i64(f) };
                judge.cell(f, x, nulled)
            }),
            Values::Float64(v) => fill(v, fields, nulls, |f| {
                let x = if null_first && judge.is_null(f) { None } else { parse_f64(f) };
                judge.cell(f, x, nulled)
            }),
            // Dates and timestamps in the form inference found or the user
            // gave.
            Values::Date32(v) if form.is_some() => fill(v, fields, nulls, |f| {
                let x = if judge.is_null(f) { None } else { form.and_then(|p| p.date(f)) };
                judge.cell(f, x, nulled)
            }),
            Values::Timestamp { micros: v, .. } if form.is_some() => fill(v, fields, nulls, |f| {
                let x =
                    if judge.is_null(f) || tz { None } else { form.and_then(|p| p.timestamp(f)) };
                judge.cell(f, x, nulled)
            }),
            Values::Date32(v) => fill(v, fields, nulls, |f| {
                let x = if null_first && judge.is_null(f) { None } else { parse_date(f) };
                judge.cell(f, x, nulled)
            }),
            Values::Timestamp { micros: v, .. } => fill(v, fields, nulls, |f| {
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
            Values::Text(text) => {
                // The block's UTF-8 check below is `parts_mut`'s promise.
                let (offsets, data) = text.parts_mut();
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
            mark_nulls(&mut self.leaf.nulls, rows, cx.nulls);
        }
        ok
    }
}

/// The validity of a block of `rows` values just appended, `nulls` its
/// null rows in order (bits are kept only once there is a null).
fn mark_nulls(valid: &mut NullBufferBuilder, rows: usize, nulls: &[u32]) {
    let mut next = 0;
    for &n in nulls {
        let n = n as usize;
        valid.append_n_non_nulls(n - next);
        valid.append_null();
        next = n + 1;
    }
    valid.append_n_non_nulls(rows - next);
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

/// `f` parsed by `parse` as the number it is under `numbers`.
#[inline]
fn read_number<T>(
    numbers: &Numbers,
    f: &[u8],
    scratch: &mut Vec<u8>,
    parse: fn(&[u8]) -> Option<T>,
) -> Option<T> {
    match numbers.read(f, scratch) {
        Number::Same => parse(f),
        Number::Is(n) => parse(n),
        Number::Not => None,
    }
}

/// Whether a column of `ty` holds numbers.
fn is_number(ty: ColumnType) -> bool {
    matches!(ty, ColumnType::Int64 | ColumnType::Float64)
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

/// The decoding settings shared by every decoder of one read.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    /// The output schema (projected).
    pub(crate) schema: SchemaRef,
    /// For each output column, its field index in the record and type.
    pub(crate) columns: Vec<(usize, ColumnType)>,
    /// Each column's date form, when not ISO 8601.
    pub(crate) formats: Vec<Option<Arc<DateFormat>>>,
    pub(crate) null: Nulls,
    pub(crate) numbers: Numbers,
    pub(crate) on_error: OnError,
    pub(crate) batch_size: usize,
}

/// Builds batches from records.
pub(crate) struct Decoder {
    schema: SchemaRef,
    cols: Vec<Column>,
    null: Nulls,
    numbers: Numbers,
    /// A number's standard text (`1.299,99` as `1299.99`).
    scratch: Vec<u8>,
    on_error: OnError,
    rows: usize,
    capacity: usize,
    /// Fields made null under [`OnError::Null`].
    pub(crate) nulled: u64,
    /// Kept between blocks: a column's null rows, a block's booleans.
    nulls: Vec<u32>,
    bits: Vec<u8>,
    /// Records of blocks put aside ([`OnError::PutAside`]), not yet taken.
    bad: Vec<BadRecord>,
}

impl Decoder {
    pub(crate) fn new(plan: &Plan) -> Decoder {
        let rows = plan.batch_size;
        let cols = plan
            .columns
            .iter()
            .zip(plan.schema.fields())
            .zip(&plan.formats)
            .map(|((&(src, ty), f), format)| Column {
                src,
                name: Arc::from(f.name().as_str()),
                ty,
                nullable: f.is_nullable(),
                leaf: Leaf::new(&ty.data_type(), rows).expect("every column type is a leaf"),
                format: format.clone(),
            })
            .collect();
        Decoder {
            schema: plan.schema.clone(),
            cols,
            null: plan.null.clone(),
            numbers: plan.numbers,
            scratch: Vec::new(),
            on_error: plan.on_error,
            rows: 0,
            capacity: plan.batch_size,
            nulled: 0,
            nulls: Vec::new(),
            bits: Vec::new(),
            bad: Vec::new(),
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
            numbers: &self.numbers,
            scratch: &mut self.scratch,
            on_error: self.on_error,
            nulls: &mut self.nulls,
            bits: &mut self.bits,
            nulled: &mut self.nulled,
            utf8: None,
        };
        for i in 0..self.cols.len() {
            if !self.cols[i].append_block(blk, &mut cx) {
                for c in &mut self.cols[..=i] {
                    c.leaf.truncate(before);
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
            match self.decode(&blk.record(r)) {
                Err(e) if self.on_error == OnError::PutAside => {
                    self.bad.push(BadRecord::of_block(blk, r, e));
                }
                res => res?,
            }
        }
        Ok(())
    }

    /// The records of blocks put aside ([`OnError::PutAside`]) since the
    /// last call, in file order: hand them to the CSV reader
    /// (`keep_bad`) before it reads on, so that they keep their place
    /// among its own.
    pub(crate) fn take_bad(&mut self) -> Vec<BadRecord> {
        std::mem::take(&mut self.bad)
    }

    /// Whether a record that does not fit is the caller's to put aside.
    #[inline]
    pub(crate) fn puts_aside(&self) -> bool {
        self.on_error == OnError::PutAside
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
    /// A field that does not fit its column (under [`OnError::Fail`] and
    /// [`OnError::PutAside`]: the caller puts the record aside), or a null
    /// in a column that is not nullable; the error names the record, line,
    /// byte, column, text and type. Nothing of the record is then
    /// appended.
    #[inline]
    pub(crate) fn decode(&mut self, rec: &Record<'_>) -> swath_csv::Result<()> {
        for i in 0..self.cols.len() {
            let c = &mut self.cols[i];
            let tz = c.ty == ColumnType::TimestampTz;
            let res = match rec.get(c.src) {
                Some(f)
                    if !self.null.is_null(f) && is_number(c.ty) && !self.numbers.is_standard() =>
                {
                    match self.numbers.read(f, &mut self.scratch) {
                        Number::Same => c.push(f, tz),
                        Number::Is(n) => c.push(n, tz),
                        Number::Not if c.ty == ColumnType::Int64 => Err("not a 64-bit integer"),
                        Number::Not => Err("not a number"),
                    }
                }
                Some(f) if !self.null.is_null(f) => c.push(f, tz),
                // A missing field (a short record, when flexible) is null.
                _ if c.nullable => {
                    c.leaf.push_null();
                    Ok(())
                }
                _ => Err("empty (null) in a column that is not nullable"),
            };
            if let Err(why) = res {
                if self.on_error == OnError::Null && c.nullable {
                    c.leaf.push_null();
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
            c.leaf.truncate(self.rows);
        }
    }

    /// The rows so far as a batch; the decoder starts a new one.
    pub(crate) fn finish(&mut self) -> swath_csv::Result<RecordBatch> {
        let rows = std::mem::take(&mut self.rows);
        // Sized for the next batch now, not by doubling as it fills.
        let capacity = self.capacity;
        let arrays: Vec<ArrayRef> = self.cols.iter_mut().map(|c| c.leaf.finish(capacity)).collect();
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

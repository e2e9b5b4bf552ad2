//! The slow, obvious twin of [`crate::decode::Decoder`]: each field is
//! appended to an Arrow builder. The differential tests decode the same
//! records with both and compare the batches and errors.

use std::sync::Arc;

use arrow_array::builder::{
    BooleanBuilder, Date32Builder, Float64Builder, Int64Builder, StringBuilder, StringViewBuilder,
    TimestampMicrosecondBuilder,
};
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::SchemaRef;
use swath_csv::{ErrorKind, FromField, Record};

use crate::decode::{OnError, Plan};
use crate::nulls::Nulls;
use crate::text::{parse_date, parse_timestamp};
use crate::types::{ColumnType, UTC};

/// One output column: where its field is in the record, and its builder.
struct Column {
    /// Index of the field in the CSV record.
    src: usize,
    name: Arc<str>,
    ty: ColumnType,
    nullable: bool,
    b: Builder,
    /// A date or timestamp column's form, when not ISO 8601.
    format: Option<Arc<crate::date_format::DateFormat>>,
}

enum Builder {
    Int64(Int64Builder),
    Float64(Float64Builder),
    Boolean(BooleanBuilder),
    Date32(Date32Builder),
    Timestamp(TimestampMicrosecondBuilder),
    Utf8(StringBuilder),
    Utf8View(StringViewBuilder),
}

impl Builder {
    fn new(ty: ColumnType, rows: usize) -> Builder {
        match ty {
            ColumnType::Int64 => Builder::Int64(Int64Builder::with_capacity(rows)),
            ColumnType::Float64 => Builder::Float64(Float64Builder::with_capacity(rows)),
            ColumnType::Boolean => Builder::Boolean(BooleanBuilder::with_capacity(rows)),
            ColumnType::Date32 => Builder::Date32(Date32Builder::with_capacity(rows)),
            ColumnType::Timestamp => {
                Builder::Timestamp(TimestampMicrosecondBuilder::with_capacity(rows))
            }
            ColumnType::TimestampTz => Builder::Timestamp(
                TimestampMicrosecondBuilder::with_capacity(rows).with_timezone(UTC),
            ),
            // 16 bytes a value to start with; it doubles when short.
            ColumnType::Utf8 => Builder::Utf8(StringBuilder::with_capacity(rows, rows * 16)),
            ColumnType::Utf8View => Builder::Utf8View(StringViewBuilder::with_capacity(rows)),
        }
    }

    #[inline]
    fn append_null(&mut self) {
        match self {
            Builder::Int64(b) => b.append_null(),
            Builder::Float64(b) => b.append_null(),
            Builder::Boolean(b) => b.append_null(),
            Builder::Date32(b) => b.append_null(),
            Builder::Timestamp(b) => b.append_null(),
            Builder::Utf8(b) => b.append_null(),
            Builder::Utf8View(b) => b.append_null(),
        }
    }

    /// Append `f` parsed; `Err(reason)` when it does not parse (nothing
    /// appended). The reason is a static string: no allocation on failure.
    #[inline]
    /// `f` read by `form`, a date's or a timestamp's.
    fn append_in(
        &mut self,
        f: &[u8],
        tz: bool,
        form: &crate::date_format::DateFormat,
    ) -> Result<(), &'static str> {
        match self {
            Builder::Date32(b) => match form.date(f) {
                Some(d) => b.append_value(d),
                None => return Err("not a date in the column's form"),
            },
            Builder::Timestamp(b) => match form.timestamp(f) {
                Some(t) if !tz => b.append_value(t),
                _ => return Err("not a timestamp in the column's form"),
            },
            _ => return Err("not a timestamp in the column's form"),
        }
        Ok(())
    }

    fn append(&mut self, f: &[u8], tz: bool) -> Result<(), &'static str> {
        match self {
            Builder::Int64(b) => match i64::from_field(f) {
                Ok(v) => b.append_value(v),
                Err(_) => return Err("not a 64-bit integer"),
            },
            Builder::Float64(b) => match f64::from_field(f) {
                Ok(v) => b.append_value(v),
                Err(_) => return Err("not a number"),
            },
            Builder::Boolean(b) => match bool::from_field(f) {
                Ok(v) => b.append_value(v),
                Err(_) => return Err("expected true or false"),
            },
            Builder::Date32(b) => match parse_date(f) {
                Some(v) => b.append_value(v),
                None => return Err("not a date (YYYY-MM-DD)"),
            },
            Builder::Timestamp(b) => match parse_timestamp(f) {
                Some((v, has_tz)) if has_tz == tz => b.append_value(v),
                Some(_) if tz => return Err("a timestamp without Z or an offset"),
                Some(_) => return Err("a timestamp with an offset in a column without time zone"),
                None => return Err("not a timestamp (YYYY-MM-DD[T ]HH:MM:SS[.ffffff][Z|+HH:MM])"),
            },
            Builder::Utf8(b) => match std::str::from_utf8(f) {
                Ok(s) => b.append_value(s),
                Err(_) => return Err("invalid UTF-8"),
            },
            Builder::Utf8View(b) => match std::str::from_utf8(f) {
                Ok(s) => b.append_value(s),
                Err(_) => return Err("invalid UTF-8"),
            },
        }
        Ok(())
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            Builder::Int64(b) => Arc::new(b.finish()),
            Builder::Float64(b) => Arc::new(b.finish()),
            Builder::Boolean(b) => Arc::new(b.finish()),
            Builder::Date32(b) => Arc::new(b.finish()),
            Builder::Timestamp(b) => Arc::new(b.finish()),
            Builder::Utf8(b) => Arc::new(b.finish()),
            Builder::Utf8View(b) => Arc::new(b.finish()),
        }
    }
}

/// Builds batches from records.
pub(crate) struct ReferenceDecoder {
    schema: SchemaRef,
    cols: Vec<Column>,
    null: Nulls,
    numbers: crate::Numbers,
    on_error: OnError,
    rows: usize,
    capacity: usize,
    /// Fields made null under [`OnError::Null`].
    pub(crate) nulled: u64,
}

impl ReferenceDecoder {
    pub(crate) fn new(plan: &Plan) -> ReferenceDecoder {
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
                b: Builder::new(ty, plan.batch_size),
                format: format.clone(),
            })
            .collect();
        ReferenceDecoder {
            schema: plan.schema.clone(),
            cols,
            null: plan.null.clone(),
            numbers: plan.numbers,
            on_error: plan.on_error,
            rows: 0,
            capacity: plan.batch_size,
            nulled: 0,
        }
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
        for i in 0..self.cols.len() {
            let c = &mut self.cols[i];
            let tz = c.ty == ColumnType::TimestampTz;
            let res = match rec.get(c.src) {
                Some(f) if !self.null.is_null(f) => {
                    // A number by its standard text, one field at a time.
                    let mut text = Vec::new();
                    let number = matches!(c.ty, ColumnType::Int64 | ColumnType::Float64);
                    match self.numbers.read(f, &mut text) {
                        _ if c.format.is_some() => {
                            c.b.append_in(f, tz, c.format.as_deref().expect("a form"))
                        }
                        crate::Number::Is(n) if number => c.b.append(n, tz),
                        crate::Number::Not if c.ty == ColumnType::Int64 => {
                            Err("not a 64-bit integer")
                        }
                        crate::Number::Not if number => Err("not a number"),
                        _ => c.b.append(f, tz),
                    }
                }
                // A missing field (a short record, when flexible) is null.
                _ if c.nullable => {
                    c.b.append_null();
                    Ok(())
                }
                _ => Err("empty (null) in a column that is not nullable"),
            };
            if let Err(why) = res {
                if self.on_error == OnError::Null && c.nullable {
                    c.b.append_null();
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
        if n == 0 {
            return;
        }
        // Builders cannot pop: rebuild the batch so far without the last
        // row (rare: only after an error the caller goes on from).
        let batch = self.finish_arrays();
        for (c, a) in self.cols.iter_mut().zip(batch) {
            let keep = self.rows;
            c.b = Builder::new(c.ty, self.capacity);
            let a = a.slice(0, keep.min(a.len()));
            refill(&mut c.b, &a);
        }
    }

    fn finish_arrays(&mut self) -> Vec<ArrayRef> {
        self.cols.iter_mut().map(|c| c.b.finish()).collect()
    }

    /// The rows so far as a batch; the decoder starts a new one.
    pub(crate) fn finish(&mut self) -> swath_csv::Result<RecordBatch> {
        let rows = std::mem::take(&mut self.rows);
        let arrays = self.finish_arrays();
        // Sized for the next batch now, not by doubling as it fills.
        for c in &mut self.cols {
            c.b = Builder::new(c.ty, self.capacity);
        }
        let opts = RecordBatchOptions::new().with_row_count(Some(rows));
        RecordBatch::try_new_with_options(self.schema.clone(), arrays, &opts).map_err(|e| {
            swath_csv::Error::new(ErrorKind::Config(format!("building an Arrow batch: {e}")))
        })
    }
}

/// Append the values of `a` (of `b`'s type) to `b`.
fn refill(b: &mut Builder, a: &ArrayRef) {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Date32Type, Float64Type, Int64Type, TimestampMicrosecondType};
    match b {
        Builder::Int64(b) => b.extend(a.as_primitive::<Int64Type>().iter()),
        Builder::Float64(b) => b.extend(a.as_primitive::<Float64Type>().iter()),
        Builder::Boolean(b) => b.extend(a.as_boolean().iter()),
        Builder::Date32(b) => b.extend(a.as_primitive::<Date32Type>().iter()),
        Builder::Timestamp(b) => b.extend(a.as_primitive::<TimestampMicrosecondType>().iter()),
        Builder::Utf8(b) => b.extend(a.as_string::<i32>().iter()),
        Builder::Utf8View(b) => b.extend(a.as_string_view().iter()),
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

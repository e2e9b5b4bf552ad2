//! The Arrow fuzz targets' checks, shared with the regression test that
//! replays every kept input (`crates/swath-arrow/tests/fuzz_regressions.rs`
//! includes this file by path). Apart from `checks.rs` because swath-csv's
//! tests cannot depend on swath-arrow.

// Each target uses one of the checks.
#![allow(dead_code)]

use std::sync::Arc;

use swath_arrow::arrow_array::{
    Array, BooleanArray, Date32Array, Float64Array, Int64Array, RecordBatch, StringArray,
    StringViewArray, TimestampMicrosecondArray,
};
use swath_arrow::arrow_schema::Schema;
use swath_arrow::text::{parse_date, parse_timestamp};
use swath_arrow::{ArrowReaderBuilder, ColumnSpec, ColumnType, Infer};
use swath_csv::{FromField, ReaderBuilder};
use swath_testkit::TempFile;

/// One decoded value, comparable (floats by their bits).
#[derive(Clone, Debug, PartialEq, Eq)]
enum Value {
    Null,
    Int(i64),
    Float(u64),
    Bool(bool),
    Date(i32),
    Micros(i64),
    Text(String),
}

/// What a field of a nullable column of `ty` must decode to, by the
/// obvious route (`FromField` and the text parsers); `None` when it must
/// be refused.
fn expected(ty: ColumnType, field: Option<&[u8]>) -> Option<Value> {
    let Some(f) = field.filter(|f| !f.is_empty()) else {
        return Some(Value::Null);
    };
    match ty {
        ColumnType::Int64 => i64::from_field(f).ok().map(Value::Int),
        ColumnType::Float64 => f64::from_field(f).ok().map(|v| Value::Float(v.to_bits())),
        ColumnType::Boolean => bool::from_field(f).ok().map(Value::Bool),
        ColumnType::Date32 => parse_date(f).map(Value::Date),
        ColumnType::Timestamp | ColumnType::TimestampTz => match parse_timestamp(f) {
            Some((v, tz)) if tz == (ty == ColumnType::TimestampTz) => Some(Value::Micros(v)),
            _ => None,
        },
        ColumnType::Utf8 | ColumnType::Utf8View => {
            std::str::from_utf8(f).ok().map(|s| Value::Text(s.to_owned()))
        }
        other => panic!("no obvious decoding written for {other:?}"),
    }
}

/// The rows of `batches`, value by value.
fn rows(batches: &[RecordBatch]) -> Vec<Vec<Value>> {
    let mut out = Vec::new();
    for b in batches {
        for r in 0..b.num_rows() {
            let row = b.columns().iter().map(|c| value(c.as_ref(), r)).collect();
            out.push(row);
        }
    }
    out
}

fn value(c: &dyn Array, r: usize) -> Value {
    if c.is_null(r) {
        return Value::Null;
    }
    let any = c.as_any();
    if let Some(a) = any.downcast_ref::<Int64Array>() {
        Value::Int(a.value(r))
    } else if let Some(a) = any.downcast_ref::<Float64Array>() {
        Value::Float(a.value(r).to_bits())
    } else if let Some(a) = any.downcast_ref::<BooleanArray>() {
        Value::Bool(a.value(r))
    } else if let Some(a) = any.downcast_ref::<Date32Array>() {
        Value::Date(a.value(r))
    } else if let Some(a) = any.downcast_ref::<TimestampMicrosecondArray>() {
        Value::Micros(a.value(r))
    } else if let Some(a) = any.downcast_ref::<StringArray>() {
        Value::Text(a.value(r).to_owned())
    } else if let Some(a) = any.downcast_ref::<StringViewArray>() {
        Value::Text(a.value(r).to_owned())
    } else {
        panic!("unexpected array type {:?}", c.data_type())
    }
}

/// Read every batch of `rdr`; the batches and the first error as text.
fn drain(
    mut next: impl FnMut() -> swath_arrow::Result<Option<RecordBatch>>,
) -> (Vec<RecordBatch>, Option<String>) {
    let mut out = Vec::new();
    loop {
        match next() {
            Ok(Some(b)) => out.push(b),
            Ok(None) => return (out, None),
            Err(e) => return (out, Some(e.to_string())),
        }
    }
}

/// Arrow values equal the sequential reader's fields converted one by one
/// with `FromField` and the text parsers, for a given schema of nullable
/// columns; a record with a field its column refuses, or a record the CSV
/// reader refuses, ends the read with an error naming that record.
///
/// Input: one byte for the column count and batch size, one type byte per
/// column, then the document (no header row, flexible: a missing field is
/// null, an extra one is not read).
pub fn values(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let ncols = 1 + usize::from(sel & 3);
    if rest.len() < ncols {
        return;
    }
    let (tys, doc) = rest.split_at(ncols);
    let types: Vec<ColumnType> =
        tys.iter().map(|&t| ColumnType::ALL[usize::from(t) % ColumnType::ALL.len()]).collect();
    let batch = 1 + usize::from(sel >> 2);

    let mut csv = ReaderBuilder::new();
    csv.has_headers(false).flexible(true);
    let mut want = Vec::new();
    let mut want_err = None;
    let mut rdr = csv.from_reader(doc).expect("valid options");
    loop {
        match rdr.next_record() {
            Ok(Some(rec)) => {
                let row: Option<Vec<Value>> =
                    types.iter().enumerate().map(|(i, &ty)| expected(ty, rec.get(i))).collect();
                match row {
                    Some(row) => want.push(row),
                    None => {
                        want_err = Some(rec.position().record);
                        break;
                    }
                }
            }
            Ok(None) => break,
            Err(e) => {
                // 0: an error without a position (none is expected).
                want_err = Some(e.record_position().or(e.position()).map_or(0, |p| p.record));
                break;
            }
        }
    }

    let fields: Vec<_> = types
        .iter()
        .enumerate()
        .map(|(i, &ty)| ColumnSpec { name: format!("c{i}"), ty, nullable: true }.field())
        .collect();
    let mut b = ArrowReaderBuilder::new();
    b.csv(csv).schema(Arc::new(Schema::new(fields))).batch_size(batch);
    let mut arrow = b.from_reader(doc).expect("a given schema needs no inference");
    let (batches, err) = drain(|| arrow.next_batch());
    // An error ends the read: the rows of the batch it interrupted are not
    // handed out, only the whole batches before it.
    let delivered = if want_err.is_some() { want.len() / batch * batch } else { want.len() };
    assert_eq!(rows(&batches), want[..delivered], "values (batch size {batch})");
    match (want_err, &err) {
        (None, None) => {}
        (Some(record), Some(e)) => assert!(
            record == 0 || e.contains(&format!("record {record} ")),
            "error {e:?}, wanted record {record}"
        ),
        (w, e) => panic!("error: wanted at record {w:?}, got {e:?}"),
    }
}

/// Types inferred from every record (`Infer::Full`) fit: a UTF-8 file the
/// CSV reader reads whole decodes under its inferred schema without an
/// error, with as many rows as records (text that is not UTF-8 fits no
/// type, and is a positioned error); and the parallel reader (tiny chunks,
/// 2 or 3 threads) gives the same rows as the sequential one, and the same
/// error when there is one (before an error each hands out the whole
/// batches it finished, which end at other places: one is a prefix of the
/// other).
///
/// Input: one byte of options (headers, lenient quoting, `;`), then the
/// document.
pub fn inferred(data: &[u8]) {
    let Some((&sel, doc)) = data.split_first() else {
        return;
    };
    let mut csv = ReaderBuilder::new();
    csv.has_headers(sel & 1 != 0).lenient(sel & 2 != 0).flexible(true).delimiter(if sel & 4 != 0 {
        b';'
    } else {
        b','
    });
    let file = TempFile::new("fuzz-arrow", doc);

    // What the CSV reader alone makes of the file.
    let mut rdr = csv.from_path(file.path()).expect("valid options");
    let mut records = 0usize;
    let csv_ok = loop {
        match rdr.next_record() {
            Ok(Some(_)) => records += 1,
            Ok(None) => break true,
            Err(_) => break false,
        }
    };

    let mut b = ArrowReaderBuilder::new();
    b.csv(csv).infer(Infer::Full).batch_size(1 + usize::from(sel >> 4));
    let schema = match b.infer_schema(file.path()) {
        Ok(s) => s.schema,
        Err(e) => {
            assert!(!csv_ok, "inference failed on a file that reads: {e}");
            return;
        }
    };
    let mut seq = b.from_path(file.path()).expect("the schema was inferred once already");
    let (want, want_err) = drain(|| seq.next_batch());
    if csv_ok && std::str::from_utf8(doc).is_ok() {
        assert_eq!(want_err, None, "a file that reads must decode under its inferred schema");
        assert_eq!(want.iter().map(RecordBatch::num_rows).sum::<usize>(), records);
    } else if !csv_ok {
        assert!(want_err.is_some(), "the CSV reader failed; the Arrow reader did not");
    }
    for (threads, chunk) in [(2, 1), (3, 7)] {
        let mut p = b.clone();
        p.schema(Arc::clone(&schema)).threads(threads).chunk_size(chunk);
        let mut par = p
            .build_parallel(file.path())
            .expect("a given schema")
            .into_batches()
            .expect("a decoding thread");
        let (got, err) = drain(|| par.next_batch());
        let (got, want) = (rows(&got), rows(&want));
        let what = format!("{threads} threads, chunks of {chunk}");
        if want_err.is_none() {
            assert_eq!(got, want, "rows, {what}");
        } else {
            let n = got.len().min(want.len());
            assert_eq!(got[..n], want[..n], "rows before the error, {what}");
        }
        assert_eq!(err, want_err, "error, {what}");
    }
}

//! Edge inputs and errors: empty files, header only, one column, 10,000
//! columns, a mismatch at the last record, invalid UTF-8, `--on-error
//! null`, given schemas.

mod common;

use std::io::Write;

use arrow_array::RecordBatch;
use arrow_schema::DataType;
use common::*;
use swath_arrow::{ArrowReaderBuilder, ColumnSpec, ColumnType, Infer, OnError};

fn file_with(data: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(data).unwrap();
    f.flush().unwrap();
    f
}

fn read_all(b: &ArrowReaderBuilder, data: &[u8]) -> swath_arrow::Result<Vec<RecordBatch>> {
    let f = file_with(data);
    let mut out = Vec::new();
    for r in b.from_path(f.path())? {
        out.push(r.map_err(swath_arrow::Error::from)?);
    }
    Ok(out)
}

fn read_par(b: &ArrowReaderBuilder, data: &[u8]) -> swath_arrow::Result<Vec<RecordBatch>> {
    let f = file_with(data);
    let mut p = b.build_parallel(f.path())?;
    let mut out = Vec::new();
    p.for_each_batch(|b| {
        out.push(b);
        Ok(())
    })?;
    Ok(out)
}

fn int_col(name: &str) -> ColumnSpec {
    ColumnSpec { name: name.into(), ty: ColumnType::Int64, nullable: true }
}

#[test]
fn empty_file_and_header_only() {
    let b = ArrowReaderBuilder::new();
    assert_eq!(rows(&read_all(&b, b"").unwrap()), 0);
    assert_eq!(rows(&read_par(&b, b"").unwrap()), 0);
    let f = file_with(b"a,b\n");
    let s = b.infer_schema(f.path()).unwrap();
    assert_eq!(s.schema.fields().len(), 2);
    assert_eq!(s.schema.field(0).data_type(), &DataType::Utf8, "no values: utf8");
    assert_eq!(rows(&read_all(&b, b"a,b\n").unwrap()), 0);
    assert_eq!(rows(&read_par(&b, b"a,b\n").unwrap()), 0);
}

#[test]
fn one_column_and_no_headers() {
    let b = ArrowReaderBuilder::new();
    let got = read_all(&b, b"n\n1\n\n2\n").unwrap();
    assert_eq!(columns(&got), vec![Col::I(vec![Some(1), Some(2)])], "empty lines are skipped");
    let mut b = ArrowReaderBuilder::new();
    b.csv_mut().has_headers(false);
    let got = read_all(&b, b"1,x\n2,y\n").unwrap();
    assert_eq!(got[0].schema().field(0).name(), "column_1");
    assert_eq!(got[0].schema().field(1).name(), "column_2");
    assert_eq!(rows(&got), 2);
}

#[test]
fn ten_thousand_columns() {
    let n = 10_000;
    let mut data = (0..n).map(|i| format!("c{i}")).collect::<Vec<_>>().join(",");
    data.push('\n');
    for r in 0..3 {
        data.push_str(&(0..n).map(|i| (i * 10 + r).to_string()).collect::<Vec<_>>().join(","));
        data.push('\n');
    }
    let b = ArrowReaderBuilder::new();
    for got in [read_all(&b, data.as_bytes()).unwrap(), read_par(&b, data.as_bytes()).unwrap()] {
        assert_eq!(got[0].num_columns(), n);
        assert_eq!(rows(&got), 3);
        let cols = columns(&got);
        assert_eq!(cols[9999], Col::I(vec![Some(99990), Some(99991), Some(99992)]));
    }
}

/// A file whose last record does not fit: the error names its record,
/// line, byte, column, text and type, sequentially and in parallel.
#[test]
fn a_mismatch_at_the_last_record_is_an_error_with_its_position() {
    let rows = 50_000;
    let mut data = String::from("id,name\n");
    for i in 1..=rows {
        data.push_str(&format!("{i},\"n\n{i}\"\n"));
    }
    let byte = data.len() as u64;
    data.push_str("x9,last\n");
    let mut b = ArrowReaderBuilder::new();
    b.column_types(vec![int_col("id")]).chunk_size(4096).threads(2);
    let want = format!(
        "record {} (line {}, byte {byte}): field 0 (\"id\"): cannot parse \"x9\" as int64: not a 64-bit integer",
        rows + 2,
        2 * rows + 2
    );
    let e = read_all(&b, data.as_bytes()).unwrap_err();
    assert_eq!(e.to_string(), want);
    let p = e.csv().unwrap().position().unwrap();
    assert_eq!((p.byte, p.line, p.record), (byte, 2 * rows as u64 + 2, rows as u64 + 2));
    let e = read_par(&b, data.as_bytes()).unwrap_err();
    assert_eq!(e.to_string(), want, "parallel");
}

#[test]
fn invalid_utf8_is_a_positioned_error() {
    let data = b"a,s\n1,ok\n2,b\xffd\n";
    let mut b = ArrowReaderBuilder::new();
    b.column_types(vec![
        int_col("a"),
        ColumnSpec { name: "s".into(), ty: ColumnType::Utf8, nullable: true },
    ]);
    let e = read_all(&b, data).unwrap_err();
    assert_eq!(
        e.to_string(),
        "record 3 (line 3, byte 11): field 1 (\"s\"): cannot parse \"b\u{fffd}d\" as utf8: invalid UTF-8 (record starts at line 3, byte 9)"
    );
}

#[test]
fn on_error_null_counts_and_nulls() {
    let data = b"a,b\n1,x\nzz,y\n3,z\nq,w\n";
    let mut b = ArrowReaderBuilder::new();
    b.column_types(vec![int_col("a")]).on_error(OnError::Null);
    let f = file_with(data);
    let mut r = b.from_path(f.path()).unwrap();
    let got = vec![r.next_batch().unwrap().unwrap()];
    assert_eq!(r.nulled(), 2);
    assert_eq!(columns(&got)[0], Col::I(vec![Some(1), None, Some(3), None]));
    let mut p = b.build_parallel(f.path()).unwrap();
    p.for_each_batch(|_| Ok(())).unwrap();
    assert_eq!(p.nulled(), 2);
}

#[test]
fn not_null_columns_reject_empty_fields() {
    let mut b = ArrowReaderBuilder::new();
    b.column_types(vec![ColumnSpec { name: "a".into(), ty: ColumnType::Int64, nullable: false }]);
    let e = read_all(&b, b"a\n1\n\"\"\n").unwrap_err();
    assert!(e.to_string().contains("not nullable"), "{e}");
    // Full inference says a column without empty fields is not null.
    let mut b = ArrowReaderBuilder::new();
    b.infer(Infer::Full);
    let got = read_all(&b, b"a,b\n1,\n2,3\n").unwrap();
    assert!(!got[0].schema().field(0).is_nullable());
    assert!(got[0].schema().field(1).is_nullable());
}

#[test]
fn header_columns_past_every_record_are_nullable_under_full_inference() {
    // Found by the arrow_inferred fuzz target: a header column that no
    // (flexible, short) record reaches was inferred not nullable, and the
    // read then failed on the first record.
    let mut csv = swath_csv::ReaderBuilder::new();
    csv.flexible(true);
    let mut b = ArrowReaderBuilder::new();
    b.csv(csv).infer(Infer::Full);
    let got = read_all(&b, b"a,b,c\n1,2\n3\n").unwrap();
    let schema = got[0].schema();
    assert!(!schema.field(0).is_nullable());
    assert!(schema.field(1).is_nullable(), "b is missing from the second record");
    assert!(schema.field(2).is_nullable(), "c is missing from every record");
    assert_eq!(got.iter().map(RecordBatch::num_rows).sum::<usize>(), 2);
    assert_eq!(got[0].column(2).null_count(), 2);
}

#[test]
fn sampling_sees_a_change_deep_in_the_file() {
    // Integers for 150k rows, then text: the head alone says int64;
    // samples spread over the file see the text.
    let mut data = String::from("v\n");
    for i in 0..150_000 {
        data.push_str(&format!("{i}\n"));
    }
    for _ in 0..50_000 {
        data.push_str("text\n");
    }
    let f = file_with(data.as_bytes());
    let mut b = ArrowReaderBuilder::new();
    b.infer(Infer::Sample { head: 1000, points: 0, per_point: 0 });
    assert_eq!(b.infer_schema(f.path()).unwrap().columns[0].ty, ColumnType::Int64);
    b.infer(Infer::default());
    assert_eq!(b.infer_schema(f.path()).unwrap().columns[0].ty, ColumnType::Utf8);
    b.infer(Infer::Full);
    assert_eq!(b.infer_schema(f.path()).unwrap().columns[0].ty, ColumnType::Utf8);
}

#[test]
fn a_given_schema_is_used_whole() {
    let schema = std::sync::Arc::new(arrow_schema::Schema::new(vec![
        arrow_schema::Field::new("x", DataType::Float64, true),
        arrow_schema::Field::new("y", DataType::Date32, true),
    ]));
    let mut b = ArrowReaderBuilder::new();
    b.schema(schema.clone());
    let got = read_all(&b, b"a,b\n1,2024-03-01\n,\n").unwrap();
    assert_eq!(got[0].schema(), schema);
    assert_eq!(columns(&got)[0], Col::F(vec![Some(1f64.to_bits()), None]));
    assert_eq!(columns(&got)[1], Col::D(vec![Some(slow_days("2024-03-01")), None]));
}

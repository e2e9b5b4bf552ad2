//! The decoder against its slow twin (`reference.rs`, on Arrow's
//! builders): the same records, random and adversarial (non-ASCII and
//! invalid UTF-8, nulls, bad values, quoted fields, CRLF, short records),
//! give the same batches and the same errors at the same positions.

use std::sync::Arc;

use arrow_array::{Array, RecordBatch};
use arrow_schema::{Field, Schema};
use swath_csv::ReaderBuilder;
use swath_testkit::Rng;

use super::reference::ReferenceDecoder;
use super::{Decoder, OnError, Plan};
use crate::types::ColumnType;

const TYPES: [ColumnType; 8] = [
    ColumnType::Int64,
    ColumnType::Float64,
    ColumnType::Boolean,
    ColumnType::Date32,
    ColumnType::Timestamp,
    ColumnType::TimestampTz,
    ColumnType::Utf8,
    ColumnType::Utf8View,
];

/// A field for a column of `ty`: mostly a good value, sometimes empty, the
/// null text, a value of another type, or bytes that are not UTF-8.
fn field(rng: &mut Rng, ty: ColumnType, null: &[u8]) -> Vec<u8> {
    let good: Vec<u8> = match ty {
        ColumnType::Int64 => match rng.below(6) {
            0 => i64::MIN.to_string(),
            1 => i64::MAX.to_string(),
            2 => "-0".into(),
            3 => "9223372036854775808".into(),
            _ => (rng.next_u64() as i64 >> rng.below(63)).to_string(),
        }
        .into_bytes(),
        ColumnType::Float64 => match rng.below(6) {
            0 => "1e308".into(),
            1 => "-0".into(),
            2 => "4.9e-324".into(),
            3 => "NaN".into(),
            _ => format!("{}.{}", rng.below(100_000) as i64 - 50_000, rng.below(1000)),
        }
        .into_bytes(),
        ColumnType::Boolean => if rng.one_in(2) { "true" } else { "false" }.into(),
        ColumnType::Date32 => {
            format!("{:04}-{:02}-{:02}", rng.below(10_000), 1 + rng.below(12), 1 + rng.below(29))
                .into_bytes()
        }
        ColumnType::Timestamp | ColumnType::TimestampTz => {
            let tail = match rng.below(5) {
                0 => "Z",
                1 => "+01:00",
                2 => "-0530",
                3 => ".123456",
                _ => "",
            };
            format!(
                "{:04}-{:02}-{:02}{}{:02}:{:02}:{:02}{tail}",
                rng.below(10_000),
                1 + rng.below(12),
                1 + rng.below(28),
                if rng.one_in(2) { 'T' } else { ' ' },
                rng.below(24),
                rng.below(60),
                rng.below(60)
            )
            .into_bytes()
        }
        ColumnType::Utf8 | ColumnType::Utf8View => match rng.below(8) {
            0 => "Zürich".into(),
            1 => "a,b".into(),
            2 => "say \"hi\"".into(),
            3 => "two\nlines".into(),
            4 => "日本語のテキスト".into(),
            _ => {
                let n = rng.index(20);
                rng.bytes(n, b"abcdefghij klmnopqrstuvwxyz")
            }
        },
    };
    match rng.below(40) {
        0 => Vec::new(),
        1 => null.to_vec(),
        2 => b"x1".to_vec(),
        3 => b"caf\xe9".to_vec(),
        4 => {
            let mut g = good;
            let at = rng.index(g.len() + 1);
            g.insert(at, 0xff);
            g
        }
        5 => b"\xf0\x9f\x98".to_vec(),
        6 => b"2024-02-30".to_vec(),
        // Numbers as exports write them (rounds with a decimal comma and
        // thousands separators read them; others do not).
        7 => b"-1.299,5".to_vec(),
        8 => b"12,5".to_vec(),
        9 => b"1.299".to_vec(),
        10 => b"1,299.5".to_vec(),
        // Dates as exports write them (rounds with a form read them).
        11 => format!("{}/{}/{}", 1 + rng.below(31), 1 + rng.below(12), 1900 + rng.below(200))
            .into_bytes(),
        12 => format!(
            "{:02}.{:02}.2023 {:02}:{:02}",
            1 + rng.below(29),
            1 + rng.below(12),
            rng.below(24),
            rng.below(60)
        )
        .into_bytes(),
        _ => good,
    }
}

/// CSV text of `rows` records of `types`, quoted when it must be (and
/// sometimes when not), LF or CRLF, a few records short.
fn csv(rng: &mut Rng, types: &[ColumnType], rows: usize, null: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, _) in types.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(format!("c{i}").as_bytes());
    }
    out.extend_from_slice(b"\r\n");
    for _ in 0..rows {
        let n = if rng.one_in(50) { rng.index(types.len()) + 1 } else { types.len() };
        for (i, &ty) in types[..n].iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            let f = field(rng, ty, null);
            let special = f.iter().any(|&b| matches!(b, b',' | b'"' | b'\n' | b'\r'));
            if special || rng.one_in(10) {
                out.push(b'"');
                for &b in &f {
                    if b == b'"' {
                        out.push(b'"');
                    }
                    out.push(b);
                }
                out.push(b'"');
            } else {
                out.extend_from_slice(&f);
            }
        }
        out.extend_from_slice(if rng.one_in(3) { b"\r\n" } else { b"\n" });
    }
    out
}

/// Decode `data` with both decoders, with batches of `batch` rows; every
/// result and batch must be the same. With `block` 0 the fast decoder
/// takes record by record (`decode`); otherwise `decode_block` on each
/// block the reader gives (of at most `block` records) and `decode` on the
/// records it leaves out, while the slow twin decodes every record alone.
/// A block stops at its first record that does not decode, with the error
/// that record gives alone, and the records before it decoded. Returns
/// the rows decoded and the errors (per record, or per block).
fn compare(data: &[u8], plan: &Plan, batch: usize, block: usize) -> (usize, usize) {
    let mut csv = ReaderBuilder::new();
    csv.flexible(true);
    let mut rdr = csv.from_reader(data).unwrap();
    let mut fast = Decoder::new(plan);
    let mut slow = ReferenceDecoder::new(plan);
    let (mut rows, mut errors, mut blocks) = (0, 0, 0);
    loop {
        let room = block.min(batch - fast.rows());
        if let Some(blk) = rdr.next_block(room).unwrap() {
            blocks += 1;
            let a = fast.decode_block(&blk).map_err(|e| e.to_string());
            let mut b = Ok(());
            for r in 0..blk.len() {
                b = slow.decode(&blk.record(r)).map_err(|e| e.to_string());
                if b.is_err() {
                    break;
                }
            }
            assert_eq!(a, b, "block at {:?}", blk.position(0));
            errors += usize::from(a.is_err());
        } else {
            let rec = match rdr.next_record() {
                Ok(Some(rec)) => rec,
                Ok(None) => break,
                Err(e) => panic!("the generated CSV does not read: {e}"),
            };
            let a = fast.decode(&rec).map_err(|e| e.to_string());
            let b = slow.decode(&rec).map_err(|e| e.to_string());
            assert_eq!(a, b, "record {:?}", rec);
            errors += usize::from(a.is_err());
        }
        assert_eq!(fast.rows(), slow.rows());
        assert_eq!(fast.nulled, slow.nulled);
        if fast.rows() == batch {
            rows += batch;
            check_same(fast.finish().unwrap(), slow.finish().unwrap());
        }
    }
    rows += fast.rows();
    check_same(fast.finish().unwrap(), slow.finish().unwrap());
    if block > 0 {
        assert!(blocks > 0 || rows < 2, "no block was read");
    }
    (rows, errors)
}

fn check_same(a: RecordBatch, b: RecordBatch) {
    assert_eq!(a, b);
    for (x, y) in a.columns().iter().zip(b.columns()) {
        assert_eq!(x.null_count(), y.null_count());
        assert_eq!(x.data_type(), y.data_type());
    }
}

fn plan(types: &[ColumnType], projection: &[usize], nullable: bool, null: &[u8]) -> Plan {
    let fields: Vec<Field> = projection
        .iter()
        .map(|&i| Field::new(format!("c{i}"), types[i].data_type(), nullable || i % 3 == 0))
        .collect();
    Plan {
        schema: Arc::new(Schema::new(fields)),
        columns: projection.iter().map(|&i| (i, types[i])).collect(),
        formats: vec![None; projection.len()],
        null: crate::Nulls::text(null),
        numbers: crate::Numbers::default(),
        on_error: OnError::Fail,
        batch_size: 1 << 20,
    }
}

#[test]
fn the_decoder_equals_its_slow_twin() {
    let mut rng = Rng::new(0x0dec_0de5);
    let (mut rows, mut errors) = (0, 0);
    let (mut block_rows, mut block_errors) = (0, 0);
    for round in 0..60 {
        let ncols = 1 + rng.index(9);
        let types: Vec<ColumnType> = (0..ncols).map(|_| TYPES[rng.index(TYPES.len())]).collect();
        let null: &[u8] = if round % 4 == 3 { b"NA" } else { b"" };
        let n = 1 + rng.index(400);
        let data = csv(&mut rng, &types, n, null);
        // Every column in order; a shuffled subset with a repeat; a
        // column past the end of some records.
        let mut projection: Vec<usize> = (0..ncols).collect();
        if round % 3 == 1 {
            projection.retain(|_| rng.one_in(2));
            projection.reverse();
            projection.push(rng.index(ncols));
        }
        let mut p = plan(&types, &projection, round % 2 == 0, null);
        if round % 6 == 2 {
            // Dates and timestamps in other forms.
            let day_first = crate::DateFormat::parse("%d/%m/%Y").unwrap();
            let german = crate::DateFormat::parse("%d.%m.%Y %H:%M").unwrap();
            p.formats = p
                .columns
                .iter()
                .map(|&(_, ty)| match ty {
                    ColumnType::Date32 => Some(Arc::new(day_first.clone())),
                    ColumnType::Timestamp => Some(Arc::new(german.clone())),
                    _ => None,
                })
                .collect();
        }
        if round % 7 == 6 {
            p.numbers = crate::Numbers::new(true, Some('.')).unwrap();
        } else if round % 7 == 5 {
            p.numbers = crate::Numbers::new(false, Some(',')).unwrap();
        }
        if round % 5 == 4 {
            p.on_error = OnError::Null;
            p.schema = Arc::new(Schema::new(
                p.schema
                    .fields()
                    .iter()
                    .map(|f| f.as_ref().clone().with_nullable(true))
                    .collect::<Vec<_>>(),
            ));
        }
        let batch = [1, 7, 64, 1 << 20][rng.index(4)];
        let (r, e) = compare(&data, &p, batch, 0);
        rows += r;
        errors += e;
        let (br, be) = compare(&data, &p, batch, [1, 5, 1 << 20][round % 3]);
        block_rows += br;
        block_errors += be;
    }
    // Both outcomes were seen many times.
    assert!(rows > 2000 && errors > 500, "{rows} rows, {errors} errors");
    assert!(block_rows > 2000 && block_errors > 100, "{block_rows} rows, {block_errors} errors");
}

#[test]
fn an_all_ascii_file_and_all_nulls_equal_the_slow_twin() {
    let types = TYPES.to_vec();
    let mut rng = Rng::new(7);
    let mut data = b"a,b,c,d,e,f,g,h\n".to_vec();
    for i in 0..300 {
        if i % 100 < 50 {
            data.extend_from_slice(b",,,,,,,\n");
        } else {
            // Text of 4 to 19 bytes: views inline (up to 12) and not.
            let long = "x".repeat(i % 17);
            data.extend_from_slice(
                format!(
                    "{},{}.5,true,2024-02-29,2024-02-29 01:02:03,2024-02-29T01:02:03Z,abc{},v{i}{long}\n",
                    rng.next_u64() as i64,
                    i,
                    i
                )
                .as_bytes(),
            );
        }
    }
    let p = plan(&types, &(0..8).collect::<Vec<_>>(), true, b"");
    for batch in [1, 49, 50, 51, 1000] {
        assert_eq!(compare(&data, &p, batch, 0), (300, 0));
        for max in [1, 3, 1000] {
            assert_eq!(compare(&data, &p, batch, max), (300, 0));
        }
    }
}

#[test]
fn append_text_equals_extend_from_slice() {
    let src: Vec<u8> = (0..48u8).map(|b| b'a' + b % 26).collect();
    for before in 0..20 {
        for n in 0..=40 {
            for spare in [0, 1, 15, 16, 17, 64] {
                let mut got = Vec::with_capacity(before + spare);
                got.extend_from_slice(&src[..before]);
                got.reserve_exact(spare.saturating_sub(got.capacity() - got.len()));
                let mut want = got.clone();
                super::append_text(&mut got, &src[before.min(3)..before.min(3) + n]);
                want.extend_from_slice(&src[before.min(3)..before.min(3) + n]);
                assert_eq!(got, want, "{before} bytes before, {n} appended, {spare} spare");
            }
        }
    }
}

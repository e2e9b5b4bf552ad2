//! Broken records put aside (`OnBad::PutAside`): generated JSON lines with
//! broken ones placed by the generator (not JSON, not an object, a key
//! twice, values that do not fit at the top, inside an object and inside
//! a list after its first items). At every thread count and chunk size the
//! batches must equal the clean file's (so a line that failed half way left
//! nothing behind), and the records put aside must be the broken lines,
//! newline included, with their places, in file order. The same records
//! in a top-level array are put aside with their bytes.

use std::io::Write;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef};
use swath::Source;
use swath_json::{BadRecord, JsonReaderBuilder, OnBad, Records};

fn temp(bytes: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(bytes).unwrap();
    f.flush().unwrap();
    f
}

fn schema() -> SchemaRef {
    let req = Fields::from(vec![
        Field::new("ms", DataType::Float64, true),
        Field::new("ok", DataType::Boolean, true),
    ]);
    let item = Field::new(
        "item",
        DataType::Struct(vec![Field::new("n", DataType::Int64, true)].into()),
        true,
    );
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, true),
        Field::new("name", DataType::Utf8, true),
        Field::new("req", DataType::Struct(req), true),
        Field::new("items", DataType::List(Arc::new(item)), true),
    ]))
}

/// A good line, different for every `i`.
fn good(i: u64) -> String {
    format!(
        r#"{{"id":{i},"name":"n\"{i}","req":{{"ms":{}.5,"ok":{}}},"items":[{{"n":{i}}},{{"n":{}}}]}}"#,
        i % 97,
        i % 2 == 0,
        i * 3
    )
}

/// A broken line of kind `k`, and why it is broken.
fn broken(i: u64, k: u64) -> String {
    match k % 7 {
        0 => format!(r#"{{"id":{i},"name":"cut"#),
        1 => format!(r#"{{"id":"{i}","name":"a string id"}}"#),
        2 => format!(r#"{{"id":{i},"name":"x","req":{{"ms":1.5,"ok":"yes"}}}}"#),
        3 => format!(r#"{{"id":{i},"items":[{{"n":1}},{{"n":2}},{{"n":"three"}}]}}"#),
        4 => format!(r#"{{"id":{i},"id":{i}}}"#),
        5 => format!("[{i},{i}]"),
        _ => format!(r#"{{"id":{i},"name":"end","items":[{{"n":1}}],"req":{{"ms":"slow"}}}}"#),
    }
}

/// A broken record's bytes, byte, line and record.
type Placed = (Vec<u8>, u64, u64, u64);

/// The test file, the same without its broken lines, and each broken
/// line's bytes (newline included) and place (byte, line, record).
fn generate(seed: u64, lines: u64, crlf: bool) -> (Vec<u8>, Vec<u8>, Vec<Placed>) {
    let (mut all, mut clean, mut bad) = (Vec::new(), Vec::new(), Vec::new());
    let mut x = seed;
    let (mut line, mut record) = (0u64, 0u64);
    for i in 0..lines {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let end: &[u8] = if crlf && (x >> 40) % 3 == 0 { b"\r\n" } else { b"\n" };
        line += 1;
        if (x >> 33) % 11 == 0 {
            // A blank line: no record.
            all.extend_from_slice(end);
            clean.extend_from_slice(end);
            continue;
        }
        record += 1;
        if (x >> 20) % 5 == 0 {
            let mut bytes = broken(i, x >> 50).into_bytes();
            bytes.extend_from_slice(end);
            bad.push((bytes.clone(), all.len() as u64, line, record));
            all.extend_from_slice(&bytes);
        } else {
            let text = good(i);
            for out in [&mut all, &mut clean] {
                out.extend_from_slice(text.as_bytes());
                out.extend_from_slice(end);
            }
        }
    }
    (all, clean, bad)
}

fn read(
    bytes: &[u8],
    threads: usize,
    chunk: u64,
    on_bad: OnBad,
) -> (Vec<RecordBatch>, Vec<BadRecord>, swath_json::Result<u64>) {
    let f = temp(bytes);
    let mut b = JsonReaderBuilder::new();
    b.threads(threads).chunk_size(chunk).batch_size(7).on_bad(on_bad);
    let (mut batches, mut aside) = (Vec::new(), Vec::new());
    let res = b.for_each_batch_with_bad(
        &mut Source::open(f.path()).unwrap(),
        schema(),
        |batch| {
            batches.push(batch);
            Ok(())
        },
        |bad| {
            aside.extend(bad);
            Ok(())
        },
    );
    (batches, aside, res)
}

/// The batches' rows as JSON lines (arrow-json's writer): equal text,
/// equal values, whatever the batches' sizes.
fn rows_of(batches: &[RecordBatch]) -> String {
    let mut w = arrow_json::LineDelimitedWriter::new(Vec::new());
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    String::from_utf8(w.into_inner()).unwrap()
}

#[test]
fn good_records_read_on_and_broken_ones_are_put_aside_in_order() {
    for (seed, crlf) in [(1u64, false), (2, true), (3, false), (4, true)] {
        let (all, clean, want) = generate(seed, 400, crlf);
        assert!(want.len() > 40, "the generator placed broken records");
        let (clean_batches, none, res) = read(&clean, 1, 1 << 20, OnBad::Fail);
        let clean_rows = res.unwrap();
        assert!(none.is_empty());
        let clean = rows_of(&clean_batches);
        assert_eq!(clean.lines().count() as u64, clean_rows);
        // Without putting aside, the first broken record stops the read.
        let (_, _, res) = read(&all, 1, 1 << 20, OnBad::Fail);
        let err = res.unwrap_err().to_string();
        let (_, byte, line, record) = &want[0];
        assert!(
            err.contains(&format!("record {record} (line {line}, byte ")),
            "{err} names record {record} at byte {byte}"
        );
        for threads in [1, 2, 3] {
            for chunk in [1u64, 64, 500, 1 << 20] {
                let (batches, aside, res) = read(&all, threads, chunk, OnBad::PutAside);
                let at = format!("seed {seed}, {threads} threads, chunk {chunk}");
                assert_eq!(res.unwrap(), clean_rows, "{at}");
                assert_eq!(rows_of(&batches), clean, "{at}: the good records' rows");
                let got: Vec<_> = aside
                    .iter()
                    .map(|b| {
                        let p = b.position();
                        (b.bytes().to_vec(), p.byte, p.line, p.record)
                    })
                    .collect();
                assert_eq!(got, want, "{at}: the records put aside");
                for b in &aside {
                    assert!(!b.reason().is_empty());
                    let at_byte = swath_json::bad::Aside::at_byte(b);
                    assert!(
                        (b.position().byte..b.position().byte + b.bytes().len() as u64)
                            .contains(&at_byte),
                        "{at}: the byte found wrong is in the record"
                    );
                }
            }
        }
    }
}

#[test]
fn a_value_that_does_not_fit_names_its_field() {
    let text = format!("{}\n{}\n", good(1), broken(2, 3));
    let (_, aside, res) = read(text.as_bytes(), 1, 1 << 20, OnBad::PutAside);
    assert_eq!(res.unwrap(), 1);
    assert_eq!(aside.len(), 1);
    assert_eq!(aside[0].field(), Some("items.[].n"));
    assert_eq!(
        swath_json::bad::Aside::reason(&aside[0]),
        format!("field \"items.[].n\": {}", aside[0].reason())
    );
}

#[test]
fn a_documents_broken_records_are_put_aside_with_their_bytes() {
    // Every kind but the cut string, which leaves the array unframed.
    let elements: Vec<(String, bool)> = (0..60u64)
        .map(|i| match i % 9 {
            4 if (i / 9) % 7 != 0 => (broken(i, i / 9), true),
            _ => (good(i), false),
        })
        .collect();
    assert!(elements.iter().filter(|e| e.1).count() >= 5);
    let texts: Vec<&str> = elements.iter().map(|e| e.0.as_str()).collect();
    let doc = format!("[\n{}\n]\n", texts.join(",\n"));
    let f = temp(doc.as_bytes());
    let expected: Vec<&[u8]> = elements.iter().filter(|e| e.1).map(|e| e.0.as_bytes()).collect();
    for threads in [1, 2] {
        let mut b = JsonReaderBuilder::new();
        b.threads(threads)
            .chunk_size(256)
            .records(Records::Array(Vec::new()))
            .on_bad(OnBad::PutAside);
        let mut aside = Vec::new();
        let mut rows = 0;
        let res = b.for_each_batch_with_bad(
            &mut Source::open(f.path()).unwrap(),
            schema(),
            |batch| {
                rows += batch.num_rows();
                Ok(())
            },
            |bad| {
                aside.extend(bad);
                Ok(())
            },
        );
        let bad: Vec<&[u8]> = aside.iter().map(|b| b.bytes()).collect();
        assert_eq!(bad, expected, "{threads} threads");
        assert_eq!(res.unwrap() as usize, rows);
        assert_eq!(rows + bad.len(), elements.len());
        for b in &aside {
            let start = b.position().byte as usize;
            assert_eq!(&doc.as_bytes()[start..start + b.bytes().len()], b.bytes());
        }
    }
}

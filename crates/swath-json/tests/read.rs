//! The reader against its slow twin, arrow-json, and against itself on one
//! thread; positions of every kind of bad input.

use std::io::Write;
use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch, StringArray, StructArray};
use arrow_schema::{DataType, Field, Fields, Schema, SchemaRef, TimeUnit};
use swath::Source;
use swath_json::{Infer, JsonReaderBuilder};

fn temp(bytes: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(bytes).unwrap();
    f.flush().unwrap();
    f
}

fn read_all(b: &JsonReaderBuilder, path: &std::path::Path, schema: &SchemaRef) -> RecordBatch {
    let mut src = Source::open(path).unwrap();
    let mut batches = Vec::new();
    b.for_each_batch(&mut src, schema.clone(), |batch| {
        batches.push(batch);
        Ok(())
    })
    .unwrap();
    arrow_select::concat::concat_batches(schema, &batches).unwrap()
}

/// arrow-json without chrono-tz knows only offsets: "UTC" as "+00:00",
/// the same instants.
fn with_offset_tz(schema: &Schema) -> SchemaRef {
    fn fix(t: &DataType) -> DataType {
        match t {
            DataType::Timestamp(u, Some(_)) => DataType::Timestamp(*u, Some("+00:00".into())),
            DataType::Struct(fs) => DataType::Struct(
                fs.iter()
                    .map(|f| Arc::new(Field::new(f.name(), fix(f.data_type()), true)))
                    .collect(),
            ),
            DataType::List(f) => {
                DataType::List(Arc::new(Field::new(f.name(), fix(f.data_type()), true)))
            }
            other => other.clone(),
        }
    }
    Arc::new(Schema::new(
        schema
            .fields()
            .iter()
            .map(|f| Field::new(f.name(), fix(f.data_type()), true))
            .collect::<Vec<_>>(),
    ))
}

fn arrow_json(bytes: &[u8], schema: &SchemaRef) -> RecordBatch {
    let rdr = arrow_json::ReaderBuilder::new(schema.clone())
        .with_batch_size(1 << 20)
        .build(std::io::Cursor::new(bytes))
        .unwrap();
    let batches: Vec<_> = rdr.map(Result::unwrap).collect();
    arrow_select::concat::concat_batches(schema, &batches).unwrap()
}

#[test]
fn values_equal_arrow_json_and_inference_finds_every_type() {
    let doc = swath_testkit::json_document(11, 5000);
    let f = temp(doc.as_bytes());
    let mut b = JsonReaderBuilder::new();
    b.infer(Infer::Full);
    let inferred = b.infer_schema(f.path()).unwrap();
    assert_eq!(inferred.lines, 5000);
    let s = &inferred.schema;
    let ty = |n: &str| s.field_with_name(n).unwrap().data_type().clone();
    assert_eq!(ty("id"), DataType::Int64);
    assert_eq!(ty("name"), DataType::Utf8);
    assert_eq!(ty("score"), DataType::Float64);
    assert_eq!(ty("big"), DataType::Int64);
    assert_eq!(ty("ok"), DataType::Boolean);
    assert_eq!(ty("ts"), DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())));
    assert_eq!(ty("day"), DataType::Date32);
    assert!(matches!(ty("obj"), DataType::Struct(_)));
    assert!(matches!(ty("arr"), DataType::List(_)));
    assert!(matches!(ty("extra"), DataType::Struct(_)));

    // arrow-json cannot read `extra.x` (a list of an int and an object):
    // compare without it; it is checked on its own below.
    let fields: Vec<_> = s.fields().iter().filter(|f| f.name() != "extra").cloned().collect();
    let schema = with_offset_tz(&Schema::new(fields));
    b.threads(1).batch_size(1 << 20);
    let ours = read_all(&b, f.path(), &schema);
    let theirs = arrow_json(doc.as_bytes(), &schema);
    assert_eq!(ours.num_rows(), 5000);
    for (i, field) in schema.fields().iter().enumerate() {
        assert_eq!(ours.column(i).to_data(), theirs.column(i).to_data(), "{}", field.name());
    }
}

#[test]
fn mixed_values_are_text_strings_as_their_value() {
    let doc = concat!(
        "{\"v\":\"a\\u00e9\"}\n",
        "{\"v\":12}\n",
        "{\"v\":{\"k\": [1, true]}}\n",
        "{\"v\":null}\n",
        "{\"v\":-1.5e3}\n",
        "{}\n",
    );
    let f = temp(doc.as_bytes());
    let b = JsonReaderBuilder::new();
    let inferred = b.infer_schema(f.path()).unwrap();
    assert_eq!(inferred.schema.field(0).data_type(), &DataType::Utf8);
    let got = read_all(&b, f.path(), &inferred.schema);
    let col = got.column(0).as_any().downcast_ref::<arrow_array::StringArray>().unwrap();
    let vals: Vec<Option<&str>> = col.iter().collect();
    // Compact JSON text, whatever the spacing written.
    assert_eq!(
        vals,
        [Some("aé"), Some("12"), Some("{\"k\":[1,true]}"), None, Some("-1.5e3"), None]
    );
}

#[test]
fn parallel_equals_sequential_for_every_thread_count_and_chunk() {
    let doc = swath_testkit::json_document(5, 3000);
    // Blank lines, a BOM, CRLF and no final newline: the places ranges cut.
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    for (i, l) in doc.lines().enumerate() {
        bytes.extend_from_slice(l.as_bytes());
        bytes.extend_from_slice(if i % 7 == 0 { b"\r\n" } else { b"\n" });
        if i % 50 == 0 {
            bytes.extend_from_slice(b"   \n\n");
        }
    }
    bytes.pop();
    let f = temp(&bytes);
    let mut b = JsonReaderBuilder::new();
    b.infer(Infer::Full);
    let schema = b.infer_schema(f.path()).unwrap().schema;
    b.threads(1);
    let one = read_all(&b, f.path(), &schema);
    assert_eq!(one.num_rows(), 3000);
    let mut src = Source::open(f.path()).unwrap();
    let counted = b.count(&mut src).unwrap();
    assert_eq!(counted.records, 3000);
    for threads in 1..=8 {
        for chunk in [97u64, 1000, 4096, 1 << 20] {
            b.threads(threads).chunk_size(chunk).batch_size(333);
            assert_eq!(read_all(&b, f.path(), &schema), one, "{threads} threads, {chunk} B chunks");
            let mut src = Source::open(f.path()).unwrap();
            assert_eq!(b.count(&mut src).unwrap(), counted, "{threads} threads, {chunk} B chunks");
        }
    }
    // A stream (gzip) reads the same.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&bytes).unwrap();
    let g = temp(&gz.finish().unwrap());
    b.threads(4).chunk_size(1000);
    assert_eq!(read_all(&b, g.path(), &schema), one);
}

/// The error every reader setting gives for `bytes`.
fn errors(bytes: &[u8], schema: Option<SchemaRef>, max_line: usize) -> Vec<String> {
    let f = temp(bytes);
    let mut out = Vec::new();
    for (threads, chunk) in [(1, 1 << 20), (2, 64), (3, 1000), (8, 1 << 20)] {
        let mut b = JsonReaderBuilder::new();
        b.threads(threads).chunk_size(chunk).max_line_len(max_line);
        let schema = schema.clone().unwrap_or_else(|| b.infer_schema(f.path()).unwrap().schema);
        let mut src = Source::open(f.path()).unwrap();
        let err = b.for_each_batch(&mut src, schema, |_| Ok(())).unwrap_err().to_string();
        out.push(err.replace(&f.path().display().to_string(), "F"));
    }
    out.dedup();
    out
}

#[test]
fn a_broken_line_in_the_middle_is_named_by_record_line_and_byte() {
    let mut doc = String::new();
    for i in 0..2000 {
        if i == 1234 {
            doc.push_str("{\"a\":1,\"b\":\"x\" \"c\":2}\n");
        } else {
            doc.push_str(&format!("{{\"a\":{i},\"b\":\"x\"}}\n"));
        }
        if i == 10 {
            doc.push('\n'); // a blank line: a line, not a record
        }
    }
    let byte = doc.find("\"x\" \"c\"").unwrap() + 4;
    assert_eq!(
        errors(doc.as_bytes(), None, 1 << 20),
        [format!("F: record 1235 (line 1236, byte {byte}): expected ',' or '}}' after a member")]
    );
}

#[test]
fn a_value_that_does_not_fit_names_its_field() {
    let schema = Arc::new(Schema::new(vec![Field::new(
        "req",
        DataType::Struct(vec![Field::new("status", DataType::Int64, true)].into()),
        true,
    )]));
    let doc = "{\"req\":{\"status\":200}}\n{\"req\":{\"status\":\"OK\"}}\n";
    assert_eq!(
        errors(doc.as_bytes(), Some(schema), 1 << 20),
        ["F: record 2 (line 2, byte 40): field \"req.status\": \"OK\" does not fit int64"]
    );
}

#[test]
fn invalid_utf8_and_duplicate_keys_and_a_line_over_the_limit() {
    let doc = b"{\"a\":\"ok\"}\n{\"a\":\"\xff\"}\n";
    assert_eq!(errors(doc, None, 1 << 20), ["F: record 2 (line 2, byte 17): invalid UTF-8"]);
    let doc = b"{\"a\":1}\n{\"a\":1,\"a\":2}\n";
    assert_eq!(
        errors(doc, None, 1 << 20),
        ["F: record 2 (line 2, byte 15): the key \"a\" twice in one object"]
    );
    let mut doc = String::new();
    for i in 0..300 {
        doc.push_str(&format!(
            "{{\"a\":\"{}\"}}\n",
            if i == 200 { "y".repeat(5000) } else { "x".into() }
        ));
    }
    let byte = doc.find("yyy").unwrap() - 6;
    assert_eq!(
        errors(doc.as_bytes(), None, 4096),
        [format!("F: line 201 (byte {byte}): line longer than the limit of 4096 bytes")]
    );
}

#[test]
fn a_truncated_gzip_is_an_error_after_the_lines_before_it() {
    let doc = swath_testkit::json_document(3, 20_000);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(doc.as_bytes()).unwrap();
    let gz = gz.finish().unwrap();
    let f = temp(&gz[..gz.len() / 2]);
    let b = JsonReaderBuilder::new();
    let mut src = Source::open(f.path()).unwrap();
    let err = b.count(&mut src).unwrap_err().to_string();
    assert!(
        err.contains("gzip") || err.contains("truncated") || err.contains("unexpected end"),
        "{err}"
    );
}

#[test]
fn check_reports_every_problem_in_order() {
    let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, true)]));
    let doc = "{\"n\":1}\n[1]\n{\"n\":1.5}\n\n{\"n\":\n{\"n\":2}\nnope\n";
    let f = temp(doc.as_bytes());
    for threads in [1, 3] {
        let mut b = JsonReaderBuilder::new();
        b.threads(threads).chunk_size(7);
        let mut seen = Vec::new();
        let mut src = Source::open(f.path()).unwrap();
        let counted = b
            .check(&mut src, Some(schema.clone()), |p| {
                seen.push(format!("{} {:?} {}", p.pos, p.field, p.reason));
                true
            })
            .unwrap();
        assert_eq!(counted.records, 6);
        assert_eq!(counted.lines, 7);
        assert_eq!(
            seen,
            [
                "record 2 (line 2, byte 8) None not an object (one object a line)",
                "record 3 (line 3, byte 17) Some(\"n\") 1.5 does not fit int64",
                "record 4 (line 5, byte 28) None a value is missing",
                "record 6 (line 7, byte 37) None not a JSON value",
            ]
        );
    }
}

/// An engine's byte ranges, cut anywhere, read the same rows as the whole
/// file; an error in one range names the same record, line and byte.
#[test]
fn ranges_cut_anywhere_read_every_line_once() {
    let doc = swath_testkit::json_document(8, 2000);
    let f = temp(doc.as_bytes());
    let mut b = JsonReaderBuilder::new();
    b.infer(Infer::Full).threads(1);
    let schema = b.infer_schema(f.path()).unwrap().schema;
    let whole = read_all(&b, f.path(), &schema);
    let (file, len) = swath::range::open_ranged(f.path()).unwrap();
    for parts in [1u64, 2, 3, 7, 64] {
        b.chunk_size(1000);
        let mut batches = Vec::new();
        for p in 0..parts {
            let range = len * p / parts..len * (p + 1) / parts;
            let rdr = b.range_batches(file.clone(), len, range, schema.clone(), None).unwrap();
            batches.extend(rdr.map(Result::unwrap));
        }
        let got = arrow_select::concat::concat_batches(&schema, &batches).unwrap();
        assert_eq!(got, whole, "{parts} ranges");
    }
    let mut bad = doc.clone();
    let at = bad.len() * 2 / 3;
    let at = at + bad[at..].find('\n').unwrap() + 1;
    bad.insert_str(at, "{\"id\":\n");
    let g = temp(bad.as_bytes());
    let mut src = Source::open(g.path()).unwrap();
    let want = b.for_each_batch(&mut src, schema.clone(), |_| Ok(())).unwrap_err().to_string();
    let (file, len) = swath::range::open_ranged(g.path()).unwrap();
    let name = Some(g.path().to_path_buf());
    let mut rdr = b.range_batches(file, len, len / 2..len, schema, name).unwrap();
    let got = loop {
        match rdr.next_batch() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("no error"),
            Err(e) => break e.to_string(),
        }
    };
    assert_eq!(got, want);
    assert!(want.contains(&format!("byte {}", at + 6)), "{want}");
}

#[test]
fn batches_pulled_from_a_thread_equal_the_pushed_ones_and_end_with_the_error() {
    let doc = swath_testkit::json_document(2, 3000);
    let f = temp(doc.as_bytes());
    let mut b = JsonReaderBuilder::new();
    b.chunk_size(5000);
    let schema = b.infer_schema(f.path()).unwrap().schema;
    let want = read_all(&b, f.path(), &schema);
    let rdr = b.into_batches(Source::open(f.path()).unwrap(), schema.clone()).unwrap();
    let got: Vec<_> = rdr.map(Result::unwrap).collect();
    assert_eq!(arrow_select::concat::concat_batches(&schema, &got).unwrap(), want);
    // Dropped early: the thread stops.
    let mut rdr = b.into_batches(Source::open(f.path()).unwrap(), schema.clone()).unwrap();
    assert!(rdr.next_batch().unwrap().is_some());
    drop(rdr);
    let g = temp(format!("{}{{\"id\":\n", doc).as_bytes());
    let rdr = b.into_batches(Source::open(g.path()).unwrap(), schema).unwrap();
    let last = rdr.last().unwrap().unwrap_err().to_string();
    assert!(last.contains("record 3001 (line 3001"), "{last}");
}

#[test]
fn full_inference_reopens_a_compressed_file_and_refuses_a_pipe() {
    let doc = swath_testkit::json_document(6, 500);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(doc.as_bytes()).unwrap();
    let g = temp(&gz.finish().unwrap());
    let mut b = JsonReaderBuilder::new();
    b.infer(Infer::Full);
    let (inferred, mut src) = b.infer_and_replay(Source::open(g.path()).unwrap()).unwrap();
    assert_eq!(inferred.lines, 500);
    let n = b.for_each_batch(&mut src, inferred.schema, |_| Ok(())).unwrap();
    assert_eq!(n, 500);
    let pipe = Source::from_reader(std::io::Cursor::new(doc.into_bytes()), None);
    let err = b.infer_and_replay(pipe).unwrap_err().to_string();
    assert!(err.contains("reads the input twice"), "{err}");
}

/// Keys found by hash (more than 16 fields) and by a scan (a projection
/// of a few), in any order, escaped or not.
#[test]
fn keys_are_found_by_hash_and_by_scan_in_any_order() {
    let mut doc = String::new();
    for row in 0..50i64 {
        let mut members: Vec<String> =
            (0..20).map(|k| format!("\"k{k}\":{}", row * 100 + k)).collect();
        members.rotate_left((row % 20) as usize);
        members[0] = members[0].replacen("\"k", "\"\\u006b", 1);
        doc.push_str(&format!("{{{}}}\n", members.join(",")));
    }
    let f = temp(doc.as_bytes());
    let b = JsonReaderBuilder::new();
    let all: Vec<Field> =
        (0..20).map(|k| Field::new(format!("k{k}"), DataType::Int64, true)).collect();
    let few = vec![all[17].clone(), all[3].clone()];
    for fields in [all, few] {
        let schema = Arc::new(Schema::new(fields));
        let got = read_all(&b, f.path(), &schema);
        for (i, field) in schema.fields().iter().enumerate() {
            let k: i64 = field.name()[1..].parse().unwrap();
            let col = got.column(i).as_any().downcast_ref::<arrow_array::Int64Array>().unwrap();
            let want: Vec<i64> = (0..50).map(|row| row * 100 + k).collect();
            assert_eq!(col.values().to_vec(), want, "{}", field.name());
        }
    }
}

/// The decoder learns each object's key order from the line before and
/// checks the next key as bytes: lines that change their order, drop a
/// key, spell a key with an escape, or carry more skipped keys than it
/// keeps slots for (64) still give every value, nested objects too.
#[test]
fn learned_key_orders_give_every_value_whatever_the_next_line_does() {
    let lines = 300i64;
    let mut doc = String::new();
    for row in 0..lines {
        let unknown = |from: i64, to: i64| -> Vec<String> {
            (from..to)
                .map(|u| match (row + u) % 13 {
                    0 => format!("\"u\\u0030{u}\":[{u},{{\"a\":1}}]"),
                    _ => format!("\"u0{u}\":\"{u}\""),
                })
                .collect()
        };
        let a = if row % 11 == 0 { "\"\\u0061\"" } else { "\"a\"" };
        let mut members = vec![format!("{a}:{row}")];
        members.extend(unknown(0, 40));
        if row % 5 != 0 {
            members.push(format!("\"b\":{}", row * 2));
        }
        members.extend(unknown(40, 90));
        members.push(format!("\"n\":{{\"x\":{row},\"skip\":0,\"y\":\"{row}\"}}"));
        members.push(format!("\"c\":{}", row * 3));
        if row % 7 == 0 {
            members.reverse();
        } else if row % 3 == 0 {
            members.rotate_left(45);
        }
        doc.push_str(&format!("{{{}}}\n", members.join(",")));
    }
    let f = temp(doc.as_bytes());
    let nested = Fields::from(vec![
        Field::new("y", DataType::Utf8, true),
        Field::new("x", DataType::Int64, true),
    ]);
    let schema = Arc::new(Schema::new(vec![
        Field::new("c", DataType::Int64, true),
        Field::new("a", DataType::Int64, true),
        Field::new("n", DataType::Struct(nested), true),
        Field::new("b", DataType::Int64, true),
    ]));
    let got = read_all(&JsonReaderBuilder::new(), f.path(), &schema);
    let int = |i: usize| got.column(i).as_any().downcast_ref::<Int64Array>().unwrap().clone();
    let rows: Vec<i64> = (0..lines).collect();
    assert_eq!(int(0).values().to_vec(), rows.iter().map(|r| r * 3).collect::<Vec<_>>());
    assert_eq!(int(1).values().to_vec(), rows);
    let b: Vec<Option<i64>> = int(3).iter().collect();
    let want: Vec<Option<i64>> = rows.iter().map(|&r| (r % 5 != 0).then_some(r * 2)).collect();
    assert_eq!(b, want);
    let n = got.column(2).as_any().downcast_ref::<StructArray>().unwrap();
    let x = n.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
    let y = n.column(0).as_any().downcast_ref::<StringArray>().unwrap();
    assert_eq!(x.values().to_vec(), rows);
    let want: Vec<String> = rows.iter().map(i64::to_string).collect();
    assert_eq!(y.iter().map(|s| s.unwrap().to_string()).collect::<Vec<_>>(), want);
    // And the slow twin agrees, all of it.
    assert_eq!(got, arrow_json(doc.as_bytes(), &schema));
}

/// A key met twice in one object is an error also when the decoder
/// guessed it (the order it learned has the key after itself).
#[test]
fn a_repeated_key_is_an_error_also_when_guessed() {
    let doc = b"{\"a\":1,\"b\":2}\n{\"a\":1,\"b\":2}\n{\"a\":1,\"b\":2,\"b\":3}\n";
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Int64, true),
    ]));
    assert_eq!(
        errors(doc, Some(schema), 1 << 20),
        ["F: record 3 (line 3, byte 41): the key \"b\" twice in one object"]
    );
}

/// Sampled inference sees exactly the lines its plan names, against an
/// obvious twin: the head's lines, then over the bytes after them
/// `points` equal gaps, and in each up to `per_point` lines that start in
/// it. Every line has a field of its own, so the schema's fields are the
/// lines seen, in order; any thread count gives the same.
#[test]
fn sampled_inference_sees_the_head_and_the_lines_that_start_in_each_gap() {
    let mut doc = String::new();
    let mut starts = Vec::new();
    let mut rng = swath_testkit::Rng::new(48);
    for i in 0..6000 {
        starts.push(doc.len() as u64);
        let pad = "x".repeat(rng.below(90) as usize);
        doc.push_str(&format!("{{\"f{i}\":1,\"pad\":\"{pad}\"}}\n"));
    }
    let len = doc.len() as u64;
    let f = temp(doc.as_bytes());
    for (head, points, per_point) in [(100, 7, 3), (1, 64, 200), (0, 5, 2), (5000, 1000, 1)] {
        // The twin.
        let mut want: Vec<usize> = (0..head).collect();
        let after = starts[head];
        for k in 0..points as u64 {
            let gap = after + (len - after) * k / points as u64
                ..after + (len - after) * (k + 1) / points as u64;
            want.extend((0..starts.len()).filter(|&i| gap.contains(&starts[i])).take(per_point));
        }
        for threads in [1, 4] {
            let mut b = JsonReaderBuilder::new();
            // A 64 KiB window: the head's is not the whole file.
            b.infer(Infer::Sample { head, points, per_point })
                .threads(threads)
                .max_line_len(64 << 10);
            let got = b.infer_schema(f.path()).unwrap();
            let fields: Vec<usize> = got
                .schema
                .fields()
                .iter()
                .filter_map(|f| f.name().strip_prefix('f')?.parse().ok())
                .collect();
            assert_eq!(fields, want, "head {head}, {points} x {per_point}, {threads} threads");
            assert_eq!(got.lines, want.len() as u64);
        }
    }
}

//! Records from JSON documents (a top-level array, a wrapper object,
//! objects one after another, pretty-printed or not) against their slow
//! twin: serde_json parsing the whole document, its records written as
//! JSON lines and read by the lines reader. Parallel equals sequential at
//! every thread count and chunk size down to one byte; errors are the
//! same everywhere and name their place.

use std::io::Write;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use serde_json::{json, Value};
use swath::Source;
use swath_json::{Infer, JsonReaderBuilder, Records, Shape};

fn temp(bytes: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(bytes).unwrap();
    f.flush().unwrap();
    f
}

/// Strings that cross every seam a framer could get wrong.
const NASTY: &[&str] = &[
    "plain",
    "]",
    "}",
    "[{",
    ",",
    "\"",
    "\\",
    "\\\"",
    "\"\\",
    "\\\\\"]",
    "a\nb",
    "é ☃ 😀",
    "",
    "{\"k\":[1,2]}",
    "\\u0022",
];

fn records(seed: u64, n: usize) -> Vec<Value> {
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = move |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    (0..n)
        .map(|i| {
            let s = NASTY[next(NASTY.len() as u64) as usize];
            let t = NASTY[next(NASTY.len() as u64) as usize];
            let mut r = json!({"id": i, "s": s, "nested": {"x": [t, {"y": s}], "n": next(1000)}});
            if next(3) == 0 {
                r["tags"] = json!([s, t, "]"]);
            }
            if next(4) == 0 {
                r["maybe"] = Value::Null;
            }
            r
        })
        .collect()
}

/// The document forms: (bytes, how to ask for the records).
fn forms(recs: &[Value]) -> Vec<(String, Vec<u8>, Records)> {
    let compact = |v: &Value| serde_json::to_string(v).unwrap();
    let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap();
    let array = Value::Array(recs.to_vec());
    let wrapper = json!({"meta": {"a": [1, {"b": "]"}]}, "data": {"items": array.clone(), "n": 2}, "tail": "}"});
    let values_pretty: String = recs.iter().map(|r| pretty(r) + "\n").collect();
    let values_tight: String = recs.iter().map(compact).collect::<Vec<_>>().join(" ");
    vec![
        ("array".into(), compact(&array).into_bytes(), Records::Auto),
        ("array, pretty".into(), pretty(&array).into_bytes(), Records::Auto),
        (
            "array, BOM and spaces".into(),
            format!(
                "\u{feff} \n[ {} ] \n",
                recs.iter().map(compact).collect::<Vec<_>>().join(" ,\n ")
            )
            .into_bytes(),
            Records::Array(vec![]),
        ),
        (
            "CloudTrail".into(),
            compact(&json!({"Records": array.clone()})).into_bytes(),
            Records::Auto,
        ),
        ("wrapper".into(), pretty(&wrapper).into_bytes(), "data.items".parse().unwrap()),
        ("values, pretty".into(), values_pretty.into_bytes(), Records::Auto),
        ("values, one line".into(), values_tight.into_bytes(), Records::Values),
    ]
}

fn twin_lines(recs: &[Value]) -> Vec<u8> {
    recs.iter().map(|r| serde_json::to_string(r).unwrap() + "\n").collect::<String>().into_bytes()
}

fn read(b: &JsonReaderBuilder, mut src: Source, schema: &SchemaRef) -> Result<RecordBatch, String> {
    let mut batches = Vec::new();
    b.for_each_batch(&mut src, schema.clone(), |batch| {
        batches.push(batch);
        Ok(())
    })
    .map_err(|e| e.to_string())?;
    Ok(arrow_select::concat::concat_batches(schema, &batches).unwrap())
}

fn stream(bytes: &[u8]) -> Source {
    Source::from_reader(std::io::Cursor::new(bytes.to_vec()), None)
}

#[test]
fn every_form_reads_as_its_records_written_as_lines() {
    let recs = records(7, 60);
    let lines = twin_lines(&recs);
    let mut full = JsonReaderBuilder::new();
    full.infer(Infer::Full).records(Records::Lines);
    let twin_file = temp(&lines);
    let schema = full.infer_schema(twin_file.path()).unwrap().schema;
    let want = read(&full, Source::open(twin_file.path()).unwrap(), &schema).unwrap();
    assert_eq!(want.num_rows(), 60);
    for (name, bytes, asked) in forms(&recs) {
        let f = temp(&bytes);
        // Inference from the document finds the lines' schema.
        let mut inf = JsonReaderBuilder::new();
        inf.infer(Infer::Full).records(asked.clone());
        assert_eq!(inf.infer_schema(f.path()).unwrap().schema, schema, "{name}: inferred");
        for threads in [1, 2, 3, 4] {
            let mut chunks: Vec<u64> = (1..=24).collect();
            chunks.extend([31, 64, 100, 257, 1000, 4096, 1 << 20]);
            for chunk in chunks {
                let mut b = JsonReaderBuilder::new();
                b.threads(threads).chunk_size(chunk).batch_size(7).records(asked.clone());
                let got = read(&b, Source::open(f.path()).unwrap(), &schema).unwrap();
                assert_eq!(got, want, "{name}: {threads} threads, chunks of {chunk}");
                let mut counted = b.count(&mut Source::open(f.path()).unwrap()).unwrap();
                assert_eq!(counted.records, 60, "{name}: count, {threads} threads, {chunk}");
                if threads == 1 {
                    let got = read(&b, stream(&bytes), &schema).unwrap();
                    assert_eq!(got, want, "{name}: a stream, chunks of {chunk}");
                    let lines = bytes.iter().filter(|&&c| c == b'\n').count() as u64
                        + u64::from(bytes.last() != Some(&b'\n'));
                    counted = b.count(&mut stream(&bytes)).unwrap();
                    assert_eq!(
                        (counted.records, counted.lines),
                        (60, lines),
                        "{name}: stream count"
                    );
                    let ranged = b.count(&mut Source::open(f.path()).unwrap()).unwrap();
                    assert_eq!(ranged.lines, lines, "{name}: lines counted, chunks of {chunk}");
                }
            }
        }
    }
}

/// The error a document gives, read every way: the same message from a
/// stream and from ranges of every size on every thread count.
fn error_everywhere(bytes: &[u8], asked: &Records) -> String {
    let schema: SchemaRef =
        std::sync::Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
            "a",
            arrow_schema::DataType::Int64,
            true,
        )]));
    let f = temp(bytes);
    let mut b = JsonReaderBuilder::new();
    b.threads(1).records(asked.clone());
    let first = read(&b, stream(bytes), &schema).expect_err("an error");
    for threads in [1, 2, 3] {
        for chunk in (1..=bytes.len() as u64 + 1).chain([4096]) {
            let mut b = JsonReaderBuilder::new();
            b.threads(threads).chunk_size(chunk).records(asked.clone());
            let got = read(&b, Source::open(f.path()).unwrap(), &schema).expect_err("an error");
            let got = got.split_once(": ").map_or(got.clone(), |(_, rest)| rest.to_string());
            assert_eq!(
                got,
                first,
                "{threads} threads, chunks of {chunk}: {:?}",
                String::from_utf8_lossy(bytes)
            );
            // `count` checks objects, not the schema's types.
            if !first.contains("field ") {
                let counted = b.count(&mut Source::open(f.path()).unwrap());
                let counted = counted.expect_err("count fails too").to_string();
                let counted =
                    counted.split_once(": ").map_or(counted.clone(), |(_, r)| r.to_string());
                assert_eq!(counted, first, "count, {threads} threads, chunks of {chunk}");
            }
        }
    }
    first
}

#[test]
fn bad_documents_fail_at_the_same_place_every_way() {
    let auto = Records::Auto;
    let records: Records = "Records".parse().unwrap();
    let cases: &[(&str, &Records, &str)] = &[
        ("[{\"a\":1},{\"a\":2},]", &auto, "record 3 (line 1, byte 17): a ',' before the array's ']' (a trailing comma)"),
        ("[{\"a\":1},{\"a\":2}", &auto, "record 3 (line 1, byte 16): the input ends before the records array's ']'"),
        ("[{\"a\":1} {\"a\":2}]", &auto, "record 2 (line 1, byte 9): expected ',' or ']' after a record"),
        ("[{\"a\":1},,{\"a\":2}]", &auto, "record 2 (line 1, byte 9): expected a record, found ','"),
        ("[{\"a\":1},[1]]", &auto, "record 2 (line 1, byte 9): not an object (one object a line)"),
        ("[{\"a\":1},\"x\"]", &auto, "record 2 (line 1, byte 9): not an object (one object a line)"),
        ("[{\"a\":1}, 12 ]", &auto, "record 2 (line 1, byte 10): not an object (one object a line)"),
        ("[{\"a\":1}] x", &auto, "line 1 (byte 10): text after the document that holds the records"),
        ("[\n{\"a\":1},\n{\"a\":\n\"x\ny\"}\n]", &auto, "record 2 (line 4, byte 19): a control character in a string (escape it)"),
        ("[{\"a\":1},{\"a\":\"\\\\\"}]", &auto, "record 2 (line 1, byte 14): field \"a\": \"\\\\\" does not fit int64"),
        ("[{\"a\":1},{\"a\":\"\\q\"}]", &auto, "record 2 (line 1, byte 15): invalid escape"),
        ("{\"Records\":[{\"a\":1}],\"x\":}", &records, "line 1 (byte 25): not a JSON value"),
        ("{\n \"a\": 1\n}\n}", &auto, "record 2 (line 4, byte 12): a closing bracket that closes nothing"),
        ("{\"a\":1},{\"a\":2}", &Records::Values, "record 2 (line 1, byte 7): a ',' between records (outside an array, records follow one another)"),
    ];
    // Nothing after the array's `[` (found by the fuzzer: no range to
    // read, and the parallel count said 0).
    let got = error_everywhere(b"[", &auto);
    assert_eq!(got, "record 1 (line 1, byte 1): the input ends before the records array's ']'");
    for (doc, asked, want) in cases {
        let got = error_everywhere(doc.as_bytes(), asked);
        assert_eq!(&got, want, "{doc:?}");
    }
    // Invalid UTF-8 inside a string of a pretty record.
    let got = error_everywhere(b"[\n {\"a\": 1,\n  \"b\": \"\xff\"}\n]", &auto);
    assert_eq!(got, "record 1 (line 3, byte 20): invalid UTF-8");
}

#[test]
fn records_not_where_asked_say_so() {
    let f = temp(b"{\"data\": {\"n\": 1}, \"items\": 3}");
    for (asked, want) in [
        ("data.items", "no records' array: data has no member \"items\""),
        ("items", "no records' array: items is not an array"),
        ("nope", "no records' array: the top level has no member \"nope\""),
        ("$", "no records' array: the top-level value is not an array"),
    ] {
        let mut b = JsonReaderBuilder::new();
        b.records(asked.parse().unwrap());
        let err = b.count(&mut Source::open(f.path()).unwrap()).unwrap_err().to_string();
        assert!(err.ends_with(want), "{asked}: {err}");
        let err =
            b.count(&mut stream(b"{\"data\": {\"n\": 1}, \"items\": 3}")).unwrap_err().to_string();
        assert!(err.ends_with(want), "{asked}, a stream: {err}");
    }
}

#[test]
fn a_record_over_the_limit_is_an_error_at_its_start() {
    let doc = format!("[{{\"a\":1}}, {{\"a\":\"{}\"}}]", "x".repeat(5000));
    let f = temp(doc.as_bytes());
    for threads in [1, 2] {
        let mut b = JsonReaderBuilder::new();
        b.threads(threads).chunk_size(100).max_line_len(1000);
        let err = b.count(&mut Source::open(f.path()).unwrap()).unwrap_err().to_string();
        assert!(
            err.contains(
                "record 2 (line 1, byte 10): a record longer than the limit of 1000 bytes"
            ),
            "{err}"
        );
        let err = b.count(&mut stream(doc.as_bytes())).unwrap_err().to_string();
        assert!(
            err.contains("record 2 (line 1, byte 10): a record longer than the limit"),
            "{err}"
        );
    }
}

#[test]
fn a_first_record_longer_than_the_window_is_read_whole_for_inference() {
    // A pretty array whose first record is 3 MiB (the window is 1 MiB):
    // its fields are in the schema, from a file and from a stream.
    let big: String = (0..60_000).map(|i| format!("    \"k{i}\": {i},\n")).collect();
    let doc = format!("[\n  {{\n{big}    \"last\": \"x\"\n  }},\n  {{\"other\": 1}}\n]\n");
    assert!(doc.len() > 1 << 20);
    let f = temp(doc.as_bytes());
    let b = JsonReaderBuilder::new();
    let from_file = b.infer_schema(f.path()).unwrap();
    let (from_stream, _) = b.infer_and_replay(stream(doc.as_bytes())).unwrap();
    for (how, inferred) in [("file", &from_file), ("stream", &from_stream)] {
        let s = &inferred.schema;
        assert!(s.field_with_name("k59999").is_ok(), "{how}");
        assert!(s.field_with_name("last").is_ok(), "{how}");
        assert!(s.field_with_name("other").is_ok(), "{how}");
        assert_eq!(inferred.shape.start(), 1, "{how}");
    }
}

#[test]
fn a_wrapper_longer_than_the_window_written_with_spaces_is_found() {
    // CloudTrail's `{"Records": [...]}` as Python's json.dumps writes it
    // (a space after each colon and comma), longer than the 1 MiB window:
    // auto-detection names the array and its first byte after the space.
    let recs = records(11, 16_000);
    let body: Vec<String> = recs.iter().map(|r| serde_json::to_string(r).unwrap()).collect();
    let doc = format!("{{\"Records\": [{}]}}", body.join(", "));
    assert!(doc.len() > 1 << 20, "{} bytes", doc.len());
    let lines = twin_lines(&recs);
    let mut full = JsonReaderBuilder::new();
    full.infer(Infer::Full).records(Records::Lines);
    let twin_file = temp(&lines);
    let schema = full.infer_schema(twin_file.path()).unwrap().schema;
    let want = read(&full, Source::open(twin_file.path()).unwrap(), &schema).unwrap();
    let f = temp(doc.as_bytes());
    for threads in [1, 2] {
        let mut b = JsonReaderBuilder::new();
        b.threads(threads);
        assert_eq!(
            b.shape(&Source::open(f.path()).unwrap()).unwrap(),
            Some(Shape::Array { path: vec!["Records".into()], start: 13 })
        );
        assert_eq!(read(&b, Source::open(f.path()).unwrap(), &schema).unwrap(), want, "{threads}");
        assert_eq!(b.count(&mut Source::open(f.path()).unwrap()).unwrap().records, 16_000);
    }
    let b = JsonReaderBuilder::new();
    assert_eq!(read(&b, stream(doc.as_bytes()), &schema).unwrap(), want, "a stream");
}

#[test]
fn records_from_a_checkpoint_are_the_records_and_errors_name_their_place() {
    // Checkpoints of one pass; reading from each gives the records from it
    // on; a record broken after the plan was made (an index of a file that
    // changed unseen) is the error `count` gives, line included.
    let recs = records(3, 400);
    let mut all = forms(&recs);
    all.push(("lines".into(), twin_lines(&recs), Records::Lines));
    for (name, bytes, asked) in all {
        let f = temp(&bytes);
        let mut b = JsonReaderBuilder::new();
        b.records(asked.clone()).chunk_size(700).threads(2);
        let plan = b.plan(&mut Source::open(f.path()).unwrap()).unwrap();
        assert_eq!(plan.records, 400, "{name}");
        assert!(plan.checkpoints.len() > 10, "{name}");
        let file: std::sync::Arc<dyn swath::ReadAt> =
            std::sync::Arc::new(std::fs::File::open(f.path()).unwrap());
        let len = bytes.len() as u64;
        for c in &plan.checkpoints {
            let mut got = Vec::new();
            b.records_from(file.clone(), len, &plan.shape, *c, None, |r| {
                got.push((r.record, serde_json::from_slice::<Value>(r.bytes).unwrap()));
                Ok(true)
            })
            .unwrap();
            let want: Vec<(u64, Value)> =
                (c.record..=400).map(|k| (k, recs[k as usize - 1].clone())).collect();
            assert_eq!(got, want, "{name}: from {c:?}");
        }
        // Break the id of record 350 in place: `"id":349` -> `"id":34,`.
        let text = String::from_utf8(bytes.clone()).unwrap();
        let key = if text.contains("\"id\": 349") { "\"id\": 349" } else { "\"id\":349" };
        let at = text.find(key).unwrap() + key.len() - 1;
        let mut broken = bytes.clone();
        broken[at] = b'}';
        let bf = temp(&broken);
        // Counted with the records where the plan found them (auto-detection
        // of a broken wrapper may find lines instead).
        let mut as_planned = b.clone();
        as_planned.records(match &plan.shape {
            Shape::Lines => Records::Lines,
            Shape::Values { .. } => Records::Values,
            Shape::Array { path, .. } => Records::Array(path.clone()),
        });
        let count =
            as_planned.count(&mut Source::open(bf.path()).unwrap()).unwrap_err().to_string();
        let file: std::sync::Arc<dyn swath::ReadAt> =
            std::sync::Arc::new(std::fs::File::open(bf.path()).unwrap());
        let c = plan.before(350);
        let e = b
            .records_from(file, len, &plan.shape, c, Some(bf.path()), |_| Ok(true))
            .unwrap_err()
            .to_string();
        assert_eq!(e, count, "{name}");
    }
}

//! SQL over JSON-lines tables: the same rows for any number of partitions
//! as the same SQL over arrow-json's reading of the file (a MemTable), and
//! as over swath-json's sequential reading; errors name the record.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::datasource::MemTable;
use swath_datafusion::{json_error, SwathJsonExt, SwathJsonOptions};
use swath_testkit::Rng;

use crate::common::{ctx, run};

const QUERIES: &[&str] = &[
    "SELECT count(*) AS n FROM t",
    "SELECT level, count(*) AS n, sum(req['status']) AS s, min(id) AS lo FROM t GROUP BY level ORDER BY level",
    "SELECT id, msg, req['ms'] AS ms FROM t ORDER BY id DESC LIMIT 7",
    "SELECT count(*) AS n FROM t WHERE msg LIKE '%é%' OR tags IS NULL",
    "SELECT id, tags FROM t WHERE id % 97 = 3",
    "SELECT user_name, count(*) FROM t GROUP BY user_name",
];

const LEVELS: &[&str] = &["info", "warn", "error"];

/// `rows` lines: nested objects, arrays, nulls, missing keys, escapes.
fn write_jsonl(path: &Path, rows: usize, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut s = String::new();
    for id in 0..rows {
        let level = LEVELS[rng.below(3) as usize];
        let status = [200, 404, 500][rng.below(3) as usize];
        let ms = rng.below(4000) as f64 / 4.0;
        let msg = match rng.below(4) {
            0 => r#"caf\u00e9 \"quoted\""#.to_string(),
            1 => "plain".to_string(),
            2 => "line\\nbreak".to_string(),
            _ => format!("n{}", rng.below(50)),
        };
        let tags = match rng.below(4) {
            0 => String::new(),
            1 => ",\"tags\":null".into(),
            2 => ",\"tags\":[]".into(),
            _ => format!(",\"tags\":[\"t{}\",\"t{}\"]", rng.below(5), rng.below(5)),
        };
        let user = if rng.below(5) == 0 {
            String::new()
        } else {
            format!(",\"user_name\":\"u{}\"", rng.below(20))
        };
        s.push_str(&format!(
            "{{\"id\":{id},\"level\":\"{level}\",\"req\":{{\"status\":{status},\"ms\":{ms}}},\"msg\":\"{msg}\"{tags}{user}}}\n"
        ));
    }
    std::fs::File::create(path).unwrap().write_all(s.as_bytes()).unwrap();
}

/// arrow-json's reading of the file with `schema`, as a table.
fn arrow_json_table(path: &Path, schema: &SchemaRef) -> Arc<MemTable> {
    let f = std::fs::File::open(path).unwrap();
    let rdr =
        arrow_json::ReaderBuilder::new(schema.clone()).build(std::io::BufReader::new(f)).unwrap();
    let batches: Vec<_> = rdr.map(Result::unwrap).collect();
    Arc::new(MemTable::try_new(schema.clone(), vec![batches]).unwrap())
}

/// swath-json's sequential reading, as a table.
fn sequential_table(path: &Path, schema: &SchemaRef) -> Arc<MemTable> {
    let mut b = swath_json::JsonReaderBuilder::new();
    b.threads(1);
    let mut batches = Vec::new();
    let mut src = swath::Source::open(path).unwrap();
    b.for_each_batch(&mut src, schema.clone(), |x| {
        batches.push(x);
        Ok(())
    })
    .unwrap();
    Arc::new(MemTable::try_new(schema.clone(), vec![batches]).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sql_over_json_lines_equals_arrow_json_and_the_sequential_reader() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    write_jsonl(&path, 20_000, 3);
    let p = path.to_str().unwrap();
    let c1 = ctx(1);
    c1.register_swath_json("t", p, SwathJsonOptions::new()).await.unwrap();
    let schema: SchemaRef = Arc::new(c1.table("t").await.unwrap().schema().as_arrow().clone());
    assert_eq!(schema.field_with_name("id").unwrap().data_type(), &DataType::Int64);
    assert!(matches!(schema.field_with_name("req").unwrap().data_type(), DataType::Struct(_)));
    let peer = ctx(1);
    peer.register_table("t", arrow_json_table(&path, &schema)).unwrap();
    let seq = ctx(1);
    seq.register_table("t", sequential_table(&path, &schema)).unwrap();
    for q in QUERIES {
        let want = run(&peer, q).await.unwrap();
        assert!(!want.is_empty(), "{q}");
        assert_eq!(run(&seq, q).await.unwrap(), want, "sequential: {q}");
        for parts in [1, 2, 3, 8] {
            let c = ctx(parts);
            let mut reader = swath_json::JsonReaderBuilder::new();
            reader.chunk_size(4096);
            c.register_swath_json("t", p, SwathJsonOptions::new().reader(reader)).await.unwrap();
            assert_eq!(run(&c, q).await.unwrap(), want, "{parts} partitions: {q}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_line_is_an_error_with_its_place_and_gzip_reads_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    write_jsonl(&path, 5000, 9);
    let mut text = std::fs::read_to_string(&path).unwrap();
    // gzip: read whole by one partition, the same answer.
    let gz = dir.path().join("t.jsonl.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(text.as_bytes()).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let want = {
        let c = ctx(1);
        c.register_swath_json("t", path.to_str().unwrap(), SwathJsonOptions::new()).await.unwrap();
        run(&c, QUERIES[1]).await.unwrap()
    };
    let c = ctx(4);
    c.register_swath_json("t", gz.to_str().unwrap(), SwathJsonOptions::new()).await.unwrap();
    assert_eq!(run(&c, QUERIES[1]).await.unwrap(), want);

    let at = text.len() * 3 / 4;
    let at = at + text[at..].find('\n').unwrap() + 1;
    let line = text[..at].matches('\n').count() + 1;
    text.insert_str(at, "{\"id\":1,\"level\":\"info\" \"x\":1}\n");
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, &text).unwrap();
    let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, true)]));
    for parts in [1, 3] {
        let c = ctx(parts);
        let opts = SwathJsonOptions::new().schema(schema.clone());
        c.register_swath_json("t", bad.to_str().unwrap(), opts).await.unwrap();
        let err = run(&c, "SELECT sum(id) FROM t").await.unwrap_err();
        let j = json_error(&err).unwrap_or_else(|| panic!("not a JSON error: {err}"));
        let pos = j.position().unwrap();
        assert_eq!(
            (pos.line, pos.record, pos.byte),
            (line as u64, line as u64, (at + 23) as u64),
            "{j}"
        );
        assert!(j.to_string().starts_with(&format!("{}: record {line}", bad.display())), "{j}");
    }
}

/// The lines of a JSON-lines file as a document: a top-level array
/// (compact or pretty-printed), CloudTrail's wrapper, or pretty objects
/// one after another.
fn as_document(lines: &str, form: &str) -> String {
    let recs: Vec<serde_json::Value> =
        lines.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    match form {
        "array" => serde_json::to_string(&recs).unwrap(),
        "pretty" => serde_json::to_string_pretty(&recs).unwrap(),
        "cloudtrail" => serde_json::to_string(&serde_json::json!({ "Records": recs })).unwrap(),
        _ => recs.iter().map(|r| serde_json::to_string_pretty(r).unwrap() + "\n").collect(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sql_over_json_documents_equals_sql_over_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    write_jsonl(&path, 6000, 5);
    let lines = std::fs::read_to_string(&path).unwrap();
    let c1 = ctx(1);
    c1.register_swath_json("t", path.to_str().unwrap(), SwathJsonOptions::new()).await.unwrap();
    for form in ["array", "pretty", "cloudtrail", "values"] {
        let doc = dir.path().join(format!("{form}.json"));
        std::fs::write(&doc, as_document(&lines, form)).unwrap();
        for q in QUERIES {
            let want = run(&c1, q).await.unwrap();
            for parts in [1, 2, 3, 8] {
                let c = ctx(parts);
                let mut reader = swath_json::JsonReaderBuilder::new();
                reader.chunk_size(1000);
                let opts = SwathJsonOptions::new().reader(reader);
                c.register_swath_json("t", doc.to_str().unwrap(), opts).await.unwrap();
                assert_eq!(run(&c, q).await.unwrap(), want, "{form}, {parts} partitions: {q}");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_record_in_a_document_is_an_error_with_its_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.jsonl");
    write_jsonl(&path, 3000, 8);
    let mut doc = as_document(&std::fs::read_to_string(&path).unwrap(), "pretty");
    // A trailing comma before the array's end.
    let end = doc.rfind(']').unwrap();
    doc.insert(end - 1, ',');
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, &doc).unwrap();
    let line = doc[..end + 1].matches('\n').count() as u64 + 1;
    let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, true)]));
    for parts in [1, 3] {
        let c = ctx(parts);
        let mut reader = swath_json::JsonReaderBuilder::new();
        reader.chunk_size(4096);
        let opts = SwathJsonOptions::new().schema(schema.clone()).reader(reader);
        c.register_swath_json("t", bad.to_str().unwrap(), opts).await.unwrap();
        let err = run(&c, "SELECT sum(id) FROM t").await.unwrap_err();
        let j = json_error(&err).unwrap_or_else(|| panic!("not a JSON error: {err}"));
        let pos = j.position().unwrap();
        assert_eq!((pos.line, pos.record, pos.byte), (line, 3001, end as u64 + 1), "{j}");
        assert!(j.to_string().contains("trailing comma"), "{j}");
    }
}

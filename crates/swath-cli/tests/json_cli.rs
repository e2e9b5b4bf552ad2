//! `swath json ...` run as the real binary: answers, exit codes, the same
//! output for any thread count, no file left behind on bad input, and real
//! peers (pyarrow.json, DuckDB) agreeing with what it writes.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use swath_arrow::arrow_array::RecordBatch;
use swath_arrow::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

fn swath() -> Command {
    Command::cargo_bin("swath").unwrap()
}

fn file(dir: &tempfile::TempDir, name: &str, data: &[u8]) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::File::create(&path).unwrap().write_all(data).unwrap();
    path
}

fn stdout(args: &[&str], input: &Path) -> String {
    let a = swath().args(args).arg(input).assert().success();
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}

/// A Parquet file's rows as one batch (the reader fills a batch across
/// row groups).
fn read_parquet(path: &Path) -> RecordBatch {
    let f = std::fs::File::open(path).unwrap();
    let mut rdr = ParquetRecordBatchReaderBuilder::try_new(f)
        .unwrap()
        .with_batch_size(1 << 24)
        .build()
        .unwrap();
    let batch = rdr.next().unwrap().unwrap();
    assert!(rdr.next().is_none());
    batch
}

/// An Arrow IPC file's rows as one batch.
fn read_arrow(path: &Path) -> RecordBatch {
    let f = std::fs::File::open(path).unwrap();
    let rdr = swath_arrow::arrow_ipc::reader::FileReader::try_new(f, None).unwrap();
    let schema = rdr.schema();
    let batches: Vec<_> = rdr.map(Result::unwrap).collect();
    arrow_select::concat::concat_batches(&schema, &batches).unwrap()
}

/// A BOM, CRLF, blank lines, a nested object, a mixed field and no final
/// newline: what the commands print.
#[test]
fn the_commands_answer_as_documented() {
    let dir = tempfile::tempdir().unwrap();
    let data = "\u{feff}{\"ts\":\"2024-01-02T03:04:05Z\",\"req\":{\"status\":200},\"v\":1}\r\n\
                \n   \n\
                {\"req\":{\"status\":500,\"ms\":2.5},\"v\":\"x\",\"tags\":[\"a\"]}";
    let input = file(&dir, "a.jsonl", data.as_bytes());
    assert_eq!(stdout(&["json", "count"], &input), "2\n");
    assert_eq!(stdout(&["json", "count", "--json"], &input), "{\"records\":2,\"lines\":4}\n");
    assert_eq!(
        stdout(&["json", "select", "-f", "req.status,v,tags,ts"], &input),
        "req.status,v,tags,ts\n200,1,,2024-01-02T03:04:05Z\n500,x,\"[\"\"a\"\"]\",\n"
    );
    assert_eq!(
        stdout(&["json", "select", "-f", "req.ms,v", "--json"], &input),
        "{\"req.ms\":null,\"v\":1}\n{\"req.ms\":2.5,\"v\":\"x\"}\n"
    );
    assert_eq!(
        stdout(&["json", "to-csv"], &input),
        "ts,req,v,tags\n2024-01-02T03:04:05Z,\"{\"\"status\"\":200}\",1,\n,\
         \"{\"\"status\"\":500,\"\"ms\"\":2.5}\",x,\"[\"\"a\"\"]\"\n"
    );
    let schema = stdout(&["json", "schema"], &input);
    for want in [
        "ts          timestamptz",
        "req.status  int64",
        "req.ms      float64",
        "v           utf8         mixed int64, string: strings as text, the rest as JSON text",
        "tags        list<utf8>",
    ] {
        assert!(schema.contains(want), "{want:?} in\n{schema}");
    }
    assert_eq!(stdout(&["json", "check"], &input), format!("{}: ok, 2 records\n", input.display()));
    // A schema file round trip: what `schema --json` prints, `--schema` reads.
    let s = file(&dir, "s.json", stdout(&["json", "schema", "--json"], &input).as_bytes());
    // v is utf8 there: its 1 fits (as text).
    let a = swath().args(["json", "check", "--schema"]).arg(&s).arg(&input).assert().success();
    assert!(String::from_utf8_lossy(&a.get_output().stdout).ends_with(": ok, 2 records\n"));
    let a = swath().args(["json", "check", "--schema", "v:int64"]).arg(&input).assert().code(1);
    let name = input.display();
    assert_eq!(
        String::from_utf8_lossy(&a.get_output().stdout),
        format!(
            "{name}: record 2 (line 4, byte 101): field \"v\": \"x\" does not fit int64\n\
             {name}: 1 problems in 2 records\n"
        )
    );
    // From a pipe: the same.
    let a = swath().args(["json", "to-csv"]).write_stdin(data).assert().success();
    assert_eq!(
        String::from_utf8_lossy(&a.get_output().stdout),
        stdout(&["json", "to-csv"], &input)
    );
}

#[test]
fn every_thread_count_writes_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let input = file(&dir, "g.jsonl", swath_testkit::json_document(9, 4000).as_bytes());
    let s = dir.path().join("s.json");
    let schema = stdout(&["json", "schema", "--json", "--infer", "full"], &input);
    std::fs::write(&s, schema).unwrap();
    let run = |t: &str, chunk: &str, what: &str| -> Vec<u8> {
        let out = dir.path().join(format!("o-{what}-{t}-{chunk}"));
        let mut cmd = swath();
        cmd.args(["json", what])
            .arg(&input)
            .args(["-t", t, "--chunk-size", chunk])
            .arg("-o")
            .arg(&out);
        match what {
            "select" => cmd.args(["-f", "id,obj.c.d,name,arr", "--json"]),
            _ => cmd.arg("--schema").arg(&s),
        };
        cmd.assert().success();
        // Batches end with each chunk: compare the values, not the bytes.
        match what {
            "to-parquet" => format!("{:?}", read_parquet(&out).columns()).into_bytes(),
            "to-arrow" => format!("{:?}", read_arrow(&out).columns()).into_bytes(),
            _ => std::fs::read(&out).unwrap(),
        }
    };
    for what in ["to-csv", "select", "to-arrow", "to-parquet"] {
        let one = run("1", "1048576", what);
        assert!(one.len() > 1000, "{what}");
        for (t, chunk) in [("2", "100"), ("3", "4096"), ("8", "777")] {
            assert!(run(t, chunk, what) == one, "{what} -t {t} --chunk-size {chunk}");
        }
    }
}

#[test]
fn bad_input_is_an_error_with_its_place_and_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut doc = swath_testkit::json_document(4, 30_000);
    let at = doc.len() / 2;
    let at = at + doc[at..].find('\n').unwrap() + 1;
    doc.insert_str(at, "{\"id\":1,,}\n");
    let line = doc[..at].matches('\n').count() + 1;
    let input = file(&dir, "bad.jsonl", doc.as_bytes());
    let want =
        format!("record {line} (line {line}, byte {}): expected a key in double quotes", at + 8);
    for cmd in [
        &["json", "count"][..],
        &["json", "to-csv", "-o"],
        &["json", "to-parquet", "-o"],
        &["json", "to-arrow", "-o"],
        &["json", "select", "-f", "id", "-o"],
    ] {
        for t in ["1", "2"] {
            let out = dir.path().join("out.file");
            let mut c = swath();
            c.args(cmd);
            if cmd.last() == Some(&"-o") {
                c.arg(&out);
            }
            let a = c.arg(&input).args(["-t", t]).assert().code(2);
            let err = String::from_utf8_lossy(&a.get_output().stderr);
            assert!(err.contains(&want), "{cmd:?} -t {t}: {err}");
            let left: Vec<_> =
                std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
            assert_eq!(left.len(), 1, "{cmd:?} -t {t} left {left:?}");
        }
    }
}

/// pyarrow.json reads the JSON lines with swath's schema; pyarrow and
/// DuckDB read swath's Parquet: the same values, row for row.
const PEER_SCRIPT: &str = r#"
import json, sys, datetime, math
import pyarrow as pa, pyarrow.json as pj, pyarrow.parquet as pq
import duckdb
src, parquet = sys.argv[1], sys.argv[2]
ours = pq.read_table(parquet)
# pyarrow.json reads date32 from numbers only: dates as strings, cast after.
js = pa.schema([pa.field(f.name, pa.string()) if pa.types.is_date32(f.type) else f for f in ours.schema])
theirs = pj.read_json(src, parse_options=pj.ParseOptions(explicit_schema=js, unexpected_field_behavior="ignore"))
for i, f in enumerate(ours.schema):
    if pa.types.is_date32(f.type):
        theirs = theirs.set_column(i, f, theirs.column(i).cast(pa.date32()))
def norm(v):
    if isinstance(v, dict): return {k: norm(x) for k, x in v.items()}
    if isinstance(v, list): return [norm(x) for x in v]
    if isinstance(v, datetime.datetime): return v.astimezone(datetime.timezone.utc).isoformat() if v.tzinfo else v.isoformat()
    if isinstance(v, datetime.date): return v.isoformat()
    if isinstance(v, float): return repr(v)
    return v
a = [norm(r) for r in ours.to_pylist()]
b = [norm(r) for r in theirs.to_pylist()]
assert len(a) == len(b), (len(a), len(b))
for i, (x, y) in enumerate(zip(a, b)):
    assert x == y, (i, x, y)
con = duckdb.connect()
cur = con.execute(f"SELECT * FROM read_parquet('{parquet}')")
names = [d[0] for d in cur.description]
d = [norm(dict(zip(names, r))) for r in cur.fetchall()]
assert len(d) == len(a)
for i, (x, y) in enumerate(zip(a, d)):
    assert x == y, (i, x, y)
print(json.dumps({"rows": len(a), "columns": names}))
"#;

#[test]
fn pyarrow_json_and_duckdb_agree_with_swath() {
    let Some(python) = common::peer_python("pyarrow_json_and_duckdb_agree_with_swath") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let input = file(&dir, "g.jsonl", swath_testkit::json_document(21, 20_000).as_bytes());
    // The schema, without `extra` (a list of an int and an object: text to
    // swath, which pyarrow.json cannot read as text).
    let mut schema: serde_json::Value =
        serde_json::from_str(&stdout(&["json", "schema", "--json", "--infer", "full"], &input))
            .unwrap();
    let fields = schema["fields"].as_array_mut().unwrap();
    fields.retain(|f| f["name"] != "extra");
    let s = file(&dir, "s.json", schema.to_string().as_bytes());
    let out = dir.path().join("g.parquet");
    swath()
        .args(["json", "to-parquet"])
        .arg(&input)
        .arg("--schema")
        .arg(&s)
        .arg("-o")
        .arg(&out)
        .assert()
        .success();
    let script = file(&dir, "peers.py", PEER_SCRIPT.as_bytes());
    let o =
        std::process::Command::new(&python).arg(&script).arg(&input).arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("\"rows\": 20000"), "{said}");
}

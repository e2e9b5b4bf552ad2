//! `swath csv to-parquet`, `to-arrow` and `schema` run as the real binary,
//! and real peers (pyarrow, DuckDB) reading what it writes.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use swath_arrow::arrow_array::cast::AsArray;
use swath_arrow::arrow_array::types::{
    Date32Type, Float64Type, Int64Type, TimestampMicrosecondType,
};
use swath_arrow::arrow_array::{Array, RecordBatch};
use swath_arrow::arrow_schema::DataType;
use swath_arrow::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

fn swath() -> Command {
    Command::cargo_bin("swath").unwrap()
}

fn file(dir: &tempfile::TempDir, name: &str, data: &[u8]) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::File::create(&path).unwrap().write_all(data).unwrap();
    path
}

/// `rows` records with every hard case: nulls, i64 min/max, -0,
/// subnormal and huge floats, dates, timestamps with offsets, quoted
/// newlines, Unicode; CRLF and a BOM.
fn generate(rows: usize) -> Vec<u8> {
    let mut rng = swath_testkit::Rng::new(0x9E37_79B9_7F4A_7C15);
    let mut next = move || rng.next_u64();
    let mut out = String::from("\u{feff}id,big,score,active,day,ts,name\r\n");
    for i in 1..=rows {
        let big = match next() % 6 {
            0 => String::new(),
            1 => i64::MIN.to_string(),
            2 => i64::MAX.to_string(),
            _ => ((next() as i64) >> (next() % 60)).to_string(),
        };
        let score = match next() % 8 {
            0 => String::new(),
            1 => "5e-324".into(),
            2 => "1.7976931348623157e308".into(),
            3 => "-0".into(),
            _ => format!("{}", (next() % 100_000) as f64 / 7.0),
        };
        let active = ["true", "false", ""][(next() % 3) as usize];
        let day = match next() % 5 {
            0 => String::new(),
            _ => {
                format!("{:04}-{:02}-{:02}", 1950 + next() % 100, 1 + next() % 12, 1 + next() % 28)
            }
        };
        let ts = match next() % 5 {
            0 => String::new(),
            1 => format!("2024-01-02T03:04:{:02}Z", next() % 60),
            2 => format!("1999-12-31 23:59:59.{:06}+05:30", next() % 1_000_000),
            _ => format!(
                "20{:02}-0{}-1{}T1{}:3{}:0{}-08:00",
                next() % 40,
                1 + next() % 9,
                next() % 9,
                next() % 9,
                next() % 9,
                next() % 9
            ),
        };
        let name = match next() % 6 {
            0 => String::new(),
            1 => "\"two\r\nlines\"".into(),
            2 => "\"a, \"\"b\"\"\"".into(),
            3 => "Zoë ✓ 日本語 🎉".into(),
            _ => format!("n{i}"),
        };
        out.push_str(&format!("{i},{big},{score},{active},{day},{ts},{name}\r\n"));
    }
    out.into_bytes()
}

fn read_parquet(path: &Path) -> Vec<RecordBatch> {
    let f = std::fs::File::open(path).unwrap();
    ParquetRecordBatchReaderBuilder::try_new(f)
        .unwrap()
        .build()
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
}

/// Per column: (non-null values, a wrapping sum of normalised values).
/// The same formula is in `PEER_SCRIPT`.
fn checksums(batches: &[RecordBatch]) -> Vec<(u64, u64)> {
    let n = batches.first().map_or(0, |b| b.num_columns());
    (0..n)
        .map(|c| {
            let mut count = 0u64;
            let mut sum = 0u64;
            let mut add = |v: u64| {
                count += 1;
                sum = sum.wrapping_add(v);
            };
            for b in batches {
                let a = b.column(c);
                match a.data_type() {
                    DataType::Int64 => {
                        a.as_primitive::<Int64Type>().iter().flatten().for_each(|v| add(v as u64))
                    }
                    DataType::Float64 => a
                        .as_primitive::<Float64Type>()
                        .iter()
                        .flatten()
                        .for_each(|v| add(v.to_bits())),
                    DataType::Boolean => {
                        a.as_boolean().iter().flatten().for_each(|v| add(1 + v as u64))
                    }
                    DataType::Date32 => a
                        .as_primitive::<Date32Type>()
                        .iter()
                        .flatten()
                        .for_each(|v| add(v as i64 as u64)),
                    DataType::Timestamp(..) => a
                        .as_primitive::<TimestampMicrosecondType>()
                        .iter()
                        .flatten()
                        .for_each(|v| add(v as u64)),
                    DataType::Utf8 => a
                        .as_string::<i32>()
                        .iter()
                        .flatten()
                        .for_each(|v| add(crc32(v.as_bytes()) as u64)),
                    DataType::Utf8View => a
                        .as_string_view()
                        .iter()
                        .flatten()
                        .for_each(|v| add(crc32(v.as_bytes()) as u64)),
                    t => panic!("unexpected {t}"),
                }
            }
            (count, sum)
        })
        .collect()
}

fn crc32(b: &[u8]) -> u32 {
    let mut c = !0u32;
    for &x in b {
        c ^= x as u32;
        for _ in 0..8 {
            c = if c & 1 != 0 { (c >> 1) ^ 0xEDB8_8320 } else { c >> 1 };
        }
    }
    !c
}

/// The slow reading: swath's CSV reader with FromField, and the text of
/// dates and timestamps parsed by swath_arrow::text.
fn slow_checksums(data: &[u8]) -> (u64, Vec<(u64, u64)>) {
    let mut rdr = swath_csv::ReaderBuilder::new().from_reader(data).unwrap();
    let mut sums = vec![(0u64, 0u64); 7];
    let mut rows = 0;
    let add = |sums: &mut Vec<(u64, u64)>, c: usize, v: Option<u64>| {
        if let Some(v) = v {
            sums[c].0 += 1;
            sums[c].1 = sums[c].1.wrapping_add(v);
        }
    };
    while let Some(rec) = rdr.next_record().unwrap() {
        rows += 1;
        #[allow(clippy::type_complexity)]
        let (id, big, score, active, day, ts, name): (
            Option<i64>,
            Option<i64>,
            Option<f64>,
            Option<bool>,
            Option<&str>,
            Option<&str>,
            Option<String>,
        ) = rec.scan().unwrap();
        add(&mut sums, 0, id.map(|v| v as u64));
        add(&mut sums, 1, big.map(|v| v as u64));
        add(&mut sums, 2, score.map(f64::to_bits));
        add(&mut sums, 3, active.map(|v| 1 + v as u64));
        add(
            &mut sums,
            4,
            day.map(|d| swath_arrow::text::parse_date(d.as_bytes()).unwrap() as i64 as u64),
        );
        add(
            &mut sums,
            5,
            ts.map(|t| swath_arrow::text::parse_timestamp(t.as_bytes()).unwrap().0 as u64),
        );
        add(&mut sums, 6, name.map(|s| crc32(s.as_bytes()) as u64));
    }
    (rows, sums)
}

#[test]
fn to_parquet_round_trips_every_value_on_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let data = generate(20_000);
    let input = file(&dir, "in.csv", &data);
    let (rows, want) = slow_checksums(&data);
    for (threads, extra) in
        [("1", vec![]), ("2", vec!["--chunk-size", "50000"]), ("4", vec!["--chunk-size", "7777"])]
    {
        let out = dir.path().join(format!("o{threads}.parquet"));
        swath()
            .args(["csv", "to-parquet"])
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .args(["-t", threads, "--row-group-rows", "6000"])
            .args(&extra)
            .assert()
            .success();
        let back = read_parquet(&out);
        let types: Vec<String> =
            back[0].schema().fields().iter().map(|f| f.data_type().to_string()).collect();
        assert_eq!(
            types,
            ["Int64", "Int64", "Float64", "Boolean", "Date32", "Timestamp(µs, \"UTC\")", "Utf8"]
        );
        assert_eq!(back.iter().map(|b| b.num_rows() as u64).sum::<u64>(), rows);
        assert_eq!(checksums(&back), want, "threads {threads}");
    }
}

/// The encoder threads change nothing in the file: from a file decoded
/// on 1 or 2 threads and from standard input, every `--encode-threads`
/// gives the bytes of the one-encoder file.
#[test]
fn to_parquet_is_the_same_file_for_any_encoder_count() {
    let dir = tempfile::tempdir().unwrap();
    let data = generate(12_000);
    let input = file(&dir, "in.csv", &data);
    let write = |name: &str, threads: &str, encoders: &str, stdin: bool| -> Vec<u8> {
        let out = dir.path().join(name);
        let mut cmd = swath();
        cmd.args(["csv", "to-parquet", "-t", threads, "--encode-threads", encoders]);
        cmd.args(["--row-group-rows", "5000", "--chunk-size", "30000", "-o"]).arg(&out);
        if stdin {
            cmd.arg("-").write_stdin(data.clone());
        } else {
            cmd.arg(&input);
        }
        cmd.assert().success();
        std::fs::read(&out).unwrap()
    };
    let one = write("one.parquet", "2", "1", false);
    for (threads, encoders, stdin) in [
        ("2", "2", false),
        ("2", "5", false),
        ("1", "3", false),
        ("1", "2", true),
        ("2", "0", true),
    ] {
        let name = format!("t{threads}-e{encoders}-{stdin}.parquet");
        assert!(
            write(&name, threads, encoders, stdin) == one,
            "-t {threads} --encode-threads {encoders} (stdin: {stdin}): not the one-encoder file"
        );
    }
}

#[test]
fn to_parquet_compressions_and_statistics() {
    let dir = tempfile::tempdir().unwrap();
    let input = file(&dir, "in.csv", &generate(3000));
    let mut sizes = Vec::new();
    for c in ["zstd", "snappy", "none"] {
        let out = dir.path().join(format!("{c}.parquet"));
        swath()
            .args(["csv", "to-parquet"])
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .args(["--compression", c])
            .assert()
            .success();
        let f = std::fs::File::open(&out).unwrap();
        let meta = ParquetRecordBatchReaderBuilder::try_new(f).unwrap().metadata().clone();
        let col = meta.row_group(0).column(0);
        assert!(
            format!("{:?}", col.compression()).to_lowercase().starts_with(match c {
                "none" => "uncompressed",
                x => x,
            }),
            "{c}: {:?}",
            col.compression()
        );
        assert!(col.statistics().is_some(), "{c}: statistics");
        sizes.push(std::fs::metadata(&out).unwrap().len());
    }
    assert!(sizes[0] < sizes[2] && sizes[1] < sizes[2], "{sizes:?}");
    let out = dir.path().join("nostats.parquet");
    swath()
        .args(["csv", "to-parquet"])
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .arg("--no-statistics")
        .assert()
        .success();
    let f = std::fs::File::open(&out).unwrap();
    let meta = ParquetRecordBatchReaderBuilder::try_new(f).unwrap().metadata().clone();
    assert!(meta.row_group(0).column(0).statistics().is_none());
}

#[test]
fn an_error_leaves_no_output_file_and_names_the_position() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = String::from("id,v\n");
    for i in 0..30_000 {
        data.push_str(&format!("{i},{i}\n"));
    }
    let byte = data.len();
    data.push_str("oops,1\n");
    let input = file(&dir, "in.csv", data.as_bytes());
    let out = dir.path().join("o.parquet");
    for t in ["1", "2"] {
        let a = swath()
            .args(["csv", "to-parquet"])
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .args(["--schema", "id:int64", "-t", t, "--chunk-size", "10000"])
            .assert()
            .failure();
        let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
        assert!(
            err.contains(&format!("record 30002 (line 30002, byte {byte}): field 0 (\"id\"): cannot parse \"oops\" as int64")),
            "{err}"
        );
        assert!(!out.exists(), "no partial file");
        let leftovers: Vec<_> =
            std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(leftovers.len(), 1, "only the input: {leftovers:?}");
    }
    // --on-error null: the file is written, the count reported.
    let a = swath()
        .args(["csv", "to-parquet"])
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .args(["--schema", "id:int64", "--on-error", "null"])
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&a.get_output().stderr).contains("1 fields did not fit"));
    let back = read_parquet(&out);
    assert_eq!(back.iter().map(|b| b.column(0).null_count()).sum::<usize>(), 1);
}

#[test]
fn to_arrow_file_and_stream_from_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let data = generate(4000);
    let (rows, want) = slow_checksums(&data);
    let input = file(&dir, "in.csv", &data);
    let out = dir.path().join("o.arrow");
    swath().args(["csv", "to-arrow"]).arg(&input).arg("-o").arg(&out).assert().success();
    let f = std::fs::File::open(&out).unwrap();
    let back: Vec<RecordBatch> = swath_arrow::arrow_ipc::reader::FileReader::try_new(f, None)
        .unwrap()
        .map(|r| r.unwrap())
        .collect();
    assert_eq!(checksums(&back), want);
    // From stdin to stdout, as a stream.
    let a = swath()
        .args(["csv", "to-arrow", "-", "-o", "-"])
        .write_stdin(data.clone())
        .assert()
        .success();
    let bytes = a.get_output().stdout.clone();
    let back: Vec<RecordBatch> =
        swath_arrow::arrow_ipc::reader::StreamReader::try_new(&bytes[..], None)
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
    assert_eq!(back.iter().map(|b| b.num_rows() as u64).sum::<u64>(), rows);
    assert_eq!(checksums(&back), want);
    // String views: the text columns' type, the same values.
    for threads in ["1", "2"] {
        let out = dir.path().join(format!("v{threads}.arrow"));
        swath()
            .args(["csv", "to-arrow", "--string-view", "-t", threads])
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .assert()
            .success();
        let f = std::fs::File::open(&out).unwrap();
        let back: Vec<RecordBatch> = swath_arrow::arrow_ipc::reader::FileReader::try_new(f, None)
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        let schema = back[0].schema();
        let text: Vec<&DataType> = schema
            .fields()
            .iter()
            .map(|f| f.data_type())
            .filter(|t| matches!(t, DataType::Utf8 | DataType::Utf8View))
            .collect();
        assert!(!text.is_empty() && text.iter().all(|t| **t == DataType::Utf8View), "{schema}");
        assert_eq!(checksums(&back), want, "{threads} threads");
    }
}

#[test]
fn schema_table_json_and_overrides() {
    let dir = tempfile::tempdir().unwrap();
    let input = file(&dir, "in.csv", &generate(500));
    let a = swath().args(["csv", "schema"]).arg(&input).assert().success();
    let table = String::from_utf8_lossy(&a.get_output().stdout).to_string();
    assert!(table.lines().next().unwrap().starts_with("column"), "{table}");
    assert!(table.contains("timestamptz"), "{table}");
    let a = swath()
        .args(["csv", "schema", "--json", "--schema", "id:utf8"])
        .arg(&input)
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&a.get_output().stdout).unwrap();
    let cols = v["fields"].as_array().unwrap();
    let types: Vec<&str> = cols.iter().map(|c| c["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["utf8", "int64", "float64", "boolean", "date32", "timestamptz", "utf8"]);
    assert_eq!(cols[0]["given"], true);
    assert!(cols[1]["empty"].as_u64().unwrap() > 0);
    // The JSON reads back as --schema FILE.
    let schema_file = file(&dir, "s.json", &a.get_output().stdout);
    let out = dir.path().join("o.parquet");
    swath()
        .args(["csv", "to-parquet"])
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .arg("--schema")
        .arg(&schema_file)
        .assert()
        .success();
    assert_eq!(read_parquet(&out)[0].schema().field(0).data_type(), &DataType::Utf8);
    // The schema file is the JSON commands' too (one form for both formats),
    // and their schema files read back here while the columns are flat.
    let j = file(&dir, "in.jsonl", b"{\"id\": 1, \"name\": \"a\"}\n");
    let a = swath().args(["json", "schema", "--json"]).arg(&j).assert().success();
    let from_json = file(&dir, "j.json", &a.get_output().stdout);
    let a = swath()
        .args(["csv", "schema", "--json", "--schema"])
        .arg(&from_json)
        .arg(&input)
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&a.get_output().stdout).unwrap();
    assert_eq!(v["fields"][0]["type"], "int64");
    assert_eq!(v["fields"][0]["given"], true);
    // The old form, {"columns": [...]}, still reads, with a note.
    let old = file(&dir, "old.json", br#"{"columns":[{"name":"id","type":"utf8"}]}"#);
    let a = swath()
        .args(["csv", "schema", "--json", "--schema"])
        .arg(&old)
        .arg(&input)
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&a.get_output().stderr).contains("the old form"));
    let v: serde_json::Value = serde_json::from_slice(&a.get_output().stdout).unwrap();
    assert_eq!(v["fields"][0]["type"], "utf8");
    // A nested field is not a CSV column.
    let nested = file(
        &dir,
        "nested.json",
        br#"{"fields":[{"name":"id","type":"struct","fields":[{"name":"a","type":"int64"}]}]}"#,
    );
    let a = swath().args(["csv", "schema", "--schema"]).arg(&nested).arg(&input).assert().failure();
    assert!(String::from_utf8_lossy(&a.get_output().stderr).contains("CSV columns are flat"));
    // Unknown types and columns are clear errors.
    let a = swath().args(["csv", "schema", "--schema", "id:int128"]).arg(&input).assert().failure();
    assert!(String::from_utf8_lossy(&a.get_output().stderr).contains("unknown type"));
    let a =
        swath().args(["csv", "schema", "--schema", "nope:int64"]).arg(&input).assert().failure();
    assert!(String::from_utf8_lossy(&a.get_output().stderr).contains("\"nope\" is not in the file"));
}

/// The peers: each prints one JSON line per reader with rows, types and
/// per-column (count, wrapping sum) as `checksums` computes them. A
/// Parquet file is read by pyarrow and by DuckDB's `read_parquet`; an
/// Arrow IPC file (`.arrow`) by pyarrow's IPC reader, and DuckDB scans
/// the table pyarrow read (its Arrow import).
const PEER_SCRIPT: &str = r#"
import json, sys, zlib, struct, datetime
import pyarrow as pa
import pyarrow.ipc
import pyarrow.parquet as pq
import duckdb
path = sys.argv[1]
M = 1 << 64
def norm(v):
    if isinstance(v, bool): return 1 + int(v)
    if isinstance(v, int): return v % M
    if isinstance(v, float): return struct.unpack('<Q', struct.pack('<d', v))[0]
    if isinstance(v, str): return zlib.crc32(v.encode('utf-8'))
    raise TypeError(type(v))
def sums(columns):
    out = []
    for col in columns:
        vals = [norm(v) for v in col if v is not None]
        out.append([len(vals), sum(vals) % M])
    return out
arrow = path.endswith('.arrow')
t = pa.ipc.open_file(path).read_all() if arrow else pq.read_table(path)
cols = []
for name, col in zip(t.column_names, t.columns):
    ty = col.type
    import pyarrow as pa
    if pa.types.is_timestamp(ty) or pa.types.is_date32(ty):
        col = col.cast(pa.int64() if pa.types.is_timestamp(ty) else pa.int32())
    cols.append(col.to_pylist())
print(json.dumps({"reader": "pyarrow", "rows": t.num_rows, "types": [str(f.type) for f in t.schema], "sums": sums(cols)}))
con = duckdb.connect()
if arrow:
    con.register('arrow_table', t)
    source = 'arrow_table'
else:
    source = f"read_parquet('{path}')"
desc = con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()
exprs = []
for name, ty, *_ in desc:
    q = '"' + name + '"'
    if ty.startswith('TIMESTAMP'): exprs.append(f"epoch_us({q})")
    elif ty == 'DATE': exprs.append(f"({q} - DATE '1970-01-01')")
    else: exprs.append(q)
rows = con.execute(f"SELECT {', '.join(exprs)} FROM {source}").fetchall()
cols = [list(c) for c in zip(*rows)] if rows else [[] for _ in desc]
print(json.dumps({"reader": "duckdb", "rows": len(rows), "types": [d[1] for d in desc], "sums": sums(cols)}))
"#;

/// Parquet (plain text columns and `--string-view`) and an Arrow IPC file
/// of string views, each read by pyarrow and DuckDB: the same rows, types
/// and per-column checksums as swath's sequential reading of the CSV.
#[test]
fn peer_readers_agree_with_swath() {
    let Some(python) = common::peer_python("peer_readers_agree_with_swath") else { return };
    let dir = tempfile::tempdir().unwrap();
    let data = generate(20_000);
    // And with a name of 1.5 MiB in the middle: its batch is a row group
    // of its own, the column plain and without statistics.
    let mut long = data.clone();
    let at = long.len() / 2;
    let at = at + long[at..].windows(2).position(|w| w == b"\r\n").unwrap() + 2;
    let row =
        format!("0,1,2.5,true,2020-01-01,2024-01-02T03:04:05Z,{}\r\n", "Zoë✓".repeat(262_144));
    long.splice(at..at, row.into_bytes());
    let script = file(&dir, "peers.py", PEER_SCRIPT.as_bytes());
    // (output, command, its flags, pyarrow's text type, the CSV).
    type Output<'a> = (&'a str, &'a str, &'a [&'a str], &'a str, &'a [u8]);
    let outputs: [Output; 4] = [
        ("o.parquet", "to-parquet", &["--row-group-rows", "7000"], "string", &data),
        (
            "v.parquet",
            "to-parquet",
            &["--row-group-rows", "7000", "--string-view"],
            "string_view",
            &data,
        ),
        ("v.arrow", "to-arrow", &["--string-view"], "string_view", &data),
        ("long.parquet", "to-parquet", &[], "string", &long),
    ];
    for (name, command, extra, text_type, data) in outputs {
        let input = file(&dir, &format!("{name}.csv"), data);
        let (rows, want) = slow_checksums(data);
        let out = dir.path().join(name);
        swath()
            .args(["csv", command])
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .args(["-t", "2"])
            .args(extra)
            .assert()
            .success();
        if command == "to-parquet" {
            assert_eq!(checksums(&read_parquet(&out)), want, "{name}: swath's own reading");
            let f = std::fs::File::open(&out).unwrap();
            let meta = ParquetRecordBatchReaderBuilder::try_new(f).unwrap().metadata().clone();
            let plain = meta.row_groups().iter().filter(|g| g.column(6).statistics().is_none());
            let want_plain = usize::from(name == "long.parquet");
            assert_eq!(plain.count(), want_plain, "{name}: row groups without name statistics");
        }
        let o = std::process::Command::new(&python).arg(&script).arg(&out).output().unwrap();
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        check_peers(name, &o.stdout, rows, &want, text_type);
    }
}

/// The peers' lines for one file: rows, types (`text_type` is pyarrow's
/// name for the text column) and checksums.
fn check_peers(file: &str, out: &[u8], rows: u64, want: &[(u64, u64)], text_type: &str) {
    let lines: Vec<serde_json::Value> = String::from_utf8(out.to_vec())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{file}");
    let want_types = [
        vec!["int64", "int64", "double", "bool", "date32[day]", "timestamp[us, tz=UTC]", text_type],
        vec![
            "BIGINT",
            "BIGINT",
            "DOUBLE",
            "BOOLEAN",
            "DATE",
            "TIMESTAMP WITH TIME ZONE",
            "VARCHAR",
        ],
    ];
    for (peer, types) in lines.iter().zip(want_types) {
        let name = format!("{file}, {}", peer["reader"].as_str().unwrap());
        assert_eq!(peer["rows"].as_u64().unwrap(), rows, "{name}: rows");
        let got: Vec<&str> =
            peer["types"].as_array().unwrap().iter().map(|t| t.as_str().unwrap()).collect();
        assert_eq!(got, types, "{name}: types");
        let sums: Vec<(u64, u64)> = peer["sums"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap()))
            .collect();
        assert_eq!(sums, want, "{name}: per-column checksums");
    }
}

#[test]
fn schema_of_a_broken_file_is_an_error_with_its_position_named_once() {
    let dir = tempfile::tempdir().unwrap();
    let input = file(&dir, "bad.csv", b"a,b\n1,2\n1,\"x\n");
    let a = swath().args(["csv", "schema"]).arg(&input).assert().code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).to_string();
    assert!(
        err.contains("record 3 (line 3, byte 10): quoted field not closed before end of input"),
        "{err}"
    );
    let path = input.display().to_string();
    assert_eq!(err.matches(&path).count(), 1, "the path once: {err}");
}

//! CSV to Arrow batches in process, one thread: swath's `ArrowReader`
//! against the `arrow-csv` 59 reader (the one DataFusion uses), on the
//! generated 5M-row file (each with its own schema inference), with
//! swath's typed `scan` of the same columns beside them: the reader under
//! the decoder, the floor it aims at. Then one-type files (only integers,
//! floats, text, timestamps, booleans; the schema given to both readers),
//! so that the cost of each type is seen on its own. Every entry's answer
//! (rows, and a checksum of the values) is checked.
//!
//! ```text
//! cargo build --release -p swath-bench --no-default-features --bin csv_arrow
//! target/release/csv_arrow [--rows 5000000] [--type-rows 2000000] [--runs 5] [--dir DIR]
//!                          [--file FILE] [--only swath|swath-given|arrow-csv|scan] [--types int,float,...|none]
//!                          [--batch ROWS]
//! ```
//!
//! `--file` reads that file (the 6-column shape `swath gen csv` writes,
//! generated there first when missing) and keeps it; `--only` runs one method
//! (for a profiler); `--types none` skips the one-type files; `--batch`
//! sets swath's batch size (arrow-csv's is 64Ki rows here).

use std::io::{BufWriter, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type, TimestampMicrosecondType};
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use swath_bench::{arg, machine, measure, print_table, warm};
use swath_lab::gen::csv::{write as gen_csv, CsvOptions};

fn main() {
    let runs: usize = arg("--runs").map_or(5, |s| s.parse().expect("--runs N"));
    let rows: u64 = arg("--rows").map_or(5_000_000, |s| s.parse().expect("--rows N"));
    let type_rows: u64 =
        arg("--type-rows").map_or(2_000_000, |s| s.parse().expect("--type-rows N"));
    let dir = arg("--dir").map_or_else(std::env::temp_dir, PathBuf::from);
    let only = arg("--only");
    let wants = |m: &str| only.as_deref().is_none_or(|o| o == m);
    let types = arg("--types").unwrap_or_else(|| "int,float,text,timestamp,bool".into());
    println!("CSV -> Arrow in process, one thread, {runs} runs, warm cache");
    println!("machine: {}", machine());

    // The 6-column file.
    let given = arg("--file").map(PathBuf::from);
    let path = given.clone().unwrap_or_else(|| dir.join(format!("swath-bench-arrow-{rows}.csv")));
    if !path.exists() {
        let opts = CsvOptions { rows, seed: 1, quoted_newlines_pct: 0 };
        let mut out = BufWriter::new(std::fs::File::create(&path).expect("create the file"));
        gen_csv(&mut out, &opts).expect("generate");
        out.flush().expect("write the file");
    }
    warm(&path);
    let bytes = std::fs::metadata(&path).expect("stat").len();
    // The answer: rows and the sum of `id`, read once by the typed scan.
    let expect = typed_scan(&path);
    let mut results = Vec::new();
    if wants("swath") {
        let mut m =
            measure("swath ArrowReader", runs, bytes, &expect, || swath(&path, None, sum_id));
        m.note = format!("schema {}", types_of(&swath_schema(&path)));
        results.push(m);
    }
    if wants("swath-given") {
        // The decode alone: the schema swath infers, given.
        let schema = Arc::new(swath_schema(&path));
        let mut m = measure("swath ArrowReader, schema given", runs, bytes, &expect, || {
            swath(&path, Some(schema.clone()), sum_id)
        });
        m.note = "no inference".into();
        results.push(m);
    }
    if wants("arrow-csv") {
        let mut m = measure("arrow-csv 59 Reader", runs, bytes, &expect, || {
            arrow_csv_read(&path, None, sum_id)
        });
        m.note = format!("schema {}", types_of(&arrow_schema(&path)));
        results.push(m);
    }
    if wants("scan") {
        let mut m = measure("swath typed scan (floor)", runs, bytes, &expect, || typed_scan(&path));
        m.note = "(u64, &str, f64, bool, &str, &str): no Arrow, ts as text".into();
        results.push(m);
    }
    print_table(&format!("{} ({bytes} bytes)", path.display()), &results, "arrow-csv 59 Reader");
    if given.is_none() {
        let _ = std::fs::remove_file(&path);
    }

    // One-type files.
    for ty in types.split(',').filter(|t| *t != "none" && !t.is_empty()) {
        let kind = OneType::parse(ty);
        let path = dir.join(format!("swath-bench-arrow-{ty}-{type_rows}.csv"));
        write_one_type(&path, kind, type_rows);
        warm(&path);
        let bytes = std::fs::metadata(&path).expect("stat").len();
        let (schema, peer_schema) = (kind.schema("UTC"), kind.schema("+00:00"));
        let check = kind.checksum();
        let expect = arrow_csv_read(&path, Some(peer_schema.clone()), check);
        let mut results = Vec::new();
        if wants("swath") {
            results.push(measure("swath ArrowReader", runs, bytes, &expect, || {
                swath(&path, Some(schema.clone()), check)
            }));
        }
        if wants("arrow-csv") {
            results.push(measure("arrow-csv 59 Reader", runs, bytes, &expect, || {
                arrow_csv_read(&path, Some(peer_schema.clone()), check)
            }));
        }
        let title = format!("only {ty}: {COLS} columns x {type_rows} rows ({bytes} bytes)");
        print_table(&title, &results, "arrow-csv 59 Reader");
        let _ = std::fs::remove_file(&path);
    }
}

/// What every reader of a file must find: rows and a checksum.
type Answer = (u64, u64);

fn sum_id(b: &RecordBatch) -> u64 {
    b.column(0).as_primitive::<Int64Type>().values().iter().sum::<i64>() as u64
}

fn types_of(s: &Schema) -> String {
    s.fields().iter().map(|f| f.data_type().to_string()).collect::<Vec<_>>().join(", ")
}

fn swath_schema(path: &Path) -> Schema {
    let b = swath_arrow::ArrowReaderBuilder::new();
    b.infer_schema(path).expect("infer").schema.as_ref().clone()
}

fn swath(path: &Path, schema: Option<SchemaRef>, check: fn(&RecordBatch) -> u64) -> Answer {
    let mut b = swath_arrow::ArrowReaderBuilder::new();
    b.threads(1);
    if let Some(n) = arg("--batch") {
        b.batch_size(n.parse().expect("--batch N"));
    }
    if let Some(s) = schema {
        b.schema(s);
    }
    let mut rdr = b.from_path(path).expect("open");
    let (mut n, mut sum) = (0u64, 0u64);
    while let Some(batch) = rdr.next_batch().expect("decode") {
        n += batch.num_rows() as u64;
        sum = sum.wrapping_add(check(&batch));
    }
    (n, sum)
}

/// swath's typed scan of the same six columns (what `csv_read` measures).
fn typed_scan(path: &Path) -> Answer {
    let mut rdr = swath_csv::ReaderBuilder::new().from_path(path).expect("open");
    let (mut n, mut ids) = (0u64, 0u64);
    while let Some(rec) = rdr.next_record().expect("read") {
        let (id, name, score, active, city, ts): (u64, &str, f64, bool, &str, &str) =
            rec.scan().expect("scan");
        n += 1;
        ids += id;
        // Use every value, so that none of the parsing is optimised away.
        std::hint::black_box((name, score, active, city, ts));
    }
    (n, ids)
}

fn arrow_schema(path: &Path) -> Schema {
    let mut f = std::fs::File::open(path).expect("open");
    let format = arrow_csv::reader::Format::default().with_header(true);
    let (schema, _) = format.infer_schema(&mut f, Some(10_000)).expect("infer");
    schema
}

fn arrow_csv_read(
    path: &Path,
    schema: Option<SchemaRef>,
    check: fn(&RecordBatch) -> u64,
) -> Answer {
    let mut f = std::fs::File::open(path).expect("open");
    let format = arrow_csv::reader::Format::default().with_header(true);
    let schema = match schema {
        Some(s) => s,
        None => {
            let (schema, _) = format.infer_schema(&mut f, Some(10_000)).expect("infer");
            f.rewind().expect("rewind");
            Arc::new(schema)
        }
    };
    let rdr = arrow_csv::ReaderBuilder::new(schema)
        .with_format(format)
        .with_batch_size(64 * 1024)
        .build(f)
        .expect("build");
    let (mut n, mut sum) = (0u64, 0u64);
    for batch in rdr {
        let batch = batch.expect("decode");
        n += batch.num_rows() as u64;
        sum = sum.wrapping_add(check(&batch));
    }
    (n, sum)
}

/// Columns of a one-type file.
const COLS: usize = 4;

#[derive(Clone, Copy, Debug)]
enum OneType {
    Int,
    Float,
    Text,
    Timestamp,
    Bool,
}

impl OneType {
    fn parse(s: &str) -> OneType {
        match s {
            "int" => OneType::Int,
            "float" => OneType::Float,
            "text" => OneType::Text,
            "timestamp" => OneType::Timestamp,
            "bool" => OneType::Bool,
            _ => panic!("--types: one of int, float, text, timestamp, bool, none (got {s})"),
        }
    }

    /// The type; a timestamp's zone is `tz` (arrow-csv without its
    /// `chrono-tz` feature knows no zone names, only offsets).
    fn data_type(self, tz: &str) -> DataType {
        match self {
            OneType::Int => DataType::Int64,
            OneType::Float => DataType::Float64,
            OneType::Text => DataType::Utf8,
            OneType::Timestamp => DataType::Timestamp(TimeUnit::Microsecond, Some(tz.into())),
            OneType::Bool => DataType::Boolean,
        }
    }

    fn schema(self, tz: &str) -> SchemaRef {
        let fields: Vec<Field> =
            (0..COLS).map(|i| Field::new(format!("c{i}"), self.data_type(tz), true)).collect();
        Arc::new(Schema::new(fields))
    }

    /// A checksum of every column of a batch of this type.
    fn checksum(self) -> fn(&RecordBatch) -> u64 {
        fn each(b: &RecordBatch, f: impl Fn(&dyn Array) -> u64) -> u64 {
            b.columns().iter().fold(0u64, |acc, c| acc.wrapping_add(f(c.as_ref())))
        }
        match self {
            OneType::Int => |b| {
                each(b, |c| {
                    c.as_primitive::<Int64Type>()
                        .values()
                        .iter()
                        .fold(0u64, |a, &v| a.wrapping_add(v as u64))
                })
            },
            OneType::Float => |b| {
                each(b, |c| {
                    c.as_primitive::<Float64Type>()
                        .values()
                        .iter()
                        .fold(0u64, |a, &v| a.wrapping_add((v * 1000.0).round() as i64 as u64))
                })
            },
            OneType::Text => |b| {
                each(b, |c| {
                    let s = c.as_string::<i32>();
                    (0..s.len()).fold(0u64, |a, i| {
                        let v = s.value(i).as_bytes();
                        a.wrapping_add(
                            v.len() as u64 * 31 + u64::from(v.first().copied().unwrap_or(0)),
                        )
                    })
                })
            },
            OneType::Timestamp => |b| {
                each(b, |c| {
                    c.as_primitive::<TimestampMicrosecondType>()
                        .values()
                        .iter()
                        .fold(0u64, |a, &v| a.wrapping_add(v as u64))
                })
            },
            OneType::Bool => |b| each(b, |c| c.as_boolean().true_count() as u64),
        }
    }
}

/// Write `rows` rows of [`COLS`] values of one type (and a header).
fn write_one_type(path: &Path, kind: OneType, rows: u64) {
    const WORDS: [&str; 12] = [
        "alpha",
        "beta",
        "gamma",
        "Zürich",
        "delta",
        "epsilon",
        "omega",
        "kappa lambda",
        "x",
        "São Paulo",
        "theta",
        "iota-rho",
    ];
    let mut out = BufWriter::new(std::fs::File::create(path).expect("create"));
    let header: Vec<String> = (0..COLS).map(|i| format!("c{i}")).collect();
    writeln!(out, "{}", header.join(",")).expect("write");
    let mut rng = swath_testkit::Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut next = move || rng.next_u64();
    let mut line = String::new();
    for _ in 0..rows {
        line.clear();
        for c in 0..COLS {
            if c > 0 {
                line.push(',');
            }
            let r = next();
            use std::fmt::Write as _;
            match kind {
                // Lengths from 1 to 10 digits, a tenth negative.
                OneType::Int => {
                    let v = (r >> 8) % 10u64.pow(1 + (r % 10) as u32);
                    let _ = write!(line, "{}{v}", if r % 10 == 0 { "-" } else { "" });
                }
                // 0 to 3 decimals.
                OneType::Float => {
                    let v = (r >> 8) % 1_000_000;
                    let _ = match r % 4 {
                        0 => write!(line, "{v}"),
                        1 => write!(line, "{}.{}", v / 10, v % 10),
                        2 => write!(line, "{}.{:02}", v / 100, v % 100),
                        _ => write!(line, "-{}.{:03}", v / 1000, v % 1000),
                    };
                }
                OneType::Text => line.push_str(WORDS[(r % WORDS.len() as u64) as usize]),
                OneType::Timestamp => {
                    let _ = write!(
                        line,
                        "20{:02}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
                        10 + r % 15,
                        1 + (r >> 8) % 12,
                        1 + (r >> 16) % 28,
                        (r >> 24) % 24,
                        (r >> 32) % 60,
                        (r >> 40) % 60
                    );
                }
                OneType::Bool => line.push_str(if r % 2 == 0 { "true" } else { "false" }),
            }
        }
        line.push('\n');
        out.write_all(line.as_bytes()).expect("write");
    }
    out.flush().expect("write");
}

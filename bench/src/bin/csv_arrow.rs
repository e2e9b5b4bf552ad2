//! CSV to Arrow batches in process, one thread: swath's `ArrowReader`
//! against the `arrow-csv` 59 reader (the one DataFusion uses), each with
//! its own schema inference, on the generated 5M-row file. Every entry's
//! answer (rows, and the sum of the `id` column) is checked.
//!
//! `cargo build --release -p swath-bench && target/release/csv_arrow [--rows 5000000] [--runs 5] [--dir DIR]`

use std::io::{BufWriter, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use swath_bench::{arg, machine, measure, print_table, warm};
use swath_lab::gen::csv::{write as gen_csv, CsvOptions};

fn main() {
    let runs: usize = arg("--runs").map_or(5, |s| s.parse().expect("--runs N"));
    let rows: u64 = arg("--rows").map_or(5_000_000, |s| s.parse().expect("--rows N"));
    let dir = arg("--dir").map_or_else(std::env::temp_dir, PathBuf::from);
    println!("CSV -> Arrow in process, one thread: {rows} rows, {runs} runs, warm cache");
    println!("machine: {}", machine());
    let path = dir.join(format!("swath-bench-arrow-{rows}.csv"));
    let opts = CsvOptions { rows, seed: 1, quoted_newlines_pct: 0 };
    let sum = {
        let mut out = BufWriter::new(std::fs::File::create(&path).expect("create the file"));
        let sum = gen_csv(&mut out, &opts).expect("generate");
        out.flush().expect("write the file");
        sum
    };
    warm(&path);
    let expect = (rows, rows * (rows + 1) / 2);
    let mut results = vec![
        measure("swath ArrowReader", runs, sum.bytes, &expect, || swath(&path)),
        measure("arrow-csv 59 Reader", runs, sum.bytes, &expect, || arrow_csv_read(&path)),
    ];
    results[0].note = format!("schema {}", types(&swath_schema(&path)));
    results[1].note = format!("schema {}", types(&arrow_schema(&path)));
    print_table(
        &format!("{} ({} bytes)", path.display(), sum.bytes),
        &results,
        "arrow-csv 59 Reader",
    );
    let _ = std::fs::remove_file(&path);
}

fn types(s: &arrow_schema::Schema) -> String {
    s.fields().iter().map(|f| f.data_type().to_string()).collect::<Vec<_>>().join(", ")
}

fn swath_schema(path: &Path) -> arrow_schema::Schema {
    let b = swath_arrow::ArrowReaderBuilder::new();
    b.infer_schema(path).expect("infer").schema.as_ref().clone()
}

fn swath(path: &Path) -> (u64, u64) {
    let mut b = swath_arrow::ArrowReaderBuilder::new();
    b.threads(1);
    let mut rdr = b.from_path(path).expect("open");
    let (mut n, mut ids) = (0u64, 0u64);
    while let Some(batch) = rdr.next_batch().expect("decode") {
        n += batch.num_rows() as u64;
        ids += batch.column(0).as_primitive::<Int64Type>().values().iter().sum::<i64>() as u64;
    }
    (n, ids)
}

fn arrow_schema(path: &Path) -> arrow_schema::Schema {
    let mut f = std::fs::File::open(path).expect("open");
    let format = arrow_csv::reader::Format::default().with_header(true);
    let (schema, _) = format.infer_schema(&mut f, Some(10_000)).expect("infer");
    schema
}

fn arrow_csv_read(path: &Path) -> (u64, u64) {
    let mut f = std::fs::File::open(path).expect("open");
    let format = arrow_csv::reader::Format::default().with_header(true);
    let (schema, _) = format.infer_schema(&mut f, Some(10_000)).expect("infer");
    f.rewind().expect("rewind");
    let rdr = arrow_csv::ReaderBuilder::new(Arc::new(schema))
        .with_format(format)
        .with_batch_size(64 * 1024)
        .build(f)
        .expect("build");
    let (mut n, mut ids) = (0u64, 0u64);
    for batch in rdr {
        let batch = batch.expect("decode");
        n += batch.num_rows() as u64;
        ids += batch.column(0).as_primitive::<Int64Type>().values().iter().sum::<i64>() as u64;
    }
    (n, ids)
}

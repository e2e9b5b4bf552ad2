//! CSV to Parquet side by side, whole process: `swath csv to-parquet`
//! against the DuckDB CLI (`COPY (SELECT * FROM read_csv(f)) TO 'o.parquet'`;
//! the Python `duckdb` package when the CLI is missing) and Polars
//! (`pl.scan_csv(f).sink_parquet(o)`), 2 threads each, on the generated
//! 5M-row file and its 20%-quoted-newline variant. Warm cache, medians,
//! runs taken in turns; peak RSS from `/usr/bin/time`, output size, and
//! every output read back by pyarrow to check its row count.
//!
//! Peers come from `.ci/peers.sh --bench` (a venv with pyarrow, duckdb,
//! polars, duckdb-cli); this bench finds them through SWATH_PEER_PYTHON
//! or `--python`.
//!
//! `bench/build && target/release/csv_parquet [--rows 5000000] [--runs 3] [--dir DIR] [--python PY]`

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use swath_bench::{arg, machine, parquet_rows, swath_binary, timed, warm};
use swath_lab::gen::csv::{write as gen_csv, CsvOptions};

/// One tool's runs.
struct Row {
    name: String,
    secs: Vec<f64>,
    rss_kib: Vec<u64>,
    out_bytes: u64,
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let runs: usize = arg("--runs").map_or(3, |s| s.parse().expect("--runs N"));
    let rows: u64 = arg("--rows").map_or(5_000_000, |s| s.parse().expect("--rows N"));
    let dir = arg("--dir").map_or_else(std::env::temp_dir, PathBuf::from);
    let python = arg("--python").or_else(|| std::env::var("SWATH_PEER_PYTHON").ok());
    let swath = swath_binary();
    let time = Path::new("/usr/bin/time");
    println!("CSV -> Parquet bench: {rows} rows, {runs} runs, 2 threads, warm cache");
    println!("machine: {}", machine());
    let Some(python) = python else {
        println!(
            "no peers: set SWATH_PEER_PYTHON=$(.ci/peers.sh --bench) or pass --python; swath only"
        );
        return run_all(&swath, None, None, time, &dir, rows, runs);
    };
    // The duckdb-cli package puts `duckdb` beside the venv's python.
    let cli = Path::new(&python).with_file_name("duckdb");
    let cli = cli.exists().then_some(cli);
    run_all(&swath, Some(&python), cli.as_deref(), time, &dir, rows, runs);
}

fn run_all(
    swath: &Path,
    python: Option<&str>,
    duckdb_cli: Option<&Path>,
    time: &Path,
    dir: &Path,
    rows: u64,
    runs: usize,
) {
    for pct in [0u8, 20] {
        let path = dir.join(format!("swath-bench-pq-{rows}-{pct}.csv"));
        let opts = CsvOptions { rows, seed: 1, quoted_newlines_pct: pct };
        let sum = {
            let mut out = BufWriter::new(std::fs::File::create(&path).expect("create the file"));
            let sum = gen_csv(&mut out, &opts).expect("generate");
            out.flush().expect("write the file");
            sum
        };
        warm(&path);
        println!(
            "\n{} ({} bytes, {} rows, {} with a quoted newline)",
            path.display(),
            sum.bytes,
            sum.rows,
            sum.quoted_newlines
        );
        let out = |tool: &str| dir.join(format!("swath-bench-{tool}-{pct}.parquet"));
        let (f, o_swath, o_duck, o_polars) =
            (path.display().to_string(), out("swath"), out("duckdb"), out("polars"));
        let mut cmds: Vec<(String, Command, PathBuf)> = Vec::new();
        let mut c = Command::new(swath);
        c.args(["csv", "to-parquet", "-t", "2"]).arg(&path).arg("-o").arg(&o_swath);
        cmds.push(("swath csv to-parquet -t 2".into(), c, o_swath.clone()));
        let copy = format!(
            "SET threads=2; COPY (SELECT * FROM read_csv('{f}')) TO '{}' (FORMAT parquet)",
            o_duck.display()
        );
        if let Some(cli) = duckdb_cli {
            let mut c = Command::new(cli);
            c.args(["-c", &copy]);
            cmds.push(("duckdb CLI COPY".into(), c, o_duck.clone()));
        } else if let Some(py) = python {
            let mut c = Command::new(py);
            c.args(["-c", &format!("import duckdb; duckdb.sql({copy:?})")]);
            cmds.push(("duckdb (python) COPY".into(), c, o_duck.clone()));
        }
        if let Some(py) = python {
            let mut c = Command::new(py);
            c.env("POLARS_MAX_THREADS", "2").args([
                "-c",
                &format!(
                    "import polars as pl; pl.scan_csv({f:?}).sink_parquet({:?})",
                    o_polars.display().to_string()
                ),
            ]);
            cmds.push(("polars sink_parquet".into(), c, o_polars.clone()));
        }
        let mut results: Vec<Row> = cmds
            .iter()
            .map(|(n, _, _)| Row { name: n.clone(), secs: vec![], rss_kib: vec![], out_bytes: 0 })
            .collect();
        for _ in 0..runs {
            for ((_, cmd, o), r) in cmds.iter_mut().zip(results.iter_mut()) {
                let _ = std::fs::remove_file(&*o);
                let (secs, rss) = timed(cmd, time);
                r.secs.push(secs);
                r.rss_kib.push(rss);
                r.out_bytes = std::fs::metadata(&*o).map_or(0, |m| m.len());
            }
        }
        // Every output must hold every row.
        for ((name, _, o), _) in cmds.iter().zip(&results) {
            if let Some(py) = python {
                let n = parquet_rows(py, o);
                assert_eq!(n, rows, "{name}: {n} rows in {}", o.display());
            }
        }
        let base = median(&results[0].secs);
        println!(
            "{:<28} {:>9} {:>8} {:>13} {:>10} {:>8}",
            "tool", "median s", "MB/s", "peak RSS MiB", "out MiB", "x swath"
        );
        for r in &results {
            let m = median(&r.secs);
            let rss = r.rss_kib.iter().max().copied().unwrap_or(0) as f64 / 1024.0;
            println!(
                "{:<28} {:>9.3} {:>8.0} {:>13.1} {:>10.1} {:>8.2}",
                r.name,
                m,
                sum.bytes as f64 / m / 1e6,
                rss,
                r.out_bytes as f64 / (1 << 20) as f64,
                m / base
            );
        }
        println!(
            "(x swath: the tool's time over swath's; rows checked by pyarrow: {})",
            if python.is_some() { "yes" } else { "no" }
        );
        for (_, _, o) in &cmds {
            let _ = std::fs::remove_file(o);
        }
        let _ = std::fs::remove_file(&path);
    }
}

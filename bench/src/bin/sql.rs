//! SQL over CSV side by side, whole process, 2 threads each: `swath sql`
//! against DataFusion's own CSV table (`CsvFormat`, default and
//! `newlines_in_values`, run by this binary in a child process), the
//! DuckDB CLI and Polars (`pl.SQLContext` over `scan_csv`), on the
//! generated 5M-row file and its 20%-quoted-newline variant. Queries:
//! a count, `SELECT city, avg(score) ... GROUP BY city`, and a filter with
//! a projection. Every answer is parsed and checked against swath's
//! sequential reader's (computed here, no SQL); a tool that fails or
//! answers otherwise is shown so, not timed as if right.
//!
//! Peers come from `.ci/peers.sh --bench` (SWATH_PEER_PYTHON or
//! `--python`).
//!
//! `bench/build && target/release/sql [--rows 5000000] [--runs 3] [--dir DIR] [--python PY]`

use std::collections::BTreeMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use swath_bench::{arg, machine, swath_binary, warm};
use swath_lab::gen::csv::{write as gen_csv, CsvOptions};

/// The queries, over table `t` (id,name,score,active,city,ts).
const QUERIES: &[(&str, &str)] = &[
    ("count", "SELECT count(*) FROM t"),
    ("group by", "SELECT city, avg(score) FROM t GROUP BY city"),
    ("filter+projection", "SELECT id, name FROM t WHERE score > 99.5 AND city = 'Oslo'"),
];

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    if let Some(mode) = arg("--df-run") {
        return df_run(&mode, &arg("--file").expect("--file"), &arg("--query").expect("--query"));
    }
    let runs: usize = arg("--runs").map_or(3, |s| s.parse().expect("--runs N"));
    let rows: u64 = arg("--rows").map_or(5_000_000, |s| s.parse().expect("--rows N"));
    let dir = arg("--dir").map_or_else(std::env::temp_dir, PathBuf::from);
    let python = arg("--python").or_else(|| std::env::var("SWATH_PEER_PYTHON").ok());
    println!("SQL over CSV bench: {rows} rows, {runs} runs, 2 threads, warm cache, whole process");
    println!("machine: {}", machine());
    if python.is_none() {
        println!("no Python peers: set SWATH_PEER_PYTHON=$(.ci/peers.sh --bench) or pass --python");
    }
    let duckdb =
        python.as_ref().map(|p| Path::new(p).with_file_name("duckdb")).filter(|p| p.exists());
    for pct in [0u8, 20] {
        let path = dir.join(format!("swath-bench-sql-{rows}-{pct}.csv"));
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
        let f = path.display().to_string();
        for (qname, q) in QUERIES {
            let want = reference(&path, qname);
            println!("\n  {qname}: {q}");
            let mut tools = tools(&f, q, python.as_deref(), duckdb.as_deref());
            let mut secs: Vec<Vec<f64>> = vec![Vec::new(); tools.len()];
            let mut verdict: Vec<Option<String>> = vec![None; tools.len()];
            for _ in 0..runs {
                for (i, (_, cmd)) in tools.iter_mut().enumerate() {
                    if verdict[i].as_deref().is_some_and(|v| v != "ok") {
                        continue;
                    }
                    let t = Instant::now();
                    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
                    secs[i].push(t.elapsed().as_secs_f64());
                    verdict[i] = Some(if !out.status.success() {
                        let err = String::from_utf8_lossy(&out.stderr);
                        format!("FAILS: {}", err.lines().last().unwrap_or("").trim())
                    } else if normalize(&out.stdout) != want {
                        "WRONG ANSWER".to_string()
                    } else {
                        "ok".to_string()
                    });
                }
            }
            let base = median(&secs[0]);
            println!("  {:<36} {:>9} {:>8} {:>8}  answer", "tool", "median s", "MB/s", "x swath");
            for (i, (name, _)) in tools.iter().enumerate() {
                let v = verdict[i].clone().unwrap_or_default();
                if v != "ok" {
                    println!("  {name:<36} {:>9} {:>8} {:>8}  {v}", "-", "-", "-");
                    continue;
                }
                let m = median(&secs[i]);
                println!(
                    "  {name:<36} {m:>9.3} {:>8.0} {:>8.2}  ok",
                    sum.bytes as f64 / m / 1e6,
                    m / base
                );
            }
        }
        let _ = std::fs::remove_file(&path);
    }
    println!("\n(x swath: the tool's time over swath's; answers checked against swath's sequential reader)");
}

/// Every tool's command for query `q` over file `f`.
fn tools(f: &str, q: &str, python: Option<&str>, duckdb: Option<&Path>) -> Vec<(String, Command)> {
    let mut v = Vec::new();
    let mut c = Command::new(swath_binary());
    c.args(["sql", "--csv", "-t", "2", "--table", &format!("t={f}"), q]);
    v.push(("swath sql -t 2".to_string(), c));
    let me = std::env::current_exe().expect("current_exe");
    for mode in ["default", "newlines"] {
        let mut c = Command::new(&me);
        c.args(["--df-run", mode, "--file", f, "--query", q]);
        let name = if mode == "default" {
            "DataFusion CsvFormat"
        } else {
            "DataFusion newlines_in_values"
        };
        v.push((name.to_string(), c));
    }
    let view = format!("CREATE VIEW t AS SELECT * FROM read_csv('{f}'); {q}");
    if let Some(cli) = duckdb {
        let mut c = Command::new(cli);
        c.args(["-csv", "-c", &format!("SET threads=2; {view}")]);
        v.push(("DuckDB CLI".to_string(), c));
    }
    if let Some(py) = python {
        let mut c = Command::new(py);
        c.env("POLARS_MAX_THREADS", "2").args([
            "-c",
            &format!(
                "import sys, polars as pl\nctx = pl.SQLContext(t=pl.scan_csv({f:?}))\nsys.stdout.write(ctx.execute({q:?}).collect().write_csv())"
            ),
        ]);
        v.push(("Polars SQLContext".to_string(), c));
    }
    v
}

/// A tool's CSV answer as sorted rows of cells, the header row dropped and
/// numbers with a fraction rounded to 4 places (tools sum in other orders).
fn normalize(csv_text: &[u8]) -> Vec<Vec<String>> {
    let mut rdr = csv::ReaderBuilder::new().has_headers(true).from_reader(csv_text);
    let mut rows: Vec<Vec<String>> =
        rdr.records().filter_map(|r| r.ok()).map(|r| r.iter().map(cell).collect()).collect();
    rows.sort();
    rows
}

fn cell(s: &str) -> String {
    match s.parse::<f64>() {
        Ok(x) if s.contains('.') || s.contains('e') => format!("{x:.4}"),
        _ => s.to_string(),
    }
}

/// The answer computed from swath's sequential reader, no SQL.
fn reference(path: &Path, query: &str) -> Vec<Vec<String>> {
    let mut rdr = swath_csv::ReaderBuilder::new().from_path(path).expect("open");
    let mut count = 0u64;
    let mut by_city: BTreeMap<String, (f64, u64)> = BTreeMap::new();
    let mut picked = Vec::new();
    while let Some(rec) = rdr.next_record().expect("the generated file reads") {
        count += 1;
        let score: f64 = rec.get_str(2).unwrap().parse().unwrap();
        let city = rec.get_str(4).unwrap();
        let e = by_city.entry(city.to_string()).or_default();
        e.0 += score;
        e.1 += 1;
        if score > 99.5 && city == "Oslo" {
            picked.push(vec![
                rec.get_str(0).unwrap().to_string(),
                rec.get_str(1).unwrap().to_string(),
            ]);
        }
    }
    let mut rows = match query {
        "count" => vec![vec![count.to_string()]],
        "group by" => by_city
            .into_iter()
            .map(|(c, (s, n))| vec![c, cell(&format!("{:?}", s / n as f64))])
            .collect(),
        _ => picked,
    };
    rows.sort();
    rows
}

/// The child that runs DataFusion's own CSV table: the answer as CSV on
/// stdout; an error on stderr and exit 1.
fn df_run(mode: &str, file: &str, query: &str) {
    use swath_datafusion::datafusion::prelude::{CsvReadOptions, SessionConfig, SessionContext};
    let rt =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let res: Result<(), Box<dyn std::error::Error>> = rt.block_on(async {
        let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(2));
        let opts = CsvReadOptions::new().newlines_in_values(mode == "newlines");
        ctx.register_csv("t", file, opts).await?;
        let batches = ctx.sql(query).await?.collect().await?;
        let out = std::io::stdout().lock();
        let mut w = swath_datafusion::datafusion::arrow::csv::WriterBuilder::new()
            .with_header(true)
            .build(out);
        for b in &batches {
            w.write(b)?;
        }
        Ok(())
    });
    if let Err(e) = res {
        eprintln!("{e}");
        std::process::exit(1);
    }
}

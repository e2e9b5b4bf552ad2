//! Find and summarise side by side, whole process, 2 threads where a tool
//! takes a thread count:
//!
//! - `swath csv search` (a literal that matches about 1% of the rows,
//!   chosen from the file's own name frequencies, and a regex) against
//!   `xan search`, `xan grep` and `rg` when on PATH. Every tool's count of
//!   matching records is checked against swath's. rg counts lines, not
//!   records: equal here only because the file has no quoted newline.
//! - `swath csv frequency -s city,name -l 0` against `xan frequency` and
//!   DuckDB's `GROUP BY GROUPING SETS ((city), (name))` (the CLI from
//!   `.ci/peers.sh --bench`, beside SWATH_PEER_PYTHON or `--python`, or
//!   `duckdb` on PATH); every value's count is checked against swath's.
//!
//! Warm cache, medians, runs taken in turns.
//!
//! `bench/build && target/release/search [--rows 5000000] [--runs 3] [--dir DIR] [--python PY]`

use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use swath_bench::{arg, machine, print_table, swath_binary, warm, Measured};
use swath_lab::gen::csv::{write as gen_csv, CsvOptions};

/// A tool's command and how to read its answer from its stdout.
struct Tool {
    name: String,
    cmd: Command,
    answer: fn(&[u8]) -> Answer,
    note: String,
}

/// What a tool found: a count of records, or counts per (column, value).
#[derive(Debug, PartialEq)]
enum Answer {
    Records(u64),
    Counts(HashMap<(String, String), u64>),
}

fn on_path(bin: &str) -> Option<PathBuf> {
    let out = Command::new("sh").args(["-c", &format!("command -v {bin}")]).output().ok()?;
    let p = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !p.is_empty()).then(|| PathBuf::from(p))
}

fn main() {
    let runs: usize = arg("--runs").map_or(3, |s| s.parse().expect("--runs N"));
    let rows: u64 = arg("--rows").map_or(5_000_000, |s| s.parse().expect("--rows N"));
    let dir = arg("--dir").map_or_else(std::env::temp_dir, PathBuf::from);
    let python = arg("--python").or_else(|| std::env::var("SWATH_PEER_PYTHON").ok());
    let swath = swath_binary();
    let duckdb = python
        .as_ref()
        .map(|py| Path::new(py).with_file_name("duckdb"))
        .filter(|p| p.exists())
        .or_else(|| on_path("duckdb"));
    let (xan, rg) = (on_path("xan"), on_path("rg"));
    println!("search and frequency bench: {rows} rows, {runs} runs, 2 threads, warm cache");
    println!("machine: {}", machine());
    for (name, p) in [("xan", &xan), ("rg", &rg), ("duckdb", &duckdb)] {
        if p.is_none() {
            println!("{name}: not found, left out");
        }
    }

    let path = dir.join(format!("swath-bench-search-{rows}.csv"));
    let opts = CsvOptions { rows, seed: 1, quoted_newlines_pct: 0 };
    let sum = {
        let mut out = BufWriter::new(std::fs::File::create(&path).expect("create the file"));
        let sum = gen_csv(&mut out, &opts).expect("generate");
        out.flush().expect("write the file");
        sum
    };
    warm(&path);
    println!("{} ({} bytes, {} rows)", path.display(), sum.bytes, sum.rows);

    // The literal: the name whose count is nearest 1% of the rows.
    let freq = swath_frequency(&run(Command::new(&swath)
        .args(["csv", "frequency", "-s", "name", "-l", "0", "--json"])
        .arg(&path)));
    let Answer::Counts(names) = freq else { unreachable!() };
    let target = rows / 100;
    let (literal, n) = names
        .iter()
        .min_by_key(|((_, v), &n)| (n.abs_diff(target), v.clone()))
        .map(|((_, v), &n)| (v.clone(), n))
        .expect("names");
    println!(
        "literal {literal:?}: {n} rows have it as their name ({:.2}%)",
        n as f64 * 100.0 / rows as f64
    );
    let regex = "Par(is|ma)|[0-9]{3}\\.5,";

    for (title, pattern, literal_mode) in
        [("search: a literal", literal.as_str(), true), ("search: a regex", regex, false)]
    {
        let mut tools = Vec::new();
        let mut c = Command::new(&swath);
        c.args(["csv", "search", "-c", "-t", "2"]);
        if literal_mode {
            c.arg("--literal");
        }
        c.arg(pattern).arg(&path);
        tools.push(Tool {
            name: "swath csv search -c".into(),
            cmd: c,
            answer: count_line,
            note: "2 threads".into(),
        });
        if let Some(xan) = &xan {
            let mut c = Command::new(xan);
            c.arg("search");
            if !literal_mode {
                c.arg("-r");
            }
            c.arg(pattern).arg(&path);
            tools.push(Tool {
                name: "xan search".into(),
                cmd: c,
                answer: csv_records,
                note: "its default threads".into(),
            });
            // `xan grep` came after xan 0.61; left out where it is missing.
            let has_grep = Command::new(xan)
                .args(["grep", "--help"])
                .output()
                .is_ok_and(|o| o.status.success());
            if has_grep {
                let mut c = Command::new(xan);
                c.arg("grep");
                if !literal_mode {
                    c.arg("-r");
                }
                c.arg(pattern).arg(&path);
                tools.push(Tool {
                    name: "xan grep".into(),
                    cmd: c,
                    answer: csv_records,
                    note: "whole rows, quotes included".into(),
                });
            }
        }
        if let Some(rg) = &rg {
            let mut c = Command::new(rg);
            c.args(["-c", "-j", "2"]);
            if literal_mode {
                c.arg("-F");
            }
            c.arg(pattern).arg(&path);
            tools.push(Tool {
                name: "rg -c".into(),
                cmd: c,
                answer: count_line,
                note: "lines, not records".into(),
            });
        }
        bench(title, tools, runs, sum.bytes);
    }

    let mut tools = Vec::new();
    let mut c = Command::new(&swath);
    c.args(["csv", "frequency", "-s", "city,name", "-l", "0", "--json", "-t", "2"]).arg(&path);
    tools.push(Tool {
        name: "swath csv frequency".into(),
        cmd: c,
        answer: swath_frequency,
        note: "2 threads".into(),
    });
    if let Some(xan) = &xan {
        let mut c = Command::new(xan);
        c.args(["frequency", "-s", "city,name", "-l", "0"]).arg(&path);
        tools.push(Tool {
            name: "xan frequency".into(),
            cmd: c,
            answer: field_value_count,
            note: "its default threads".into(),
        });
    }
    if let Some(duckdb) = &duckdb {
        let sql = format!(
            "SET threads=2; COPY (SELECT CASE WHEN city IS NULL THEN 'name' ELSE 'city' END AS field, \
             coalesce(city, name) AS value, count(*) AS count FROM read_csv('{}') \
             GROUP BY GROUPING SETS ((city), (name))) TO '/dev/stdout' (FORMAT csv, HEADER)",
            path.display()
        );
        let mut c = Command::new(duckdb);
        c.args(["-c", &sql]);
        tools.push(Tool {
            name: "duckdb GROUP BY".into(),
            cmd: c,
            answer: field_value_count,
            note: "2 threads".into(),
        });
    }
    bench("frequency -s city,name", tools, runs, sum.bytes);
    let _ = std::fs::remove_file(&path);
}

/// Time every tool `runs` times in turns; check every answer against the
/// first tool's (swath's), and print the table.
fn bench(title: &str, mut tools: Vec<Tool>, runs: usize, bytes: u64) {
    let mut times = vec![Vec::new(); tools.len()];
    let mut want = None;
    for _ in 0..runs {
        for (i, t) in tools.iter_mut().enumerate() {
            let start = Instant::now();
            let out = run(&mut t.cmd);
            times[i].push(start.elapsed());
            let got = (t.answer)(&out);
            match &want {
                None => want = Some(got),
                Some(w) => assert_eq!(&got, w, "{}: a different answer from swath's", t.name),
            }
        }
    }
    let rows: Vec<Measured> = tools
        .iter()
        .zip(times)
        .map(|(t, times)| Measured { name: t.name.clone(), times, bytes, note: t.note.clone() })
        .collect();
    let answer = match want {
        Some(Answer::Records(n)) => format!("{n} records"),
        Some(Answer::Counts(c)) => format!("{} values' counts", c.len()),
        None => String::new(),
    };
    print_table(&format!("{title} (every answer equal: {answer})"), &rows, &rows[0].name);
}

fn run(cmd: &mut Command) -> Vec<u8> {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(out.status.success(), "{cmd:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

/// One number on a line (`swath csv search -c`, `rg -c`).
fn count_line(out: &[u8]) -> Answer {
    Answer::Records(String::from_utf8_lossy(out).trim().parse().expect("a count"))
}

/// The records of CSV output, its header row excluded.
fn csv_records(out: &[u8]) -> Answer {
    let mut rdr = swath_csv::ReaderBuilder::new().from_reader(out).expect("CSV output");
    let mut n = 0;
    while rdr.next_record().expect("CSV output").is_some() {
        n += 1;
    }
    Answer::Records(n)
}

/// `field,value,count` CSV (xan frequency, the DuckDB query); empty values
/// left out, as swath lists them apart.
fn field_value_count(out: &[u8]) -> Answer {
    let mut rdr = swath_csv::ReaderBuilder::new().from_reader(out).expect("CSV output");
    let mut counts = HashMap::new();
    while let Some(r) = rdr.next_record().expect("CSV output") {
        let (f, v, n): (&str, &str, u64) = r.scan().expect("field,value,count");
        if !v.is_empty() && v != "<empty>" {
            counts.insert((f.to_string(), v.to_string()), n);
        }
    }
    Answer::Counts(counts)
}

/// `swath csv frequency --json -l 0`: every value's count (exact only).
fn swath_frequency(out: &[u8]) -> Answer {
    #[derive(serde::Deserialize)]
    struct Doc {
        columns: Vec<Col>,
    }
    #[derive(serde::Deserialize)]
    struct Col {
        column: String,
        exact: bool,
        top: Vec<Entry>,
    }
    #[derive(serde::Deserialize)]
    struct Entry {
        value: String,
        count: u64,
    }
    let doc: Doc = serde_json::from_slice(out).expect("swath's JSON");
    let mut counts = HashMap::new();
    for c in doc.columns {
        assert!(c.exact, "{}: not exact within the memory budget", c.column);
        for e in c.top {
            counts.insert((c.column.clone(), e.value), e.count);
        }
    }
    Answer::Counts(counts)
}

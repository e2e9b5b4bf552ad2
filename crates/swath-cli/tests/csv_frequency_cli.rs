//! `csv frequency` against a slow twin (a plain HashMap over the sequential
//! reader) at 1 to 4 threads and tiny chunks; past the memory budget, the
//! sketch's counts within the bound it states.

mod common;

use std::collections::HashMap;
use std::io::Write;

use assert_cmd::Command;
use serde_json::Value;
use swath_csv::ReaderBuilder;

fn swath() -> Command {
    Command::cargo_bin("swath").unwrap()
}

fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut rng = swath_testkit::Rng::new(seed);
    move || rng.next_u64()
}

/// Cities with quoted newlines, quotes and empties; a skewed name column.
fn data(rows: usize) -> Vec<u8> {
    let mut next = rng(0x9E37_79B9_7F4A_7C15);
    let cities =
        ["Paris", "Lyon", "\"Par\nis\"", "\"in Paris,\nFrance\"", "\"say \"\"hi\"\"\"", ""];
    let mut out = b"id,name,city\n".to_vec();
    for i in 0..rows {
        let r = next();
        let city = cities[(r % cities.len() as u64) as usize];
        // Skewed: name k with probability about 1/(k+1).
        let name = (r >> 8) % 97 % ((r >> 20) % 97 + 1);
        out.extend_from_slice(format!("{i},n{name},{city}\n").as_bytes());
    }
    out
}

/// The twin: every value of column `col` counted in a HashMap, empties
/// apart. Returns (counts, empty).
fn twin(data: &[u8], col: usize) -> (HashMap<String, u64>, u64) {
    let mut rdr = ReaderBuilder::new().from_reader(data).unwrap();
    let (mut counts, mut empty) = (HashMap::new(), 0);
    while let Some(rec) = rdr.next_record().unwrap() {
        let v = rec.get(col).unwrap();
        if v.is_empty() {
            empty += 1;
        } else {
            *counts.entry(String::from_utf8(v.to_vec()).unwrap()).or_default() += 1;
        }
    }
    (counts, empty)
}

fn run_json(args: &[&str], path: &std::path::Path) -> Value {
    let out = swath().args(["csv", "frequency", "--json"]).args(args).arg(path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON output parses")
}

fn column<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["columns"].as_array().unwrap().iter().find(|c| c["column"] == name).unwrap()
}

fn top(col: &Value) -> Vec<(String, u64)> {
    col["top"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["value"].as_str().unwrap().to_string(), e["count"].as_u64().unwrap()))
        .collect()
}

#[test]
fn exact_counts_equal_the_twin_at_every_thread_count_and_chunk_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.csv");
    let bytes = data(3000);
    std::fs::write(&path, &bytes).unwrap();
    let mut docs = Vec::new();
    for (col, name) in [(1, "name"), (2, "city")] {
        let (counts, empty) = twin(&bytes, col);
        let mut want: Vec<(String, u64)> = counts.clone().into_iter().collect();
        want.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.as_bytes().cmp(b.0.as_bytes())));
        for threads in ["1", "2", "4"] {
            for chunk in ["97", "4096", "4194304"] {
                let args = ["-s", "name,city", "-l", "0", "-t", threads, "--chunk-size", chunk];
                let doc = run_json(&args, &path);
                let c = column(&doc, name);
                assert_eq!(top(c), want, "{name} t={threads} chunk={chunk}");
                assert_eq!(c["empty"], empty);
                assert_eq!(c["values"], counts.values().sum::<u64>());
                assert_eq!(c["distinct"], counts.len() as u64);
                assert_eq!(
                    (&c["exact"], &c["distinct_exact"]),
                    (&Value::Bool(true), &Value::Bool(true))
                );
                assert!(c["error_bound"].is_null());
                docs.push(doc);
            }
        }
        // -l keeps the first of the same order.
        let doc = run_json(&["-s", name, "-l", "3"], &path);
        assert_eq!(top(column(&doc, name)), want[..3]);
    }
    // Parallel equals sequential, and standard input (a stream).
    assert!(docs.windows(2).all(|w| w[0] == w[1]));
    let out = swath()
        .args(["csv", "frequency", "--json", "-s", "name,city", "-l", "0", "-"])
        .write_stdin(bytes)
        .output()
        .unwrap();
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap(), docs[0]);
}

#[test]
fn past_the_budget_a_sketch_says_so_and_keeps_its_bound() {
    // Half the values from 30 heavy ones (skewed), the other half unique.
    let mut next = rng(7);
    let mut csv = b"k\n".to_vec();
    for i in 0..60_000u64 {
        let r = next();
        let v = if r % 2 == 0 {
            format!("h{}", (r >> 8) % 30 % ((r >> 16) % 30 + 1))
        } else {
            format!("u{i}")
        };
        writeln!(csv, "{v}").unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("skew.csv");
    std::fs::write(&path, &csv).unwrap();
    let (truth, _) = twin(&csv, 0);
    let distinct = truth.len() as f64;
    for threads in ["1", "3"] {
        let args = ["-l", "0", "--memory", "100K", "-t", threads, "--chunk-size", "20000"];
        let doc = run_json(&args, &path);
        let c = column(&doc, "k");
        assert_eq!(c["exact"], false, "t={threads}: {c}");
        assert_eq!(c["distinct_exact"], false);
        let bound = c["error_bound"].as_u64().unwrap();
        let counters = c["counters"].as_u64().unwrap();
        assert!(
            bound > 0 && bound <= 60_000 / (counters + 1),
            "bound {bound}, {counters} counters"
        );
        let listed = top(c);
        for (v, n) in &listed {
            let real = truth[v];
            assert!(*n <= real && real <= n + bound, "{v}: listed {n}, true {real}, bound {bound}");
        }
        for (v, &real) in &truth {
            if real > bound {
                assert!(listed.iter().any(|(w, _)| w == v), "{v} ({real} > {bound}) not listed");
            }
        }
        let est = c["distinct"].as_f64().unwrap();
        assert!((est - distinct).abs() < 0.05 * distinct, "estimate {est} of {distinct}");
        // The report for people says so too.
        let out = swath()
            .args(["csv", "frequency", "--memory", "100K", "-t", threads, "--chunk-size", "20000"])
            .arg(&path)
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("APPROXIMATE") && text.contains(&format!("at most {bound}")),
            "{text}"
        );
        assert!(text.contains("HyperLogLog estimate"), "{text}");
    }
}

#[test]
fn no_headers_numbers_columns_and_a_bad_column_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("n.csv");
    std::fs::write(&path, "a,x\nb,x\na,\n").unwrap();
    let doc = run_json(&["--no-headers", "-s", "1"], &path);
    assert_eq!(top(column(&doc, "1")), [("a".to_string(), 2), ("b".to_string(), 1)]);
    let out = swath().args(["csv", "frequency", "-s", "nope"]).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope"));
    // An empty file: no columns, still JSON.
    std::fs::write(&path, "").unwrap();
    assert_eq!(run_json(&[], &path)["columns"], Value::Array(vec![]));
}

#[test]
fn a_broken_record_is_an_error_naming_its_position() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.csv");
    let mut bytes = data(500);
    bytes.extend_from_slice(b"1,\"open,x\n");
    std::fs::write(&path, &bytes).unwrap();
    for threads in ["1", "2"] {
        let out = swath()
            .args(["csv", "frequency", "-t", threads, "--chunk-size", "512"])
            .arg(&path)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("record 502") && err.contains("byte"), "{err}");
    }
}

/// Peak RSS of `swath args`, which must succeed.
fn peak_rss(args: &[&str]) -> u64 {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_swath"));
    cmd.args(args);
    let (code, peak) = common::exit_code_and_peak_rss(cmd);
    assert_eq!(code, 0, "{args:?}");
    peak
}

#[test]
fn memory_stays_within_the_budget_on_a_column_of_distinct_values() {
    // 400,000 distinct values: about 35 MiB of exact tables.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ids.csv");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(f, "id").unwrap();
    for i in 0..400_000u64 {
        writeln!(f, "{}", i * 7919 % 1_000_003).unwrap();
    }
    f.into_inner().unwrap();
    let p = path.to_str().unwrap();
    // The process itself (binary, its relocations, reader buffers, one
    // chunk per thread in flight): measured on a two-record file with the
    // same options, so that a bigger binary moves the bound with it.
    let tiny = dir.path().join("tiny.csv");
    std::fs::write(&tiny, "id\n1\n2\n").unwrap();
    let t = tiny.to_str().unwrap();
    for threads in ["1", "2"] {
        let base = peak_rss(&["csv", "frequency", "--memory", "4M", "-t", threads, t]);
        // The tables get --memory; chunks in flight and slack 8 MiB.
        let overhead = base + (8 << 20);
        let peak = peak_rss(&["csv", "frequency", "--memory", "4M", "-t", threads, p]);
        assert!(
            peak <= (4 << 20) + overhead,
            "t={threads}: peak RSS {} KiB, {} KiB on a two-record file",
            peak >> 10,
            base >> 10
        );
    }
}

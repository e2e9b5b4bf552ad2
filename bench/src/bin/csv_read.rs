//! CSV read: swath against the `csv` crate and `simd-csv`, side by side.
//!
//! Every method reads the same file and parses the same six typed columns
//! (`u64, &str, f64, bool, &str, &str`) into one checksum, which must be
//! the same for all (a fast wrong reader cannot win). Each method runs in a
//! child process of this binary, so its peak RSS and allocation count are
//! its own. Allocations come from the lab's counting allocator.
//!
//! ```text
//! cargo run --release -p swath-bench --bin csv_read -- [FILE] [--rows N] [--runs N]
//! ```
//!
//! Without FILE, `--rows` rows (default 5,000,000) of
//! `id,name,score,active,city,ts` come from the lab's generator
//! (`swath_lab::gen::csv`, about 10% of names quoted) into a temp file,
//! removed at the end.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use swath_bench::{arg, print_table, warm, Measured};
use swath_lab::gen::csv::{self as gen, CsvOptions};

#[global_allocator]
static ALLOC: swath_lab::CountingAlloc = swath_lab::CountingAlloc;

/// What every reader must find: data rows and a checksum of the values.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Answer {
    rows: u64,
    sum: u64,
}

impl Answer {
    #[inline]
    fn add(&mut self, id: u64, name: &[u8], score: f64, active: bool, city: &[u8], ts: &[u8]) {
        self.rows += 1;
        self.sum = self
            .sum
            .wrapping_add(id)
            .wrapping_add(name.len() as u64 * 3)
            // Scores are non-negative: adding 0.5 and truncating rounds
            // them. (`f64::round` is a libm call without SSE4.1, about 24
            // instructions a record in every method: harness, not reader.)
            .wrapping_add((score * 10.0 + 0.5) as u64)
            .wrapping_add(u64::from(active))
            .wrapping_add(city.len() as u64 * 7)
            .wrapping_add(ts.len() as u64);
    }

    /// Raw readers only see bytes: rows and total field bytes.
    #[inline]
    fn add_raw(&mut self, fields: usize, bytes: usize) {
        self.rows += 1;
        self.sum = self.sum.wrapping_add(fields as u64 * 1_000_003 + bytes as u64);
    }
}

const METHODS: &[&str] = &[
    "swath typed scan",
    "swath raw fields",
    "swath serde",
    "csv byte_record+parse",
    "csv serde",
    "simd-csv zero-copy+parse",
];

fn main() {
    if let Some(method) = arg("--child") {
        let path = PathBuf::from(arg("--file").expect("--file"));
        let runs: usize = arg("--runs").and_then(|r| r.parse().ok()).unwrap_or(5);
        child(&method, &path, runs);
        return;
    }
    let runs: usize = arg("--runs").and_then(|r| r.parse().ok()).unwrap_or(5);
    let rows: u64 = arg("--rows").and_then(|r| r.parse().ok()).unwrap_or(5_000_000);
    let given = std::env::args()
        .skip(1)
        .scan(false, |skip, a| {
            let this = if *skip { None } else { Some(a.clone()) };
            *skip = a.starts_with("--") && !a.contains('=');
            Some(this)
        })
        .flatten()
        .find(|a| !a.starts_with("--"));
    let (path, temp) = match given {
        Some(p) => (PathBuf::from(p), false),
        None => {
            let p = std::env::temp_dir().join(format!("swath-bench-csv-{rows}.csv"));
            let mut f = io::BufWriter::new(File::create(&p).expect("create the temp file"));
            let opts = CsvOptions { rows, ..CsvOptions::default() };
            let s = gen::write(&mut f, &opts).expect("generate");
            drop(f);
            println!(
                "generated {} rows, {} bytes, {} quoted names (swath_lab::gen::csv)",
                s.rows, s.bytes, s.quoted_names
            );
            (p, true)
        }
    };
    let bytes = std::fs::metadata(&path).expect("stat").len();
    warm(&path);
    println!("{}: {:.1} MB, {runs} runs per method, medians", path.display(), bytes as f64 / 1e6);
    println!("machine: {}", swath_bench::machine());
    let mut rows_out = Vec::new();
    let mut typed_answer = None;
    for &m in METHODS {
        let out = Command::new(std::env::current_exe().expect("current_exe"))
            .args(["--child", m, "--file"])
            .arg(&path)
            .args(["--runs", &runs.to_string()])
            .output()
            .expect("run the child");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{m} failed: {}", String::from_utf8_lossy(&out.stderr));
        let field = |k: &str| -> String {
            text.split_whitespace()
                .find_map(|w| w.strip_prefix(&format!("{k}=")))
                .unwrap_or_else(|| panic!("{m}: no {k} in {text}"))
                .to_string()
        };
        let times: Vec<Duration> = field("times")
            .split(',')
            .map(|t| Duration::from_nanos(t.parse().expect("nanoseconds")))
            .collect();
        let answer = field("answer");
        if m != "swath raw fields" {
            // Every typed reader must agree with the first one.
            let first = typed_answer.get_or_insert_with(|| answer.clone());
            assert_eq!(&answer, first, "{m} disagrees with {}", METHODS[0]);
        }
        let note = format!(
            "{} MB/s, {} allocs, peak RSS {:.1} MiB, {answer}",
            (bytes as f64 / median(&times).as_secs_f64() / 1e6) as u64,
            field("allocs"),
            field("rss").parse::<f64>().unwrap_or(0.0) / 1048576.0
        );
        rows_out.push(Measured { name: m.to_string(), times, bytes, note });
    }
    print_table("CSV read, 6 typed columns", &rows_out, "csv byte_record+parse");
    if temp {
        let _ = std::fs::remove_file(&path);
    }
}

fn median(t: &[Duration]) -> Duration {
    let mut t = t.to_vec();
    t.sort();
    t[t.len() / 2]
}

/// Run one method `runs` times and print its times, answer, allocations
/// (of the last run) and peak RSS.
fn child(method: &str, path: &Path, runs: usize) {
    let mut allocs = 0;
    let mut answer = None;
    let mut times = Vec::new();
    for _ in 0..runs {
        let before = swath_lab::alloc::stats();
        let t = Instant::now();
        let got = match method {
            "swath typed scan" => swath_typed(path),
            "swath raw fields" => swath_raw(path),
            "swath serde" => swath_serde(path),
            "csv byte_record+parse" => csv_parse(path),
            "csv serde" => csv_serde(path),
            "simd-csv zero-copy+parse" => simd_csv(path),
            _ => panic!("unknown method {method}"),
        };
        times.push(t.elapsed());
        allocs = swath_lab::alloc::stats().since(&before).allocations;
        // Every run must find the same; the parent compares methods.
        assert_eq!(*answer.get_or_insert(got), got, "{method}: runs disagree");
    }
    let answer = answer.expect("at least one run");
    let times: Vec<String> = times.iter().map(|t| t.as_nanos().to_string()).collect();
    println!(
        "times={} answer=rows:{},sum:{} allocs={allocs} rss={}",
        times.join(","),
        answer.rows,
        answer.sum,
        swath_lab::os::usage().max_rss
    );
}

fn swath_typed(path: &Path) -> Answer {
    let mut rdr = swath_csv::Reader::from_path(path).expect("open");
    let mut a = Answer::default();
    while let Some(rec) = rdr.next_record().expect("read") {
        let (id, name, score, active, city, ts): (u64, &str, f64, bool, &str, &str) =
            rec.scan().expect("scan");
        a.add(id, name.as_bytes(), score, active, city.as_bytes(), ts.as_bytes());
    }
    a
}

fn swath_raw(path: &Path) -> Answer {
    let mut rdr = swath_csv::Reader::from_path(path).expect("open");
    let mut a = Answer::default();
    while let Some(rec) = rdr.next_record().expect("read") {
        a.add_raw(rec.len(), rec.iter().map(<[u8]>::len).sum());
    }
    a
}

fn swath_serde(path: &Path) -> Answer {
    let mut rdr = swath_csv::Reader::from_path(path).expect("open");
    let mut a = Answer::default();
    while let Some(rec) = rdr.next_record().expect("read") {
        let r: Row = rec.deserialize().expect("deserialize");
        a.add(r.id, r.name.as_bytes(), r.score, r.active, r.city.as_bytes(), r.ts.as_bytes());
    }
    a
}

fn parse<T: std::str::FromStr>(b: &[u8]) -> T
where
    T::Err: std::fmt::Debug,
{
    std::str::from_utf8(b).expect("utf-8").parse().expect("parse")
}

fn parse_bool(b: &[u8]) -> bool {
    match b {
        b"true" => true,
        b"false" => false,
        _ => panic!("not a bool"),
    }
}

fn csv_parse(path: &Path) -> Answer {
    let mut rdr = csv::Reader::from_path(path).expect("open");
    let mut rec = csv::ByteRecord::new();
    let mut a = Answer::default();
    while rdr.read_byte_record(&mut rec).expect("read") {
        let name = std::str::from_utf8(&rec[1]).expect("utf-8");
        let city = std::str::from_utf8(&rec[4]).expect("utf-8");
        let ts = std::str::from_utf8(&rec[5]).expect("utf-8");
        a.add(
            parse(&rec[0]),
            name.as_bytes(),
            parse(&rec[2]),
            parse_bool(&rec[3]),
            city.as_bytes(),
            ts.as_bytes(),
        );
    }
    a
}

#[derive(serde::Deserialize)]
struct Row<'a> {
    id: u64,
    #[serde(borrow)]
    name: std::borrow::Cow<'a, str>,
    score: f64,
    active: bool,
    city: &'a str,
    ts: &'a str,
}

fn csv_serde(path: &Path) -> Answer {
    let mut rdr = csv::Reader::from_path(path).expect("open");
    let headers = rdr.byte_headers().expect("headers").clone();
    let mut rec = csv::ByteRecord::new();
    let mut a = Answer::default();
    while rdr.read_byte_record(&mut rec).expect("read") {
        let r: Row = rec.deserialize(Some(&headers)).expect("deserialize");
        a.add(r.id, r.name.as_bytes(), r.score, r.active, r.city.as_bytes(), r.ts.as_bytes());
    }
    a
}

fn simd_csv(path: &Path) -> Answer {
    let mut rdr = simd_csv::ZeroCopyReader::from_reader(File::open(path).expect("open"));
    let mut a = Answer::default();
    while let Some(rec) = rdr.read_byte_record().expect("read") {
        // Only the name can be quoted; unescape it, take the rest as is.
        let name = rec.unescape(1).expect("name");
        let name = std::str::from_utf8(&name).expect("utf-8");
        let city = std::str::from_utf8(rec.get(4).expect("city")).expect("utf-8");
        let ts = std::str::from_utf8(rec.get(5).expect("ts")).expect("utf-8");
        a.add(
            parse(rec.get(0).expect("id")),
            name.as_bytes(),
            parse(rec.get(2).expect("score")),
            parse_bool(rec.get(3).expect("active")),
            city.as_bytes(),
            ts.as_bytes(),
        );
    }
    a
}

//! CSV write: swath's typed `write_row` against the `csv` crate's
//! `write_record` (fields formatted first, with itoa/ryu into stack buffers,
//! the fastest way to feed it) and its serde `serialize` (ryu inside), on
//! the same typed rows (u64, &str, f64, bool, &str, a timestamp string).
//! swath formats floats with zmij (same bytes as ryu, faster): that is part
//! of what is measured.
//!
//! Each writer runs `--runs` times (median reported) into a file in the
//! temp dir (page cache; no fsync: we measure the writer, not the disk) and
//! into a counting sink (pure CPU). Every output is checked: the same byte
//! count for all writers, and the same FNV-1a hash of the file.
//!
//! ```text
//! cargo run --release -p swath-bench --bin csv_write -- [ROWS] [--runs N] [--sink-only|--file-only] [--only NAME]
//! ```

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use swath_lab::{alloc, CountingAlloc};

// The lab's counting allocator: the same one the `swath` binary measures
// its methods with.
#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// The row data: fixed pools indexed by row number, so every writer gets
/// the same rows and making them costs next to nothing.
struct Data {
    names: Vec<String>,
    cities: Vec<&'static str>,
    stamps: Vec<String>,
}

impl Data {
    fn new() -> Data {
        let first = ["Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi", "Ivan"];
        let mut names: Vec<String> = first.iter().map(|s| s.to_string()).collect();
        // About 10% need quotes: a comma, or an embedded quote.
        names.push("Smith, John".to_string());
        let cities = vec!["Oslo", "Lima", "Pune", "Kyiv", "Nice", "Bern", "Rome"];
        let stamps = (0..1024u64)
            .map(|i| {
                let s = i * 86_413 % 86_400;
                format!(
                    "2026-{:02}-{:02}T{:02}:{:02}:{:02}Z",
                    i % 12 + 1,
                    i % 28 + 1,
                    s / 3600,
                    s / 60 % 60,
                    s % 60
                )
            })
            .collect();
        Data { names, cities, stamps }
    }

    #[inline]
    fn row(&self, i: u64) -> Row<'_> {
        Row {
            id: i,
            name: &self.names[(i % 10) as usize],
            score: (i.wrapping_mul(7919) % 100_000) as f64 / 100.0 + 0.001,
            active: i.is_multiple_of(3),
            city: self.cities[(i % 7) as usize],
            ts: &self.stamps[(i % 1024) as usize],
        }
    }
}

#[derive(serde::Serialize)]
struct Row<'a> {
    id: u64,
    name: &'a str,
    score: f64,
    active: bool,
    city: &'a str,
    ts: &'a str,
}

/// A sink that only counts bytes (and hashes nothing: pure CPU cost).
struct CountingSink(u64);

impl Write for CountingSink {
    #[inline]
    fn write(&mut self, b: &[u8]) -> io::Result<usize> {
        self.0 += b.len() as u64;
        Ok(b.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Where output goes; `finish` returns the byte count.
trait Target: Write + Sized {
    fn bytes(&self) -> u64;
}

impl Target for CountingSink {
    fn bytes(&self) -> u64 {
        self.0
    }
}

impl Target for File {
    fn bytes(&self) -> u64 {
        self.metadata().map(|m| m.len()).unwrap_or(0)
    }
}

fn swath_write_row<W: Target>(d: &Data, rows: u64, w: W) -> io::Result<u64> {
    let mut wtr = swath_csv::Writer::from_writer(w);
    for i in 0..rows {
        let r = d.row(i);
        wtr.write_row((r.id, r.name, r.score, r.active, r.city, r.ts))?;
    }
    let w = wtr.finish().map_err(swath_csv::WriteError::from)?;
    Ok(w.bytes())
}

fn csv_write_record<W: Target>(d: &Data, rows: u64, w: W) -> io::Result<u64> {
    let mut wtr = csv::WriterBuilder::new().has_headers(false).from_writer(w);
    let mut id = itoa::Buffer::new();
    let mut score = ryu::Buffer::new();
    for i in 0..rows {
        let r = d.row(i);
        let fields: [&[u8]; 6] = [
            id.format(r.id).as_bytes(),
            r.name.as_bytes(),
            score.format(r.score).as_bytes(),
            if r.active { b"true" } else { b"false" },
            r.city.as_bytes(),
            r.ts.as_bytes(),
        ];
        wtr.write_record(fields)?;
    }
    let w = wtr.into_inner().map_err(|e| e.into_error())?;
    Ok(w.bytes())
}

fn csv_serialize<W: Target>(d: &Data, rows: u64, w: W) -> io::Result<u64> {
    let mut wtr = csv::WriterBuilder::new().has_headers(false).from_writer(w);
    for i in 0..rows {
        wtr.serialize(d.row(i))?;
    }
    let w = wtr.into_inner().map_err(|e| e.into_error())?;
    Ok(w.bytes())
}

type Method = (
    &'static str,
    fn(&Data, u64, File) -> io::Result<u64>,
    fn(&Data, u64, CountingSink) -> io::Result<u64>,
);

const METHODS: [Method; 3] = [
    ("swath write_row", swath_write_row::<File>, swath_write_row::<CountingSink>),
    ("csv write_record", csv_write_record::<File>, csv_write_record::<CountingSink>),
    ("csv serialize", csv_serialize::<File>, csv_serialize::<CountingSink>),
];

struct Sample {
    time: Duration,
    bytes: u64,
    allocs: u64,
    alloc_bytes: u64,
}

fn measure(f: impl FnOnce() -> io::Result<u64>) -> io::Result<Sample> {
    let before = alloc::stats();
    let t = Instant::now();
    let bytes = f()?;
    let time = t.elapsed();
    let used = alloc::stats().since(&before);
    Ok(Sample { time, bytes, allocs: used.allocations, alloc_bytes: used.allocated })
}

fn fnv1a(path: &Path) -> io::Result<u64> {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut f = File::open(path)?;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            return Ok(h);
        }
        for &b in &buf[..n] {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }
}

struct Opts {
    rows: u64,
    runs: usize,
    file: bool,
    sink: bool,
    /// Run only the writers whose name contains this (for profiling).
    only: Option<String>,
}

fn parse_args() -> Result<Opts, String> {
    let mut o = Opts { rows: 5_000_000, runs: 5, file: true, sink: true, only: None };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--runs" => {
                let v = args.next().ok_or("--runs needs a number")?;
                o.runs = v.parse().map_err(|_| format!("bad --runs {v}"))?;
                o.runs = o.runs.max(1);
            }
            "--sink-only" => o.file = false,
            "--only" => o.only = Some(args.next().ok_or("--only needs a writer name")?),
            "--file-only" => o.sink = false,
            "-h" | "--help" => {
                return Err("usage: csv_write [ROWS (default 5000000)] [--runs N (5)] [--sink-only|--file-only] [--only NAME]".into())
            }
            n => o.rows = n.replace('_', "").parse().map_err(|_| format!("bad row count {n}"))?,
        }
    }
    Ok(o)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("csv_write: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let o = parse_args()?;
    let d = Data::new();
    let path: PathBuf =
        std::env::temp_dir().join(format!("swath-bench-csv-write-{}.csv", std::process::id()));
    println!(
        "csv write: {} rows (u64, &str, f64, bool, &str, timestamp), median of {} runs",
        o.rows, o.runs
    );
    let mut failed = false;
    for (target, on) in [("file", o.file), ("sink", o.sink)] {
        if !on {
            continue;
        }
        if target == "file" {
            println!("\ninto a file in {} (page cache, no fsync)", std::env::temp_dir().display());
        } else {
            println!("\ninto a counting sink (CPU only)");
        }
        println!(
            "{:<18} {:>10} {:>10} {:>12} {:>8} {:>10} {:>12} {:>8}",
            "writer", "median s", "MB/s", "bytes", "allocs", "alloc KiB", "allocs/row", "ratio"
        );
        let mut results = Vec::new();
        let mut reference: Option<(u64, u64)> = None;
        for (name, to_file, to_sink) in METHODS {
            if o.only.as_ref().is_some_and(|w| !name.contains(w.as_str())) {
                continue;
            }
            let mut times = Vec::new();
            let mut last = None;
            for _ in 0..o.runs {
                let s = if target == "file" {
                    let f = File::create(&path)?;
                    measure(|| to_file(&d, o.rows, f))?
                } else {
                    measure(|| to_sink(&d, o.rows, CountingSink(0)))?
                };
                times.push(s.time);
                last = Some(s);
            }
            let s = last.expect("at least one run");
            // The answer check: same size for all, same hash for files.
            let hash = if target == "file" { fnv1a(&path)? } else { 0 };
            match reference {
                None => reference = Some((s.bytes, hash)),
                Some((bytes, h)) if bytes != s.bytes || h != hash => {
                    eprintln!("MISMATCH: {name} wrote {} bytes (hash {hash:x}), expected {bytes} (hash {h:x})", s.bytes);
                    failed = true;
                }
                Some(_) => {}
            }
            results.push((name, median(times), s));
        }
        let base = results[0].1.as_secs_f64();
        for (name, t, s) in &results {
            let secs = t.as_secs_f64();
            println!(
                "{:<18} {:>10.3} {:>10.1} {:>12} {:>8} {:>10} {:>12.6} {:>7.2}x",
                name,
                secs,
                s.bytes as f64 / 1e6 / secs,
                s.bytes,
                s.allocs,
                s.alloc_bytes / 1024,
                s.allocs as f64 / o.rows.max(1) as f64,
                secs / base,
            );
        }
        println!("(ratio: that writer's time / swath's; above 1 means swath is faster)");
    }
    let _ = std::fs::remove_file(&path);
    if failed {
        return Err("outputs differ between writers".into());
    }
    Ok(())
}

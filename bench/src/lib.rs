//! Shared pieces of the side-by-side benchmarks: timing with medians,
//! running peer commands, locating the `swath` binary, and tables.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Sizes like `512M`, `4K`, `1G` (powers of 1024) or plain bytes: the lab's parser.
pub use swath_lab::units::parse_size;

/// The value following `--name` in the process arguments, if any.
pub fn arg(name: &str) -> Option<String> {
    let mut args = std::env::args();
    while let Some(a) = args.next() {
        if a == name {
            return args.next();
        }
        if let Some(v) = a.strip_prefix(&format!("{name}=")) {
            return Some(v.to_string());
        }
    }
    None
}

/// The release `swath` binary next to this bench binary.
pub fn swath_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let dir = exe.parent().expect("bench binary has a directory");
    let bin = dir.join("swath");
    assert!(
        bin.exists(),
        "{} not found: run `cargo build --release -p swath-cli` first (bench/run does)",
        bin.display()
    );
    bin
}

/// One measured entry: its name, the run times, and the bytes it read.
pub struct Measured {
    /// What was measured.
    pub name: String,
    /// Every run's wall time.
    pub times: Vec<Duration>,
    /// Bytes processed per run (for GB/s).
    pub bytes: u64,
    /// Free-form note (threads, answer).
    pub note: String,
}

impl Measured {
    /// Median run time.
    pub fn median(&self) -> Duration {
        let mut t = self.times.clone();
        t.sort();
        t[t.len() / 2]
    }

    /// Decimal gigabytes per second at the median.
    pub fn gbps(&self) -> f64 {
        self.bytes as f64 / self.median().as_secs_f64() / 1e9
    }
}

/// Run `f` `runs` times; `f` returns its answer, which must equal `expect`.
pub fn measure<T: PartialEq + std::fmt::Debug>(
    name: &str,
    runs: usize,
    bytes: u64,
    expect: &T,
    mut f: impl FnMut() -> T,
) -> Measured {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        let got = f();
        times.push(t.elapsed());
        assert_eq!(&got, expect, "{name} gave a wrong answer");
    }
    Measured { name: name.to_string(), times, bytes, note: String::new() }
}

/// Run a command, return its stdout and stderr; panic with both on failure.
pub fn run_command(cmd: &mut Command) -> (String, String) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{cmd:?} failed: {stderr}");
    (stdout, stderr)
}

/// The first whitespace-separated number of `s`.
pub fn first_number(s: &str) -> u64 {
    s.split_whitespace().next().and_then(|w| w.parse().ok()).unwrap_or(u64::MAX)
}

/// Print a table of entries with each one's ratio to `baseline`'s median
/// (higher is faster).
pub fn print_table(title: &str, rows: &[Measured], baseline: &str) {
    let base = rows.iter().find(|r| r.name == baseline).map(Measured::median);
    println!("\n{title}");
    println!(
        "{:<36} {:>9} {:>9} {:>9} {:>8}  note",
        "method", "median s", "min s", "GB/s", "x base"
    );
    for r in rows {
        let min = r.times.iter().min().copied().unwrap_or_default();
        let ratio = base.map_or(f64::NAN, |b| b.as_secs_f64() / r.median().as_secs_f64());
        println!(
            "{:<36} {:>9.3} {:>9.3} {:>9.2} {:>8.2}  {}",
            r.name,
            r.median().as_secs_f64(),
            min.as_secs_f64(),
            r.gbps(),
            ratio,
            r.note
        );
    }
    println!("(x base: speed relative to `{baseline}`, same run; medians)");
}

/// Read a whole file once with large reads, so it is in the page cache in
/// large folios before a warm series (see DESIGN.md, idea 7). A file the
/// bench has just written is written back first: left dirty, it is written
/// back some 30 s later by the kernel's flusher, in the middle of a series
/// and on one of the two cores being measured.
pub fn warm(path: &Path) {
    use std::io::Read;
    let mut f = std::fs::File::open(path).expect("open for warming");
    f.sync_all().expect("write the file back");
    let mut buf = vec![0u8; 1 << 20];
    while f.read(&mut buf).expect("warming read") > 0 {}
}

/// A description of this machine for the report header (the lab's).
pub fn machine() -> String {
    swath_lab::report::machine()
}

/// Run `cmd` under `/usr/bin/time` (when there is one): wall seconds and
/// peak RSS in KiB (0 when unknown).
pub fn timed(cmd: &Command, time: &Path) -> (f64, u64) {
    let mut c = if time.exists() {
        let mut c = Command::new(time);
        c.args(["-f", "swath-bench-rss %M"]).arg(cmd.get_program()).args(cmd.get_args());
        for (k, v) in cmd.get_envs() {
            if let Some(v) = v {
                c.env(k, v);
            }
        }
        c
    } else {
        let mut c = Command::new(cmd.get_program());
        c.args(cmd.get_args());
        c
    };
    let t = Instant::now();
    let out = c.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let secs = t.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{cmd:?} failed: {err}");
    let rss = err
        .lines()
        .filter_map(|l| l.strip_prefix("swath-bench-rss "))
        .next_back()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    (secs, rss)
}

/// Rows of a Parquet file, as pyarrow reads its footer.
pub fn parquet_rows(python: &str, path: &Path) -> u64 {
    let out = Command::new(python)
        .args(["-c", "import sys, pyarrow.parquet as pq; print(pq.ParquetFile(sys.argv[1]).metadata.num_rows)"])
        .arg(path)
        .output()
        .expect("run pyarrow");
    assert!(out.status.success(), "pyarrow: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().parse().expect("a row count")
}

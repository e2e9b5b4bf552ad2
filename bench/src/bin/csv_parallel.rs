//! Parallel CSV side by side: `swath csv count` and `swath csv select` on
//! 1 and 2 threads, against the `csv` crate (in process: `ByteRecord`s
//! counted, or the same columns written with `csv::Writer`) and `xan` when
//! it is on PATH, on the generated 5M-row file and on a variant where 20%
//! of the rows hold a newline inside quotes. Warm cache, medians, the
//! entries' runs taken in turns; every entry's answer is checked (record
//! count; selected output bytes). The
//! commands' output goes to a file (in /dev/shm when there is one), read
//! back after each timed run: a pipe read by this process while the
//! command runs would take one of the two cores from it.
//!
//! `bench/build && target/release/csv_parallel [--rows 5000000] [--runs 5] [--dir DIR]`

use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use std::time::{Duration, Instant};

use swath_bench::{
    arg, first_number, machine, print_table, run_command, swath_binary, warm, Measured,
};
use swath_lab::gen::csv::{write as gen_csv, CsvOptions};

/// Columns `select` keeps (the generator's `id,name,score,active,city,ts`).
const COLUMNS: &str = "name,city";
const PICK: [usize; 2] = [1, 4];

fn main() {
    let runs: usize = arg("--runs").map_or(5, |s| s.parse().expect("--runs N"));
    let rows: u64 = arg("--rows").map_or(5_000_000, |s| s.parse().expect("--rows N"));
    let dir = arg("--dir").map_or_else(std::env::temp_dir, PathBuf::from);
    let swath = swath_binary();
    let xan = on_path("xan");
    println!("parallel CSV bench: {rows} rows, {runs} runs, warm cache");
    println!("machine: {}", machine());
    println!("xan: {}", xan.as_ref().map_or("not on PATH".into(), |p| p.display().to_string()));
    for pct in [0u8, 20] {
        let path = dir.join(format!("swath-bench-{rows}-{pct}.csv"));
        let opts = CsvOptions { rows, seed: 1, quoted_newlines_pct: pct };
        let sum = {
            let mut out = BufWriter::new(std::fs::File::create(&path).expect("create the file"));
            let sum = gen_csv(&mut out, &opts).expect("generate");
            out.flush().expect("write the file");
            sum
        };
        warm(&path);
        let what = format!(
            "{} ({} bytes, {} rows, {} with a quoted newline)",
            path.display(),
            sum.bytes,
            sum.rows,
            sum.quoted_newlines
        );
        count_series(&swath, xan.as_deref(), &path, sum.bytes, rows, runs, &what);
        select_series(&swath, xan.as_deref(), &path, sum.bytes, runs, &what);
        let _ = std::fs::remove_file(&path);
    }
}

/// One entry of a series: its name, and one timed run that returns its
/// wall time and its answer.
type Entry<'a, T> = (String, Box<dyn FnMut() -> (Duration, T) + 'a>);

/// Run every entry `runs` times, round robin (run 1 of each, then run 2 of
/// each...), checking each answer against `expect`. On a shared machine
/// the load drifts; taking turns gives every entry the same drift, and
/// the runs of two entries with the same index ran side by side in time.
fn interleaved<T: PartialEq + std::fmt::Debug>(
    runs: usize,
    bytes: u64,
    expect: &T,
    mut entries: Vec<Entry<'_, T>>,
) -> Vec<Measured> {
    let mut out: Vec<Measured> = entries
        .iter()
        .map(|(name, _)| Measured {
            name: name.clone(),
            times: Vec::new(),
            bytes,
            note: String::new(),
        })
        .collect();
    for _ in 0..runs {
        for (m, (name, run)) in out.iter_mut().zip(entries.iter_mut()) {
            let (took, got) = run();
            assert_eq!(&got, expect, "{name} gave a wrong answer");
            m.times.push(took);
        }
    }
    out
}

/// Time `f` alone.
fn timed<T>(f: impl FnOnce() -> T) -> (Duration, T) {
    let t = Instant::now();
    let got = f();
    (t.elapsed(), got)
}

fn count_series(
    swath: &Path,
    xan: Option<&Path>,
    path: &Path,
    bytes: u64,
    rows: u64,
    runs: usize,
    what: &str,
) {
    let mut entries: Vec<Entry<'_, u64>> = Vec::new();
    for t in ["1", "2"] {
        let run = move || {
            timed(|| {
                let (out, _) =
                    run_command(Command::new(swath).args(["csv", "count", "-t", t]).arg(path));
                first_number(&out)
            })
        };
        entries.push((format!("swath csv count -t {t}"), Box::new(run)));
    }
    let csv_count = move || {
        timed(|| {
            let mut rdr = csv::ReaderBuilder::new()
                .buffer_capacity(256 * 1024)
                .from_path(path)
                .expect("open");
            let mut rec = csv::ByteRecord::new();
            let mut n = 0u64;
            while rdr.read_byte_record(&mut rec).expect("csv crate read") {
                n += 1;
            }
            n
        })
    };
    entries.push(("csv crate ByteRecord count".into(), Box::new(csv_count)));
    if let Some(xan) = xan {
        let run = move || {
            timed(|| first_number(&run_command(Command::new(xan).arg("count").arg(path)).0))
        };
        entries.push(("xan count".into(), Box::new(run)));
    }
    let table = interleaved(runs, bytes, &rows, entries);
    print_table(&format!("count: {what}"), &table, "csv crate ByteRecord count");
    speedup(&table, "swath csv count -t 1", "swath csv count -t 2");
}

fn select_series(
    swath: &Path,
    xan: Option<&Path>,
    path: &Path,
    bytes: u64,
    runs: usize,
    what: &str,
) {
    // The answer every entry must give: the bytes the csv crate writes.
    let expect = csv_select(path);
    // Commands write to a file, checked (and removed) after each timed
    // run; in memory when /dev/shm is there, so that the disk's writeback
    // does not take the cores the commands are measured on.
    let shm = Path::new("/dev/shm");
    let out = if shm.is_dir() {
        shm.join(format!("swath-bench-select-{}.out", std::process::id()))
    } else {
        path.with_extension("select.out")
    };
    let out = out.as_path();
    let mut entries: Vec<Entry<'_, (u64, u64)>> = Vec::new();
    for t in ["1", "2"] {
        let run = move || {
            let mut cmd = Command::new(swath);
            cmd.args(["csv", "select", "-c", COLUMNS, "-t", t]).arg(path);
            let (took, ()) = timed(|| to_file(&mut cmd, out));
            (took, file_bytes(out))
        };
        entries.push((format!("swath csv select -t {t}"), Box::new(run)));
    }
    entries.push(("csv crate read + write".into(), Box::new(|| timed(|| csv_select(path)))));
    if let Some(xan) = xan {
        let run = move || {
            let mut cmd = Command::new(xan);
            cmd.args(["select", COLUMNS]).arg(path);
            let (took, ()) = timed(|| to_file(&mut cmd, out));
            (took, file_bytes(out))
        };
        entries.push(("xan select".into(), Box::new(run)));
    }
    let table = interleaved(runs, bytes, &expect, entries);
    let _ = std::fs::remove_file(out);
    print_table(&format!("select {COLUMNS}: {what}"), &table, "csv crate read + write");
    speedup(&table, "swath csv select -t 1", "swath csv select -t 2");
}

/// Run `cmd` with its stdout into `out` (created or truncated).
fn to_file(cmd: &mut Command, out: &Path) {
    let file = std::fs::File::create(out).expect("create the output file");
    let status = cmd.stdout(file).stderr(Stdio::inherit()).status().expect("spawn");
    assert!(status.success(), "{cmd:?} failed");
}

/// Size and `\n` count of the file at `path`, which is then removed (so
/// that the next timed run does not pay for truncating it).
fn file_bytes(path: &Path) -> (u64, u64) {
    let mut f = std::fs::File::open(path).expect("open the output");
    let mut buf = vec![0u8; 1 << 20];
    let (mut bytes, mut lines) = (0u64, 0u64);
    loop {
        let n = f.read(&mut buf).expect("read the output");
        if n == 0 {
            let _ = std::fs::remove_file(path);
            return (bytes, lines);
        }
        bytes += n as u64;
        lines += buf[..n].iter().filter(|&&b| b == b'\n').count() as u64;
    }
}

/// The same selection with the csv crate, into a counting sink.
fn csv_select(path: &Path) -> (u64, u64) {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .buffer_capacity(256 * 1024)
        .from_path(path)
        .expect("open");
    let mut wtr = csv::WriterBuilder::new().from_writer(Counter::default());
    let mut rec = csv::ByteRecord::new();
    while rdr.read_byte_record(&mut rec).expect("csv crate read") {
        wtr.write_record(PICK.iter().map(|&i| &rec[i])).expect("write");
    }
    let c = wtr.into_inner().map_err(|e| e.into_error()).expect("flush");
    (c.bytes, c.lines)
}

/// Counts bytes and `\n`s written to it.
#[derive(Default)]
struct Counter {
    bytes: u64,
    lines: u64,
}

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes += buf.len() as u64;
        self.lines += buf.iter().filter(|&&b| b == b'\n').count() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn speedup(table: &[Measured], one: &str, two: &str) {
    let find = |n: &str| table.iter().find(|m| m.name == n);
    if let (Some(a), Some(b)) = (find(one), find(two)) {
        // Runs with the same index ran one after the other (round robin):
        // their ratio sees the same load, which the medians of each do not.
        let mut paired: Vec<f64> =
            a.times.iter().zip(&b.times).map(|(x, y)| x.as_secs_f64() / y.as_secs_f64()).collect();
        paired.sort_by(f64::total_cmp);
        println!(
            "2 threads vs 1: {:.2}x at the medians, {:.2}x the median of paired runs (target >= 1.8x)",
            a.median().as_secs_f64() / b.median().as_secs_f64(),
            paired[paired.len() / 2]
        );
    }
    for m in table {
        println!("  {:<32} {:>9.1} MB/s", m.name, m.gbps() * 1000.0);
    }
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

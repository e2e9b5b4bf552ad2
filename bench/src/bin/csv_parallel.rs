//! Parallel CSV side by side: `swath csv count` and `swath csv select` on
//! 1 and 2 threads, against the `csv` crate (in process: `ByteRecord`s
//! counted, or the same columns written with `csv::Writer`) and `xan` when
//! it is on PATH, on the generated 5M-row file and on a variant where 20%
//! of the rows hold a newline inside quotes. Warm cache, medians; every
//! entry's answer is checked (record count; selected output bytes). The
//! commands' output goes to a file (in /dev/shm when there is one), read
//! back after each timed run: a pipe read by this process while the
//! command runs would take one of the two cores from it.
//!
//! `cargo build --release -p swath-cli -p swath-bench && target/release/csv_parallel [--rows 5000000] [--runs 5] [--dir DIR]`

use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use swath_bench::{
    arg, first_number, machine, measure, measure_then_check, print_table, run_command,
    swath_binary, warm, Measured,
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

fn count_series(
    swath: &Path,
    xan: Option<&Path>,
    path: &Path,
    bytes: u64,
    rows: u64,
    runs: usize,
    what: &str,
) {
    let mut table: Vec<Measured> = Vec::new();
    for t in ["1", "2"] {
        let name = format!("swath csv count -t {t}");
        table.push(measure(&name, runs, bytes, &rows, || {
            let (out, _) =
                run_command(Command::new(swath).args(["csv", "count", "-t", t]).arg(path));
            first_number(&out)
        }));
    }
    table.push(measure("csv crate ByteRecord count", runs, bytes, &rows, || {
        let mut rdr =
            csv::ReaderBuilder::new().buffer_capacity(256 * 1024).from_path(path).expect("open");
        let mut rec = csv::ByteRecord::new();
        let mut n = 0u64;
        while rdr.read_byte_record(&mut rec).expect("csv crate read") {
            n += 1;
        }
        n
    }));
    if let Some(xan) = xan {
        table.push(measure("xan count", runs, bytes, &rows, || {
            let (out, _) = run_command(Command::new(xan).arg("count").arg(path));
            first_number(&out)
        }));
    }
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
    let mut table: Vec<Measured> = Vec::new();
    for t in ["1", "2"] {
        let name = format!("swath csv select -t {t}");
        table.push(measure_then_check(
            &name,
            runs,
            bytes,
            &expect,
            || {
                let mut cmd = Command::new(swath);
                to_file(cmd.args(["csv", "select", "-c", COLUMNS, "-t", t]).arg(path), &out);
            },
            || file_bytes(&out),
        ));
    }
    table.push(measure("csv crate read + write", runs, bytes, &expect, || csv_select(path)));
    if let Some(xan) = xan {
        table.push(measure_then_check(
            "xan select",
            runs,
            bytes,
            &expect,
            || to_file(Command::new(xan).args(["select", COLUMNS]).arg(path), &out),
            || file_bytes(&out),
        ));
    }
    let _ = std::fs::remove_file(&out);
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
        let best = |m: &Measured| m.times.iter().min().copied().unwrap_or_default().as_secs_f64();
        // On a shared machine the medians move with the neighbours' load;
        // the best runs show what the code does when it has the cores.
        println!(
            "2 threads vs 1: {:.2}x at the medians, {:.2}x at the best runs (target >= 1.8x)",
            a.median().as_secs_f64() / b.median().as_secs_f64(),
            best(a) / best(b)
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

//! Cutting and tailing a big CSV side by side: `swath csv split -n 8`
//! without and with an index against `xan split -c 8` (when on PATH), GNU
//! `split -n l/8` and `swath split -n 8` (which cut lines, so they cut
//! records with a quoted newline: GNU's parts are checked and the table says
//! how many do not read alone) and `cp` of the same file;
//! then `swath csv tail -n 10` with and without an index against `xan tail
//! -l 10` and GNU `tail -n 10` (lines, not records). On the generated 5M-row
//! file and a variant where 20% of the rows hold a quoted newline; warm
//! cache; the entries' runs taken in turns; medians. Every entry's answer
//! is checked: the parts' records (each part read alone) add up to the
//! file's; tail's records are the last 10 records of a sequential read.
//! The parts are written beside the input (same file system, so
//! `copy_file_range` can work), and removed after each run.
//!
//! `bench/build && target/release/split [--rows 5000000] [--runs 5] [--dir DIR]`

use std::collections::VecDeque;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use swath_bench::{arg, machine, print_table, run_command, swath_binary, warm, Measured};
use swath_lab::gen::csv::{write as gen_csv, CsvOptions};

fn main() {
    let runs: usize = arg("--runs").map_or(5, |s| s.parse().expect("--runs N"));
    let rows: u64 = arg("--rows").map_or(5_000_000, |s| s.parse().expect("--rows N"));
    let dir = arg("--dir").map_or_else(std::env::temp_dir, PathBuf::from);
    let swath = swath_binary();
    let xan = on_path("xan");
    println!("split and tail bench: {rows} rows, {runs} runs, warm cache");
    println!("machine: {}", machine());
    println!(
        "xan: {}",
        xan.as_ref()
            .map_or("not on PATH: its entries are left out".into(), |p| p.display().to_string())
    );
    for pct in [0u8, 20] {
        let path = dir.join(format!("swath-bench-split-{rows}-{pct}.csv"));
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
        split_series(&swath, xan.as_deref(), &path, sum.bytes, rows, runs, &what);
        tail_series(&swath, xan.as_deref(), &path, sum.bytes, runs, &what);
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(path.with_extension("csv.swathidx"));
    }
}

/// One entry: its name, a command line to time (run in a fresh output
/// directory), and a check of what it wrote, returning a note.
struct Entry<'a> {
    name: String,
    cmd: Box<dyn Fn(&Path) -> Command + 'a>,
    check: Check<'a>,
}

/// Looks at the output directory and the command's stdout; returns a note.
type Check<'a> = Box<dyn Fn(&Path, &[u8]) -> String + 'a>;

/// Run every entry `runs` times, round robin, each in a fresh directory
/// beside the input; time the command only, then check its output.
fn interleaved(input: &Path, runs: usize, bytes: u64, entries: &[Entry<'_>]) -> Vec<Measured> {
    let mut out: Vec<Measured> = entries
        .iter()
        .map(|e| Measured { name: e.name.clone(), times: Vec::new(), bytes, note: String::new() })
        .collect();
    for _ in 0..runs {
        for (e, m) in entries.iter().zip(&mut out) {
            let work = input.with_extension(format!("bench-out-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&work);
            std::fs::create_dir_all(&work).expect("output directory");
            let mut cmd = (e.cmd)(&work);
            let t = Instant::now();
            let (stdout, _) = run_command(&mut cmd);
            m.times.push(t.elapsed());
            m.note = (e.check)(&work, stdout.as_bytes());
            let _ = std::fs::remove_dir_all(&work);
        }
    }
    out
}

/// The files a command wrote, sorted by name.
fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(dir).expect("list parts").map(|e| e.expect("entry").path()).collect();
    v.sort();
    v
}

/// Records of a CSV part read alone (the header row not counted), or why
/// it does not read.
fn part_records(path: &Path, headers: bool) -> Result<u64, String> {
    let mut b = swath_csv::ReaderBuilder::new();
    b.has_headers(headers);
    let mut rdr = b.from_path(path).map_err(|e| e.to_string())?;
    let mut n = 0;
    while rdr.next_record().map_err(|e| e.to_string())?.is_some() {
        n += 1;
    }
    Ok(n)
}

fn split_series(
    swath: &Path,
    xan: Option<&Path>,
    input: &Path,
    bytes: u64,
    rows: u64,
    runs: usize,
    what: &str,
) {
    // Parts with the header row each: their records add up to the file's.
    let csv_parts = |dir: &Path, _: &[u8]| {
        let parts = files_in(dir);
        let total: u64 = parts
            .iter()
            .map(|p| part_records(p, true).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
            .sum();
        assert_eq!(total, rows, "the parts' records are not the file's");
        format!("{} parts, {total} records", parts.len())
    };
    // An index beside the input for the entry that uses one (made once,
    // not timed; the others are told not to look for one).
    let index = input.with_extension("split-bench.swathidx");
    run_command(Command::new(swath).args(["csv", "index", "--index-file"]).arg(&index).arg(input));
    let mut entries = vec![
        Entry {
            name: "cp".into(),
            cmd: Box::new(|dir: &Path| {
                let mut c = Command::new("cp");
                c.arg(input).arg(dir.join("copy.csv"));
                c
            }),
            check: Box::new(|dir: &Path, _: &[u8]| {
                let len = std::fs::metadata(dir.join("copy.csv")).expect("the copy").len();
                assert_eq!(len, bytes, "cp wrote another length");
                "the same bytes, one file".into()
            }),
        },
        Entry {
            name: "swath csv split -n 8".into(),
            cmd: Box::new(|dir: &Path| {
                let mut c = Command::new(swath);
                c.args(["csv", "split", "-n", "8", "--no-index", "-o"]).arg(dir).arg(input);
                c
            }),
            check: Box::new(csv_parts),
        },
        Entry {
            name: "swath csv split -n 8 (index)".into(),
            cmd: Box::new(|dir: &Path| {
                let mut c = Command::new(swath);
                c.args(["csv", "split", "-n", "8", "--index-file"]).arg(&index);
                c.arg("-o").arg(dir).arg(input);
                c
            }),
            check: Box::new(csv_parts),
        },
    ];
    if let Some(xan) = xan {
        entries.push(Entry {
            name: "xan split -c 8".into(),
            cmd: Box::new(move |dir: &Path| {
                let mut c = Command::new(xan);
                c.args(["split", "-c", "8", "-O"]).arg(dir).arg(input);
                c
            }),
            check: Box::new(csv_parts),
        });
    }
    entries.push(Entry {
        name: "GNU split -n l/8".into(),
        cmd: Box::new(|dir: &Path| {
            let mut c = Command::new("split");
            c.args(["-n", "l/8"]).arg(input).arg(dir.join("x"));
            c
        }),
        check: Box::new(|dir: &Path, _: &[u8]| {
            // Lines, not records: parts after the first have no header
            // row, and a cut inside a quoted field leaves parts that do
            // not read alone.
            let parts = files_in(dir);
            let len: u64 = parts.iter().map(|p| std::fs::metadata(p).expect("part").len()).sum();
            assert_eq!(len, bytes, "GNU split's parts are not the file's bytes");
            let broken =
                parts.iter().enumerate().filter(|(i, p)| part_records(p, *i == 0).is_err()).count();
            format!("cuts lines, not records: {broken} of {} parts do not read alone", parts.len())
        }),
    });
    entries.push(Entry {
        name: "swath split -n 8 (lines)".into(),
        cmd: Box::new(|dir: &Path| {
            let mut c = Command::new(swath);
            c.args(["split", "-n", "8", "-o"]).arg(dir).arg(input);
            c
        }),
        check: Box::new(|dir: &Path, _: &[u8]| {
            let parts = files_in(dir);
            let len: u64 = parts.iter().map(|p| std::fs::metadata(p).expect("part").len()).sum();
            assert_eq!(len, bytes, "swath split's parts are not the file's bytes");
            format!("GNU's cuts (lines, not records): {} parts", parts.len())
        }),
    });
    let measured = interleaved(input, runs, bytes, &entries);
    print_table(&format!("Split into 8 parts: {what}"), &measured, "cp");
    let _ = std::fs::remove_file(&index);
}

fn tail_series(
    swath: &Path,
    xan: Option<&Path>,
    input: &Path,
    bytes: u64,
    runs: usize,
    what: &str,
) {
    // The reference: the last 10 records of a sequential read, written by
    // swath's writer as `csv head` writes (the bytes swath must print).
    let want: Vec<Vec<Vec<u8>>> = {
        let mut rdr = swath_csv::ReaderBuilder::new().from_path(input).expect("open");
        let mut last = VecDeque::new();
        while let Some(rec) = rdr.next_record().expect("read") {
            if last.len() == 10 {
                last.pop_front();
            }
            last.push_back(rec.iter().map(<[u8]>::to_vec).collect::<Vec<_>>());
        }
        last.into()
    };
    let records_of = |out: &[u8]| -> Vec<Vec<Vec<u8>>> {
        let mut rdr = swath_csv::ReaderBuilder::new().from_reader(out).expect("parse");
        let mut v = Vec::new();
        while let Some(rec) = rdr.next_record().expect("tail's output reads") {
            v.push(rec.iter().map(<[u8]>::to_vec).collect());
        }
        v
    };
    let check_records = |_: &Path, out: &[u8]| {
        assert_eq!(records_of(out), want, "not the last 10 records");
        "the last 10 records".to_string()
    };
    let index = swath::index::default_index_path(input);
    let _ = std::fs::remove_file(&index);
    let t = Instant::now();
    run_command(Command::new(swath).args(["csv", "index"]).arg(input));
    let indexing = t.elapsed();
    let mut entries = vec![
        Entry {
            name: "swath csv tail -n 10 (index)".into(),
            cmd: Box::new(|_: &Path| {
                let mut c = Command::new(swath);
                c.args(["csv", "tail", "-n", "10"]).arg(input);
                c
            }),
            check: Box::new(check_records),
        },
        Entry {
            name: "swath csv tail -n 10 --no-index".into(),
            cmd: Box::new(|_: &Path| {
                let mut c = Command::new(swath);
                c.args(["csv", "tail", "-n", "10", "--no-index"]).arg(input);
                c
            }),
            check: Box::new(check_records),
        },
    ];
    if let Some(xan) = xan {
        entries.push(Entry {
            name: "xan tail -l 10".into(),
            cmd: Box::new(move |_: &Path| {
                let mut c = Command::new(xan);
                c.args(["tail", "-l", "10"]).arg(input);
                c
            }),
            check: Box::new(check_records),
        });
    }
    entries.push(Entry {
        name: "GNU tail -n 10".into(),
        cmd: Box::new(|_: &Path| {
            let mut c = Command::new("tail");
            c.args(["-n", "10"]).arg(input);
            c
        }),
        check: Box::new(|_: &Path, out: &[u8]| {
            let lines = out.iter().filter(|&&b| b == b'\n').count();
            assert_eq!(lines, 10, "GNU tail printed another number of lines");
            "10 lines, not records".to_string()
        }),
    });
    let measured = interleaved(input, runs, bytes, &entries);
    print_table(&format!("Last 10 records: {what}"), &measured, "GNU tail -n 10");
    println!("(swath csv index took {:.3} s once, not in the table)", secs(indexing));
    let _ = std::fs::remove_file(&index);
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

//! Line counting side by side: `swath count` (1 thread and all threads),
//! GNU `wc -l`, `dd bs=1M of=/dev/null`, and std `BufRead::lines()`, on the
//! seed's 512 MiB log file, warm cache, medians. Every entry checks its count.
//!
//! `bench/build && target/release/count [--size 512M] [--runs 5] [--file PATH]`

use std::io::BufRead;
use std::process::Command;

use swath_bench::{
    arg, first_number, machine, measure, parse_size, print_table, run_command, swath_binary, warm,
    Measured,
};

fn main() {
    let runs: usize = arg("--runs").map_or(5, |s| s.parse().expect("--runs N"));
    let swath = swath_binary();
    let dir = tempfile_dir();
    let (path, generated) = match arg("--file") {
        Some(p) => (std::path::PathBuf::from(p), false),
        None => {
            let size = parse_size(&arg("--size").unwrap_or_else(|| "512M".into())).unwrap();
            let path = dir.join("seed.log");
            let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
            swath_lab::gen::log::write(&mut out, size).unwrap();
            std::io::Write::flush(&mut out).unwrap();
            (path, true)
        }
    };
    let bytes = std::fs::metadata(&path).unwrap().len();
    warm(&path);
    // The reference answer: newline bytes, counted by the slow, obvious way.
    let newlines = {
        let mut n = 0u64;
        let mut rdr =
            std::io::BufReader::with_capacity(1 << 20, std::fs::File::open(&path).unwrap());
        loop {
            let buf = rdr.fill_buf().unwrap();
            if buf.is_empty() {
                break;
            }
            n += buf.iter().filter(|&&b| b == b'\n').count() as u64;
            let len = buf.len();
            rdr.consume(len);
        }
        n
    };
    // Lines: newlines plus an unterminated last line (the generated file is
    // cut at exactly --size bytes, so its last line usually has no newline).
    let lines = newlines + u64::from(last_byte(&path) != Some(b'\n'));
    println!(
        "line count bench: {} ({} bytes, {} newlines), {runs} runs, warm cache",
        path.display(),
        bytes,
        newlines
    );
    println!("machine: {}", machine());

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut rows: Vec<Measured> = Vec::new();
    let swath_count = |threads: usize| {
        let out = run_command(
            Command::new(&swath)
                .args(["count", "--newlines", "--threads", &threads.to_string()])
                .arg(&path),
        );
        first_number(&out.0)
    };
    rows.push(measure("wc -l", runs, bytes, &newlines, || {
        first_number(&run_command(Command::new("wc").arg("-l").arg(&path)).0)
    }));
    rows.push(measure("swath count --threads 1", runs, bytes, &newlines, || swath_count(1)));
    let mut all =
        measure(&format!("swath count --threads {cores}"), runs, bytes, &newlines, || {
            swath_count(cores)
        });
    all.note = "all cores".into();
    rows.push(all);
    let mut mmap = measure("swath count --mmap", runs, bytes, &newlines, || {
        first_number(
            &run_command(Command::new(&swath).args(["count", "--newlines", "--mmap"]).arg(&path)).0,
        )
    });
    mmap.note = format!("{cores} threads");
    rows.push(mmap);
    let mut dd = measure("dd bs=1M of=/dev/null", runs, bytes, &bytes, || {
        let (_, err) = run_command(
            Command::new("dd")
                .arg(format!("if={}", path.display()))
                .args(["bs=1M", "of=/dev/null"]),
        );
        first_number(err.lines().last().unwrap_or(""))
    });
    dd.note = "reads only, counts nothing".into();
    rows.push(dd);
    let mut std_lines = measure("std BufRead::lines()", runs, bytes, &lines, || {
        let rdr = std::io::BufReader::new(std::fs::File::open(&path).unwrap());
        let mut n = 0u64;
        for line in rdr.lines() {
            line.expect("lines() failed");
            n += 1;
        }
        n
    });
    std_lines.note = "in-process, a String per line".into();
    rows.push(std_lines);
    print_table("Line counting", &rows, "wc -l");
    if generated {
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

fn last_byte(path: &std::path::Path) -> Option<u8> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::open(path).unwrap();
    let len = file.metadata().unwrap().len();
    let mut b = [0u8; 1];
    (len > 0).then(|| {
        file.read_exact_at(&mut b, len - 1).unwrap();
        b[0]
    })
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("swath-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

//! The record limit bounds memory exactly: a `csv count` or `csv select`
//! of a file with one huge field peaks at most at the field's size (or the
//! limit, when the field is longer and the run fails) plus the process's
//! own footprint (the same command on a two-record file) plus
//! [`OVERHEAD`]; every other reading command at a stated number of copies
//! of it. Peak RSS is the child's own `ru_maxrss` (the kernel's
//! VmHWM at exit), read with `wait4`.
//!
//! Before the buffer grew with `mremap`, each doubling held the old and the
//! new buffer at once: a 16 MiB field peaked at 55 MiB, a 64 MiB one at
//! 203 MiB (issue 19). These sizes are small so the tests stay fast on an
//! unoptimised build; README figures go to 100 MiB.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

/// The stated constant, over the process's own footprint (measured, as
/// it grows with the binary: about 6 MiB for a release build, 12 MiB for
/// a test build): one 256 KiB buffer per thread, the ordered output's
/// window, and the last copy before the buffer becomes a map of its own
/// (1 MiB), with room to spare.
const OVERHEAD: u64 = 4 << 20;

const MIB: u64 = 1 << 20;

/// A CSV whose second record has one field of `field` bytes.
fn huge_field_csv(dir: &Path, field: u64) -> std::path::PathBuf {
    use std::io::Write;
    let path = dir.join(format!("field-{field}.csv"));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    f.write_all(b"id,big,c\n1,").unwrap();
    let block = vec![b'a'; 1 << 16];
    let mut left = field;
    while left > 0 {
        let n = left.min(block.len() as u64) as usize;
        f.write_all(&block[..n]).unwrap();
        left -= n as u64;
    }
    f.write_all(b",z\n2,x,y\n").unwrap();
    f.flush().unwrap();
    path
}

/// Run swath with `args`; return whether it succeeded and its peak RSS.
fn peak_rss(args: &[&str], file: &Path) -> (bool, u64) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_swath"));
    cmd.args(args).arg(file).stderr(Stdio::null());
    let (code, peak) = common::exit_code_and_peak_rss(cmd);
    (code == 0, peak)
}

fn check(args: &[&str], file: &Path, field: u64, limit: u64) {
    check_copies(args, file, field, limit, 1);
}

/// As [`check`], for a command that holds `copies` of the longest record
/// at its peak (the record, and the fields it copies out of it).
fn check_copies(args: &[&str], file: &Path, field: u64, limit: u64, copies: u64) {
    let mut full = args.to_vec();
    let limit_arg = limit.to_string();
    full.extend(["--max-record-size", &limit_arg]);
    let (ok, peak) = peak_rss(&full, file);
    assert_eq!(ok, field < limit, "{full:?} on a {field}-byte field");
    let small = file.with_extension("small.csv");
    std::fs::write(&small, b"id,big,c\n1,a,z\n2,x,y\n").unwrap();
    let (small_ok, footprint) = peak_rss(&full, &small);
    assert!(small_ok, "{full:?} on a two-record file");
    let bound = footprint + copies * field.min(limit) + OVERHEAD;
    assert!(
        peak <= bound,
        "{full:?}: peak RSS {:.1} MiB over the bound {:.1} MiB (own footprint {:.1} MiB, \
         field {} MiB, limit {} MiB)",
        peak as f64 / MIB as f64,
        bound as f64 / MIB as f64,
        footprint as f64 / MIB as f64,
        field / MIB,
        limit / MIB
    );
}

#[test]
fn count_and_select_peak_at_the_record_plus_a_constant() {
    let dir = tempfile::tempdir().unwrap();
    for field in [MIB, 12 * MIB] {
        let file = huge_field_csv(dir.path(), field);
        for threads in ["1", "2"] {
            check(&["csv", "count", "-t", threads], &file, field, 32 * MIB);
            check(&["csv", "select", "-c", "3,1", "-t", threads], &file, field, 32 * MIB);
        }
    }
}

#[test]
fn a_field_over_the_limit_fails_within_the_limit_plus_a_constant() {
    let dir = tempfile::tempdir().unwrap();
    let file = huge_field_csv(dir.path(), 24 * MIB);
    for threads in ["1", "2"] {
        check(&["csv", "count", "-t", threads], &file, 24 * MIB, 8 * MIB);
        check(&["csv", "select", "-c", "2", "-t", threads], &file, 24 * MIB, 8 * MIB);
    }
    check(&["csv", "check", "-t", "2"], &file, 24 * MIB, 16 * MIB);
}

/// The ends of the range: a 1 GiB field against limits of 256 MiB
/// and 1 MiB (the error comes within the limit plus the constant), and a
/// 192 MiB field read whole under the 256 MiB limit. The GiB goes to the
/// commands that stop at the error: `count`'s validating scan reads the
/// whole file first (10 to 18 s in a test build), so it gets the 192 MiB.
#[test]
fn a_gibibyte_field_and_limits_from_one_to_256_mebibytes() {
    let dir = tempfile::tempdir().unwrap();
    let gib = huge_field_csv(dir.path(), 1024 * MIB);
    for limit in [256 * MIB, MIB] {
        check(&["csv", "select", "-c", "3", "-t", "1"], &gib, 1024 * MIB, limit);
        check(&["csv", "check", "-t", "1"], &gib, 1024 * MIB, limit);
    }
    drop(std::fs::remove_file(&gib));
    let big = huge_field_csv(dir.path(), 192 * MIB);
    check(&["csv", "count", "-t", "2"], &big, 192 * MIB, 256 * MIB);
}

/// Every other reading command, with the copies of the longest record it
/// holds at its peak, as measured (debug build, a 12 MiB field, peak over
/// the command's own footprint): `check`, `search` and `frequency` hold
/// one (the record); `tail`, `sample` and `slice` two (over the limit, two
/// threads' buffers reach it before the error); `head` and `to-json` two
/// (the record and a copy on its way out); `to-arrow` two (the record and
/// the Arrow column); `stats` four (measured 3.4, was 4.7 before long values
/// were counted as distinct by digest: the record and the lexicographic
/// first and last values its column summary keeps); `to-parquet` six
/// (measured 5.1 on two threads, 3.1 on one; was 6.1 before a batch with
/// a long value got a row group of its own without dictionary and
/// statistics: the record, the Arrow column, the writer's plain values and
/// its page, and on two threads a second reader's buffer around a record
/// that spans many chunks). Each
/// bound is the limit times that many copies, plus the constant; under the
/// limit and over it (the error then comes within the bound).
#[test]
fn every_reading_command_peaks_at_its_copies_of_the_record_plus_a_constant() {
    let dir = tempfile::tempdir().unwrap();
    let file = huge_field_csv(dir.path(), 12 * MIB);
    let parquet = dir.path().join("out.parquet").display().to_string();
    let arrow = dir.path().join("out.arrow").display().to_string();
    let cases: Vec<(Vec<&str>, u64)> = vec![
        (vec!["csv", "check"], 1),
        (vec!["csv", "search", "--literal", "x", "-c"], 1),
        (vec!["csv", "frequency", "-s", "c"], 1),
        (vec!["csv", "tail", "-n", "1"], 2),
        (vec!["csv", "sample", "-n", "1"], 2),
        (vec!["csv", "slice", "--start", "1", "--end", "2"], 2),
        (vec!["csv", "head", "-n", "5"], 2),
        (vec!["csv", "to-json"], 2),
        (vec!["csv", "to-arrow", "-o", &arrow], 2),
        (vec!["csv", "stats"], 4),
        (vec!["csv", "to-parquet", "-o", &parquet], 6),
    ];
    for (args, copies) in &cases {
        check_copies(args, &file, 12 * MIB, 32 * MIB, *copies);
        check_copies(args, &file, 12 * MIB, 4 * MIB, *copies);
    }
}

/// An over-limit record is an error as soon as the record passes the
/// limit, without reading the rest of the file: here 1 GiB of it (a
/// sparse hole, so the test writes nothing), after a record whose 3 MiB
/// field is over a 1 MiB limit near the top. Every reading command, on one
/// thread and on two, reads at most the bytes up to the record and past
/// it by the limit, twice (the validating count gives up there and the
/// reader reads again from the top), plus the chunks read ahead (a few
/// 4 MiB chunks a thread); and it names the record's first byte. The
/// same for the commands on a split plan (`csv index`, `tail`, `sample`,
/// `slice`, `swath sql`), whose quote-parity pass read the whole file
/// before a split's reader met the error.
#[test]
fn an_over_limit_record_fails_without_reading_the_rest_of_the_file() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad-then-a-gib.csv");
    let mut f = std::fs::File::create(&path).unwrap();
    let mut head = b"id,big,c\n".to_vec();
    for i in 0..1000 {
        writeln!(head, "{i},x,y").unwrap();
    }
    let bad_start = head.len() as u64;
    head.extend_from_slice(b"1000,");
    head.resize(head.len() + 3 * MIB as usize, b'a');
    head.extend_from_slice(b",z\n1001,x,y\n");
    f.write_all(&head).unwrap();
    f.set_len(head.len() as u64 + 1024 * MIB).unwrap();
    drop(f);
    let limit = MIB;
    let dir_arg = |name: &str| dir.path().join(name).display().to_string();
    let (parquet, arrow) = (dir_arg("out.parquet"), dir_arg("out.arrow"));
    let index = dir_arg("out.swathidx");
    let table = format!("t={}", path.display());
    let mut commands: Vec<Vec<&str>> = vec![
        vec!["csv", "count"],
        vec!["csv", "check"],
        vec!["csv", "select", "-c", "1"],
        vec!["csv", "stats"],
        vec!["csv", "frequency", "-s", "c"],
        vec!["csv", "search", "--literal", "x", "-c"],
        vec!["csv", "to-json"],
        vec!["csv", "to-arrow", "-o", &arrow],
        vec!["csv", "to-parquet", "-o", &parquet],
        // The commands on a split plan: its quote-parity pass stops there.
        vec!["csv", "index", "--index-file", &index],
        vec!["csv", "tail", "-n", "1"],
        vec!["csv", "sample", "-n", "1"],
        vec!["csv", "slice", "--start", "1", "--end", "2"],
    ];
    if cfg!(feature = "sql") {
        commands.push(vec!["sql", "--table", &table, "SELECT count(*) FROM t"]);
    }
    let bound = 2 * (bad_start + limit) + 64 * MIB;
    for args in &commands {
        for threads in ["1", "2"] {
            let out = dir.path().join("stderr");
            // These plan on every core and read one split.
            let on_every_core = ["index", "tail", "slice"].contains(&args[1]);
            let threads_arg = if on_every_core { vec![] } else { vec!["-t", threads] };
            if threads_arg.is_empty() && threads != "1" {
                continue;
            }
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_swath"));
            cmd.arg(args[0]);
            if args[0] == "sql" {
                cmd.args(&threads_arg).args(["--max-record-size", &limit.to_string()]);
                cmd.args(&args[1..]);
            } else {
                cmd.args(&args[1..])
                    .args(&threads_arg)
                    .args(["--max-record-size", &limit.to_string()])
                    .arg(&path);
            }
            cmd.stdout(Stdio::null()).stderr(std::fs::File::create(&out).unwrap());
            if args[1] == "check" {
                // Its report of problems is its output.
                cmd.stdout(std::fs::File::create(&out).unwrap());
                cmd.stderr(Stdio::null());
            }
            let done = common::run_to_end(cmd);
            let stderr = std::fs::read_to_string(&out).unwrap();
            assert_ne!(done.code, 0, "{args:?} -t {threads} succeeded: {stderr}");
            assert!(
                stderr.contains("longer than the limit") && stderr.contains(&bad_start.to_string()),
                "{args:?} -t {threads}: the error names neither the limit nor byte {bad_start}: \
                 {stderr}"
            );
            assert!(
                done.bytes_read <= bound,
                "{args:?} -t {threads} read {:.1} MiB of a {:.1} MiB file before its error \
                 (bound {:.1} MiB)",
                done.bytes_read as f64 / MIB as f64,
                (head.len() as u64 + 1024 * MIB) as f64 / MIB as f64,
                bound as f64 / MIB as f64
            );
        }
    }
    assert!(
        [&parquet, &arrow, &index].iter().all(|p| !Path::new(p).exists()),
        "a partial output was left"
    );
}

/// `swath count` counts lines without holding one: no copy of the longest
/// line, whatever its length (lines have no limit).
#[test]
fn count_holds_no_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = huge_field_csv(dir.path(), 24 * MIB);
    let small = file.with_extension("small.csv");
    std::fs::write(&small, b"id,big,c\n1,a,z\n2,x,y\n").unwrap();
    for threads in ["1", "2"] {
        let (ok, peak) = peak_rss(&["count", "-t", threads], &file);
        let (small_ok, footprint) = peak_rss(&["count", "-t", threads], &small);
        assert!(ok && small_ok);
        assert!(
            peak <= footprint + OVERHEAD,
            "count -t {threads}: peak RSS {:.1} MiB over its footprint {:.1} MiB + 4 MiB",
            peak as f64 / MIB as f64,
            footprint as f64 / MIB as f64
        );
    }
}

/// `swath sql` holds two copies of the longest record at its peak (the
/// record, and the Arrow column a query that reads the field decodes it
/// into), on one partition and two; over the limit the query fails
/// within the bound.
#[cfg(feature = "sql")]
#[test]
fn sql_peaks_at_two_copies_of_the_record_plus_a_constant() {
    let dir = tempfile::tempdir().unwrap();
    let field = 12 * MIB;
    let file = huge_field_csv(dir.path(), field);
    let small = file.with_extension("small.csv");
    std::fs::write(&small, b"id,big,c\n1,a,z\n2,x,y\n").unwrap();
    let run = |path: &Path, threads: &str, limit: u64, query: &str| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_swath"));
        cmd.args(["sql", "-t", threads, "--max-record-size", &limit.to_string(), "--table"])
            .arg(format!("t={}", path.display()))
            .arg(query)
            .stderr(Stdio::null());
        common::exit_code_and_peak_rss(cmd)
    };
    for query in ["SELECT count(*) FROM t", "SELECT max(length(big)) FROM t"] {
        for threads in ["1", "2"] {
            for limit in [32 * MIB, 4 * MIB] {
                let (code, peak) = run(&file, threads, limit, query);
                assert_eq!(code == 0, field < limit, "{query} -t {threads}, limit {limit}");
                let (small_code, footprint) = run(&small, threads, limit, query);
                assert_eq!(small_code, 0);
                let bound = footprint + 2 * field.min(limit) + OVERHEAD;
                assert!(
                    peak <= bound,
                    "sql {query:?} -t {threads}: peak RSS {:.1} MiB over the bound {:.1} MiB \
                     (limit {} MiB)",
                    peak as f64 / MIB as f64,
                    bound as f64 / MIB as f64,
                    limit / MIB
                );
            }
        }
    }
}

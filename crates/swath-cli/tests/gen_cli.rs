//! `swath gen` through the real binary.

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use swath_lab::gen::{csv, jsonl, log};

fn swath() -> Command {
    Command::cargo_bin("swath").unwrap()
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn log_has_the_exact_size_and_the_promised_line_count() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.log");
    let size = 4 * 1024 * 1024 + 3;
    swath().args(["gen", "log", "--size", "4194307"]).arg(&out).assert().success();
    let data = fs::read(&out).unwrap();
    assert_eq!(data.len() as u64, size);
    assert_eq!(swath::count_lines(&data), log::line_count(size));
    assert!(data.starts_with(log::LINE));
    assert_eq!(entries(dir.path()), ["x.log"]);
}

#[test]
fn log_to_stdout_with_a_unit() {
    let got = swath().args(["gen", "log", "--size", "4K", "-"]).output().unwrap();
    assert!(got.status.success());
    assert_eq!(got.stdout.len(), 4096);
    assert_eq!(swath::count_lines(&got.stdout), log::line_count(4096));
}

#[test]
fn csv_is_deterministic_and_matches_the_library() {
    let run = |seed: &str| {
        swath()
            .args(["gen", "csv", "--rows", "2000", "--seed", seed, "--quoted-newlines", "20", "-"])
            .output()
            .unwrap()
    };
    let a = run("5");
    let b = run("5");
    let c = run("6");
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    assert_ne!(a.stdout, c.stdout);
    let mut lib = Vec::new();
    let opts = csv::CsvOptions { rows: 2000, seed: 5, quoted_newlines_pct: 20 };
    let sum = csv::write(&mut lib, &opts).unwrap();
    assert_eq!(a.stdout, lib);
    assert_eq!(swath::count_newlines(&a.stdout), sum.newlines);
    assert!(sum.quoted_newlines > 0);
}

#[test]
fn csv_file_reports_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.csv");
    let assert = swath().args(["gen", "csv", "--rows", "100"]).arg(&out).assert().success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(stdout.contains("100 rows"), "{stdout}");
    let data = fs::read(&out).unwrap();
    assert!(data.starts_with(csv::HEADER));
    assert_eq!(swath::count_newlines(&data), 101);
}

#[test]
fn jsonl_is_deterministic_matches_the_library_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("app.jsonl");
    let assert = swath()
        .args(["gen", "jsonl", "--lines", "3000", "--seed", "4"])
        .arg(&out)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&assert.get_output().stdout).into_owned();
    assert!(stdout.contains("3000 lines"), "{stdout}");
    let data = fs::read(&out).unwrap();
    let mut lib = Vec::new();
    let sum = jsonl::write(&mut lib, 3000, 4).unwrap();
    assert_eq!(data, lib);
    assert!(sum.errors > 0 && sum.errors < 3000);
    assert_eq!(swath::count_newlines(&data), 3000);
    let other =
        swath().args(["gen", "jsonl", "--lines", "3000", "--seed", "5", "-"]).output().unwrap();
    assert!(other.status.success());
    assert_ne!(other.stdout, data);
    // Every line is an object swath's JSON reader takes.
    let count = swath().args(["json", "count"]).arg(&out).output().unwrap();
    assert!(count.status.success(), "{}", String::from_utf8_lossy(&count.stderr));
    assert!(String::from_utf8_lossy(&count.stdout).contains("3000"));
}

#[test]
fn a_failed_run_leaves_no_file_and_no_temp_behind() {
    let dir = tempfile::tempdir().unwrap();
    // The target is a non-empty directory: writing works, the rename fails.
    let target = dir.path().join("busy");
    fs::create_dir(&target).unwrap();
    fs::write(target.join("keep"), b"k").unwrap();
    let got = swath().args(["gen", "log", "--size", "1M"]).arg(&target).output().unwrap();
    assert!(!got.status.success());
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert!(stderr.starts_with("swath: ") && stderr.contains("busy"), "{stderr}");
    assert_eq!(entries(dir.path()), ["busy"]);
    assert_eq!(entries(&target), ["keep"]);
}

#[cfg(target_os = "linux")]
#[test]
fn a_write_error_mid_stream_is_reported() {
    // /dev/full fails every write with ENOSPC: the disk-full case.
    let got = std::process::Command::new(assert_cmd::cargo::cargo_bin("swath"))
        .args(["gen", "csv", "--rows", "100000", "-"])
        .stdout(fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    assert!(!got.status.success());
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert!(stderr.contains("No space left"), "{stderr}");
}

#[test]
fn a_log_that_cannot_fit_is_refused_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let got = swath()
        .args(["gen", "log", "--size", "1000T"])
        .arg(dir.path().join("huge.log"))
        .output()
        .unwrap();
    assert!(!got.status.success());
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert!(stderr.contains("not enough disk space for"), "{stderr}");
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn bad_arguments_are_refused() {
    swath().args(["gen", "log", "--size", "12X", "-"]).assert().failure();
    swath().args(["gen", "csv", "--rows", "5", "--quoted-newlines", "101", "-"]).assert().failure();
    swath().args(["gen", "jsonl", "-"]).assert().failure();
}

#[cfg(unix)]
#[test]
fn ctrl_c_removes_the_temp_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("big.log");
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("swath"))
        // Big enough to be still writing when interrupted (the kill
        // follows the first bytes within milliseconds), small enough for
        // gen's free-space check on a test machine's disk.
        .args(["gen", "log", "--size", "4G"])
        .arg(&out)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the temporary file exists and has bytes, then interrupt.
    let started = std::time::Instant::now();
    loop {
        let growing = fs::read_dir(dir.path())
            .unwrap()
            .any(|e| e.unwrap().metadata().map(|m| m.len() > 0).unwrap_or(false));
        if growing {
            break;
        }
        assert!(started.elapsed().as_secs() < 30, "no temp file appeared");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[test]
fn access_log_is_deterministic_counted_and_read_as_csv() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("access.csv");
    let printed =
        swath().args(["gen", "access-log", "--records", "3000"]).arg(&out).output().unwrap();
    assert!(printed.status.success());
    let data = fs::read(&out).unwrap();
    let mut lib = Vec::new();
    let sum = swath_lab::gen::access_log::write(&mut lib, 3000, 1).unwrap();
    assert_eq!(data, lib);
    let text = String::from_utf8(printed.stdout).unwrap();
    assert!(text.contains("3000 records + header"), "{text}");
    assert!(text.contains(&format!("{} newlines", sum.newlines)), "{text}");
    // swath's own CSV reader finds every record: quoted newlines included.
    let got = swath().args(["csv", "count"]).arg(&out).output().unwrap();
    assert_eq!(String::from_utf8(got.stdout).unwrap().trim(), "3000");
    assert_eq!(entries(dir.path()), ["access.csv"]);
}

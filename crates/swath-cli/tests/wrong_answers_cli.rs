//! The ten inputs of issue 47, each as a new user met it (a wrong answer
//! with exit 0, data lost, or a promise broken), as the commands the issue
//! gives. The families they come from have tests of their own:
//! `compressed_every_command.rs`, `leading_zeros_cli.rs`,
//! `json_readers_agree.rs`.

use std::path::Path;
use std::process::{Command, Output};

use swath_arrow::parquet::file::reader::{FileReader, SerializedFileReader};

const SWATH: &str = env!("CARGO_BIN_EXE_swath");

fn swath(args: &[&str]) -> Output {
    Command::new(SWATH).args(args).output().unwrap()
}

fn ok(args: &[&str]) -> String {
    let o = swath(args);
    assert!(o.status.success(), "swath {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

fn have(tool: &str) -> bool {
    let there = Command::new("sh").args(["-c", &format!("command -v {tool}")]).output();
    let found = there.is_ok_and(|o| o.status.success());
    if !found {
        assert!(std::env::var("CI").map_or(true, |v| v != "true"), "CI must have {tool}");
        eprintln!("!!!!! SKIPPED: {tool} is not installed here; CI installs it");
    }
    found
}

fn sh(cmd: &str, dir: &Path) {
    let o = Command::new("sh").args(["-c", cmd]).current_dir(dir).output().unwrap();
    assert!(o.status.success(), "{cmd}: {}", String::from_utf8_lossy(&o.stderr));
}

fn parquet_rows(path: &Path) -> i64 {
    let r = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    r.metadata().file_metadata().num_rows()
}

/// Input 1 of the issue: `pzstd` output starts with a skippable frame: it counted 233 lines of
/// 100,000, and the csv and json commands failed at byte 0.
#[test]
fn a_pzstd_file_is_read_as_its_lines() {
    if !have("pzstd") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    sh("seq 1 100000 > n.txt && pzstd -q n.txt -o n.zst", dir.path());
    let n = dir.path().join("n.zst");
    let n = n.to_str().unwrap();
    assert!(ok(&["count", n]).starts_with("100000 "));
    assert_eq!(ok(&["csv", "count", "--no-headers", n]).trim(), "100000");
    sh("for i in $(seq 1 5000); do echo \"{\\\"i\\\":$i}\"; done > j.jsonl && pzstd -q j.jsonl -o j.zst", dir.path());
    let j = dir.path().join("j.zst");
    assert!(ok(&["json", "count", j.to_str().unwrap()]).starts_with("5000"));
}

/// Input 2 of the issue: `tail`, `split` and `sample` of a `.gz` worked on its compressed bytes:
/// binary out, a second part that is not gzip, exit 0.
#[test]
fn line_commands_never_read_compressed_bytes_as_lines() {
    let dir = tempfile::tempdir().unwrap();
    sh("seq 1 100000 > n.txt && gzip -k n.txt", dir.path());
    let gz = dir.path().join("n.txt.gz");
    let gz = gz.to_str().unwrap();
    let plain = dir.path().join("n.txt");
    let plain = plain.to_str().unwrap();
    assert_eq!(ok(&["tail", "-n", "2", gz]), "99999\n100000\n");
    assert_eq!(
        ok(&["sample", "-n", "5", "--seed", "3", gz]),
        ok(&["sample", "-n", "5", "--seed", "3", plain])
    );
    let parts = dir.path().join("parts");
    let o = swath(&["split", gz, "-n", "2", "-o", parts.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("gzip input"));
    assert!(std::fs::read_dir(&parts).map_or(true, |mut d| d.next().is_none()), "no part left");
}

/// Input 3 of the issue: `--infer full` on one thread wrote a Parquet file of 0 rows.
#[test]
fn infer_full_on_one_thread_writes_every_row() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f.jsonl");
    std::fs::write(&f, "{\"a\":1}\n{\"a\":2}\n").unwrap();
    let p = f.to_str().unwrap();
    let one_thread = ["--infer", "full", "-t", "1"];
    let o = dir.path().join("o.parquet");
    ok(&[&["json", "to-parquet", p, "-o", o.to_str().unwrap()][..], &one_thread].concat());
    assert_eq!(parquet_rows(&o), 2);
    let a = dir.path().join("o.arrow");
    ok(&[&["json", "to-arrow", p, "-o", a.to_str().unwrap()][..], &one_thread].concat());
    let rdr =
        swath_arrow::arrow_ipc::reader::FileReader::try_new(std::fs::File::open(&a).unwrap(), None);
    let rows: usize = rdr.unwrap().map(|b| b.unwrap().num_rows()).sum();
    assert_eq!(rows, 2);
    let csv = ok(&["json", "to-csv", f.to_str().unwrap(), "--infer", "full", "-t", "1"]);
    assert_eq!(csv, "a\n1\n2\n");
}

/// Input 4 of the issue: A field only a first line longer than 1 MiB has was dropped by sampled
/// inference, and `json schema` said it read 61 lines of 2.
#[test]
fn a_long_first_line_is_sampled_whole() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("f.jsonl");
    let long = format!("{{\"id\":1,\"s\":\"{}\"}}\n{{\"id\":2}}\n", "x".repeat(1_100_000));
    std::fs::write(&f, long).unwrap();
    let p = f.to_str().unwrap();
    let csv = ok(&["json", "to-csv", p]);
    assert!(csv.starts_with("id,s\n1,xxx"), "{}", &csv[..20]);
    let schema = ok(&["json", "schema", p]);
    assert!(schema.contains("s "), "{schema}");
    assert!(schema.contains("2 lines") || schema.contains("(2 "), "{schema}");
}

/// Input 5 of the issue: `json select` merged a key given twice.
#[test]
fn select_refuses_a_key_twice() {
    let dir = tempfile::tempdir().unwrap();
    for line in [r#"{"a":{"b":1},"a":{"c":2}}"#, r#"{"a":{"b":1},"a":null}"#] {
        let f = dir.path().join("f.jsonl");
        std::fs::write(&f, format!("{line}\n")).unwrap();
        let o = swath(&["json", "select", "-f", "a.b,a.c", f.to_str().unwrap()]);
        assert!(!o.status.success(), "{line} was accepted");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("record 1 (line 1, byte 13): the key \"a\" twice in one object"),
            "{err}"
        );
    }
}

/// Input 6 of the issue: Codes with leading zeros became numbers: `00501` read back as 501.
#[test]
fn leading_zeros_stay() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("zip.csv");
    std::fs::write(&f, "zip,n\n00501,1\n02134,2\n").unwrap();
    let p = f.to_str().unwrap();
    let schema = ok(&["csv", "schema", p]);
    assert!(
        schema
            .lines()
            .any(|l| l.starts_with("zip") && l.contains("utf8") && l.contains("leading zero")),
        "{schema}"
    );
    let stats = ok(&["csv", "stats", p]);
    assert!(stats.contains("00501"), "{stats}");
    let q = format!("SELECT zip FROM '{p}' ORDER BY n");
    assert_eq!(ok(&["sql", "--csv", &q]), "zip\n00501\n02134\n");
}

/// Input 7 of the issue: `swath sql` named record 3 for the bad line after a BOM and a blank line;
/// `json count` and `check` rightly say record 2.
#[test]
fn sql_names_the_record_after_a_bom_and_a_blank_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("b.jsonl");
    std::fs::write(&f, b"\xef\xbb\xbf\n{\"a\":1}\n{bad}\n").unwrap();
    let p = f.to_str().unwrap();
    for args in [
        vec!["json", "count", p],
        vec!["json", "check", p],
        vec!["sql", "SELECT count(*) FROM 'PATH'"],
    ] {
        let args: Vec<String> = args.iter().map(|a| a.replace("PATH", p)).collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = swath(&args);
        assert!(!o.status.success());
        let said =
            [String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)].concat();
        assert!(said.contains("record 2 (line 3, byte 13)"), "{args:?}: {said}");
    }
}

/// Input 8 of the issue: `json schema --json` of data nested 64 deep could not be read back by
/// `--schema FILE` ("recursion limit exceeded").
#[test]
fn a_deep_schema_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    for (open, close) in [("{\"o\":", "}"), ("[", "]")] {
        let depth = 200;
        let f = dir.path().join("d.jsonl");
        let line = format!("{{\"o\":{}1{}}}\n", open.repeat(depth), close.repeat(depth));
        std::fs::write(&f, line).unwrap();
        let p = f.to_str().unwrap();
        let s = dir.path().join("s.json");
        std::fs::write(&s, ok(&["json", "schema", p, "--json"])).unwrap();
        let o = dir.path().join("o.parquet");
        ok(&["json", "to-parquet", p, "-o", o.to_str().unwrap(), "--schema", s.to_str().unwrap()]);
        assert_eq!(parquet_rows(&o), 1);
    }
}

/// Input 9 of the issue: The note of a mixed field depended on the thread count.
#[test]
fn the_mixed_note_is_the_same_on_every_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("m.jsonl");
    std::fs::write(&f, "{\"f\":1}\n{\"f\":2.5}\n{\"f\":\"x\"}\n").unwrap();
    let p = f.to_str().unwrap();
    let one = ok(&["json", "schema", p, "--infer", "full", "-t", "1"]);
    assert!(one.contains("mixed float64, string"), "{one}");
    for chunk in ["1", "8", "9", "56", "4194304"] {
        for t in ["2", "3"] {
            let other =
                ok(&["json", "schema", p, "--infer", "full", "-t", t, "--chunk-size", chunk]);
            assert_eq!(other, one, "-t {t} --chunk-size {chunk}");
        }
    }
}

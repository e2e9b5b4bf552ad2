//! `swath csv sniff` as the real binary, and `-d auto` on every csv
//! command: the same output as the dialect given by hand.

use std::io::Write;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn swath() -> Command {
    Command::cargo_bin("swath").unwrap()
}

fn file(dir: &Path, name: &str, data: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, data).unwrap();
    path
}

/// Semicolons, `'` quotes only after 10,000 rows, typed columns.
fn late_quotes() -> Vec<u8> {
    let mut b = b"id;name;score;day\n".to_vec();
    for i in 0..10_000 {
        writeln!(b, "{i};n{};{}.5;2024-01-{:02}", i % 13, i % 50, i % 28 + 1).unwrap();
    }
    for i in 10_000..11_000 {
        writeln!(b, "{i};'Smith; J{}';{}.5;2024-02-{:02}", i % 13, i % 50, i % 28 + 1).unwrap();
    }
    b
}

fn run(args: &[&str], path: &Path) -> (String, String, i32) {
    let out = swath().args(args).arg(path).output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn sniff_reports_the_dialect_and_the_types() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(dir.path(), "late.csv", &late_quotes());
    let (out, err, code) = run(&["csv", "sniff", "--json"], &path);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).expect("JSON parses");
    assert_eq!(v["delimiter"], ";");
    assert_eq!(v["quote"], "'");
    assert_eq!(v["escape"], "doubled");
    assert_eq!((&v["has_headers"], &v["quotes_seen"]), (&Value::Bool(true), &Value::Bool(true)));
    assert_eq!(
        (&v["line_end"], &v["encoding"], &v["fields"]),
        (&"\\n".into(), &"UTF-8".into(), &4.into())
    );
    assert!(v["confidence"].as_f64().unwrap() >= 0.75, "{v}");
    assert!(v["samples"].as_array().unwrap().len() > 1, "{v}");
    let types: Vec<(&str, &str)> = v["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["type"].as_str().unwrap()))
        .collect();
    assert_eq!(types, [("id", "int64"), ("name", "utf8"), ("score", "float64"), ("day", "date32")]);
    // The report for people.
    let (text, _, _) = run(&["csv", "sniff"], &path);
    assert!(text.contains("delimiter:   ;") && text.contains("' (quoted fields seen)"), "{text}");
    // Standard input: the head only (no quotes there).
    let out = swath()
        .args(["csv", "sniff", "--json", "-"])
        .write_stdin(late_quotes()[..4000].to_vec())
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((&v["delimiter"], &v["quotes_seen"]), (&";".into(), &Value::Bool(false)));
    assert_eq!(v["columns"][0]["type"], "int64");
}

#[test]
fn sniff_names_the_encoding_and_the_bytes_that_are_not_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(dir.path(), "latin1.csv", b"name,city\nada,Z\xfcrich\n");
    let (out, _, code) = run(&["csv", "sniff"], &path);
    assert_eq!(code, 0);
    assert!(out.contains("encoding:    windows-1252 (not UTF-8 (byte 15: FC);"), "{out}");
    let (out, _, _) = run(&["csv", "sniff", "--json"], &path);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["encoding_name"], "windows-1252", "{out}");
    // The columns are inferred from the decoded text.
    assert_eq!(v["columns"][1]["type"], "utf8", "{out}");
}

#[test]
fn auto_reads_as_the_dialect_given_by_hand_on_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let path = file(dir.path(), "late.csv", &late_quotes());
    let by_hand = ["-d", ";", "--quote", "'"];
    let commands: &[&[&str]] = &[
        &["csv", "count"],
        &["csv", "check"],
        &["csv", "head", "-n", "3"],
        &["csv", "select", "-c", "name,id"],
        &["csv", "search", "Smith"],
        &["csv", "stats"],
        &["csv", "frequency", "-s", "name"],
        &["csv", "to-json"],
        &["csv", "schema"],
    ];
    for cmd in commands {
        let auto: Vec<&str> = cmd.iter().copied().chain(["-d", "auto"]).collect();
        let hand: Vec<&str> = cmd.iter().copied().chain(by_hand).collect();
        let (a, aerr, acode) = run(&auto, &path);
        let (h, herr, hcode) = run(&hand, &path);
        assert_eq!((acode, &a), (hcode, &h), "{cmd:?}: {aerr} / {herr}");
        assert_eq!(acode, 0, "{cmd:?}: {aerr}");
    }
    // The default dialect reads it differently: the test can fail.
    let (plain, _, _) = run(&["csv", "frequency", "-s", "name"], &path);
    let (auto, _, _) = run(&["csv", "frequency", "-s", "name", "-d", "auto"], &path);
    assert_ne!(plain, auto);
    // -v says what was sniffed.
    let (_, err, _) = run(&["csv", "count", "-d", "auto", "-v"], &path);
    assert!(err.contains("sniffed delimiter ;, quote ', escape doubled, header"), "{err}");
}

#[test]
fn auto_finds_a_file_that_is_never_quoted() {
    // Bare quotes: a quoting reader stops at the first one.
    let mut b = b"id,size\n".to_vec();
    for i in 0..500 {
        writeln!(b, "{i},{}\" pipe", i % 9).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = file(dir.path(), "inches.csv", &b);
    assert_eq!(run(&["csv", "count"], &path).2, 2);
    let (out, err, code) = run(&["csv", "count", "-d", "auto", "-v"], &path);
    assert_eq!((code, out.as_str()), (0, "500\n"), "{err}");
    assert!(err.contains("quote none"), "{err}");
}

#[test]
fn auto_on_a_stream_is_a_clear_error() {
    let out =
        swath().args(["csv", "count", "-d", "auto"]).write_stdin("a;b\n1;2\n").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("-d auto needs a file"), "{err}");
}

//! `swath csv select` run as the real binary.

use assert_cmd::Command;
use std::io::Write;

fn swath() -> Command {
    Command::cargo_bin("swath").unwrap()
}

fn file(dir: &tempfile::TempDir, name: &str, data: &[u8]) -> std::path::PathBuf {
    let path = dir.path().join(name);
    std::fs::File::create(&path).unwrap().write_all(data).unwrap();
    path
}

/// Run `swath csv select ARGS` on `input` (through stdin), expect success.
fn select(args: &[&str], input: &str) -> String {
    let out = swath().args(["csv", "select"]).args(args).write_stdin(input).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

const DATA: &str = "id,name,score,note\n\
                    1,\"Smith, J\",9.5,\"plain\"\n\
                    2,\"say \"\"hi\"\"\",7,\"two\nlines\"\n\
                    3,Lee,,x\n";

#[test]
fn names_indexes_ranges_negation_order_and_duplicates() {
    let cases: &[(&str, &str)] = &[
        ("name,id", "name,id\n\"Smith, J\",1\n\"say \"\"hi\"\"\",2\nLee,3\n"),
        ("1,1", "id,id\n1,1\n2,2\n3,3\n"),
        ("2-3", "name,score\n\"Smith, J\",9.5\n\"say \"\"hi\"\"\",7\nLee,\n"),
        ("3-", "score,note\n9.5,plain\n7,\"two\nlines\"\n,x\n"),
        ("-1", "id\n1\n2\n3\n"),
        ("!name,!note", "id,score\n1,9.5\n2,7\n3,\n"),
        ("!2-3", "id,note\n1,plain\n2,\"two\nlines\"\n3,x\n"),
        ("note-id", "note,score,name,id\nplain,9.5,\"Smith, J\",1\n\"two\nlines\",7,\"say \"\"hi\"\"\",2\nx,,Lee,3\n"),
    ];
    for (spec, want) in cases {
        assert_eq!(select(&["-c", spec], DATA), *want, "spec {spec}");
    }
}

#[test]
fn quoting_is_minimal_and_bytes_pass_through() {
    // Needless quotes go, needed ones stay, invalid UTF-8 and NUL pass.
    let input: &[u8] = b"a,b\n\"x\",\"y,z\"\n\"\xC3\",q\0r\n";
    let out = swath().args(["csv", "select", "-c", "b,a"]).write_stdin(input).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout, b"b,a\n\"y,z\",x\nq\0r,\xC3\n");
    // A lone empty field is written `""`, so it is not read back as nothing.
    assert_eq!(select(&["-c", "2"], "a,b\nx,\n"), "b\n\"\"\n");
}

#[test]
fn no_headers_tab_and_files() {
    let dir = tempfile::tempdir().unwrap();
    let input = file(&dir, "in.tsv", b"a\tb c\tc\n1\t2\t3\n");
    let out = swath()
        .args(["csv", "select", "--no-headers", "-d", "tab", "-c", "3,1"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "c\ta\n3\t1\n");

    let target = dir.path().join("out.csv");
    swath()
        .args(["csv", "select", "-c", "b c", "-d", "\\t", "-o"])
        .arg(&target)
        .arg(&input)
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "b c\n2\n");
}

#[test]
fn errors_name_the_problem_and_leave_no_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = file(&dir, "in.csv", b"a,b\n1,2\n3\n");
    let target = dir.path().join("out.csv");

    let out = swath().args(["csv", "select", "-c", "nope"]).arg(&input).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with("swath: column spec: no column named `nope` (columns: a, b)"), "{err}");

    let out = swath().args(["csv", "select", "-c", "0"]).arg(&input).output().unwrap();
    assert!(String::from_utf8(out.stderr).unwrap().contains("column indexes start at 1"));

    // A short record is an error naming it, and the half-written output is
    // not left under the target's name.
    let out =
        swath().args(["csv", "select", "-c", "2", "-o"]).arg(&target).arg(&input).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("record 3"), "{err}");
    assert!(!target.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "a temporary file was left");

    // --flexible writes the missing column empty.
    let out =
        swath().args(["csv", "select", "--flexible", "-c", "2,1"]).arg(&input).output().unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "b,a\n2,1\n,3\n");
}

#[test]
fn empty_input_writes_nothing() {
    assert_eq!(select(&["-c", "1"], ""), "");
}

#[test]
fn takes_the_reader_options_every_csv_command_takes() {
    // A `;`-separated file with `'` quotes, a comment line, and a bare quote
    // that only --lenient accepts.
    let input = "#note\nid;name\n1;'a;b'\n2;x'y\n";
    let out =
        select(&["-c", "name", "-d", ";", "--quote", "'", "--comment", "#", "--lenient"], input);
    // Written back in the input's dialect: `;` and `'`, quoted where needed.
    assert_eq!(out, "name\n'a;b'\n'x''y'\n");
    let strict = swath()
        .args(["csv", "select", "-c", "name", "-d", ";", "--quote", "'", "--comment", "#"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert!(!strict.status.success());
    let stderr = String::from_utf8_lossy(&strict.stderr);
    assert!(stderr.contains("record 3") && stderr.contains("byte"), "{stderr}");
}

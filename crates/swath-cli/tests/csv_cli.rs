//! `swath csv ...` run as a real binary.

use std::io::Write;

use assert_cmd::Command;

fn swath() -> Command {
    Command::cargo_bin("swath").unwrap()
}

fn file(content: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(content).unwrap();
    f
}

/// Run `cmd`, expect failure, and return its standard error.
fn fails(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(!out.status.success(), "expected failure");
    String::from_utf8(out.stderr).unwrap()
}

fn stdout(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

const GOOD: &[u8] = b"id,name\n1,\"a, \"\"b\"\"\"\n2,\"x\ny\"\n3,z\n";

#[test]
fn count_excludes_the_header_unless_no_headers() {
    let f = file(GOOD);
    assert_eq!(stdout(swath().args(["csv", "count"]).arg(f.path())), "3\n");
    assert_eq!(stdout(swath().args(["csv", "count", "--no-headers"]).arg(f.path())), "4\n");
    // Standard input, and `-`.
    assert_eq!(stdout(swath().args(["csv", "count"]).write_stdin(GOOD)), "3\n");
    assert_eq!(stdout(swath().args(["csv", "count", "-"]).write_stdin(GOOD)), "3\n");
}

#[test]
fn options_delimiter_quote_comment_escape() {
    let f = file(b"# note\na;'b;c'\n1;'x\\'y'\n");
    let out = stdout(
        swath()
            .args(["csv", "to-json", "-d", ";", "--quote", "'", "--comment", "#", "--escape", "\\"])
            .arg(f.path()),
    );
    assert_eq!(out, "{\"a\":\"1\",\"b;c\":\"x'y\"}\n");
    let tab = file(b"a\tb\n1\t2\n");
    assert_eq!(
        stdout(swath().args(["csv", "to-json", "-d", "tab"]).arg(tab.path())),
        "{\"a\":\"1\",\"b\":\"2\"}\n"
    );
    let err = fails(swath().args(["csv", "count", "-d", "£", "-"]));
    assert!(err.contains("not one ASCII character"), "{err}");
}

#[test]
fn check_lists_every_problem_with_its_position_and_exits_1() {
    let f = file(b"a,b\n1,2\n3\nx\"y,4\n\"q\"r,5\n6,7\n");
    let out = swath().args(["csv", "check"]).arg(f.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(
        lines[0].ends_with("record 3 (line 3, byte 8): record has 1 fields, expected 2"),
        "{text}"
    );
    assert!(lines[1].ends_with("record 4 (line 4, byte 11): quote inside an unquoted field (record starts at line 4, byte 10)"), "{text}");
    assert!(lines[2].contains("record 5 (line 5, byte 19): text after a closing quote"), "{text}");
    assert!(lines[3].ends_with(": 3 problems"), "{text}");
    // --limit caps the list, not the count.
    let out = swath().args(["csv", "check", "--limit", "1"]).arg(f.path()).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("2 more problems not shown") && text.contains("3 problems"), "{text}");
    // --lenient and --flexible accept it all (the header row is not counted).
    let out =
        swath().args(["csv", "check", "--lenient", "--flexible"]).arg(f.path()).output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8(out.stdout).unwrap().ends_with("ok, 5 records\n"));
}

#[test]
fn check_reports_an_unterminated_quote_where_it_opened() {
    let f = file(b"a,b\n1,\"open\n2,3\n");
    let out = swath().args(["csv", "check"]).arg(f.path()).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("record 2 (line 2, byte 6): quoted field not closed"), "{text}");
}

#[test]
fn head_writes_csv_back() {
    let f = file(GOOD);
    assert_eq!(
        stdout(swath().args(["csv", "head", "-n", "2"]).arg(f.path())),
        "id,name\n1,\"a, \"\"b\"\"\"\n2,\"x\ny\"\n"
    );
    assert_eq!(stdout(swath().args(["csv", "head", "-n", "0", "--no-headers"]).arg(f.path())), "");
}

#[test]
fn to_json_objects_arrays_and_errors() {
    let f = file(GOOD);
    assert_eq!(
        stdout(swath().args(["csv", "to-json"]).arg(f.path())),
        "{\"id\":\"1\",\"name\":\"a, \\\"b\\\"\"}\n{\"id\":\"2\",\"name\":\"x\\ny\"}\n{\"id\":\"3\",\"name\":\"z\"}\n"
    );
    assert_eq!(
        stdout(swath().args(["csv", "to-json", "--no-headers"]).write_stdin("a,b\n\"\",c\n")),
        "[\"a\",\"b\"]\n[\"\",\"c\"]\n"
    );
    // Invalid UTF-8: an error naming the record, line and byte.
    let err = fails(swath().args(["csv", "to-json"]).write_stdin(&b"a,b\nc,\xff\n"[..]));
    assert!(err.contains("record 2 (line 2, byte 6): field 1 is not valid UTF-8"), "{err}");
    // Ragged rows: an error unless --flexible.
    let ragged = file(b"a,b\n1,2,3\n4\n");
    let err = fails(swath().args(["csv", "to-json"]).arg(ragged.path()));
    assert!(err.contains("record 2 (line 2, byte 4): record has 3 fields, expected 2"), "{err}");
    assert_eq!(
        stdout(swath().args(["csv", "to-json", "--flexible"]).arg(ragged.path())),
        "{\"a\":\"1\",\"b\":\"2\",\"2\":\"3\"}\n{\"a\":\"4\"}\n"
    );
}

#[test]
fn to_json_writes_a_file_only_when_it_is_complete() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.json");
    let f = file(GOOD);
    let want = stdout(swath().args(["csv", "to-json"]).arg(f.path()));
    // One thread and two (the parallel path writes chunk by chunk).
    for threads in ["1", "2"] {
        stdout(swath().args(["csv", "to-json", "-t", threads, "-o"]).arg(&target).arg(f.path()));
        assert_eq!(std::fs::read_to_string(&target).unwrap(), want, "{threads} threads");
    }
    // A bad record past the first: an error, the previous file is left as
    // it was, and no temporary file stays behind.
    let bad = file(b"a,b\n1,2\n3,\xff\n");
    for threads in ["1", "2"] {
        let err = fails(
            swath().args(["csv", "to-json", "-t", threads, "-o"]).arg(&target).arg(bad.path()),
        );
        assert!(err.contains("record 3 (line 3, byte 10): field 1 is not valid UTF-8"), "{err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), want);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "a temporary file was left");
    }
}

#[test]
fn max_record_size_is_enforced() {
    let f = file(b"a\nbbbbbbbbbb\n");
    let err = fails(swath().args(["csv", "count", "--max-record-size", "5"]).arg(f.path()));
    assert!(err.contains("record longer than the limit of 5 bytes"), "{err}");
}

#[test]
fn a_missing_file_is_an_error_naming_it() {
    let commands: [&[&str]; 6] =
        [&["count"], &["check"], &["head"], &["select", "-c", "1"], &["to-json"], &["stats"]];
    for cmd in commands {
        let err = fails(swath().arg("csv").args(cmd).arg("/nonexistent/x.csv"));
        assert!(err.contains("/nonexistent/x.csv"), "{cmd:?}: {err}");
        // The cause once, not once for each error type that wraps it.
        assert_eq!(err.matches("No such file").count(), 1, "{cmd:?}: {err}");
    }
}

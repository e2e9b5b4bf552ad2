//! Exit codes: 0 success, 1 problems found (`csv check`), 2 errors (bad
//! usage included), as `swath --help` says.

use std::io::Write;

use assert_cmd::Command;

fn swath() -> Command {
    Command::cargo_bin("swath").unwrap()
}

fn file(bytes: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(bytes).unwrap();
    f
}

fn code(cmd: &mut Command) -> Option<i32> {
    cmd.output().unwrap().status.code()
}

#[test]
fn zero_for_success() {
    let good = file(b"a,b\n1,2\n");
    assert_eq!(code(swath().args(["csv", "check"]).arg(good.path())), Some(0));
    assert_eq!(code(swath().args(["csv", "count"]).arg(good.path())), Some(0));
    assert_eq!(code(swath().arg("count").arg(good.path())), Some(0));
    assert_eq!(code(swath().arg("--help")), Some(0));
}

#[test]
fn one_when_check_finds_problems_on_one_thread_and_many() {
    let bad = file(b"a,b\n1,2\n3\n");
    for t in ["1", "2"] {
        let out = swath().args(["csv", "check", "-t", t]).arg(bad.path()).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "-t {t}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("1 problems"));
    }
}

#[test]
fn two_for_errors_and_bad_usage() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.csv");
    // A file that cannot be read, for check (not "problems": no file).
    let out = swath().args(["csv", "check"]).arg(&missing).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.csv"));
    assert_eq!(code(swath().args(["csv", "count"]).arg(&missing)), Some(2));
    assert_eq!(code(swath().arg("count").arg(&missing)), Some(2));
    // A malformed file where records are needed is an error, not a count.
    let bad = file(b"a,b\n1,\"open\n");
    assert_eq!(code(swath().args(["csv", "count"]).arg(bad.path())), Some(2));
    // Bad usage: clap's errors.
    assert_eq!(code(swath().arg("no-such-command")), Some(2));
    assert_eq!(code(swath().args(["csv", "count", "-d", "ab"])), Some(2));
    assert_eq!(code(swath().args(["count", "--threads", "x"])), Some(2));
}

#[test]
fn help_documents_the_exit_codes() {
    let out = swath().arg("--help").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Exit status:"), "{text}");
    for line in ["0  success", "1  the work ran and found problems", "2  an error"] {
        assert!(text.contains(line), "{line:?} missing from --help:\n{text}");
    }
}

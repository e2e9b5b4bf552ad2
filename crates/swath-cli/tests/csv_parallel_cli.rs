//! `swath csv count|check|select|to-json` on many threads print byte for
//! byte what they print on one, on files that cross chunk seams in every
//! way (quoted newlines, `\r\n`, a BOM), with errors at the same place.

use std::io::Write;
use std::process::Output;

use assert_cmd::Command;

fn swath(args: &[&str]) -> Output {
    Command::cargo_bin("swath").unwrap().args(args).output().unwrap()
}

fn file_with(data: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(data).unwrap();
    f.flush().unwrap();
    f
}

fn generated() -> Vec<u8> {
    let f = tempfile::NamedTempFile::new().unwrap();
    Command::cargo_bin("swath")
        .unwrap()
        .args(["gen", "csv", "--rows", "2000", "--quoted-newlines", "25"])
        .arg(f.path())
        .assert()
        .success();
    std::fs::read(f.path()).unwrap()
}

/// A BOM, `\r\n` endings, quoted `\r\n` and quotes near every offset.
fn crlf() -> Vec<u8> {
    let mut d = b"\xEF\xBB\xBFid,text,n\r\n".to_vec();
    for i in 0..400 {
        let pad = "y".repeat(i % 7);
        d.extend_from_slice(format!("{i},\"{pad}\r\n\"\"{pad}\"\"\",{}\r\n", i * 3).as_bytes());
    }
    d
}

const COMMANDS: &[&[&str]] = &[
    &["csv", "count"],
    &["csv", "check"],
    &["csv", "to-json"],
    &["csv", "select", "-c", "2,1,2"],
    &["csv", "select", "-c", "!1"],
    &["csv", "count", "--no-headers"],
    &["csv", "to-json", "--no-headers"],
];

fn same_as_one_thread(data: &[u8], what: &str) {
    let f = file_with(data);
    let path = f.path().to_str().unwrap();
    for &cmd in COMMANDS {
        let one = swath(&[cmd, &["-t", "1", path]].concat());
        for t in ["2", "3"] {
            for chunk in ["5", "64", "65536"] {
                let args = [cmd, &["-t", t, "--chunk-size", chunk, path]].concat();
                let many = swath(&args);
                let ctx = format!("{what}: {args:?}");
                assert_eq!(many.status.code(), one.status.code(), "{ctx}");
                assert_eq!(many.stdout, one.stdout, "{ctx}");
                assert_eq!(
                    String::from_utf8_lossy(&many.stderr),
                    String::from_utf8_lossy(&one.stderr),
                    "{ctx}"
                );
            }
        }
    }
}

#[test]
fn generated_file_with_quoted_newlines() {
    let data = generated();
    same_as_one_thread(&data, "generated");
    // And the answers are the generator's.
    let f = file_with(&data);
    let out =
        swath(&["csv", "count", "-t", "2", "--chunk-size", "999", f.path().to_str().unwrap()]);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "2000\n");
}

#[test]
fn crlf_and_bom_across_seams() {
    same_as_one_thread(&crlf(), "crlf");
}

#[test]
fn errors_in_the_middle() {
    let mut data = crlf();
    data.extend_from_slice(b"401,bad\"quote,3\r\n402,\"ok\",4\r\n403,short\r\n");
    data.extend_from_slice(&crlf()[30..]);
    same_as_one_thread(&data, "errors");
    let f = file_with(&data);
    let out = swath(&["csv", "check", "-t", "2", "--chunk-size", "64", f.path().to_str().unwrap()]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("quote inside an unquoted field"), "{text}");
    assert!(text.contains("record has 2 fields, expected 3"), "{text}");
}

#[test]
fn verbose_says_how_and_pipes_are_sequential() {
    let data = generated();
    let f = file_with(&data);
    let path = f.path().to_str().unwrap();
    let out = swath(&["csv", "count", "-v", "-t", "2", "--chunk-size", "4096", path]);
    let note = String::from_utf8(out.stderr).unwrap();
    assert!(note.contains("validating scan:") && note.contains("on 2 threads"), "{note}");
    for cmd in [&["to-json"][..], &["select", "-c", "1"]] {
        let mut args = vec!["csv"];
        args.extend_from_slice(cmd);
        args.extend(["-v", "-t", "2", "--chunk-size", "4096", path]);
        let note = String::from_utf8(swath(&args).stderr).unwrap();
        assert!(note.contains("parallel:") && note.contains("all verified"), "{cmd:?}: {note}");
    }
    let out = swath(&["csv", "count", "-v", "-t", "2", "--comment", "#", path]);
    let note = String::from_utf8(out.stderr).unwrap();
    assert!(note.contains("sequential: comment lines"), "{note}");
    let piped = Command::cargo_bin("swath")
        .unwrap()
        .args(["csv", "to-json", "-t", "4", "-"])
        .write_stdin(data.clone())
        .output()
        .unwrap();
    let one = swath(&["csv", "to-json", "-t", "1", path]);
    assert_eq!(piped.stdout, one.stdout);
}

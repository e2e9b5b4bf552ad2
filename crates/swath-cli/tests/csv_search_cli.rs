//! `csv search` against a slow twin: the sequential reader and a regex on
//! each field, at 1 to 4 threads and tiny chunks, on files with quoted
//! newlines and matches inside quoted fields.

use std::io::Write;

use assert_cmd::Command;
use regex::bytes::RegexBuilder;
use swath_csv::{ReaderBuilder, Writer};

fn swath() -> Command {
    Command::cargo_bin("swath").unwrap()
}

/// A deterministic file: names, cities with quoted newlines and quotes,
/// the needle `Paris` sometimes inside a quoted multi-line field.
fn data(rows: usize) -> Vec<u8> {
    let mut rng = swath_testkit::Rng::new(0x9E37_79B9_7F4A_7C15);
    let mut next = move || rng.next_u64();
    let cities = [
        "Paris",
        "Lyon",
        "\"Par\nis\"",
        "\"in Paris,\nFrance\"",
        "\"say \"\"paris\"\"\"",
        "Nice",
        "",
    ];
    let mut out = b"id,name,city,note\n".to_vec();
    for i in 0..rows {
        let r = next();
        let city = cities[(r % cities.len() as u64) as usize];
        let note = if r % 11 == 0 { "\"multi\nline PARIS\r\nnote\"" } else { "plain" };
        out.extend_from_slice(format!("{i},n{},{city},{note}\n", r % 97).as_bytes());
    }
    out
}

/// The twin: every record through the sequential reader, a regex on each
/// chosen field, kept records written in the same dialect.
fn twin(
    data: &[u8],
    pattern: &str,
    cols: Option<&[usize]>,
    ci: bool,
    invert: bool,
) -> (Vec<u8>, u64) {
    let re = RegexBuilder::new(pattern).case_insensitive(ci).build().unwrap();
    let mut rdr = ReaderBuilder::new().has_headers(false).from_reader(data).unwrap();
    let mut wtr = Writer::from_writer(Vec::new());
    let mut n = 0;
    let mut first = true;
    while let Some(rec) = rdr.next_record().unwrap() {
        if first {
            first = false;
            wtr.write_record(rec.iter()).unwrap();
            continue;
        }
        let fields: Vec<&[u8]> = rec.iter().collect();
        let hit = match cols {
            None => fields.iter().any(|f| re.is_match(f)),
            Some(cs) => cs.iter().any(|&c| re.is_match(fields[c])),
        };
        if hit != invert {
            n += 1;
            wtr.write_record(rec.iter()).unwrap();
        }
    }
    (wtr.finish().unwrap(), n)
}

/// CLI arguments, the twin's pattern, columns, ignore case, invert.
type Case<'a> = (&'a [&'a str], &'a str, Option<&'a [usize]>, bool, bool);

#[test]
fn search_equals_the_slow_twin_at_every_thread_count_and_chunk_size() {
    let bytes = data(600);
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(&bytes).unwrap();
    // (cli args, twin pattern, twin columns, ignore case, invert)
    let cases: &[Case] = &[
        (&["Paris"], "Paris", None, false, false),
        (&["--literal", "Paris"], "Paris", None, false, false),
        (&["-i", "paris"], "paris", None, true, false),
        (&["-i", "--literal", "PARIS"], "(?i)PARIS", None, true, false),
        (&["-s", "city", "Par\nis"], "Par\nis", Some(&[2]), false, false),
        (&["-s", "note,city", "-i", "^.*paris"], "^.*paris", Some(&[3, 2]), true, false),
        (&["-v", "-s", "city", "a"], "a", Some(&[2]), false, true),
        (&["-s", "3", "^$"], "^$", Some(&[2]), false, false),
        (&["--literal", "no such text"], "no such text", None, false, false),
    ];
    for (args, pattern, cols, ci, invert) in cases {
        let (want, n) = twin(&bytes, pattern, *cols, *ci, *invert);
        assert!(n > 0 || pattern.contains("no such"), "case {args:?} matches nothing");
        for threads in ["1", "2", "3", "4"] {
            for chunk in ["1", "7", "64", "4096"] {
                let ctx = format!("{args:?} -t {threads} --chunk-size {chunk}");
                let out = swath()
                    .args(["csv", "search", "-t", threads, "--chunk-size", chunk])
                    .args(*args)
                    .arg(f.path())
                    .output()
                    .unwrap();
                assert!(out.status.success(), "{ctx}: {}", String::from_utf8_lossy(&out.stderr));
                assert_eq!(
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&want),
                    "{ctx}"
                );
                let out = swath()
                    .args(["csv", "search", "-c", "-t", threads, "--chunk-size", chunk])
                    .args(*args)
                    .arg(f.path())
                    .output()
                    .unwrap();
                assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("{n}\n"), "{ctx} -c");
            }
        }
    }
}

#[test]
fn errors_are_the_sequential_reads_at_every_thread_count() {
    let mut bytes = data(300);
    bytes.extend_from_slice(b"301,x,\"Paris\"oops,plain\n302,y,Paris,plain\n");
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(&bytes).unwrap();
    let one = swath().args(["csv", "search", "-t", "1", "Paris"]).arg(f.path()).output().unwrap();
    assert_eq!(one.status.code(), Some(2));
    let err = String::from_utf8_lossy(&one.stderr).to_string();
    assert!(err.contains("text after a closing quote"), "{err}");
    for threads in ["2", "4"] {
        for chunk in ["5", "100"] {
            let out = swath()
                .args(["csv", "search", "-t", threads, "--chunk-size", chunk, "Paris"])
                .arg(f.path())
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2));
            assert_eq!(
                String::from_utf8_lossy(&out.stderr),
                err,
                "-t {threads} --chunk-size {chunk}"
            );
            // The records before the error are written, as sequentially.
            assert_eq!(out.stdout, one.stdout, "-t {threads} --chunk-size {chunk}");
        }
    }
}

#[test]
fn no_headers_on_a_file_counts_the_first_record_once() {
    // The parallel path reads a file from its start: the first record,
    // already handled as data, must not be counted or written again.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nh.csv");
    std::fs::write(&path, "a,b\nc,d\na,x\n").unwrap();
    for threads in ["1", "2"] {
        let run = |extra: &[&str]| {
            let out = swath()
                .args(["csv", "search", "--no-headers", "-t", threads, "--chunk-size", "4"])
                .args(extra)
                .arg("a")
                .arg(&path)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8(out.stdout).unwrap()
        };
        assert_eq!(run(&[]), "a,b\na,x\n", "-t {threads}");
        assert_eq!(run(&["-c"]).trim(), "2", "-t {threads}");
    }
}

#[test]
fn no_headers_searches_the_first_record_and_stdin_works() {
    let out = swath()
        .args(["csv", "search", "--no-headers", "-s", "2", "b"])
        .write_stdin("a,b\nc,d\ne,b\n")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "a,b\ne,b\n");
    let out = swath()
        .args(["csv", "search", "-d", ";", "x"])
        .write_stdin("h;k\n\"x;1\";2\n3;4\n")
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "h;k\n\"x;1\";2\n");
    let out =
        swath().args(["csv", "search", "-s", "nope", "x"]).write_stdin("a\n1\n").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no column named `nope`"));
    let out = swath().args(["csv", "search", "("]).write_stdin("a\n1\n").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

//! `swath csv stats` through the real binary: known values, parallel
//! output equal to one thread byte for byte, stdin, exact error positions.

use std::io::Write;
use std::process::Output;

use assert_cmd::Command;

fn stats(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::cargo_bin("swath").unwrap();
    cmd.args(["csv", "stats"]).args(args);
    if let Some(data) = stdin {
        cmd.write_stdin(data.to_vec());
    }
    cmd.output().unwrap()
}

fn file_with(data: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(data).unwrap();
    f.flush().unwrap();
    f
}

const SMALL: &[u8] = b"name,age,score,ok,when,note\n\
a,30,1.5,true,2024-01-01,x\n\
\"b\nc\",,2.5,false,2024-02-01T10:00:00Z,\n\
d,10,-1,TRUE,2024-03-01,\"q\"\"uote\"\n";

#[test]
fn known_values_as_json() {
    let f = file_with(SMALL);
    let out = stats(&["--json", f.path().to_str().unwrap()], None);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json = String::from_utf8(out.stdout).unwrap();
    assert!(json.starts_with("{\"records\":3,\"columns\":["), "{json}");
    for want in [
        r#"{"field":"name","type":"string","count":3,"count_empty":0,"sum":null,"mean":null,"stddev":null,"min":null,"max":null,"lex_first":"a","lex_last":"d","min_length":1,"max_length":3,"cardinality":3,"cardinality_above":null}"#,
        r#"{"field":"age","type":"integer","count":2,"count_empty":1,"sum":40,"mean":20,"stddev":10,"min":10,"max":30,"#,
        r#"{"field":"score","type":"float","count":3,"count_empty":0,"sum":3,"mean":1,"stddev":1.4719601443879744,"min":-1,"max":2.5,"#,
        r#"{"field":"ok","type":"boolean","count":3,"#,
        r#""cardinality":3,"#,
        r#"{"field":"when","type":"date","count":3,"#,
        r#"{"field":"note","type":"string","count":2,"count_empty":1,"#,
        r#""lex_first":"q\"uote","lex_last":"x","min_length":1,"max_length":6,"cardinality":2,"#,
    ] {
        assert!(json.contains(want), "missing {want}\nin {json}");
    }
}

#[test]
fn table_for_people() {
    let f = file_with(SMALL);
    let out = stats(&[f.path().to_str().unwrap()], None);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7, "{text}");
    assert!(lines[0].starts_with("field") && lines[0].ends_with("distinct"), "{text}");
    let age: Vec<&str> = lines[2].split_whitespace().collect();
    assert_eq!(age, ["age", "integer", "2", "1", "10", "30", "20", "10", "2", "2", "2"]);
    assert!(lines[1].contains("a ") && lines[1].contains(" d "), "{text}");
}

fn generated(rows: &str, pct: &str) -> tempfile::NamedTempFile {
    let f = tempfile::NamedTempFile::new().unwrap();
    Command::cargo_bin("swath")
        .unwrap()
        .args(["gen", "csv", "--rows", rows, "--quoted-newlines", pct])
        .arg(f.path())
        .assert()
        .success();
    f
}

#[test]
fn parallel_output_equals_one_thread_byte_for_byte() {
    let f = generated("3000", "20");
    let path = f.path().to_str().unwrap();
    for json in [true, false] {
        let fmt: &[&str] = if json { &["--json"] } else { &[] };
        for chunk in ["1000", "4096", "65536"] {
            // Sums and moments merge per chunk in file order: the same
            // chunk size gives the same bits on any number of threads.
            let one = stats(&[fmt, &["-t", "1", "--chunk-size", chunk, path]].concat(), None);
            assert!(one.status.success());
            for t in ["2", "3", "8"] {
                let args = [fmt, &["-t", t, "--chunk-size", chunk, "-v", path]].concat();
                let many = stats(&args, None);
                assert_eq!(many.stdout, one.stdout, "threads {t} chunk {chunk}");
                let note = String::from_utf8_lossy(&many.stderr);
                assert!(note.contains("parallel:") && note.contains("all verified"), "{note}");
            }
            // Streamed from stdin: one thread, the same answer.
            let data = std::fs::read(f.path()).unwrap();
            let piped = stats(&[fmt, &["-v", "--chunk-size", chunk, "-"]].concat(), Some(&data));
            assert_eq!(piped.stdout, one.stdout);
            assert!(String::from_utf8_lossy(&piped.stderr).contains("sequential"));
        }
    }
}

#[test]
fn errors_name_the_same_position_in_parallel() {
    let mut data = b"a,b\n".to_vec();
    for i in 0..300 {
        data.extend_from_slice(format!("{i},\"x\ny\"\n").as_bytes());
    }
    data.extend_from_slice(b"7,ab\"c\n8,z\n");
    let f = file_with(&data);
    let path = f.path().to_str().unwrap();
    let one = stats(&["-t", "1", path], None);
    assert!(!one.status.success());
    let msg = String::from_utf8(one.stderr).unwrap();
    assert!(
        msg.contains("record 302 (line 602, byte 2898): quote inside an unquoted field"),
        "{msg}"
    );
    for chunk in ["7", "100", "1000"] {
        let many = stats(&["-t", "2", "--chunk-size", chunk, path], None);
        assert!(!many.status.success());
        assert_eq!(String::from_utf8(many.stderr).unwrap(), msg, "chunk {chunk}");
    }
}

#[test]
fn header_only_and_options() {
    let f = file_with(b"x;y\n");
    let out = stats(&["-d", ";", "--json", f.path().to_str().unwrap()], None);
    assert!(out.status.success());
    let json = String::from_utf8(out.stdout).unwrap();
    assert!(json.contains(r#"{"field":"x","type":"empty","count":0,"count_empty":0"#), "{json}");
    let out = stats(&["--no-headers", "-d", ";", f.path().to_str().unwrap()], None);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().nth(1).unwrap().starts_with("1 "), "{text}");
    let out = stats(&["-d", ";;", f.path().to_str().unwrap()], None);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not one ASCII character"));
}

//! `swath sql` run as the real binary: quoted paths in FROM, --table,
//! the three output forms, dialect options, threads, and errors that name
//! the file and the record.

#![cfg(feature = "sql")]

use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn swath() -> Command {
    Command::cargo_bin("swath").unwrap()
}

/// `rows` records `id,city,score,note`; every third note is quoted and
/// holds a newline and doubled quotes.
fn data(rows: usize) -> String {
    let cities = ["Oslo", "Rome", "Lima"];
    let mut s = String::from("id,city,score,note\n");
    for i in 0..rows {
        let note = if i % 3 == 0 { format!("\"two\nlines \"\"{i}\"\"\"") } else { format!("n{i}") };
        s.push_str(&format!("{i},{},{},{note}\n", cities[i % 3], (i % 8) as f64 / 2.0));
    }
    s
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn stdout(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_quoted_path_in_from_is_a_table_in_any_partition_count() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "data.csv", &data(3000));
    // By hand: city i%3, score (i%8)/2, so each city's avg over 1000 rows.
    let mut want = String::from("city,n,a\n");
    for (c, city) in ["Lima", "Oslo", "Rome"].iter().enumerate() {
        let idx = [2, 0, 1][c];
        let rows: Vec<usize> = (0..3000).filter(|i| i % 3 == idx).collect();
        let sum: f64 = rows.iter().map(|i| (i % 8) as f64 / 2.0).sum();
        want.push_str(&format!("{city},{},{}\n", rows.len(), sum / rows.len() as f64));
    }
    for t in ["1", "3", "8"] {
        for view in [None, Some("--string-view")] {
            let got = stdout(swath().current_dir(dir.path()).args([
                "sql",
                "SELECT city, count(*) AS n, avg(score) AS a FROM 'data.csv' GROUP BY city ORDER BY city",
                "--csv",
                "-t",
                t,
                "--split-size",
                "300",
            ]).args(view));
            assert_eq!(got, want, "{t} threads, {view:?}");
        }
    }
}

#[test]
fn tables_by_name_and_json_lines() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.csv", &data(30));
    let b = write(dir.path(), "b.csv", "id,tag\n0,zero\n3,three\n");
    let got = stdout(swath().args([
        "sql",
        "--table",
        &format!("a={}", a.display()),
        "--table",
        &format!("b={}", b.display()),
        "SELECT a.id, tag, note FROM a JOIN b ON a.id = b.id ORDER BY a.id",
        "--json",
    ]));
    assert_eq!(
        got,
        "{\"id\":0,\"tag\":\"zero\",\"note\":\"two\\nlines \\\"0\\\"\"}\n\
         {\"id\":3,\"tag\":\"three\",\"note\":\"two\\nlines \\\"3\\\"\"}\n"
    );
}

#[test]
fn a_table_by_default() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "data.csv", &data(10));
    let got = stdout(
        swath().current_dir(dir.path()).args(["sql", "SELECT count(*) AS n FROM 'data.csv'"]),
    );
    assert_eq!(got, "+----+\n| n  |\n+----+\n| 10 |\n+----+\n");
}

#[test]
fn dialect_options_apply() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "x.tsv", "1\tOslo\n2\tRome\n3\tOslo\n");
    let got = stdout(swath().current_dir(dir.path()).args([
        "sql",
        "SELECT column_2 AS c, count(*) AS n FROM 'x.tsv' GROUP BY column_2 ORDER BY c",
        "-d",
        "tab",
        "--no-headers",
        "--csv",
    ]));
    assert_eq!(got, "c,n\nOslo,2\nRome,1\n");
}

#[test]
fn an_empty_result_still_has_its_header_row() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "data.csv", &data(10));
    let got = stdout(swath().current_dir(dir.path()).args([
        "sql",
        "SELECT id, city FROM 'data.csv' WHERE id > 100",
        "--csv",
    ]));
    assert_eq!(got, "id,city\n");
}

#[test]
fn a_malformed_record_is_an_error_naming_file_and_record() {
    let dir = tempfile::tempdir().unwrap();
    let text = data(3000).replace("\n2000,", "\n2000,extra,");
    let p = write(dir.path(), "bad.csv", &text);
    for t in ["1", "4"] {
        let out = swath()
            .args(["sql", "--table", &format!("t={}", p.display()), "SELECT sum(score) FROM t"])
            .args(["-t", t, "--split-size", "500"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{t} threads");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&p.display().to_string()), "{t} threads: {err}");
        // Row 2000 is record 2002 (the header row is record 1).
        assert!(err.contains("record 2002"), "{t} threads: {err}");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn a_missing_file_and_bad_sql_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out =
        swath().current_dir(dir.path()).args(["sql", "SELECT * FROM 'nope.csv'"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope.csv"));
    let out = swath().args(["sql", "SELEC nothing"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// JSON lines as tables: by extension in FROM, by `--format json` for a
/// directory; nested fields in SQL; the same answers on any thread count
/// as `swath json to-csv` gives the rows; a broken line names its record.
#[test]
fn json_lines_tables_by_extension_and_by_format() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..3000 {
        let user = if i % 5 == 0 {
            String::new()
        } else {
            format!(",\"user\":{{\"name\":\"u{}\"}}", i % 7)
        };
        text.push_str(&format!(
            "{{\"id\":{i},\"level\":\"{}\",\"req\":{{\"status\":{},\"ms\":{}}}{user}}}\n",
            ["info", "warn"][i % 2],
            [200, 500][i % 3 % 2],
            (i % 8) as f64 / 4.0
        ));
    }
    write(dir.path(), "e.jsonl", &text);
    std::fs::create_dir(dir.path().join("logs")).unwrap();
    write(&dir.path().join("logs"), "a.jsonl", &text);
    write(&dir.path().join("logs"), "skip.csv", "not,json\n");
    let q = "SELECT level, count(*) AS n, sum(req['status']) AS s, sum(req['ms']) AS ms, \
             count(\"user\"['name']) AS named FROM t GROUP BY level ORDER BY level";
    let want = "level,n,s,ms,named\ninfo,1500,450000,1125.0,1200\nwarn,1500,450000,1500.0,1200\n";
    for t in ["1", "3"] {
        let by_ext = q.replace("FROM t", "FROM 'e.jsonl'");
        let out = stdout(swath().current_dir(dir.path()).args(["sql", &by_ext, "--csv", "-t", t]));
        assert_eq!(out, want, "{t} threads");
        let out = stdout(
            swath()
                .current_dir(dir.path())
                .args(["sql", "--table", "t=logs", "--format", "json", q, "--csv", "-t", t]),
        );
        assert_eq!(out, want, "a directory, {t} threads");
    }
    let bad = text.replacen("{\"id\":2000,", "{\"id\":2000,,", 1);
    let p = write(dir.path(), "bad.jsonl", &bad);
    for t in ["1", "4"] {
        let out = swath()
            .args([
                "sql",
                "--table",
                &format!("t={}", p.display()),
                "SELECT sum(id) FROM t",
                "-t",
                t,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("{}: record 2001 (line 2001", p.display())),
            "{t} threads: {err}"
        );
        assert!(err.contains("expected a key in double quotes"), "{err}");
    }
}

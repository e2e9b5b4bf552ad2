//! Dates as exports write them: day-first (`31/10/2023`), month-first
//! (`10/31/2023`), `31-OCT-2023`, `2023-10-31 14:03`, found by inference
//! (day-first against month-first by a value over 12) at 1 and 2 threads;
//! a column where no value tells the order is text, with a note naming
//! `--date-format`, and reads as dates with it. DuckDB, reading swath's
//! Parquet, writes every date back as the export's text.

mod common;

use common::civil;

const MON: [&str; 12] =
    ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];

/// The export: each row's day, in five columns' forms.
fn export(rows: usize) -> String {
    let mut text = String::from("id,day_first,month_first,oracle,stamp,unclear\n");
    for i in 0..rows {
        let days = 18000 + (i as i64 * 37) % 3000;
        let (y, m, d) = civil(days);
        // The unclear column: 2019-03-01 to 03-12, no value tells the order.
        let (uy, um, ud) = civil(17956 + (i as i64 * 31) % 12);
        text.push_str(&format!(
            "{i},{d:02}/{m:02}/{y},{m}/{d}/{y},{d:02}-{}-{y},{y}-{m:02}-{d:02} {:02}:{:02},{ud:02}/{um:02}/{uy}\n",
            MON[m as usize - 1],
            i % 24,
            i % 60
        ));
    }
    text
}

fn swath(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_swath")).args(args).output().unwrap()
}

#[test]
fn dates_in_other_forms_are_found_and_read() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("dates.csv");
    let text = export(3000);
    std::fs::write(&input, &text).unwrap();
    let file = input.to_str().unwrap();
    // csv schema: the types, the forms, the evidence.
    let o = swath(&["csv", "schema", file, "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let field = |name: &str| {
        doc["fields"].as_array().unwrap().iter().find(|f| f["name"] == name).unwrap().clone()
    };
    for (name, ty, form) in [
        ("day_first", "date32", "%d/%m/%Y"),
        ("month_first", "date32", "%m/%d/%Y"),
        ("oracle", "date32", "%d-%b-%Y"),
        ("stamp", "timestamp", "%Y-%m-%d %H:%M"),
    ] {
        let f = field(name);
        assert_eq!((f["type"].as_str(), f["format"].as_str()), (Some(ty), Some(form)), "{f}");
    }
    let note = field("day_first")["note"].as_str().unwrap().to_string();
    assert!(
        note.starts_with("date32 as %d/%m/%Y: ") && note.contains("have a day over 12"),
        "{note}"
    );
    let unclear = field("unclear");
    assert_eq!(unclear["type"], "utf8");
    assert!(unclear["note"].as_str().unwrap().contains("--date-format %d/%m/%Y or %m/%d/%Y"));

    // swath sql reads the forms inference found (they travel in the
    // table's schema).
    let query = format!(
        "SELECT count(*), min(day_first), max(month_first), max(oracle), max(stamp) FROM '{file}'"
    );
    let mut answers = Vec::new();
    // Split (the plan's ranges) and whole (one partition reads the file
    // from a schema given to it, which must keep the forms).
    for split in [&["--split-size", "7001", "-t", "2"][..], &["-t", "1"][..]] {
        let mut args = vec!["sql", "--csv"];
        args.extend(split);
        args.push(&query);
        let o = swath(&args);
        assert!(o.status.success(), "{split:?}: {}", String::from_utf8_lossy(&o.stderr));
        answers.push(String::from_utf8_lossy(&o.stdout).to_string());
    }
    let days = |i: i64| 18000 + (i * 37) % 3000;
    let last = (0..3000).max_by_key(|&i| days(i)).unwrap();
    let ((y0, m0, d0), (y1, m1, d1)) = (civil(18000), civil(20999));
    let want = format!(
        "3000,{y0:04}-{m0:02}-{d0:02},{y1:04}-{m1:02}-{d1:02},{y1:04}-{m1:02}-{d1:02},\
         {y1:04}-{m1:02}-{d1:02}T{:02}:{:02}:00",
        last % 24,
        last % 60
    );
    for answer in &answers {
        assert_eq!(answer.lines().nth(1), Some(want.as_str()), "{answer}");
    }
    for threads in ["1", "2"] {
        let out = dir.path().join(format!("d{threads}.parquet"));
        let o = swath(&[
            "csv",
            "to-parquet",
            file,
            "-o",
            out.to_str().unwrap(),
            "-t",
            threads,
            "--chunk-size",
            "7001",
            "--date-format",
            "%d/%m/%Y",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        // With --date-format, inference tries only it: the unclear column
        // is day-first, the month-first one is text (13/... is no month).
        let o = swath(&["csv", "schema", file, "--date-format", "%d/%m/%Y"]);
        let said = String::from_utf8_lossy(&o.stdout).to_string();
        assert!(said.lines().any(|l| l.starts_with("unclear") && l.contains("date32")), "{said}");
        assert!(said.lines().any(|l| l.starts_with("month_first") && l.contains("utf8")), "{said}");
        duckdb_writes_the_text_back(&out, &text);
        // Without the option: the forms inference found, every value.
        let out = dir.path().join(format!("i{threads}.parquet"));
        let o = swath(&[
            "csv",
            "to-parquet",
            file,
            "-o",
            out.to_str().unwrap(),
            "-t",
            threads,
            "--chunk-size",
            "7001",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        duckdb_writes_the_text_back(&out, &text);
    }
}

/// DuckDB reads the Parquet and formats each date column as the export
/// wrote it: every row equals the export's.
fn duckdb_writes_the_text_back(parquet: &std::path::Path, text: &str) {
    let Some(python) = common::peer_python("DuckDB reading dates in other forms") else { return };
    let script = r#"
import duckdb, sys
con = duckdb.connect()
src = f"read_parquet('{sys.argv[1]}')"
cols = con.sql(f"DESCRIBE SELECT * FROM {src}").fetchall()
forms = {"day_first": "%d/%m/%Y", "month_first": "%-m/%-d/%Y", "oracle": "%d-%b-%Y",
         "stamp": "%Y-%m-%d %H:%M", "unclear": "%d/%m/%Y"}
exprs = [f"strftime({c}, '{forms[c]}')" if t in ("DATE", "TIMESTAMP") else f"CAST({c} AS VARCHAR)"
         for c, t, *_ in cols]
for row in con.sql(f"SELECT {', '.join(exprs)} FROM {src} ORDER BY id").fetchall():
    print(",".join(row))
"#;
    let o = std::process::Command::new(python)
        .args(["-c", script, parquet.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The oracle column: DuckDB writes Oct, the export OCT.
    let got = String::from_utf8_lossy(&o.stdout).to_uppercase();
    let want: String = text.lines().skip(1).map(|l| format!("{}\n", l.to_uppercase())).collect();
    assert!(got == want, "DuckDB's text differs:\n{}", &got[..got.len().min(400)]);
}

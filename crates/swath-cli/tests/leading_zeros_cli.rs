//! Inference keeps the user's text: a column of codes with leading zeros
//! (ZIP codes, account numbers) comes back as written from every way out:
//! `csv to-parquet`, `csv to-json`, `swath sql`, and `json to-csv` of
//! the same codes as JSON strings. A property test over random columns in
//! which codes and plain numbers mix, sometimes only past the head that
//! inference samples.

use std::path::Path;
use std::process::Command;

use swath_arrow::arrow_array::cast::AsArray;
use swath_arrow::arrow_array::Array;
use swath_arrow::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use swath_testkit::Rng;

const SWATH: &str = env!("CARGO_BIN_EXE_swath");

fn swath(args: &[&str]) -> String {
    let o = Command::new(SWATH).args(args).output().unwrap();
    assert!(o.status.success(), "swath {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// A column's values: codes (`0` then digits, signs sometimes), plain
/// integers, `0` alone, empty; at least one code.
fn column(rng: &mut Rng, rows: usize) -> Vec<String> {
    let mut vals: Vec<String> = (0..rows)
        .map(|_| match rng.below(6) {
            0 | 1 => format!("0{}", rng.below(100_000)),
            2 => format!("{}", rng.below(1_000_000)),
            3 => "0".to_string(),
            4 => format!("-0{}", rng.below(100)),
            _ => String::new(),
        })
        .collect();
    // Somewhere, possibly far past the sampled head, one code for sure.
    let at = rng.index(rows);
    vals[at] = format!("00{}", rng.below(1000));
    vals
}

fn parquet_texts(path: &Path, col: usize) -> Vec<Option<String>> {
    let f = std::fs::File::open(path).unwrap();
    let mut out = Vec::new();
    for b in ParquetRecordBatchReaderBuilder::try_new(f).unwrap().build().unwrap() {
        let b = b.unwrap();
        let a = b.column(col).as_string::<i32>();
        out.extend((0..a.len()).map(|i| a.is_valid(i).then(|| a.value(i).to_string())));
    }
    out
}

#[test]
fn codes_with_leading_zeros_come_back_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(0x00501);
    for case in 0..12 {
        // Sometimes more rows than the head inference reads (10,000).
        let rows = if case % 4 == 3 { 30_000 } else { 1 + rng.index(300) };
        let codes = column(&mut rng, rows);
        let csv_path = dir.path().join(format!("c{case}.csv"));
        let mut csv = String::from("id,code\n");
        let mut jsonl = String::new();
        for (i, c) in codes.iter().enumerate() {
            csv.push_str(&format!("{i},{c}\n"));
            jsonl.push_str(&format!("{{\"id\":{i},\"code\":\"{c}\"}}\n"));
        }
        std::fs::write(&csv_path, csv).unwrap();
        let p = csv_path.to_str().unwrap();
        let want: Vec<Option<String>> =
            codes.iter().map(|c| (!c.is_empty()).then(|| c.clone())).collect();

        // Parquet: a text column, every value as written.
        let out = dir.path().join(format!("c{case}.parquet"));
        swath(&["csv", "to-parquet", p, "-o", out.to_str().unwrap(), "--infer", "full"]);
        assert_eq!(parquet_texts(&out, 1), want, "case {case}: to-parquet --infer full");
        swath(&["csv", "to-parquet", p, "-o", out.to_str().unwrap()]);
        assert_eq!(parquet_texts(&out, 1), want, "case {case}: to-parquet (sampled)");

        // The schema says why.
        let schema = swath(&["csv", "schema", p, "--infer", "full"]);
        let line = schema.lines().find(|l| l.starts_with("code")).unwrap();
        assert!(line.contains("utf8") && line.contains("leading zero"), "case {case}: {line}");

        // JSON out: strings as written.
        let json = swath(&["csv", "to-json", p]);
        for (l, c) in json.lines().zip(&codes) {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            assert_eq!(v["code"].as_str().unwrap(), c, "case {case}: to-json");
        }

        // SQL: the text, not a number.
        let q = format!("SELECT code FROM '{p}' ORDER BY id");
        let got = swath(&["sql", "--csv", &q]);
        // (An empty text is `""` in SQL's CSV, null being empty.)
        let lines: Vec<&str> =
            got.lines().skip(1).map(|l| if l == "\"\"" { "" } else { l }).collect();
        assert_eq!(lines, codes.iter().map(String::as_str).collect::<Vec<_>>(), "case {case}: sql");

        // JSON lines: the strings stay strings through to-csv.
        let jpath = dir.path().join(format!("c{case}.jsonl"));
        std::fs::write(&jpath, jsonl).unwrap();
        let back = swath(&["json", "to-csv", jpath.to_str().unwrap()]);
        let got: Vec<&str> = back.lines().skip(1).map(|l| l.split(',').nth(1).unwrap()).collect();
        assert_eq!(
            got,
            codes.iter().map(String::as_str).collect::<Vec<_>>(),
            "case {case}: json to-csv"
        );
    }
}

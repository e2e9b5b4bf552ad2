//! Numbers as a European Excel export writes them: `sep=;` on the first
//! line, Windows-1252 text (encoded by Python's codecs), decimal commas
//! and `.` between thousands (`1.299,99`), a Totals line at the end. With
//! `--decimal-comma --thousands .` the prices are float64 and the
//! quantities int64, every value the generator's; at 1 and 2 threads. The
//! text column keeps what was written, and without the options the
//! numbers are text (nothing is read as a number that was not meant).

mod common;

use swath_arrow::arrow_array::{Array, Float64Array, Int64Array, StringArray};
use swath_arrow::arrow_schema::DataType;

/// The export's UTF-8 text, and each row's (article, price, quantity,
/// note).
fn export(rows: usize) -> (String, Vec<(String, f64, i64, String)>) {
    let mut text = String::from("sep=;\nArtikel;Preis;Menge;Notiz\n");
    let mut want = Vec::new();
    for i in 0..rows {
        let article = ["Käse", "Brötchen", "Crème brûlée", "Bier €"][i % 4].to_string();
        let cents = (i as i64 * 7919) % 2_000_000 - 1000;
        let price = cents as f64 / 100.0;
        let quantity = (i as i64 * 104_729) % 5_000_000;
        let note = ["1.299,99 €", "ca. 3,5", "", "a;b"][i % 4].to_string();
        let quoted = if note.contains(';') { format!("\"{note}\"") } else { note.clone() };
        text.push_str(&format!(
            "{article};{};{};{quoted}\r\n",
            european(cents, 2),
            european(quantity, 0)
        ));
        want.push((article, price, quantity, note));
    }
    text.push_str("Summe;;;\r\n");
    (text, want)
}

/// `value / 10^decimals` written with `.` between thousands and a
/// decimal comma.
fn european(value: i64, decimals: u32) -> String {
    let sign = if value < 0 { "-" } else { "" };
    let v = value.unsigned_abs();
    let scale = 10u64.pow(decimals);
    let (int, frac) = (v / scale, v % scale);
    let digits = int.to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            grouped.push('.');
        }
        grouped.push(c);
    }
    if decimals == 0 {
        format!("{sign}{grouped}")
    } else {
        format!("{sign}{grouped},{frac:0width$}", width = decimals as usize)
    }
}

/// `utf8` encoded as Windows-1252 by Python's codecs.
fn cp1252(utf8: &str, out: &std::path::Path) {
    let o = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys; open(sys.argv[1],'wb').write(sys.stdin.read().encode('cp1252'))",
            out.to_str().unwrap(),
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(utf8.as_bytes())?;
            c.wait_with_output()
        })
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

fn swath(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_swath")).args(args).output().unwrap()
}

#[test]
fn an_excel_export_with_decimal_commas_reads_as_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let (text, want) = export(2500);
    let input = dir.path().join("export.csv");
    cp1252(&text, &input);
    let file = input.to_str().unwrap();
    let opts =
        ["--encoding", "windows-1252", "--decimal-comma", "--thousands", ".", "--skip-last", "1"];
    for threads in ["1", "2"] {
        let out = dir.path().join(format!("out-{threads}.parquet"));
        let mut args = vec!["csv", "to-parquet", file, "-o", out.to_str().unwrap(), "-t", threads];
        args.extend(opts);
        let o = swath(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let mut got = Vec::new();
        for b in common::parquet_batches(&out) {
            let types: Vec<DataType> =
                b.schema().fields().iter().map(|f| f.data_type().clone()).collect();
            assert_eq!(types, [DataType::Utf8, DataType::Float64, DataType::Int64, DataType::Utf8]);
            let a = b.column(0).as_any().downcast_ref::<StringArray>().unwrap();
            let p = b.column(1).as_any().downcast_ref::<Float64Array>().unwrap();
            let q = b.column(2).as_any().downcast_ref::<Int64Array>().unwrap();
            let n = b.column(3).as_any().downcast_ref::<StringArray>().unwrap();
            for i in 0..b.num_rows() {
                let note = if n.is_valid(i) { n.value(i).to_string() } else { String::new() };
                got.push((a.value(i).to_string(), p.value(i), q.value(i), note));
            }
        }
        assert_eq!(got.len(), want.len(), "-t {threads}");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(g, w, "-t {threads}: row {i}");
        }
    }
    // csv schema says so; without the options the numbers are text.
    let mut args = vec!["csv", "schema", file];
    args.extend(opts);
    let said = String::from_utf8_lossy(&swath(&args).stdout).to_string();
    assert!(said.contains("float64") && said.contains("int64"), "{said}");
    let plain = swath(&["csv", "schema", file, "--encoding", "windows-1252", "--skip-last", "1"]);
    let said = String::from_utf8_lossy(&plain.stdout).to_string();
    assert!(!said.contains("float64") && !said.contains("int64"), "{said}");
    // csv sniff proposes the options (and finds the sep= line; the Summe
    // line has the records' field count, so it is no footer by shape).
    let o = swath(&["csv", "sniff", "--json", file]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        doc["values"]["options"],
        serde_json::json!(["--decimal-comma", "--thousands", "."])
    );
    assert_eq!(
        doc["values"]["columns"],
        serde_json::json!([{"name": "Preis", "type": "float64"}, {"name": "Menge", "type": "int64"}])
    );
    assert_eq!(doc["excel_sep"].as_bool(), Some(true));
    // A separator that cannot be.
    let o = swath(&["csv", "schema", file, "--decimal-comma", "--thousands", ","]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("decimal mark"));
}

#[test]
fn thousands_commas_with_a_decimal_point() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("us.csv");
    let mut text = String::from("amount,count,code\n");
    for i in 0..500i64 {
        let cents = i * 123_457 - 2_000_000;
        let int = cents.abs() / 100;
        let grouped = european(int, 0).replace('.', ",");
        let sign = if cents < 0 { "-" } else { "" };
        text.push_str(&format!(
            "\"{sign}{grouped}.{:02}\",\"{}\",v{}.{}\n",
            cents.abs() % 100,
            european(i * 1001, 0).replace('.', ","),
            i,
            i % 7
        ));
    }
    std::fs::write(&input, text).unwrap();
    let out = dir.path().join("us.parquet");
    let o = swath(&[
        "csv",
        "to-parquet",
        input.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--thousands",
        ",",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut row = 0i64;
    for b in common::parquet_batches(&out) {
        let a = b.column(0).as_any().downcast_ref::<Float64Array>().expect("amount is float64");
        let c = b.column(1).as_any().downcast_ref::<Int64Array>().expect("count is int64");
        let code = b.column(2).as_any().downcast_ref::<StringArray>().expect("code is text");
        for i in 0..b.num_rows() {
            assert_eq!(a.value(i), (row * 123_457 - 2_000_000) as f64 / 100.0, "row {row}");
            assert_eq!(c.value(i), row * 1001);
            assert_eq!(code.value(i), format!("v{row}.{}", row % 7));
            row += 1;
        }
    }
    assert_eq!(row, 500);
    // swath sql reads the table the same way.
    let query = format!("SELECT sum(count), min(amount) FROM '{}'", input.display());
    let o = swath(&["sql", "--csv", "--thousands", ",", "--split-size", "3000", &query]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sum: i64 = (0..500i64).map(|i| i * 1001).sum();
    let answer = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(answer.lines().nth(1), Some(format!("{sum},-20000.0").as_str()), "{answer}");
}

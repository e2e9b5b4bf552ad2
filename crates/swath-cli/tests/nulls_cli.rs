//! `--null` as a list and `--null common`: an export whose missing values
//! are spelled several ways (NA, NULL, \N, -, n/a, the empty field ...)
//! in columns of every type. The types are inferred as if the nulls were
//! not there (an int column with NA in it is still int64), every spelling
//! is a null in the Parquet, every other value is the generator's; at one
//! thread and at two with small chunks. DuckDB, reading the Parquet, counts
//! the same nulls.

mod common;

use swath_arrow::arrow_array::{
    Array, BooleanArray, Date32Array, Float64Array, Int64Array, StringArray,
};
use swath_arrow::arrow_schema::DataType;

/// One row: id, amount, day (days since 1970), flag, name; `None` a null.
type Row = (Option<i64>, Option<f64>, Option<i32>, Option<bool>, Option<String>);

/// The export with nulls spelled as `spellings` (chosen in turn), and its
/// rows.
fn export(spellings: &[&str], rows: usize) -> (String, Vec<Row>) {
    let mut text = String::from("id,amount,day,flag,name\n");
    let mut want = Vec::new();
    let mut x = 7u64;
    let mut k = 0usize;
    let mut next = || {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        x >> 33
    };
    for i in 0..rows {
        let mut fields = Vec::new();
        let mut null = |fields: &mut Vec<String>| {
            let s = spellings[k % spellings.len()];
            k += 1;
            fields.push(if s.contains(',') { format!("\"{s}\"") } else { s.to_string() });
        };
        let id = (next() % 7 != 0).then_some(i as i64 * 3 - 50);
        let amount = (next() % 7 != 0).then_some((i % 1000) as f64 / 8.0);
        let day = (next() % 7 != 0).then_some(19000 + (i % 400) as i32);
        let flag = (next() % 7 != 0).then_some(i % 3 == 0);
        let name = (next() % 7 != 0).then(|| ["ann", "bo b", "Zoë", "n/a x"][i % 4].to_string());
        match id {
            Some(v) => fields.push(v.to_string()),
            None => null(&mut fields),
        }
        match amount {
            Some(v) => fields.push(format!("{v}")),
            None => null(&mut fields),
        }
        match day {
            Some(d) => {
                let date = chrono_free_date(d);
                fields.push(date);
            }
            None => null(&mut fields),
        }
        match flag {
            Some(b) => fields.push(b.to_string()),
            None => null(&mut fields),
        }
        match &name {
            Some(n) => fields.push(n.clone()),
            None => null(&mut fields),
        }
        text.push_str(&fields.join(","));
        text.push('\n');
        want.push((id, amount, day, flag, name));
    }
    (text, want)
}

/// Days since 1970-01-01 as YYYY-MM-DD.
fn chrono_free_date(days: i32) -> String {
    let (y, m, d) = common::civil(i64::from(days));
    format!("{y:04}-{m:02}-{d:02}")
}

fn rows_of(path: &std::path::Path) -> Vec<Row> {
    let mut out = Vec::new();
    for b in common::parquet_batches(path) {
        let types: Vec<DataType> =
            b.schema().fields().iter().map(|f| f.data_type().clone()).collect();
        assert_eq!(
            types,
            [
                DataType::Int64,
                DataType::Float64,
                DataType::Date32,
                DataType::Boolean,
                DataType::Utf8
            ],
            "the types as if the nulls were not there"
        );
        let id = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        let amount = b.column(1).as_any().downcast_ref::<Float64Array>().unwrap();
        let day = b.column(2).as_any().downcast_ref::<Date32Array>().unwrap();
        let flag = b.column(3).as_any().downcast_ref::<BooleanArray>().unwrap();
        let name = b.column(4).as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..b.num_rows() {
            out.push((
                id.is_valid(i).then(|| id.value(i)),
                amount.is_valid(i).then(|| amount.value(i)),
                day.is_valid(i).then(|| day.value(i)),
                flag.is_valid(i).then(|| flag.value(i)),
                name.is_valid(i).then(|| name.value(i).to_string()),
            ));
        }
    }
    out
}

#[test]
fn every_spelling_of_null_in_a_list_or_common_is_a_null_of_every_type() {
    let dir = tempfile::tempdir().unwrap();
    let common_spellings: Vec<&str> = swath_arrow::COMMON_NULLS.to_vec();
    for (option, spellings) in [
        ("NA,NULL,\\N,-", vec!["NA", "NULL", "\\N", "-"]),
        ("common", common_spellings),
        ("NA,", vec!["NA", ""]),
    ] {
        let (text, want) = export(&spellings, 3000);
        let input = dir.path().join("export.csv");
        std::fs::write(&input, &text).unwrap();
        for threads in ["1", "2"] {
            let out = dir.path().join(format!("out-{threads}.parquet"));
            let o = std::process::Command::new(env!("CARGO_BIN_EXE_swath"))
                .args(["csv", "to-parquet", input.to_str().unwrap(), "-o", out.to_str().unwrap()])
                .args(["--null", option, "-t", threads, "--chunk-size", "4099"])
                .output()
                .unwrap();
            let ctx = format!("--null {option:?} -t {threads}");
            assert!(o.status.success(), "{ctx}: {}", String::from_utf8_lossy(&o.stderr));
            let got = rows_of(&out);
            assert_eq!(got.len(), want.len(), "{ctx}");
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g, w, "{ctx}: row {i}");
            }
            if threads == "2" {
                duckdb_counts_the_nulls(&out, &want, &ctx);
            }
        }
        // swath sql reads the table the same way: its null counts.
        let query = format!(
            "SELECT count(*) - count(id), count(*) - count(amount), count(*) - count(day), \
             count(*) - count(flag), count(*) - count(name), sum(id) FROM '{}'",
            input.display()
        );
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_swath"))
            .args(["sql", "--csv", "--null", option, "--split-size", "5000", &query])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let n = |f: fn(&Row) -> bool| want.iter().filter(|r| f(r)).count();
        let sum: i64 = want.iter().filter_map(|r| r.0).sum();
        let expected = format!(
            "{},{},{},{},{},{sum}",
            n(|r| r.0.is_none()),
            n(|r| r.1.is_none()),
            n(|r| r.2.is_none()),
            n(|r| r.3.is_none()),
            n(|r| r.4.is_none())
        );
        let answer = String::from_utf8_lossy(&o.stdout).to_string();
        assert_eq!(answer.lines().nth(1), Some(expected.as_str()), "sql --null {option}");
        // csv schema says the same types.
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_swath"))
            .args(["csv", "schema", input.to_str().unwrap(), "--null", option])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        for ty in ["int64", "float64", "date32", "boolean", "utf8"] {
            assert!(said.contains(ty), "--null {option}: {said}");
        }
    }
    // csv sniff proposes --null common for the usual spellings.
    let (text, _) = export(&["NA", "n/a", "\\N"], 600);
    let input = dir.path().join("sniff.csv");
    std::fs::write(&input, text).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_swath"))
        .args(["csv", "sniff", "--json", input.to_str().unwrap()])
        .output()
        .unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(doc["values"]["options"], serde_json::json!(["--null", "common"]), "{doc}");
    assert_eq!(doc["values"]["columns"].as_array().map(Vec::len), Some(4), "{doc}");
    // Without the list, NA is text: the int column is not int64.
    let (text, _) = export(&["NA"], 200);
    let input = dir.path().join("na.csv");
    std::fs::write(&input, text).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_swath"))
        .args(["csv", "schema", input.to_str().unwrap()])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(!said.contains("int64"), "{said}");
}

/// DuckDB reads the Parquet: its null count per column is the generator's.
fn duckdb_counts_the_nulls(parquet: &std::path::Path, want: &[Row], ctx: &str) {
    let Some(python) = common::peer_python("DuckDB counting the nulls of --null") else { return };
    let script = "import duckdb,sys\n\
        r = duckdb.sql(f\"SELECT count(*) - count(id), count(*) - count(amount), count(*) - count(day), \
        count(*) - count(flag), count(*) - count(name) FROM read_parquet('{sys.argv[1]}')\").fetchall()[0]\n\
        print(','.join(map(str, r)))";
    let o = std::process::Command::new(python)
        .args(["-c", script, parquet.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let n = |f: fn(&Row) -> bool| want.iter().filter(|r| f(r)).count();
    let expected = format!(
        "{},{},{},{},{}",
        n(|r| r.0.is_none()),
        n(|r| r.1.is_none()),
        n(|r| r.2.is_none()),
        n(|r| r.3.is_none()),
        n(|r| r.4.is_none())
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), expected, "{ctx}: DuckDB's null counts");
}

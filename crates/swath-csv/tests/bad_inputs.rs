//! BAD-INPUTS.md section A as data: `testdata/csv/bad_inputs.json` holds
//! each case's input, options and expected records or errors (kind and
//! position: byte, line, record). Every case runs through reads of 1, 2,
//! 3, 5 and 64 bytes and one large read, with every classifier kernel.
//!
//! Strings in the table are bytes: `\xHH` stands for the byte 0xHH.

mod common;

use common::table::{builder, byte_opt, bytes, cases};
use common::Chunked;
use serde_json::Value;
use swath_csv::classify::Kernel;
use swath_csv::ErrorKind;

fn fields(v: &Value) -> Vec<Vec<u8>> {
    v.as_array()
        .expect("fields are an array")
        .iter()
        .map(|f| bytes(f.as_str().expect("a field is a string")))
        .collect()
}

fn kind_name(k: &ErrorKind) -> String {
    let s = format!("{k:?}");
    s.split([' ', '(', '{']).next().unwrap().to_string()
}

fn run_case(case: &Value, chunk: usize, kernel: Kernel) {
    let id = case["id"].as_str().unwrap();
    let input = bytes(case["input"].as_str().unwrap());
    let mut b = builder(&case["opts"]);
    b.capacity(chunk).kernel(kernel);
    let ctx = format!("{id} (chunk {chunk}, {})", kernel.name());
    let built = b.from_reader(Chunked { data: &input, chunk });
    if case["build_error"].as_bool() == Some(true) {
        let err = built.err().unwrap_or_else(|| panic!("{ctx}: expected a build error"));
        assert!(matches!(err.kind(), ErrorKind::Config(_)), "{ctx}: {err}");
        return;
    }
    let mut rdr = built.unwrap();
    if let Some(h) = case.get("headers") {
        let got = rdr.headers().unwrap().expect("headers").clone();
        assert_eq!(got.iter().map(<[u8]>::to_vec).collect::<Vec<_>>(), fields(h), "{ctx}: headers");
    }
    for (n, want) in case["expect"].as_array().unwrap().iter().enumerate() {
        let ctx = format!("{ctx}, item {n}");
        let (want_fields, want_pos) = match want {
            Value::Array(_) => (Some(fields(want)), None),
            _ => (want.get("fields").map(fields), want.get("pos")),
        };
        match rdr.next_record() {
            Ok(Some(rec)) => {
                assert!(want.get("error").is_none(), "{ctx}: expected {want}, got {rec:?}");
                let got: Vec<Vec<u8>> = rec.iter().map(<[u8]>::to_vec).collect();
                assert_eq!(Some(got), want_fields, "{ctx}");
                if let Some(p) = want_pos {
                    let pos = rec.position();
                    assert_eq!(
                        serde_json::json!([pos.byte, pos.line, pos.record]),
                        *p,
                        "{ctx}: position"
                    );
                }
            }
            Ok(None) => panic!("{ctx}: expected {want}, got end of input"),
            Err(e) => {
                let kind = want.get("error").and_then(Value::as_str);
                assert_eq!(Some(kind_name(e.kind()).as_str()), kind, "{ctx}: {e}");
                let pos = e.position().expect("every error has a position");
                assert_eq!(
                    serde_json::json!([pos.byte, pos.line, pos.record]),
                    want["at"],
                    "{ctx}: error position of {e}"
                );
                if let Some(f) = want_fields {
                    assert!(e.is_recoverable(), "{ctx}");
                    let got: Vec<Vec<u8>> = rdr.record().iter().map(<[u8]>::to_vec).collect();
                    assert_eq!(got, f, "{ctx}: the record after the error");
                }
            }
        }
    }
    // Nothing more, unless reading stopped at a fatal error.
    match rdr.next_record() {
        Ok(None) => {}
        Ok(Some(rec)) => panic!("{ctx}: unexpected extra record {rec:?}"),
        Err(e) => assert!(!e.is_recoverable(), "{ctx}: unexpected extra error {e}"),
    }
}

#[test]
fn every_case_of_bad_inputs_section_a() {
    let cases = cases();
    assert!(cases.len() > 60);
    for case in &cases {
        for chunk in [1, 2, 3, 5, 64, 1 << 16] {
            for k in Kernel::available() {
                run_case(case, chunk, k);
            }
        }
    }
}

#[test]
fn lenient_cases_match_the_csv_crate_unless_marked_as_its_defects() {
    // The table's lenient expectations are the csv crate's output, except
    // where a case id names an A3 defect we do right.
    let cases = cases();
    let mut compared = 0;
    for case in &cases {
        let opts = &case["opts"];
        let id = case["id"].as_str().unwrap();
        // Only cases whose expectation is plain records (no error), in
        // options the csv crate has.
        let plain = case["expect"].as_array().is_some_and(|e| e.iter().all(Value::is_array));
        let ours_only = ["keep_empty", "max_record", "max_fields", "headers"];
        if !plain || id.contains("A3.") || ours_only.iter().any(|k| opts.get(k).is_some()) {
            continue;
        }
        let input = bytes(case["input"].as_str().unwrap());
        let flag = |k: &str, d: bool| opts.get(k).and_then(Value::as_bool).unwrap_or(d);
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .quoting(flag("quoting", true))
            .double_quote(flag("double_quote", true))
            .escape(byte_opt(opts, "escape"))
            .comment(byte_opt(opts, "comment"))
            .delimiter(byte_opt(opts, "delimiter").unwrap_or(b','))
            .quote(byte_opt(opts, "quote").unwrap_or(b'"'))
            .from_reader(&input[..]);
        let got: Vec<Vec<Vec<u8>>> =
            rdr.byte_records().map(|r| r.unwrap().iter().map(<[u8]>::to_vec).collect()).collect();
        let want: Vec<_> = case["expect"].as_array().unwrap().iter().map(fields).collect();
        assert_eq!(got, want, "{id}");
        compared += 1;
    }
    assert!(compared > 25, "only {compared} cases compared");
}

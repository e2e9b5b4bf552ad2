//! docs/bad-inputs.md section A as data: `testdata/csv/bad_inputs.json` holds
//! each case's input, options and expected records or errors (kind and
//! position: byte, line, record). Every case runs through every way of
//! reading (`common/paths.rs`): `next_record`, `read_into`, `records()`,
//! `into_records()`, `for_each_record` and `from_path`, at reads of 1, 2,
//! 3, 5, 64 bytes and one large read with every classifier kernel, and the
//! parallel reader's `for_each_ordered`, `for_each_chunk_ordered`, `fold`,
//! `count`, `for_each` and `headers` on 1 to 3 threads with chunks of 1 to
//! 64 bytes. Every failure names its case and path.
//!
//! Strings in the table are bytes: `\xHH` stands for the byte 0xHH.

mod common;

use common::paths::{check_case, path_names, Case, Event};
use common::table::{byte_opt, bytes, cases};
use serde_json::Value;

fn fields(v: &Value) -> Vec<Vec<u8>> {
    v.as_array()
        .expect("fields are an array")
        .iter()
        .map(|f| bytes(f.as_str().expect("a field is a string")))
        .collect()
}

#[test]
fn every_case_of_bad_inputs_section_a_on_every_path() {
    let cases = cases();
    assert!(cases.len() > 60);
    let mut failures = Vec::new();
    for case in &cases {
        failures.extend(check_case(&Case::from_json(case)));
    }
    for f in failures.iter().take(40) {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} failures (the first 40 above)", failures.len());
}

/// The harness can fail, on every path: a case whose expected error
/// position is off by one byte is reported by each of them.
#[test]
fn a_wrong_expectation_fails_on_every_path() {
    let cases = cases();
    let json = cases
        .iter()
        .find(|c| c["id"] == "A2.2 bare quote, second record (strict)")
        .expect("the case is in the table");
    let mut case = Case::from_json(json);
    assert!(check_case(&case).is_empty(), "the case itself passes");
    for e in &mut case.expect {
        if let Event::Error { at, .. } = e {
            at[0] += 1;
        }
    }
    let failures = check_case(&case);
    for path in path_names() {
        assert!(
            failures.iter().any(|f| f.contains(&path)),
            "no path {path} reported the wrong expectation; failures: {failures:#?}"
        );
    }
    // And a wrong record is caught as well as a wrong error.
    let mut case = Case::from_json(json);
    if let Event::Record { fields, .. } = &mut case.expect[0] {
        fields[0] = b"not x".to_vec();
    }
    let failures = check_case(&case);
    assert!(failures.iter().any(|f| f.contains("[next_record,")), "{failures:#?}");
    assert!(failures.iter().any(|f| f.contains("[parallel for_each_ordered,")), "{failures:#?}");
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

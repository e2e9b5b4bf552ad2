//! The `json_lines` fuzz target's checks (fuzz/json_checks.rs) on every
//! input kept in fuzz/regressions/json_lines/ and on generated documents,
//! so that what the fuzzer found stays fixed without a fuzzer.

#[path = "../../../fuzz/json_checks.rs"]
mod json_checks;

#[test]
fn kept_inputs_and_generated_documents_pass() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions/json_lines");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).into_iter().flatten() {
        let path = entry.unwrap().path();
        if path.is_file() && path.extension().is_none_or(|e| e != "md") {
            json_checks::lines(&std::fs::read(&path).unwrap());
            n += 1;
        }
    }
    for seed in 0..20 {
        json_checks::lines(swath_testkit::json_document(seed, 200).as_bytes());
        n += 1;
    }
    // And the shapes that divide parsers.
    for doc in [
        "{\"a\":1e400}\n",
        "{\"a\":-0}\n{\"a\":1}\n",
        "{\"k\\u0065y\":\"v\"}\n",
        "{\"a\":[[1],[2,null]],\"b\":{\"c\":{\"d\":true}}}\n{\"b\":null}\n",
        "{\"a\":1}\n\n  \r\n{\"a\":2}",
        "{\"a\":\"\\ud83d\\ude00\"}\n{\"a\":\"\\u0000\"}\n",
        "{\"a\":1,\"a\":2}\n",
        "[1]\n",
    ] {
        json_checks::lines(doc.as_bytes());
        n += 1;
    }
    assert!(n >= 28);
}

//! The `json_lines` fuzz target's checks (fuzz/json_checks.rs) on every
//! input kept in fuzz/regressions/json_lines/ and on generated documents,
//! so that what the fuzzer found stays fixed without a fuzzer.

#[path = "../../../fuzz/json_checks.rs"]
mod json_checks;

#[path = "../../../fuzz/json_document_checks.rs"]
mod json_document_checks;

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

/// The `json_documents` target's checks (fuzz/json_document_checks.rs) on
/// every input kept in fuzz/regressions/json_documents/ and on documents
/// made from generated lines: arrays, wrappers, pretty objects, each
/// whole and cut short, under every way of asking and many chunk sizes.
#[test]
fn json_documents_kept_inputs_and_generated_documents_pass() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/regressions/json_documents");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).into_iter().flatten() {
        let path = entry.unwrap().path();
        if path.is_file() && path.extension().is_none_or(|e| e != "md") {
            json_document_checks::document(&std::fs::read(&path).unwrap());
            n += 1;
        }
    }
    for seed in 0..4 {
        let lines = swath_testkit::json_document(seed, 12);
        let recs: Vec<serde_json::Value> =
            lines.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let array = serde_json::Value::Array(recs.clone());
        let mut docs = vec![
            serde_json::to_string(&array).unwrap(),
            serde_json::to_string_pretty(&array).unwrap(),
            serde_json::json!({ "Records": array }).to_string(),
            recs.iter().map(|r| serde_json::to_string_pretty(r).unwrap()).collect::<String>(),
        ];
        let cut: Vec<String> = docs.iter().map(|d| d[..d.len() * 2 / 3].to_string()).collect();
        docs.extend(cut);
        for doc in docs {
            for knob in [0u8, 7, 64 + 2, 128 + 13, 192 + 40, 63] {
                let mut input = vec![knob];
                input.extend_from_slice(doc.as_bytes());
                json_document_checks::document(&input);
                n += 1;
            }
        }
    }
    for doc in [
        "[{\"a\":\"]\\\\\"}, {\"b\": 2},]",
        "[{\"a\":1} {\"a\":2}]",
        "{\"Records\":[{\"a\":\"x\"}],\"n\":[1]}",
        "{\"a\":\"\\\"\"}\n{\"a\":1}}",
        "[[1],{\"a\":2}]",
        "[ 12, {\"a\":3} ]",
        "  [\n]\n",
        "[{\"a\":1}] tail",
        "[",
        "{\"Records\":[",
        "\u{feff}[ ",
    ] {
        for knob in 0u8..=255 {
            let mut input = vec![knob];
            input.extend_from_slice(doc.as_bytes());
            json_document_checks::document(&input);
            n += 1;
        }
    }
    assert!(n > 2000);
}

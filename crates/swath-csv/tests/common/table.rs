//! The bad inputs of docs/bad-inputs.md section A as data (`testdata/csv/bad_inputs.json`): the
//! table's strings and options, shared by the reader's and the parallel
//! reader's tests.

use serde_json::Value;
use swath_csv::ReaderBuilder;

/// Every case of the table.
pub fn cases() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../testdata/csv/bad_inputs.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A table string as bytes: `\xHH` stands for the byte 0xHH.
pub fn bytes(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') && i + 3 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 2..i + 4], 16) {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

pub fn byte_opt(v: &Value, key: &str) -> Option<u8> {
    v.get(key).and_then(Value::as_str).map(|s| {
        let b = bytes(s);
        assert_eq!(b.len(), 1, "{key} must be one byte");
        b[0]
    })
}

/// The reader options of a case.
pub fn builder(opts: &Value) -> ReaderBuilder {
    let flag = |k: &str, d: bool| opts.get(k).and_then(Value::as_bool).unwrap_or(d);
    let mut b = ReaderBuilder::new();
    b.has_headers(flag("headers", false))
        .lenient(flag("lenient", false))
        .flexible(flag("flexible", false))
        .skip_empty_lines(!flag("keep_empty", false))
        .quoting(flag("quoting", true))
        .double_quote(flag("double_quote", true))
        .escape(byte_opt(opts, "escape"))
        .comment(byte_opt(opts, "comment"));
    if let Some(d) = byte_opt(opts, "delimiter") {
        b.delimiter(d);
    }
    if let Some(q) = byte_opt(opts, "quote") {
        b.quote(q);
    }
    if let Some(n) = opts.get("max_record").and_then(Value::as_u64) {
        b.max_record_bytes(n as usize);
    }
    if let Some(n) = opts.get("max_fields").and_then(Value::as_u64) {
        b.max_fields(n as usize);
    }
    b
}

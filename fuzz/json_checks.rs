//! JSON lines: swath-json's grammar against serde_json, line by line, and
//! its values against arrow-json's (the reader DataFusion uses). Shared by
//! the `json_lines` fuzz target and swath-json's fuzz_regressions test.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema};
use swath_json::infer::{Inference, Obj, Ty};

/// Run every check on `data` as a JSON-lines document.
pub fn lines(data: &[u8]) {
    if data.starts_with(b"\xEF\xBB\xBF") {
        return;
    }
    let mut all_valid = true;
    for line in data.split(|&b| b == b'\n') {
        if line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r')) {
            continue;
        }
        let ours = swath_json::scan::validate_object(line);
        all_valid &= ours.is_ok();
        let theirs = serde_json::from_slice::<serde_json::Value>(line);
        if let Err(e) = &theirs {
            // serde_json's limits, not the grammar's: nesting past 128,
            // numbers past f64 (1e400 is JSON).
            let m = e.to_string();
            if m.contains("recursion limit") || m.contains("number out of range") {
                continue;
            }
        }
        let object = matches!(theirs, Ok(serde_json::Value::Object(_)));
        // A key twice in one object is JSON to serde_json (it keeps the
        // last) and an error to every swath reader: the grammar agrees.
        let grammar_ok = match ours {
            Err(e) => e.reason == swath_json::scan::DUPLICATE_KEY,
            Ok(()) => true,
        };
        assert_eq!(
            grammar_ok,
            object,
            "{:?}: ours {ours:?}, serde_json {theirs:?}",
            String::from_utf8_lossy(line)
        );
    }
    if all_valid {
        values(data);
    }
}

/// Decoded values equal arrow-json's, on the inferred schema with dates
/// and timestamps read as text (their parsers are tested on their own),
/// when every field has one kind: a mixed field is JSON text to swath,
/// which arrow-json does not write.
fn values(data: &[u8]) {
    let mut inf = Inference::default();
    for line in data.split(|&b| b == b'\n') {
        inf.see(line).expect("a valid line infers");
    }
    let Some(fields) = comparable(&inf.root) else { return };
    let schema = Arc::new(Schema::new(fields));
    let mut dec =
        swath_json::decode::Decoder::new(schema.clone()).expect("an inferred schema builds");
    for line in data.split(|&b| b == b'\n') {
        if dec.line(line).is_err() {
            // A duplicate key (an error to swath, not to arrow-json).
            return;
        }
    }
    let ours = dec.finish().expect("a batch");
    let theirs: Vec<_> = arrow_json::ReaderBuilder::new(schema.clone())
        .with_batch_size(1 << 20)
        .build(std::io::Cursor::new(data))
        .expect("arrow-json opens")
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("arrow-json fails where swath reads: {e}"));
    let theirs = arrow_select::concat::concat_batches(&schema, &theirs).expect("concat");
    assert_eq!(ours.num_rows(), theirs.num_rows());
    for i in 0..schema.fields().len() {
        assert_eq!(
            ours.column(i).to_data(),
            theirs.column(i).to_data(),
            "field {}",
            schema.field(i).name()
        );
    }
}

/// An object's fields as Arrow fields to compare, `None` when one is mixed
/// or an empty object (text to swath).
fn comparable(o: &Obj) -> Option<Vec<Field>> {
    if o.fields.is_empty() {
        return None;
    }
    o.fields.iter().map(|(n, t)| Some(Field::new(n.as_str(), comparable_type(t)?, true))).collect()
}

fn comparable_type(t: &Ty) -> Option<DataType> {
    Some(match t {
        Ty::Bool => DataType::Boolean,
        Ty::Int => DataType::Int64,
        Ty::Float => DataType::Float64,
        Ty::Null | Ty::Str { .. } => DataType::Utf8,
        Ty::Object(o) => DataType::Struct(comparable(o)?.into()),
        Ty::List(item) => {
            DataType::List(Arc::new(Field::new("item", comparable_type(item)?, true)))
        }
        Ty::Mixed { .. } => return None,
    })
}

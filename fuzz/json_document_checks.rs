//! JSON documents: the parallel framing (the parity-and-depth chain) and
//! an engine's ranges against the sequential framing of a stream, on any
//! bytes; and the records against serde_json's reading of the whole
//! document where it is an array of objects. Shared by the
//! `json_documents` fuzz target and swath-json's fuzz_regressions test.

use std::sync::Arc;

use arrow_schema::{DataType, Field, Schema, SchemaRef};
use swath::Source;
use swath_json::{JsonReaderBuilder, Records};

/// The first byte picks the chunk size (1 to 64 bytes) and where the
/// records are asked to be; the rest is the document.
pub fn document(data: &[u8]) {
    let Some((&knob, doc)) = data.split_first() else { return };
    let chunk = u64::from(knob % 64) + 1;
    let asked = match knob / 64 {
        0 => Records::Auto,
        1 => Records::Array(Vec::new()),
        2 => Records::Values,
        _ => Records::Array(vec!["Records".into()]),
    };
    let schema: SchemaRef = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Utf8, true),
        Field::new("b", DataType::Int64, true),
    ]));
    let mut seq = JsonReaderBuilder::new();
    seq.threads(1).chunk_size(chunk).max_line_len(4096).records(asked.clone());
    let stream = || Source::from_reader(std::io::Cursor::new(doc.to_vec()), None);
    let want_count = seq.count(&mut stream()).map(|c| c.records).map_err(|e| e.to_string());
    let want_rows = rows(&seq, stream(), &schema);
    let file: Arc<dyn swath::ReadAt> = Arc::new(Arc::<[u8]>::from(doc));
    let len = doc.len() as u64;
    for threads in [1, 2, 3] {
        let mut b = seq.clone();
        b.threads(threads);
        let ranged = || Source::ranged(file.clone(), len, "doc");
        let count = b.count(&mut ranged()).map(|c| c.records).map_err(|e| unnamed(&e.to_string()));
        assert_eq!(count, want_count, "count, {threads} threads, chunks of {chunk}");
        let got = rows(&b, ranged(), &schema).map_err(|e| unnamed(&e));
        assert_eq!(got, want_rows, "batches, {threads} threads, chunks of {chunk}");
    }
    // An engine's ranges, each read alone: the same rows in order, the
    // same first error.
    for share in [1, 2, 5] {
        let ranges = match seq.record_ranges(&*file, len, share) {
            Ok(r) => r,
            Err(e) => {
                assert!(want_rows.is_err(), "ranges fail ({e}) where a stream reads");
                continue;
            }
        };
        assert_eq!(ranges.first().map(|r| r.start), Some(0));
        assert!(ranges.windows(2).all(|w| w[0].end == w[1].start), "{ranges:?}");
        assert_eq!(ranges.last().map(|r| r.end), Some(len));
        let mut all = Vec::new();
        let mut fail = None;
        'ranges: for r in ranges {
            let mut rb = seq
                .range_batches(file.clone(), len, r, schema.clone(), None)
                .expect("the schema builds");
            loop {
                match rb.next_batch() {
                    Ok(Some(batch)) => all.extend(text_rows(&batch)),
                    Ok(None) => break,
                    Err(e) => {
                        fail = Some(unnamed(&e.to_string()));
                        break 'ranges;
                    }
                }
            }
        }
        let got = match fail {
            Some(e) => Err(e),
            None => Ok(all),
        };
        assert_eq!(got, want_rows, "{share} ranges, chunks of {chunk}");
    }
    // serde_json's records, where it reads the document as an array of
    // objects: as many, unless swath refuses a key given twice (serde_json
    // keeps the last) or a record over the 4 KiB limit set here.
    if matches!(asked, Records::Array(ref p) if p.is_empty()) {
        if let Ok(serde_json::Value::Array(items)) =
            serde_json::from_slice::<serde_json::Value>(doc)
        {
            if items.iter().all(|v| v.is_object()) {
                match &want_count {
                    Ok(n) => assert_eq!(*n as usize, items.len(), "serde_json's records"),
                    Err(e) => assert!(
                        e.contains(swath_json::scan::DUPLICATE_KEY)
                            || e.contains("longer than the limit"),
                        "swath fails where serde_json reads: {e}"
                    ),
                }
            }
        }
    }
}

/// The rows read as text, or the error's text.
fn rows(b: &JsonReaderBuilder, mut src: Source, schema: &SchemaRef) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    b.for_each_batch(&mut src, schema.clone(), |batch| {
        out.extend(text_rows(&batch));
        Ok(())
    })
    .map_err(|e| e.to_string())?;
    Ok(out)
}

fn text_rows(batch: &swath_json::arrow_array::RecordBatch) -> Vec<String> {
    use swath_json::arrow_array::{Array, Int64Array, StringArray};
    let a = batch.column(0).as_any().downcast_ref::<StringArray>().expect("a: utf8");
    let b = batch.column(1).as_any().downcast_ref::<Int64Array>().expect("b: int64");
    (0..batch.num_rows())
        .map(|i| {
            let a = a.is_valid(i).then(|| a.value(i));
            let b = b.is_valid(i).then(|| b.value(i));
            format!("{a:?}|{b:?}")
        })
        .collect()
}

/// An error without the input's name in front.
fn unnamed(e: &str) -> String {
    e.strip_prefix("doc: ").unwrap_or(e).to_string()
}

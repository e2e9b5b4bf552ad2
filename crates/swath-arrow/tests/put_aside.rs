//! Records put aside on the way to Arrow: broken records (the CSV reader,
//! `OnBad::PutAside`) and records with a field that does not fit its
//! column (`OnError::PutAside`), read sequentially and on 2..3 threads
//! with small chunks and batches (so that misfits fall inside blocks, at
//! their seams and in the record-at-a-time path), against a twin that
//! splits the lines and parses them with the standard library.

use std::io::Write;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use swath_arrow::{parse_schema_text, ArrowReaderBuilder, OnError};
use swath_csv::{BadRecord, OnBad, ReaderBuilder};
use swath_testkit::Rng;

/// The rows kept (id, name, amount) and the records put aside (start
/// byte, bytes, whether a field did not fit rather than the record broke).
#[derive(Debug, PartialEq)]
struct Outcome {
    rows: Vec<(i64, String, Option<f64>)>,
    bad: Vec<(u64, Vec<u8>, bool)>,
}

/// A file of `rows` records of `id,name,amount`, some broken (a field too
/// many or too few), some with an amount or id that is not a number.
fn document(seed: u64, rows: usize) -> Vec<u8> {
    let mut r = Rng::new(seed);
    let mut out = b"id,name,amount\n".to_vec();
    for i in 0..rows {
        let line = match r.below(40) {
            0 => format!("{i},short\n"),
            1 => format!("{i},\"one, too\",many,fields\n"),
            2 => format!("{i},x,n/a\n"),
            3 => format!("id{i},x,1.5\n"),
            4 => format!("{i},\"quoted, name\",\n"),
            _ => format!("{i},name{i},{}.25\n", r.below(1000)),
        };
        out.extend_from_slice(line.as_bytes());
    }
    out
}

/// The twin: every line past the header is a record (the document has no
/// quoted newlines); split it where no quote is open, parse the numbers.
fn twin(data: &[u8]) -> Outcome {
    let mut out = Outcome { rows: Vec::new(), bad: Vec::new() };
    let mut at = 0u64;
    for (n, line) in data.split_inclusive(|&b| b == b'\n').enumerate() {
        let start = at;
        at += line.len() as u64;
        if n == 0 {
            continue;
        }
        let text = std::str::from_utf8(line).unwrap().trim_end_matches('\n');
        let mut fields = Vec::new();
        let mut field = String::new();
        let mut quoted = false;
        for c in text.chars() {
            match c {
                '"' => quoted = !quoted,
                ',' if !quoted => fields.push(std::mem::take(&mut field)),
                c => field.push(c),
            }
        }
        fields.push(field);
        if fields.len() != 3 {
            out.bad.push((start, line.to_vec(), false));
            continue;
        }
        let amount =
            if fields[2].is_empty() { Some(None) } else { fields[2].parse().ok().map(Some) };
        match (fields[0].parse(), amount) {
            (Ok(id), Some(amount)) => out.rows.push((id, fields[1].clone(), amount)),
            _ => out.bad.push((start, line.to_vec(), true)),
        }
    }
    out
}

fn rows_of(batches: &[RecordBatch]) -> Vec<(i64, String, Option<f64>)> {
    let mut rows = Vec::new();
    for b in batches {
        let ids = b.column(0).as_primitive::<Int64Type>();
        let names = b.column(1).as_string::<i32>();
        let amounts = b.column(2).as_primitive::<Float64Type>();
        for i in 0..b.num_rows() {
            let amount = amounts.is_valid(i).then(|| amounts.value(i));
            rows.push((ids.value(i), names.value(i).to_string(), amount));
        }
    }
    rows
}

fn bad_of(bad: &[BadRecord]) -> Vec<(u64, Vec<u8>, bool)> {
    bad.iter()
        .map(|b| {
            let misfit = matches!(b.error().kind(), swath_csv::ErrorKind::Parse { .. });
            (b.position().byte, b.bytes().to_vec(), misfit)
        })
        .collect()
}

fn builder(threads: usize, chunk: u64, batch: usize) -> ArrowReaderBuilder {
    let mut csv = ReaderBuilder::new();
    csv.on_bad(OnBad::PutAside).capacity(256);
    let mut b = ArrowReaderBuilder::new();
    b.csv(csv)
        .column_types(parse_schema_text("id:int64,name:utf8,amount:float64").unwrap())
        .on_error(OnError::PutAside)
        .threads(threads)
        .chunk_size(chunk)
        .batch_size(batch);
    b
}

#[test]
fn sequential_and_parallel_put_aside_what_the_twin_does() {
    for seed in 0..6 {
        let data = document(seed, 1500);
        let want = twin(&data);
        assert!(want.bad.iter().any(|b| b.2) && want.bad.iter().any(|b| !b.2), "seed {seed}");
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&data).unwrap();
        f.flush().unwrap();

        for batch in [5, 1000] {
            let mut rdr = builder(1, 1 << 20, batch).from_path(f.path()).unwrap();
            let (mut batches, mut bad) = (Vec::new(), Vec::new());
            while let Some(b) = rdr.next_batch().unwrap() {
                batches.push(b);
                bad.extend(rdr.take_bad_records());
            }
            bad.extend(rdr.take_bad_records());
            let got = Outcome { rows: rows_of(&batches), bad: bad_of(&bad) };
            assert_eq!(got, want, "seed {seed}: sequential, batch {batch}");

            for threads in [2, 3] {
                for chunk in [100, 4096] {
                    let mut p = builder(threads, chunk, batch).build_parallel(f.path()).unwrap();
                    let (mut batches, mut bad) = (Vec::new(), Vec::new());
                    p.for_each_batch_with_bad(
                        |b| {
                            batches.push(b);
                            Ok(())
                        },
                        |b| {
                            bad.extend(b);
                            Ok(())
                        },
                    )
                    .unwrap();
                    let got = Outcome { rows: rows_of(&batches), bad: bad_of(&bad) };
                    let ctx =
                        format!("seed {seed}: threads {threads}, chunk {chunk}, batch {batch}");
                    assert_eq!(got, want, "{ctx}");
                    assert!(p.mode().starts_with("parallel"), "{ctx}: {}", p.mode());
                }
            }
        }
    }
}

#[test]
fn without_put_aside_a_misfit_is_still_the_error() {
    let data = b"id,name,amount\n1,a,2.5\n2,b,n/a\n";
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(data).unwrap();
    let mut b = builder(1, 1 << 20, 10);
    b.on_error(OnError::Fail);
    let mut rdr = b.from_path(f.path()).unwrap();
    let e = rdr.next_batch().unwrap_err().to_string();
    assert!(e.contains("record 3") && e.contains("n/a"), "{e}");
}

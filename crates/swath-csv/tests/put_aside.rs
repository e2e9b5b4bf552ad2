//! Records put aside (`OnBad::PutAside`): random valid documents with
//! random broken records put in (a field too few or too many, a bare
//! quote, text after a closing quote, an unterminated quote at the end),
//! read by the sequential reader (buffers down to 8 bytes, so that `\r\n`
//! splits between fills) and by the parallel reader (1..8 threads, chunks
//! down to one byte, exact and relative numbers), against the obvious
//! twin: the strict reader that stops at nothing, each recoverable error
//! naming a bad record, and the input's bytes from its start to the next
//! record's.

use std::io::Write;

use swath_csv::{BadRecord, OnBad, ParallelReader, Position, ReaderBuilder};
use swath_testkit::csv::{csv_document, CsvShape};
use swath_testkit::Rng;

type Fields = Vec<Vec<u8>>;

/// What a read gave: the good records (fields and start byte) and the bad
/// ones (position, bytes, message).
#[derive(Debug, PartialEq, Eq)]
struct Split {
    good: Vec<(Fields, u64)>,
    bad: Vec<(Position, Vec<u8>, String)>,
}

fn bad_of(b: &BadRecord) -> (Position, Vec<u8>, String) {
    (b.position(), b.bytes().to_vec(), describe(b.error()))
}

/// An error without the path (the twin reads from memory).
fn describe(e: &swath_csv::Error) -> String {
    format!("{} at {:?} in {:?}", e.kind(), e.position(), e.record_position())
}

/// `rows` records of a generated document with broken ones put in between
/// (and blank lines), CRLF or not.
fn broken_document(seed: u64, rows: usize, crlf: bool) -> Vec<u8> {
    let mut r = Rng::new(seed ^ 0x5eed);
    let clean = csv_document(seed, rows, CsvShape { crlf, ..CsvShape::default() });
    let eol: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    // The generated records are one per `eol` outside quotes; cut them by
    // reading with the reader itself.
    let mut rdr = ReaderBuilder::new().has_headers(false).from_reader(&clean[..]).unwrap();
    let mut starts = Vec::new();
    while rdr.next_record().unwrap().is_some() {
        starts.push(rdr.position().byte as usize);
    }
    starts.push(clean.len());
    let mut out = Vec::new();
    for w in starts.windows(2) {
        out.extend_from_slice(&clean[w[0]..w[1]]);
        if w[0] == 0 || !r.one_in(4) {
            continue;
        }
        let broken: &[u8] = match r.below(6) {
            0 => b"short,row",
            1 => b"1,2,3,4",
            2 => b"8,a\"b,1",
            3 => b"9,\"x\"y,2",
            4 => b"solo",
            _ => b"7,\"quoted\nnewline\" tail,3",
        };
        out.extend_from_slice(broken);
        out.extend_from_slice(eol);
        if r.one_in(3) {
            out.extend_from_slice(eol);
        }
    }
    if r.one_in(3) {
        // An unterminated quote runs to the end of input.
        out.extend_from_slice(b"10,\"open to the end");
    }
    out
}

/// The twin: strict reading that goes on past recoverable errors.
fn twin(b: &ReaderBuilder, data: &[u8]) -> Split {
    let mut b = b.clone();
    b.on_bad(OnBad::Fail);
    let mut rdr = b.from_reader(data).unwrap();
    let mut all = Vec::new();
    loop {
        match rdr.next_record() {
            Ok(Some(rec)) => {
                all.push((rec.iter().map(<[u8]>::to_vec).collect(), rec.position(), None))
            }
            Ok(None) => break,
            Err(e) => {
                assert!(e.is_recoverable(), "{e}");
                let rec = rdr.record();
                all.push((
                    rec.iter().map(<[u8]>::to_vec).collect::<Fields>(),
                    rec.position(),
                    Some(describe(&e)),
                ));
            }
        }
    }
    let mut split = Split { good: Vec::new(), bad: Vec::new() };
    for (i, (fields, pos, err)) in all.iter().enumerate() {
        let Some(err) = err else {
            split.good.push((fields.clone(), pos.byte));
            continue;
        };
        // Its bytes: up to the next record, less the blank lines, plus its
        // own terminator.
        let next = all.get(i + 1).map_or(data.len(), |n| n.1.byte as usize);
        let text = &data[pos.byte as usize..next];
        let body =
            text.len() - text.iter().rev().take_while(|&&c| c == b'\n' || c == b'\r').count();
        let term = match &text[body..] {
            [b'\r', b'\n', ..] => 2,
            [] => 0,
            _ => 1,
        };
        split.bad.push((*pos, text[..body + term].to_vec(), err.clone()));
    }
    split
}

fn sequential(b: &ReaderBuilder, path: &std::path::Path) -> Split {
    let mut rdr = b.from_path(path).unwrap();
    let mut good = Vec::new();
    while let Some(rec) = rdr.next_record().unwrap() {
        good.push((rec.iter().map(<[u8]>::to_vec).collect(), rec.position().byte));
    }
    let bad = rdr.take_bad_records().iter().map(bad_of).collect();
    Split { good, bad }
}

fn parallel(
    b: &ReaderBuilder,
    path: &std::path::Path,
    threads: usize,
    chunk: u64,
    relative: bool,
) -> Split {
    let mut pr =
        ParallelReader::new(b, path).threads(threads).chunk_size(chunk).relative_numbers(relative);
    let mut split = Split { good: Vec::new(), bad: Vec::new() };
    pr.for_each_chunk_ordered_with_bad(
        Vec::new,
        |out: &mut Vec<(Fields, u64)>, recs| {
            while let Some(rec) = recs.next_record()? {
                out.push((rec.iter().map(<[u8]>::to_vec).collect(), rec.position().byte));
            }
            Ok::<(), swath_csv::Error>(())
        },
        |good, bad| {
            split.good.extend(good);
            split.bad.extend(bad.iter().map(bad_of));
            Ok(())
        },
    )
    .unwrap_or_else(|e| panic!("threads {threads}, chunk {chunk}: {e}"));
    split
}

fn check(data: &[u8], headers: bool, ctx: &str) {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(data).unwrap();
    f.flush().unwrap();
    let mut b = ReaderBuilder::new();
    b.has_headers(headers).on_bad(OnBad::PutAside);
    let want = twin(&b, data);
    // Good and bad together are every record, in file order.
    assert!(want
        .bad
        .iter()
        .all(|(p, bytes, _)| data[p.byte as usize..][..bytes.len()] == bytes[..]));
    for cap in [8, 64, 1 << 16] {
        b.capacity(cap);
        assert_eq!(sequential(&b, f.path()), want, "{ctx}: sequential, buffer {cap}");
    }
    b.capacity(64);
    for threads in [1, 2, 3, 8] {
        for chunk in [1, 7, 64, 4096] {
            for relative in [false, true] {
                let got = parallel(&b, f.path(), threads, chunk, relative);
                assert_eq!(
                    got, want,
                    "{ctx}: threads {threads}, chunk {chunk}, relative {relative}"
                );
            }
        }
    }
}

#[test]
fn parallel_and_sequential_put_aside_the_records_the_twin_names() {
    let mut bad_seen = 0;
    for seed in 0..40 {
        let data = broken_document(seed, 30, seed % 2 == 1);
        check(&data, seed % 3 != 0, &format!("seed {seed}"));
        bad_seen += twin(ReaderBuilder::new().on_bad(OnBad::PutAside), &data).bad.len();
    }
    // The generator does put broken records in.
    assert!(bad_seen > 100, "{bad_seen}");
}

#[test]
fn a_crlf_split_between_fills_stays_with_its_record() {
    // Every buffer size from 8 up moves the `\r`/`\n` seam.
    let data = b"a,b\r\n1,2\r\nx\r\n3,4\r\ny\r\n\r\n5,6\r\n";
    let mut b = ReaderBuilder::new();
    b.on_bad(OnBad::PutAside);
    let want = twin(&b, data);
    assert_eq!(
        want.bad.iter().map(|b| b.1.clone()).collect::<Vec<_>>(),
        [b"x\r\n".to_vec(), b"y\r\n".to_vec()]
    );
    for cap in 8..40 {
        b.capacity(cap);
        let mut rdr = b.from_reader(swath_testkit::Chunked::new(data, 3)).unwrap();
        let mut good = Vec::new();
        while let Some(rec) = rdr.next_record().unwrap() {
            good.push((rec.iter().map(<[u8]>::to_vec).collect(), rec.position().byte));
        }
        let bad = rdr.take_bad_records().iter().map(bad_of).collect();
        assert_eq!(Split { good, bad }, want, "buffer {cap}");
    }
}

#[test]
fn the_first_record_and_fatal_errors_are_never_put_aside() {
    let mut b = ReaderBuilder::new();
    b.on_bad(OnBad::PutAside).has_headers(false);
    // The first record teaches the field count: a quoting error there
    // stays an error.
    let mut rdr = b.from_reader(&b"a\"b,c\n1,2\n"[..]).unwrap();
    assert!(rdr.next_record().is_err());
    b.has_headers(true);
    let mut rdr = b.from_reader(&b"a,\"b\"x\n1,2\n"[..]).unwrap();
    assert!(rdr.headers().is_err());
    // A record over the limit is fatal.
    b.max_record_bytes(8);
    let mut rdr = b.from_reader(&b"a,b\n1,2\n123456789,0\n3,4\n"[..]).unwrap();
    assert!(rdr.next_record().unwrap().is_some());
    let e = rdr.next_record().unwrap_err();
    assert!(!e.is_recoverable(), "{e}");
    assert!(rdr.take_bad_records().is_empty());
}

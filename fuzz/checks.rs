//! The fuzz targets' checks, shared with the regression test that replays
//! every kept crash input (`crates/swath-csv/tests/fuzz_regressions.rs`
//! includes this file by path).

// Each target uses one of the checks.
#![allow(dead_code)]

use std::io::Read;

use swath_csv::classify::Kernel;
use swath_csv::{ErrorKind, ReaderBuilder};
use swath_testkit::{Chunked, TempFile};

type Rec = (Vec<Vec<u8>>, Option<(usize, usize)>);

/// Lenient mode equals the `csv` crate, byte for byte, and strict mode's
/// records (read on past its errors) equal lenient mode's.
///
/// The first input byte picks the options; the rest is the document. With
/// comments on, `\r` is dropped and a final `\n` added, keeping out the
/// `csv` crate's comment defects (BAD-INPUTS A3.1, A3.2).
pub fn oracle(data: &[u8]) {
    let Some((&sel, doc)) = data.split_first() else {
        return;
    };
    let quoting = sel & 1 == 0;
    let double_quote = sel & 2 == 0;
    let escape = (sel & 4 != 0).then_some(b'\\');
    let comment = (sel & 8 != 0).then_some(b'#');
    let flexible = sel & 16 != 0;
    let delim = if sel & 32 != 0 { b';' } else { b',' };
    let mut doc = doc.to_vec();
    if comment.is_some() {
        doc.retain(|&b| b != b'\r');
        doc.push(b'\n');
    }

    let mut oracle = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(flexible)
        .quoting(quoting)
        .double_quote(double_quote)
        .escape(escape)
        .comment(comment)
        .delimiter(delim)
        .from_reader(&doc[..]);
    let mut want: Vec<Rec> = Vec::new();
    let mut rec = csv::ByteRecord::new();
    loop {
        match oracle.read_byte_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => want.push((rec.iter().map(<[u8]>::to_vec).collect(), None)),
            Err(e) => match e.kind() {
                csv::ErrorKind::UnequalLengths { expected_len, len, .. } => want.push((
                    rec.iter().map(<[u8]>::to_vec).collect(),
                    Some((*expected_len as usize, *len as usize)),
                )),
                k => panic!("oracle error {k:?}"),
            },
        }
    }

    for lenient in [true, false] {
        let mut b = ReaderBuilder::new();
        b.has_headers(false)
            .flexible(flexible)
            .quoting(quoting)
            .double_quote(double_quote)
            .escape(escape)
            .comment(comment)
            .delimiter(delim)
            .lenient(lenient);
        let mut rdr = b.from_reader(&doc[..]).expect("valid options");
        let mut got: Vec<Rec> = Vec::new();
        loop {
            match rdr.next_record() {
                Ok(Some(r)) => got.push((r.iter().map(<[u8]>::to_vec).collect(), None)),
                Ok(None) => break,
                Err(e) => {
                    let count = match e.kind() {
                        ErrorKind::FieldCount { expected, got } => Some((*expected, *got)),
                        ErrorKind::BareQuote
                        | ErrorKind::TextAfterQuote
                        | ErrorKind::UnterminatedQuote
                            if !lenient =>
                        {
                            // The field count check comes after the quote
                            // check; take the oracle's word for it.
                            want.get(got.len()).and_then(|w| w.1)
                        }
                        // Strict mode refuses UTF-16/32 outright.
                        ErrorKind::UnsupportedEncoding(_) if !lenient => {
                            assert!(
                                [&b"\xFF\xFE"[..], b"\xFE\xFF", b"\0\0\xFE\xFF"]
                                    .iter()
                                    .any(|bom| doc.starts_with(bom)),
                                "{e}"
                            );
                            return;
                        }
                        k => panic!("unexpected error {k:?}"),
                    };
                    got.push((rdr.record().iter().map(<[u8]>::to_vec).collect(), count));
                }
            }
        }
        assert_eq!(got, want, "lenient={lenient}");
    }
}

fn run<R: Read>(rdr: R, b: &ReaderBuilder) -> Vec<String> {
    let mut rdr = b.from_reader(rdr).expect("valid options");
    let mut out = Vec::new();
    for _ in 0..10_000 {
        match rdr.next_record() {
            Ok(Some(r)) => out.push(format!("{r:?} at {:?}", r.position())),
            Ok(None) => return out,
            Err(e) => {
                out.push(format!("error {e}"));
                if !e.is_recoverable() {
                    return out;
                }
                let r = rdr.record();
                out.push(format!("{r:?} at {:?}", r.position()));
            }
        }
    }
    out
}

/// Reading 1 byte per `read` with a 1-byte buffer gives exactly what
/// reading the whole input at once gives: records, errors, positions, in
/// strict and lenient mode, with the scalar and the best classifier.
pub fn chunked(data: &[u8]) {
    let Some((&sel, doc)) = data.split_first() else {
        return;
    };
    let mut b = ReaderBuilder::new();
    b.has_headers(sel & 1 != 0)
        .lenient(sel & 2 != 0)
        .flexible(sel & 4 != 0)
        .skip_empty_lines(sel & 8 == 0)
        .comment((sel & 16 != 0).then_some(b'#'))
        .escape((sel & 32 != 0).then_some(b'\\'))
        .max_record_bytes(match sel >> 6 {
            1 => 7,
            2 => 1,
            _ => 1 << 20,
        });
    let whole = run(doc, &b);
    for k in [Kernel::scalar(), Kernel::detect()] {
        b.capacity(1).kernel(k);
        assert_eq!(run(Chunked::one_byte(doc), &b), whole, "{}", k.name());
    }
}

/// Reading a file in parallel gives exactly what the sequential reader
/// gives: the count (the validating scan, or the reader it gives up to),
/// every record with its fields and byte offset (relative numbers: chunk
/// starts guessed), and the first error with its position, for tiny
/// chunks (every seam gets crossed) on 2 to 4 threads; on valid CSV, the
/// record starts sampled from each place's bytes alone are real ones.
pub fn parallel(data: &[u8]) {
    use swath_csv::ParallelReader;

    let Some((&sel, doc)) = data.split_first() else {
        return;
    };
    let mut b = ReaderBuilder::new();
    b.has_headers(sel & 1 != 0)
        .lenient(sel & 2 != 0)
        .flexible(sel & 4 != 0)
        .skip_empty_lines(sel & 8 == 0)
        .double_quote(sel & 16 == 0)
        .max_record_bytes(if sel & 32 != 0 { 9 } else { 1 << 20 })
        .capacity(16);
    let file = TempFile::new("fuzz-parallel", doc);
    let path = file.path();
    let describe = |e: &swath_csv::Error| {
        format!("{:?} at {:?} in {:?}", e.kind(), e.position(), e.record_position())
    };

    // An open that fails (Excel's `sep=;` line with another delimiter)
    // fails for the parallel reader too.
    let mut rdr = match b.from_path(path) {
        Ok(rdr) => rdr,
        Err(e) => {
            let par = ParallelReader::new(&b, path).threads(2).count();
            assert!(par.is_err(), "the sequential open failed ({e}), the parallel count did not");
            return;
        }
    };
    let mut want = Vec::new();
    let want_err = loop {
        match rdr.next_record() {
            Ok(Some(r)) => {
                want.push((r.iter().map(<[u8]>::to_vec).collect::<Vec<_>>(), r.position().byte))
            }
            Ok(None) => break None,
            Err(e) => break Some(describe(&e)),
        }
    };
    let threads = 2 + usize::from(sel >> 6);
    for chunk in [1, 3, 8] {
        let mut pr = ParallelReader::new(&b, path).threads(threads).chunk_size(chunk);
        match (pr.count(), &want_err) {
            (Ok(n), None) => assert_eq!(n, want.len() as u64, "count, chunk {chunk}"),
            (Err(e), Some(w)) => assert_eq!(&describe(&e), w, "count error, chunk {chunk}"),
            (r, w) => panic!("chunk {chunk}: count {r:?}, sequential error {w:?}"),
        }
        let mut pr = pr.relative_numbers(true);
        let mut got = Vec::new();
        let keep = |out: &mut Vec<_>, r: swath_csv::Record<'_>| {
            out.push((r.iter().map(<[u8]>::to_vec).collect::<Vec<_>>(), r.position().byte));
        };
        let emit = |out| {
            got.extend(out);
            Ok::<(), swath_csv::Error>(())
        };
        // Work per record, and work that runs its own loop over a chunk.
        let res = if chunk == 3 {
            pr.for_each_chunk_ordered(
                Vec::new,
                |out, recs| {
                    while let Some(r) = recs.next_record()? {
                        keep(out, r);
                    }
                    Ok(())
                },
                emit,
            )
        } else {
            pr.for_each_ordered(
                Vec::new,
                |out, r| {
                    keep(out, r);
                    Ok(())
                },
                emit,
            )
        };
        assert_eq!(got, want, "records, chunk {chunk}");
        assert_eq!(res.err().map(|e| describe(&e)), want_err, "error, chunk {chunk}");
    }
    put_aside(&b, path, threads);
    // On valid CSV, every start sampled from the bytes at a place is a
    // record start of the sequential read (lenient mode takes the plan).
    if want_err.is_none() {
        let starts: std::collections::HashSet<u64> = want.iter().map(|(_, b)| *b).collect();
        for points in [1, 5, 64] {
            let got = ParallelReader::new(&b, path).threads(threads).sample_starts(0, points);
            for p in got.expect("sample starts of a valid file") {
                assert!(
                    starts.contains(&p.byte),
                    "{points} places: byte {} is no record start",
                    p.byte
                );
            }
        }
    }
}

/// With broken records put aside (`OnBad::PutAside`), the parallel reader
/// keeps and puts aside the sequential reader's records (fields, bytes,
/// positions, errors) and stops at its error, for chunks of 1, 3 and 8
/// bytes; and every record is one or the other, once, in file order.
fn put_aside(b: &ReaderBuilder, path: &std::path::Path, threads: usize) {
    use swath_csv::{BadRecord, OnBad, ParallelReader};

    type Split = (Vec<(Vec<Vec<u8>>, u64)>, Vec<(u64, Vec<u8>, String)>, Option<String>);
    let describe = |e: &swath_csv::Error| {
        format!("{:?} at {:?} in {:?}", e.kind(), e.position(), e.record_position())
    };
    let bad_of = |b: &BadRecord| (b.position().byte, b.bytes().to_vec(), describe(b.error()));
    let mut b = b.clone();
    b.on_bad(OnBad::PutAside);
    let Ok(mut rdr) = b.from_path(path) else { return };
    let mut want: Split = (Vec::new(), Vec::new(), None);
    loop {
        match rdr.next_record() {
            Ok(Some(r)) => want.0.push((r.iter().map(<[u8]>::to_vec).collect(), r.position().byte)),
            Ok(None) => break,
            Err(e) => {
                want.2 = Some(describe(&e));
                break;
            }
        }
    }
    want.1 = rdr.take_bad_records().iter().map(bad_of).collect();
    // Each record once: the good and the bad records' starts differ.
    let mut starts: Vec<u64> =
        want.0.iter().map(|r| r.1).chain(want.1.iter().map(|r| r.0)).collect();
    starts.sort_unstable();
    starts.dedup();
    assert_eq!(starts.len(), want.0.len() + want.1.len(), "a record kept twice");
    for w in want.1.windows(2) {
        assert!(w[0].0 + w[0].1.len() as u64 <= w[1].0, "records put aside overlap");
    }
    for chunk in [1, 3, 8] {
        let mut pr =
            ParallelReader::new(&b, path).threads(threads).chunk_size(chunk).relative_numbers(true);
        let mut got: Split = (Vec::new(), Vec::new(), None);
        let res = pr.for_each_chunk_ordered_with_bad(
            Vec::new,
            |out: &mut Vec<_>, recs| {
                while let Some(r) = recs.next_record()? {
                    out.push((r.iter().map(<[u8]>::to_vec).collect(), r.position().byte));
                }
                Ok::<(), swath_csv::Error>(())
            },
            |good, bad| {
                got.0.extend(good);
                got.1.extend(bad.iter().map(bad_of));
                Ok(())
            },
        );
        got.2 = res.err().map(|e| describe(&e));
        assert_eq!(got, want, "put aside, chunk {chunk}");
    }
}

/// Every split of an exact plan, each read alone and in order, gives the
/// sequential reader's records (number, line, byte, fields) and then its
/// first error, for the parity plan and the speculative one, on 1 split,
/// a few, and one per byte (up to 64).
pub fn split_plan(data: &[u8]) {
    use swath_csv::{plan_splits, plan_splits_speculative, SplitSize};

    let Some((&sel, doc)) = data.split_first() else {
        return;
    };
    let mut b = ReaderBuilder::new();
    b.has_headers(sel & 1 != 0)
        .lenient(sel & 2 != 0)
        .flexible(sel & 4 != 0)
        .skip_empty_lines(sel & 8 == 0)
        .comment((sel & 16 != 0).then_some(b'#'))
        .capacity(16);
    let file = TempFile::new("fuzz-split", doc);
    // A compressed file (by its magic, as the sequential reader decides)
    // has no byte ranges to plan: both ways of planning refuse it.
    if doc.starts_with(&[0x1f, 0x8b]) || doc.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        for planned in [
            plan_splits(&b, file.path(), SplitSize::Count(2)),
            plan_splits_speculative(&b, file.path(), SplitSize::Count(2)),
        ] {
            let err = planned.expect_err("a plan of a compressed file");
            assert!(err.to_string().contains("-compressed input cannot be split"), "{err}");
        }
        return;
    }
    // Text with a UTF-16 or UTF-32 byte order mark is decoded by the
    // readers of a file: its byte ranges are not its records' either, and
    // both ways of planning refuse it, naming the encoding.
    let wide = swath::text::detect::bom(doc).filter(|(e, _)| *e != swath::text::TextEncoding::Utf8);
    if let Some((encoding, _)) = wide {
        for planned in [
            plan_splits(&b, file.path(), SplitSize::Count(2)),
            plan_splits_speculative(&b, file.path(), SplitSize::Count(2)),
        ] {
            let err = planned.expect_err("a plan of decoded text");
            let said = format!("{encoding} text cannot be split");
            assert!(err.to_string().contains(&said), "{err}");
        }
        return;
    }
    let row = |r: &swath_csv::Record<'_>| {
        let p = r.position();
        (p.record, p.line, p.byte, r.iter().map(<[u8]>::to_vec).collect::<Vec<_>>())
    };

    // An open that fails (Excel's `sep=;` line with another delimiter)
    // fails for both plans too.
    let mut rdr = match b.from_path(file.path()) {
        Ok(rdr) => rdr,
        Err(e) => {
            for planned in [
                plan_splits(&b, file.path(), SplitSize::Count(2)),
                plan_splits_speculative(&b, file.path(), SplitSize::Count(2)),
            ] {
                assert!(planned.is_err(), "the sequential open failed ({e}), a plan did not");
            }
            return;
        }
    };
    let mut want = Vec::new();
    let want_err = loop {
        match rdr.next_record() {
            Ok(Some(r)) => want.push(row(&r)),
            Ok(None) => break None,
            Err(e) => break Some(e.to_string()),
        }
    };

    let few = 2 + usize::from(sel >> 5);
    for n in [1, few, doc.len().clamp(1, 64)] {
        for speculative in [false, true] {
            let what = format!("{n} splits, speculative {speculative}");
            let planned = if speculative {
                plan_splits_speculative(&b, file.path(), SplitSize::Count(n))
            } else {
                plan_splits(&b, file.path(), SplitSize::Count(n))
            };
            let plan = match planned {
                Ok(p) => p,
                // A plan may refuse a file the sequential reader refuses,
                // with the same error.
                Err(e) => {
                    assert_eq!(Some(e.to_string()), want_err, "{what}: plan refused");
                    continue;
                }
            };
            let mut got = Vec::new();
            let mut err = None;
            'splits: for i in 0..plan.splits().len() {
                let mut rdr = match plan.reader(i) {
                    Ok(r) => r,
                    Err(e) => {
                        err = Some(e.to_string());
                        break;
                    }
                };
                loop {
                    match rdr.next_record() {
                        Ok(Some(r)) => got.push(row(&r)),
                        Ok(None) => break,
                        Err(e) => {
                            err = Some(e.to_string());
                            break 'splits;
                        }
                    }
                }
            }
            assert_eq!(got, want, "{what}: records ({:?})", plan.method());
            assert_eq!(err, want_err, "{what}: error ({:?})", plan.method());
        }
    }
}

/// Lines skipped before the records and left out after them, end to end:
/// a file read with `skip(Lines(n))` and `footer_lines(m)` reads, by the
/// sequential reader of its path, the parallel reader at any chunk size
/// and a split plan, as the obvious twin: the same document with its
/// first n lines' bytes turned into line ends and its last m non-empty
/// lines cut, read from memory (records, lines, bytes, the first error).
///
/// The first byte picks the options, the second the lines (low 3 bits
/// skipped, next 2 the footer); the rest is the document.
pub fn preamble(data: &[u8]) {
    use swath_csv::preamble::{excel_sep, Skip};
    use swath_csv::{plan_splits, ParallelReader, SplitSize};

    let [sel, lines, doc @ ..] = data else {
        return;
    };
    // A compressed file or a UTF-16/32 byte order mark is decoded by a
    // reader of a path, not by a reader of bytes: no twin here.
    let wide =
        swath::text::detect::bom(doc).is_some_and(|(e, _)| e != swath::text::TextEncoding::Utf8);
    if wide || swath::Compression::detect(doc) != swath::Compression::None {
        return;
    }
    let mut skip = usize::from(lines & 7);
    let footer = usize::from((lines >> 3) & 3);
    let mut plain = ReaderBuilder::new();
    plain
        .has_headers(sel & 1 != 0)
        .lenient(sel & 2 != 0)
        .flexible(sel & 4 != 0)
        .max_record_bytes(if sel & 8 != 0 { 9 } else { 1 << 20 })
        .capacity(16);
    let mut b = plain.clone();
    b.skip(Skip::Lines(skip as u64)).footer_lines(footer as u64);
    let file = TempFile::new("fuzz-preamble", doc);
    let path = file.path();

    // Excel's `sep=X` line 1: skipped when X is the delimiter, else the
    // open fails (for every reader).
    let first = doc.split(|&b| b == b'\n').next().unwrap_or_default();
    let first = first.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(first);
    let ended = first.len() < doc.len();
    let first = if ended { first.strip_suffix(b"\r").unwrap_or(first) } else { first };
    match excel_sep(first) {
        Some(b',') => skip = skip.max(1),
        Some(_) => {
            assert!(b.from_path(path).is_err(), "sep= naming another delimiter was read");
            assert!(ParallelReader::new(&b, path).threads(2).count().is_err());
            return;
        }
        None => {}
    }

    // The twin: the lines as an editor numbers them.
    let model = swath_testkit::body::body_model(doc, |n, _| n > skip as u64, footer as u64);

    fn describe(e: &swath_csv::Error) -> String {
        format!("{:?} at {:?} in {:?}", e.kind(), e.position(), e.record_position())
    }
    type Row = (u64, u64, u64, Vec<Vec<u8>>);
    fn read_all<R: Read>(rdr: &mut swath_csv::Reader<R>) -> (Vec<Row>, Option<String>) {
        let mut rows = Vec::new();
        let err = loop {
            match rdr.next_record() {
                Ok(Some(r)) => {
                    let p = r.position();
                    let fields = r.iter().map(<[u8]>::to_vec).collect();
                    rows.push((p.record, p.line, p.byte, fields));
                }
                Ok(None) => break None,
                Err(e) => break Some(describe(&e)),
            }
        };
        (rows, err)
    }
    let want = read_all(&mut plain.from_reader(&model[..]).expect("valid options"));
    let got = read_all(&mut b.from_path(path).expect("the file opens"));
    assert_eq!(got, want, "the sequential reader of the path against the twin");

    let (rows, err) = want;
    for chunk in [1, 3, 8] {
        let mut pr = ParallelReader::new(&b, path).threads(2).chunk_size(chunk);
        match (pr.count(), &err) {
            (Ok(n), None) => assert_eq!(n, rows.len() as u64, "count, chunk {chunk}"),
            (Err(e), Some(w)) => assert_eq!(&describe(&e), w, "count error, chunk {chunk}"),
            (r, w) => panic!("chunk {chunk}: count {r:?}, the twin's error {w:?}"),
        }
        let mut pr = ParallelReader::new(&b, path).threads(2).chunk_size(chunk);
        let got = pr.fold(
            Vec::new,
            |out, r| {
                let p = r.position();
                out.push((p.record, p.line, p.byte, r.iter().map(<[u8]>::to_vec).collect()));
                Ok(())
            },
            |mut a, b| {
                a.extend(b);
                a
            },
        );
        match (got, &err) {
            (Ok(got), None) => assert_eq!(got, rows, "records, chunk {chunk}"),
            (Err(e), Some(w)) => assert_eq!(&describe(&e), w, "fold error, chunk {chunk}"),
            (r, w) => {
                panic!("chunk {chunk}: fold {:?}, the twin's error {w:?}", r.map(|v| v.len()))
            }
        }
    }
    if err.is_none() {
        let plan = plan_splits(&b, path, SplitSize::Count(3)).expect("a plan of a clean file");
        let mut top = plain.from_reader(&model[..]).expect("valid options");
        let header = u64::from(matches!(top.headers(), Ok(Some(_))));
        assert_eq!(plan.records(), rows.len() as u64 + header, "the plan's records");
    }
}

//! Parallel == sequential: records (fields and positions), counts and the
//! first error (kind, position, record, message), for 2..8 threads and
//! chunk sizes down to one byte, on inputs built to break chunked CSV:
//! many quoted newlines, quotes at every chunk seam, a quote opened in one
//! chunk and closed several chunks later, `\r\n` split across chunks, a
//! BOM, empty lines, and every case of docs/bad-inputs.md section A.

mod common;

use std::io::Write;
use std::sync::Mutex;

use common::table::{builder, bytes, cases};
use swath_csv::parallel::Mode;
use swath_csv::{Error, ParallelReader, Position, ReaderBuilder, Record};

type Fields = Vec<Vec<u8>>;

/// What a read produced: records with their positions, then the error it
/// stopped at (kind, position, record position, message).
#[derive(Debug, PartialEq, Eq)]
struct Run {
    records: Vec<(Fields, Position)>,
    error: Option<String>,
}

fn describe(e: &Error) -> String {
    format!("{:?} at {:?} in {:?}: {e}", e.kind(), e.position(), e.record_position())
}

fn file_with(data: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(data).unwrap();
    f.flush().unwrap();
    f
}

fn sequential(b: &ReaderBuilder, path: &std::path::Path) -> Run {
    let mut rdr = b.from_path(path).unwrap();
    let mut records = Vec::new();
    loop {
        match rdr.next_record() {
            Ok(Some(rec)) => {
                records.push((rec.iter().map(<[u8]>::to_vec).collect(), rec.position()))
            }
            Ok(None) => return Run { records, error: None },
            Err(e) => return Run { records, error: Some(describe(&e)) },
        }
    }
}

/// Records from one of the two ordered APIs: the work gets each record
/// (`for_each_ordered`) or runs its own loop over a chunk's records
/// (`for_each_chunk_ordered`).
fn parallel(
    b: &ReaderBuilder,
    path: &std::path::Path,
    threads: usize,
    chunk: u64,
    relative: bool,
    by_chunk: bool,
) -> (Run, Mode) {
    let mut pr =
        ParallelReader::new(b, path).threads(threads).chunk_size(chunk).relative_numbers(relative);
    let mut records = Vec::new();
    let keep = |out: &mut Vec<(Fields, Position)>, rec: Record<'_>| {
        out.push((rec.iter().map(<[u8]>::to_vec).collect(), rec.position()));
    };
    let emit = |out| {
        records.extend(out);
        Ok(())
    };
    let res = if by_chunk {
        pr.for_each_chunk_ordered(
            Vec::new,
            |out, recs| {
                while let Some(rec) = recs.next_record()? {
                    keep(out, rec);
                }
                Ok(())
            },
            emit,
        )
    } else {
        pr.for_each_ordered(
            Vec::new,
            |out, rec| {
                keep(out, rec);
                Ok(())
            },
            emit,
        )
    };
    let run = Run { records, error: res.err().map(|e| describe(&e)) };
    (run, pr.mode().clone())
}

/// Every path against the sequential reader: ordered records, fold count,
/// and for_each (sorted back into file order).
fn check(data: &[u8], b: &ReaderBuilder, threads: &[usize], chunks: &[u64], ctx: &str) {
    let f = file_with(data);
    let mut b = b.clone();
    // Tiny chunks make many tasks: keep each reader's buffer small too.
    b.capacity(64);
    let want = sequential(&b, f.path());
    for &t in threads {
        for &c in chunks {
            let ctx = format!("{ctx} (threads {t}, chunk {c})");
            // Both ordered APIs, each with exact and relative numbers
            // over the chunk sizes.
            let by_chunk = c % 2 == 0;
            let (got, mode) = parallel(&b, f.path(), t, c, false, by_chunk);
            assert_eq!(got, want, "{ctx}: {mode}");
            // Relative numbers: the same records, bytes and error
            // (renumbered); only the record numbers and lines the closures
            // saw differ, and never exceed the exact ones.
            let (mut rel, rel_mode) = parallel(&b, f.path(), t, c, true, !by_chunk);
            for (r, w) in rel.records.iter_mut().zip(&want.records) {
                assert!(r.1.record <= w.1.record && r.1.line <= w.1.line, "{ctx}");
                r.1.record = w.1.record;
                r.1.line = w.1.line;
            }
            assert_eq!(rel, want, "{ctx}: relative numbers");
            // On input the strict reader accepts, the quote-parity model is
            // exact: nothing may need the sequential resume.
            let lenient = format!("{b:?}").contains("lenient: true");
            if want.error.is_none() && !lenient {
                assert!(!matches!(mode, Mode::Resumed { .. }), "{ctx}: {mode}");
                assert!(!matches!(rel_mode, Mode::Resumed { .. }), "{ctx}: {rel_mode}");
            }
            let mut pr = ParallelReader::new(&b, f.path())
                .threads(t)
                .chunk_size(c)
                .relative_numbers(c % 2 == 1);
            match (pr.count(), &want.error) {
                (Ok(n), None) => assert_eq!(n, want.records.len() as u64, "{ctx}: count"),
                (Err(e), Some(w)) => assert_eq!(&describe(&e), w, "{ctx}: count error"),
                (r, w) => panic!("{ctx}: count gave {r:?}, sequential error {w:?}"),
            }
            // Valid input the parallel reader takes is counted by the
            // validating scan, never handed back to the reader.
            if want.error.is_none() && !lenient && matches!(mode, Mode::Parallel { .. }) {
                assert!(matches!(pr.mode(), Mode::Scanned { .. }), "{ctx}: count {}", pr.mode());
            }
            if want.error.is_none() {
                let seen = Mutex::new(Vec::new());
                let mut pr = ParallelReader::new(&b, f.path()).threads(t).chunk_size(c);
                pr.for_each(|rec| {
                    seen.lock().unwrap().push(rec.position());
                    Ok(())
                })
                .unwrap();
                let mut seen = seen.into_inner().unwrap();
                seen.sort_by_key(|p| p.byte);
                let want: Vec<Position> = want.records.iter().map(|r| r.1).collect();
                assert_eq!(seen, want, "{ctx}: for_each");
            }
        }
    }
}

fn strict() -> ReaderBuilder {
    ReaderBuilder::new()
}

fn generated(rows: u64, pct: u8, seed: u64) -> Vec<u8> {
    let mut out = Vec::new();
    let opts = swath_lab::gen::csv::CsvOptions { rows, seed, quoted_newlines_pct: pct };
    swath_lab::gen::csv::write(&mut out, &opts).unwrap();
    out
}

#[test]
fn generated_files_with_many_quoted_newlines() {
    let data = generated(120, 40, 7);
    check(&data, &strict(), &[2, 3, 8], &[1, 2, 3, 7, 64, 333, 4096], "generated");
    let mut flexible = strict();
    flexible.has_headers(false).flexible(true);
    check(&data, &flexible, &[2, 5], &[5, 100], "generated, no headers");
}

/// Records counted by a fold over them (not `count`'s validating scan).
fn count_by_fold(pr: &mut ParallelReader) -> u64 {
    let add = |n: &mut u64, _: Record<'_>| {
        *n += 1;
        Ok(())
    };
    pr.fold(|| 0u64, add, |a, b| a + b).unwrap()
}

#[test]
fn counts_match_the_generator_summary() {
    let data = generated(3000, 20, 3);
    let f = file_with(&data);
    let opts = swath_lab::gen::csv::CsvOptions { rows: 3000, seed: 3, quoted_newlines_pct: 20 };
    let sum = swath_lab::gen::csv::summary(&opts);
    assert!(sum.quoted_newlines > 300);
    // One thread counts with the same scan; a pipe cannot be scanned.
    let mut pr = ParallelReader::new(&strict(), f.path()).threads(1).chunk_size(4096);
    assert_eq!(pr.count().unwrap(), sum.rows);
    assert!(matches!(pr.mode(), Mode::Scanned { threads: 1, .. }), "{}", pr.mode());
    for t in 2..=8 {
        let mut pr = ParallelReader::new(&strict(), f.path()).threads(t).chunk_size(4096);
        assert_eq!(pr.count().unwrap(), sum.rows, "threads {t}");
        assert!(matches!(pr.mode(), Mode::Scanned { .. }), "{}", pr.mode());
        let mut pr = ParallelReader::new(&strict(), f.path()).threads(t).chunk_size(4096);
        let n = count_by_fold(&mut pr);
        assert_eq!(n, sum.rows, "threads {t}");
        assert!(matches!(pr.mode(), Mode::Parallel { .. }), "{}", pr.mode());
        // Guessed starts: right for every chunk of valid input this size.
        let mut pr = pr.relative_numbers(true);
        let n = count_by_fold(&mut pr);
        assert_eq!(n, sum.rows, "threads {t}");
        assert!(matches!(pr.mode(), Mode::Parallel { reread: 0, .. }), "{}", pr.mode());
    }
}

/// Records whose quotes and terminators land on every byte offset, with
/// `\r\n` endings, empty lines, a BOM, and one field that stays open over
/// many chunks.
fn seams() -> Vec<u8> {
    let mut d = b"\xEF\xBB\xBFk,v\r\n".to_vec();
    for i in 0..40 {
        let pad = "x".repeat(i % 9);
        match i % 5 {
            0 => d.extend_from_slice(format!("\"{pad}\r\n\",\"a\"\"\"\r\n").as_bytes()),
            1 => d.extend_from_slice(format!("{pad},\"\n\"\"\n\"\r\n\r\n").as_bytes()),
            2 => d.extend_from_slice(format!("\"\",{pad}\n\n\n").as_bytes()),
            3 => d.extend_from_slice(format!("\"{pad}\",\"\"\"\"\r").as_bytes()),
            _ => d.extend_from_slice(format!("{pad}y,\"\r\"\n").as_bytes()),
        }
    }
    // A quote opened here and closed about 300 bytes (many chunks) later.
    d.extend_from_slice(b"long,\"");
    for _ in 0..30 {
        d.extend_from_slice(b"a\nb,\"\"c\r\n");
    }
    d.extend_from_slice(b"\"\nlast,row");
    d
}

#[test]
fn quotes_and_crlf_at_every_seam() {
    let data = seams();
    let chunks: Vec<u64> = (1..=9).chain([13, 31, 64, 100, 1000]).collect();
    check(&data, &strict(), &[2, 3, 4, 8], &chunks, "seams");
    let mut keep = strict();
    keep.skip_empty_lines(false);
    check(&data, &keep, &[2, 7], &chunks, "seams, empty lines kept");
    let mut lenient = strict();
    lenient.lenient(true).has_headers(false);
    check(&data, &lenient, &[3], &chunks, "seams, lenient");
}

#[test]
fn errors_keep_exact_positions() {
    let good = generated(200, 30, 11);
    let text = String::from_utf8(good).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let at = lines.len() * 2 / 3;
    for (what, bad) in [
        ("bare quote", "9,Ada\"x,1.0,true,Oslo,2024-01-01T00:00:00Z\n"),
        ("text after quote", "9,\"Ada\"x,1.0,true,Oslo,2024-01-01T00:00:00Z\n"),
        ("field count", "9,Ada,1.0\n"),
        ("unterminated quote", "9,\"Ada,1.0,true,Oslo,2024-01-01T00:00:00Z\n"),
    ] {
        let mut data = lines[..at].concat();
        data.push_str(bad);
        data.push_str(&lines[at..].concat());
        check(data.as_bytes(), &strict(), &[2, 3, 8], &[1, 7, 64, 500, 4096], what);
        let mut lenient = strict();
        lenient.lenient(true).flexible(true);
        check(data.as_bytes(), &lenient, &[2, 4], &[3, 64, 777], &format!("{what} (lenient)"));
    }
}

#[test]
fn a_lenient_bare_quote_falls_back_and_says_so() {
    let mut data = b"a,b\n".to_vec();
    for i in 0..200 {
        data.extend_from_slice(format!("{i},x\"y\n").as_bytes());
    }
    let f = file_with(&data);
    let mut b = strict();
    b.lenient(true);
    let mut pr = ParallelReader::new(&b, f.path()).threads(2).chunk_size(64);
    assert_eq!(pr.count().unwrap(), 200);
    assert!(matches!(pr.mode(), Mode::Resumed { .. }), "{}", pr.mode());
    let err = ParallelReader::new(&strict(), f.path()).threads(2).chunk_size(64).count();
    assert_eq!(err.unwrap_err().position().unwrap(), Position::new(7, 2, 2));
}

#[test]
fn configurations_outside_the_parity_model_are_sequential() {
    let f = file_with(b"a,b\n#c,\"d\n1,\"2\\\"\n3\"\n");
    let mut b = strict();
    b.comment(Some(b'#')).escape(Some(b'\\'));
    let want = sequential(&b, f.path());
    for (comment, escape) in [(true, false), (false, true), (true, true)] {
        let mut b = strict();
        b.comment(comment.then_some(b'#')).escape(escape.then_some(b'\\'));
        check(b"a,b\n#c,\"d\n1,\"2\\\"\n3\"\n", &b, &[2, 3], &[1, 4], "comment/escape");
        let mut pr = ParallelReader::new(&b, f.path()).threads(4);
        pr.count().ok();
        assert!(matches!(pr.mode(), Mode::Sequential(_)), "{}", pr.mode());
    }
    assert_eq!(want.records.len(), 1);
    let mut pr = ParallelReader::new(&strict(), f.path()).threads(1);
    pr.fold(|| (), |_, _| Ok(()), |_, _| ()).ok();
    assert_eq!(pr.mode(), &Mode::Sequential("one thread".into()));
}

#[test]
fn empty_and_tiny_inputs() {
    for data in
        [&b""[..], b"\n", b"a", b"a,b", b"a,b\n", b"\xEF\xBB\xBF", b"\r\n\r\n", b"\"", b"h\n\"\n"]
    {
        for headers in [true, false] {
            let mut b = strict();
            b.has_headers(headers);
            check(data, &b, &[2, 3], &[1, 2, 3], &format!("{data:?} headers {headers}"));
        }
    }
}

// BAD-INPUTS.md section A, as data (the table the reader's tests use).

#[test]
fn every_case_of_bad_inputs_section_a() {
    let cases = cases();
    let mut n = 0;
    for case in &cases {
        let b = builder(&case["opts"]);
        if case.get("build_error").is_some() || b.validate().is_err() {
            continue;
        }
        let id = case["id"].as_str().unwrap();
        let input = bytes(case["input"].as_str().unwrap());
        // Repeat the case so that it crosses many chunks, then alone.
        let mut many = input.clone();
        for _ in 0..3 {
            if !many.ends_with(b"\n") {
                many.push(b'\n');
            }
            many.extend_from_slice(&input);
        }
        check(&input, &b, &[2, 3, 8], &[1, 2, 3, 4, 5, 6, 7, 8], id);
        check(&many, &b, &[2, 5], &[1, 3, 8, 16], &format!("{id} (x4)"));
        n += 1;
    }
    assert!(n > 60, "{n} cases");
}

#[test]
fn compressed_input_is_read_sequentially_with_the_same_answer() {
    let data = generated(500, 30, 5);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&data).unwrap();
    let f = file_with(&gz.finish().unwrap());
    let plain = file_with(&data);
    let mut pr = ParallelReader::new(&strict(), f.path()).threads(4).chunk_size(100);
    assert_eq!(pr.count().unwrap(), 500);
    assert!(
        matches!(pr.mode(), Mode::Sequential(why) if why.contains("compressed")),
        "{}",
        pr.mode()
    );
    for by_chunk in [false, true] {
        let (got, _) = parallel(&strict(), f.path(), 3, 64, false, by_chunk);
        assert_eq!(got, sequential(&strict(), plain.path()), "by chunk: {by_chunk}");
    }
}

#[test]
fn chunk_work_that_stops_early_still_meets_every_error() {
    // The records a chunk's work leaves unread are read after it returns:
    // an error among them is still the run's error, where the sequential
    // read meets it.
    let mut data = generated(300, 20, 11);
    data.extend_from_slice(b"1,2\n");
    let f = file_with(&data);
    let want = sequential(&strict(), f.path());
    assert_eq!(want.records.len(), 300);
    let want = want.error.expect("a short record is an error");
    for threads in [1, 2, 3] {
        for chunk in [64, 1000, 1 << 20] {
            let mut pr =
                ParallelReader::new(&strict(), f.path()).threads(threads).chunk_size(chunk);
            let mut seen = 0;
            let res = pr.for_each_chunk_ordered(
                || 0u64,
                |n, recs| {
                    if recs.next_record()?.is_some() {
                        *n += 1;
                    }
                    Ok(())
                },
                |n| {
                    seen += n;
                    Ok(())
                },
            );
            let ctx = format!("threads {threads}, chunk {chunk}: {}", pr.mode());
            assert_eq!(describe(&res.unwrap_err()), want, "{ctx}");
            assert!((1..300).contains(&seen), "{ctx}: {seen} records seen");
        }
    }
}

#[test]
fn ordered_output_keeps_a_bounded_window_of_chunks() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let data = generated(2000, 20, 9);
    let f = file_with(&data);
    for threads in [2, 3, 5] {
        let live = AtomicUsize::new(0);
        let peak = AtomicUsize::new(0);
        let mut chunks = 0;
        let mut pr = ParallelReader::new(&strict(), f.path()).threads(threads).chunk_size(256);
        pr.for_each_ordered(
            || {
                let n = live.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(n, Ordering::SeqCst);
                0u64
            },
            |n, _| {
                *n += 1;
                Ok(())
            },
            |_| {
                live.fetch_sub(1, Ordering::SeqCst);
                chunks += 1;
                Ok::<(), swath_csv::Error>(())
            },
        )
        .unwrap();
        assert!(matches!(pr.mode(), Mode::Parallel { .. }), "{}", pr.mode());
        assert!(chunks > 100, "{chunks} chunks");
        // Started but not yet emitted: the window, plus the one being emitted.
        assert!(peak.load(Ordering::SeqCst) <= 2 * threads + 1, "peak {peak:?}");
    }
}

/// A file cut short while the workers read it: an error that says so,
/// never a short answer. The fold truncates the file at its first record;
/// the chunks read after that meet the new end before the length seen at
/// open.
#[test]
fn a_file_that_shrinks_while_read_is_an_error() {
    let mut data = b"id,name\n".to_vec();
    for i in 0..200_000 {
        data.extend_from_slice(format!("{i},\"n\n{i}\"\n").as_bytes());
    }
    for threads in [1, 2, 4] {
        let f = file_with(&data);
        let cut = std::sync::Once::new();
        let res = ParallelReader::new(&ReaderBuilder::new(), f.path())
            .threads(threads)
            .chunk_size(64 << 10)
            .fold(
                || 0u64,
                |n, _| {
                    cut.call_once(|| f.as_file().set_len(data.len() as u64 / 2).unwrap());
                    *n += 1;
                    Ok(())
                },
                |a, b| a + b,
            );
        let err = res.expect_err("a short count");
        assert!(err.to_string().contains("file shrank while being read"), "{threads}: {err}");
    }
}

/// The caller's error type for the ordered API: its own failures, or a
/// reader error through `From`.
#[derive(Debug)]
enum CallerError {
    Csv(Error),
    Emit(usize),
}

impl From<Error> for CallerError {
    fn from(e: Error) -> CallerError {
        CallerError::Csv(e)
    }
}

#[test]
fn the_ordered_api_hands_back_the_callers_own_errors_and_exact_reader_errors() {
    let mut data = b"a,b\n".to_vec();
    for i in 0..3000 {
        if i == 2500 {
            data.extend_from_slice(b"1,x\"y\n");
        } else {
            data.extend_from_slice(format!("{i},v{i}\n").as_bytes());
        }
    }
    let f = file_with(&data);
    let mut seq = strict().from_path(f.path()).unwrap();
    let want = loop {
        match seq.next_record() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("no error in the sequential read"),
            Err(e) => break e.to_string(),
        }
    };
    for relative in [false, true] {
        let mut pr = ParallelReader::new(&strict(), f.path())
            .threads(3)
            .chunk_size(256)
            .relative_numbers(relative);
        // A reader error comes through `From`, exact even with relative
        // numbers.
        let res = pr.for_each_chunk_ordered(
            || 0u64,
            |n, recs| {
                while recs.next_record()?.is_some() {
                    *n += 1;
                }
                Ok(())
            },
            |_| Ok::<(), CallerError>(()),
        );
        match res {
            Err(CallerError::Csv(e)) => assert_eq!(e.to_string(), want, "relative {relative}"),
            other => panic!("relative {relative}: {other:?}"),
        }
        // The emitter's own error comes back as it is, and stops the run.
        let mut emitted = 0;
        let res = pr.for_each_chunk_ordered(
            || (),
            |_, _| Ok(()),
            |()| {
                emitted += 1;
                if emitted == 3 {
                    return Err(CallerError::Emit(emitted));
                }
                Ok(())
            },
        );
        assert!(matches!(res, Err(CallerError::Emit(3))), "relative {relative}: {res:?}");
        assert_eq!(emitted, 3);
    }
}

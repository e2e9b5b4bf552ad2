//! Every way of reading, against one expectation: the table of
//! `testdata/csv/bad_inputs.json` says what a case's input reads as (its
//! records, and its errors with their kind and position), and
//! [`check_case`] reads that input through every sequential form of
//! [`Reader`] and every parallel form of [`ParallelReader`], at several
//! read sizes, buffer sizes, classifier kernels, thread counts and chunk
//! sizes, and returns one message per disagreement, each naming the path
//! and its settings (after grep-searcher's `SearcherTester`).
//!
//! The forms differ in what they can show, and each is held to what it
//! shows:
//!
//! - `next_record`, `read_into`, `from_path`: every record and every error,
//!   going on after the recoverable ones, with the record after an error.
//! - `records()`, `into_records()`: the same, without the record after an
//!   error (the iterator yields only the error).
//! - `for_each_record`: the records up to the first error, then that error.
//! - parallel `for_each_ordered`, `for_each_chunk_ordered`: the records up
//!   to the first error, in file order, then that error; `fold`
//!   (collecting): every record in file order, or only the first error.
//!   With relative numbers, only byte offsets are exact.
//! - parallel `count`: the number of records, or the first error.
//! - parallel `for_each`: every record once (sorted back into file order)
//!   when there is no error; otherwise only the error is exact.
//! - `headers()`, sequential and parallel, where the case has headers.

use std::io::Write;
use std::sync::Mutex;

use serde_json::Value;
use swath_csv::classify::Kernel;
use swath_csv::{Error, ErrorKind, OwnedRecord, ParallelReader, Position, Reader, ReaderBuilder};
use swath_testkit::Chunked;

use super::table::{builder, bytes};

type Fields = Vec<Vec<u8>>;

/// One thing a read produced, or that the table expects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A record; `pos` is `[byte, line, record]` when known.
    Record { fields: Fields, pos: Option<[u64; 3]> },
    /// An error: its kind's name, its position, and the record read with it
    /// when the error is recoverable and the path shows it.
    Error { kind: String, at: [u64; 3], fields: Option<Fields> },
}

impl Event {
    fn is_error(&self) -> bool {
        matches!(self, Event::Error { .. })
    }
}

/// What the table says about one case.
#[derive(Clone)]
pub struct Case {
    /// The case's id, which every message starts with.
    pub id: String,
    /// The input bytes.
    pub input: Vec<u8>,
    /// The reader options.
    pub builder: ReaderBuilder,
    /// The options are invalid: building a reader fails.
    pub build_error: bool,
    /// The header row, when the case has one.
    pub headers: Option<Fields>,
    /// Every record and error, in order.
    pub expect: Vec<Event>,
    /// What the readers of a file (`from_path`, the parallel reader) see
    /// instead, where they differ: they decode a UTF-16 or UTF-32 file
    /// with a byte order mark (`swath::Source::decoded_text`).
    pub expect_file: Option<Vec<Event>>,
}

fn fields(v: &Value) -> Fields {
    v.as_array()
        .expect("fields are an array")
        .iter()
        .map(|f| bytes(f.as_str().expect("a field is a string")))
        .collect()
}

fn triple(v: &Value) -> [u64; 3] {
    let a = v.as_array().expect("a position is [byte, line, record]");
    assert_eq!(a.len(), 3, "a position is [byte, line, record]: {v}");
    [0, 1, 2].map(|i| a[i].as_u64().expect("a position is numbers"))
}

impl Case {
    /// A case of the table.
    pub fn from_json(v: &Value) -> Case {
        let events = |key: &str| {
            v.get(key).and_then(Value::as_array).map(|items| {
                items
                    .iter()
                    .map(|item| match item {
                        Value::Array(_) => Event::Record { fields: fields(item), pos: None },
                        _ if item.get("error").is_some() => Event::Error {
                            kind: item["error"].as_str().expect("an error kind").to_string(),
                            at: triple(&item["at"]),
                            fields: item.get("fields").map(fields),
                        },
                        _ => Event::Record {
                            fields: fields(&item["fields"]),
                            pos: item.get("pos").map(triple),
                        },
                    })
                    .collect::<Vec<_>>()
            })
        };
        let expect = events("expect").unwrap_or_default();
        Case {
            id: v["id"].as_str().expect("an id").to_string(),
            input: bytes(v["input"].as_str().expect("an input")),
            builder: builder(v.get("opts").unwrap_or(&Value::Null)),
            build_error: v.get("build_error").and_then(Value::as_bool) == Some(true),
            headers: v.get("headers").map(fields),
            expect,
            expect_file: events("expect_file"),
        }
    }

    /// The expected events up to and including the first error: what a
    /// path that stops at the first error sees.
    fn up_to_first_error(&self) -> Vec<Event> {
        let mut out = Vec::new();
        for e in &self.expect {
            out.push(e.clone());
            if e.is_error() {
                break;
            }
        }
        out
    }

    fn first_error(&self) -> Option<&Event> {
        self.expect.iter().find(|e| e.is_error())
    }

    fn records_before_first_error(&self) -> usize {
        self.expect.iter().take_while(|e| !e.is_error()).count()
    }
}

/// How much of an event a path shows, to compare it with the table's.
#[derive(Clone, Copy)]
struct Shows {
    /// The record read with a recoverable error.
    error_record: bool,
    /// Record lines and numbers (false under relative numbers: only the
    /// byte offset is exact).
    exact_numbers: bool,
}

const ALL: Shows = Shows { error_record: true, exact_numbers: true };

fn kind_name(k: &ErrorKind) -> String {
    let s = format!("{k:?}");
    s.split([' ', '(', '{']).next().unwrap().to_string()
}

fn error_event(e: &Error, fields: Option<Fields>) -> Event {
    let p = e.position().unwrap_or(Position::new(u64::MAX, u64::MAX, u64::MAX));
    Event::Error { kind: kind_name(e.kind()), at: [p.byte, p.line, p.record], fields }
}

fn record_event(fields: Fields, p: Position) -> Event {
    Event::Record { fields, pos: Some([p.byte, p.line, p.record]) }
}

/// Whether `got` matches `want` as far as the path shows.
fn matches(got: &Event, want: &Event, shows: Shows) -> bool {
    match (got, want) {
        (Event::Record { fields: g, pos: gp }, Event::Record { fields: w, pos: wp }) => {
            g == w
                && match (gp, wp) {
                    (Some(g), Some(w)) if shows.exact_numbers => g == w,
                    (Some(g), Some(w)) => g[0] == w[0],
                    _ => true,
                }
        }
        (
            Event::Error { kind: gk, at: ga, fields: gf },
            Event::Error { kind: wk, at: wa, fields: wf },
        ) => {
            gk == wk
                && ga == wa
                && match (gf, wf) {
                    (Some(g), Some(w)) if shows.error_record => g == w,
                    _ => true,
                }
        }
        _ => false,
    }
}

/// Disagreements between a path's events and the expected ones, as
/// messages labelled with `label`.
fn compare(label: &str, got: &[Event], want: &[Event], shows: Shows, out: &mut Vec<String>) {
    let (got, want) = (&without_repeats(got)[..], &without_repeats(want)[..]);
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if !matches(g, w, shows) {
            out.push(format!("{label}: item {i}: expected {w:?}, got {g:?}"));
            return;
        }
    }
    if got.len() != want.len() {
        out.push(format!(
            "{label}: expected {} items, got {}: expected {want:?}, got {got:?}",
            want.len(),
            got.len()
        ));
    }
}

/// At most this many events from one read: a path that loops forever on
/// an error fails instead of hanging.
const MAX_EVENTS: usize = 1000;

/// `next_record` until the end or a fatal error, going on after
/// recoverable errors with the record read with them.
fn by_next_record<R: std::io::Read>(rdr: &mut Reader<R>) -> Vec<Event> {
    let mut out = Vec::new();
    while out.len() < MAX_EVENTS && one_record(rdr, &mut out) {}
    out
}

/// One `next_record` of [`by_next_record`]; false at the end or after a
/// fatal error.
fn one_record<R: std::io::Read>(rdr: &mut Reader<R>, out: &mut Vec<Event>) -> bool {
    match rdr.next_record() {
        Ok(Some(r)) => {
            out.push(record_event(r.iter().map(<[u8]>::to_vec).collect(), r.position()));
            true
        }
        Ok(None) => false,
        Err(e) if e.is_recoverable() => {
            let r = rdr.record();
            out.push(error_event(&e, Some(r.iter().map(<[u8]>::to_vec).collect())));
            true
        }
        Err(e) => {
            out.push(error_event(&e, None));
            after_fatal(out, || rdr.next_record().map(|r| r.map(|r| r.position())));
            false
        }
    }
}

/// `next_block`, and `next_record` for each record a block does not take
/// (as an Arrow decoder reads): the same events as `next_record` alone.
/// Blocks of at most 1 to 7 records in turn; each block's fields by
/// `field` and by its `record` view must agree.
fn by_next_block<R: std::io::Read>(rdr: &mut Reader<R>) -> Vec<Event> {
    let mut out = Vec::new();
    let mut max = 1;
    while out.len() < MAX_EVENTS {
        match rdr.next_block(max) {
            Ok(Some(b)) => {
                assert!(!b.is_empty() && b.len() <= max, "a block of {} for {max}", b.len());
                for r in 0..b.len() {
                    let rec = b.record(r);
                    assert_eq!(rec.len(), b.width());
                    let fields: Fields = (0..b.width()).map(|c| b.field(r, c).to_vec()).collect();
                    let viewed: Fields = rec.iter().map(<[u8]>::to_vec).collect();
                    assert_eq!(fields, viewed, "field() and record() differ");
                    for (c, f) in fields.iter().enumerate() {
                        assert_eq!(b.column(c).nth(r), Some(&f[..]), "column() and field() differ");
                    }
                    assert_eq!(rec.position(), b.position(r));
                    out.push(record_event(fields, b.position(r)));
                }
                max = max % 7 + 1;
            }
            Ok(None) => {
                if !one_record(rdr, &mut out) {
                    break;
                }
            }
            Err(e) => {
                out.push(error_event(&e, None));
                break;
            }
        }
    }
    out
}

/// After a fatal error, reading again must give the same error (it is
/// sticky) or nothing: anything else is added to `out`, to fail the
/// comparison.
fn after_fatal(
    out: &mut Vec<Event>,
    mut again: impl FnMut() -> swath_csv::Result<Option<Position>>,
) {
    let first = out.last().cloned().expect("the fatal error");
    for _ in 0..2 {
        match again() {
            Ok(None) => {}
            Err(e) if error_event(&e, None) == first => {}
            Err(e) => out.push(error_event(&e, None)),
            Ok(Some(p)) => {
                out.push(record_event(vec![b"<a record after a fatal error>".to_vec()], p))
            }
        }
    }
}

/// Repeats of a fatal error collapsed into one: the table lists the
/// repeat to say an error is sticky, which `after_fatal` checks on the
/// paths that can read on.
fn without_repeats(events: &[Event]) -> Vec<Event> {
    let mut out: Vec<Event> = Vec::new();
    for e in events {
        if e.is_error() && out.last() == Some(e) {
            continue;
        }
        out.push(e.clone());
    }
    out
}

fn by_read_into<R: std::io::Read>(rdr: &mut Reader<R>) -> Vec<Event> {
    let mut out = Vec::new();
    let mut rec = OwnedRecord::new();
    let owned = |rec: &OwnedRecord| rec.iter().map(<[u8]>::to_vec).collect::<Fields>();
    while out.len() < MAX_EVENTS {
        match rdr.read_into(&mut rec) {
            Ok(true) => out.push(record_event(owned(&rec), rec.position())),
            Ok(false) => break,
            Err(e) if e.is_recoverable() => out.push(error_event(&e, Some(owned(&rec)))),
            Err(e) => {
                out.push(error_event(&e, None));
                let mut rec = OwnedRecord::new();
                after_fatal(&mut out, || {
                    rdr.read_into(&mut rec).map(|more| more.then(|| rec.position()))
                });
                break;
            }
        }
    }
    out
}

fn by_iterator(records: impl Iterator<Item = swath_csv::Result<OwnedRecord>>) -> Vec<Event> {
    records
        .take(MAX_EVENTS)
        .map(|r| match r {
            Ok(rec) => record_event(rec.iter().map(<[u8]>::to_vec).collect(), rec.position()),
            Err(e) => error_event(&e, None),
        })
        .collect()
}

fn by_for_each_record<R: std::io::Read>(rdr: &mut Reader<R>) -> Vec<Event> {
    let mut out = Vec::new();
    let res = rdr.for_each_record(|r| {
        out.push(record_event(r.iter().map(<[u8]>::to_vec).collect(), r.position()));
        out.len() < MAX_EVENTS
    });
    if let Err(e) = res {
        out.push(error_event(&e, None));
    }
    out
}

/// The sequential forms, read from a [`Chunked`] input.
type SequentialPath = (&'static str, fn(Reader<Chunked<'_>>) -> Vec<Event>, Shows);

const SEQUENTIAL: &[SequentialPath] = &[
    ("next_record", |mut r| by_next_record(&mut r), ALL),
    ("next_block", |mut r| by_next_block(&mut r), ALL),
    ("read_into", |mut r| by_read_into(&mut r), ALL),
    ("records()", |mut r| by_iterator(r.records()), Shows { error_record: false, ..ALL }),
    ("into_records()", |r| by_iterator(r.into_records()), Shows { error_record: false, ..ALL }),
    ("for_each_record", |mut r| by_for_each_record(&mut r), ALL),
];

/// Read sizes of the input (the reader meets its input in these pieces)
/// and buffer sizes of the reader: every seam, and one large read.
const READS: &[usize] = &[1, 2, 3, 5, 64, 1 << 16];

fn check_headers<R: std::io::Read>(
    label: &str,
    rdr: &mut Reader<R>,
    case: &Case,
    out: &mut Vec<String>,
) {
    if let Some(want) = &case.headers {
        match rdr.headers() {
            Ok(Some(h)) => {
                let got: Fields = h.iter().map(<[u8]>::to_vec).collect();
                if &got != want {
                    out.push(format!("{label}: headers {got:?}, expected {want:?}"));
                }
            }
            other => out.push(format!("{label}: headers gave {other:?}, expected {want:?}")),
        }
    }
}

/// Every sequential path, at every read size and kernel.
fn check_sequential(case: &Case, out: &mut Vec<String>) {
    for &(name, read, shows) in SEQUENTIAL {
        for &chunk in READS {
            for kernel in Kernel::available() {
                let label = format!("{} [{name}, reads of {chunk}, {}]", case.id, kernel.name());
                let mut b = case.builder.clone();
                b.capacity(chunk).kernel(kernel);
                let built = b.from_reader(Chunked::new(&case.input, chunk));
                let mut rdr = match (built, case.build_error) {
                    (Err(e), true) if matches!(e.kind(), ErrorKind::Config(_)) => continue,
                    (Err(e), _) => {
                        out.push(format!("{label}: building failed: {e}"));
                        continue;
                    }
                    (Ok(_), true) => {
                        out.push(format!("{label}: expected a build error"));
                        continue;
                    }
                    (Ok(rdr), false) => rdr,
                };
                check_headers(&label, &mut rdr, case, out);
                let got = read(rdr);
                let want = if name == "for_each_record" {
                    case.up_to_first_error()
                } else {
                    case.expect.clone()
                };
                compare(&label, &got, &want, shows, out);
            }
        }
    }
}

/// `from_path`: the reader on a file [`swath::Source`], not a `Read`.
fn check_from_path(case: &Case, path: &std::path::Path, out: &mut Vec<String>) {
    let label = format!("{} [from_path + next_record]", case.id);
    match (case.builder.from_path(path), case.build_error) {
        (Err(e), true) if matches!(e.kind(), ErrorKind::Config(_)) => {}
        (Err(e), _) => out.push(format!("{label}: building failed: {e}")),
        (Ok(_), true) => out.push(format!("{label}: expected a build error")),
        (Ok(mut rdr), false) => {
            check_headers(&label, &mut rdr, case, out);
            compare(&label, &by_next_record(&mut rdr), &case.expect, ALL, out);
        }
    }
}

/// Records in file order from one of the parallel forms that give them
/// (or the first error).
fn parallel_records(form: &str, pr: &mut ParallelReader) -> Vec<Event> {
    let keep = |out: &mut Vec<Event>, r: swath_csv::Record<'_>| {
        out.push(record_event(r.iter().map(<[u8]>::to_vec).collect(), r.position()));
    };
    let mut events = Vec::new();
    let res = match form {
        "for_each_ordered" => pr.for_each_ordered(
            Vec::new,
            |o, r| {
                keep(o, r);
                Ok(())
            },
            |o| {
                events.extend(o);
                Ok(())
            },
        ),
        "for_each_chunk_ordered" => pr.for_each_chunk_ordered(
            Vec::new,
            |o, recs| {
                while let Some(r) = recs.next_record()? {
                    keep(o, r);
                }
                Ok(())
            },
            |o| {
                events.extend(o);
                Ok(())
            },
        ),
        "fold" => pr
            .fold(
                Vec::new,
                |o, r| {
                    keep(o, r);
                    Ok(())
                },
                |mut a, b| {
                    a.extend(b);
                    a
                },
            )
            .map(|all| events = all),
        _ => unreachable!("{form}"),
    };
    if let Err(e) = res {
        events.push(error_event(&e, None));
    }
    events
}

/// Thread counts and chunk sizes for the parallel forms: one thread (the
/// sequential fallback), and two and three with chunks so small that every
/// seam of the input is a chunk seam.
const THREADS: &[usize] = &[1, 2, 3];
const CHUNKS: &[u64] = &[1, 2, 3, 5, 8, 64];

/// Every parallel path, at every thread count and chunk size.
fn check_parallel(case: &Case, path: &std::path::Path, out: &mut Vec<String>) {
    let mut b = case.builder.clone();
    // Tiny chunks make many tasks: keep each reader's buffer small too.
    b.capacity(64);
    let want_prefix = case.up_to_first_error();
    for &threads in THREADS {
        for &chunk in CHUNKS {
            let new = || ParallelReader::new(&b, path).threads(threads).chunk_size(chunk);
            let label = |form: &str, pr: &ParallelReader| {
                format!(
                    "{} [parallel {form}, {threads} threads, chunk {chunk}, {}]",
                    case.id,
                    pr.mode()
                )
            };
            if case.build_error {
                let mut pr = new();
                match pr.count() {
                    Err(e) if matches!(e.kind(), ErrorKind::Config(_)) => {}
                    other => out.push(format!(
                        "{}: {other:?}, expected a config error",
                        label("count", &pr)
                    )),
                }
                continue;
            }
            // `fold` returns its accumulator or the error: the records
            // before an error are not shown.
            let only_error: Vec<Event> = case.first_error().into_iter().cloned().collect();
            for form in ["for_each_ordered", "for_each_chunk_ordered", "fold"] {
                let want_prefix = if form == "fold" && !only_error.is_empty() {
                    &only_error
                } else {
                    &want_prefix
                };
                let mut pr = new();
                let got = parallel_records(form, &mut pr);
                compare(&label(form, &pr), &got, want_prefix, ALL, out);
                // Relative numbers: chunk starts guessed, every byte offset
                // and every error still exact.
                let mut pr = new().relative_numbers(true);
                let got = parallel_records(form, &mut pr);
                let shows = Shows { exact_numbers: false, ..ALL };
                compare(
                    &label(&format!("{form}, relative numbers"), &pr),
                    &got,
                    want_prefix,
                    shows,
                    out,
                );
            }

            let mut pr = new();
            let got = pr.count();
            let label_count = label("count", &pr);
            match (got, case.first_error()) {
                (Ok(n), None) if n == case.expect.len() as u64 => {}
                (Err(e), Some(w)) if matches(&error_event(&e, None), w, ALL) => {}
                (got, want) => out.push(format!(
                    "{label_count}: got {got:?}, expected {} records then {want:?}",
                    case.records_before_first_error()
                )),
            }

            let seen = Mutex::new(Vec::new());
            let mut pr = new();
            let res = pr.for_each(|r| {
                let e = record_event(r.iter().map(<[u8]>::to_vec).collect(), r.position());
                seen.lock().unwrap().push((r.position().byte, e));
                Ok(())
            });
            let mut seen = seen.into_inner().unwrap();
            seen.sort_by_key(|s| s.0);
            let mut got: Vec<Event> = seen.into_iter().map(|s| s.1).collect();
            let label_each = label("for_each", &pr);
            match (res, case.first_error()) {
                (Ok(()), None) => compare(&label_each, &got, &case.expect, ALL, out),
                (Err(e), Some(_)) => {
                    // Only the error is exact.
                    got = vec![error_event(&e, None)];
                    compare(&label_each, &got, &want_prefix[want_prefix.len() - 1..], ALL, out);
                }
                (res, want) => out.push(format!("{label_each}: got {res:?}, expected {want:?}")),
            }

            if let Some(want) = &case.headers {
                let pr = new();
                match pr.headers() {
                    Ok(Some(h)) if h.iter().map(<[u8]>::to_vec).collect::<Fields>() == *want => {}
                    other => out.push(format!(
                        "{}: headers {other:?}, expected {want:?}",
                        label("headers", &pr)
                    )),
                }
            }
        }
    }
}

/// Every path on `case`: one message per disagreement, each naming the
/// path and its settings. Empty when every path reads what the table says.
pub fn check_case(case: &Case) -> Vec<String> {
    let mut out = Vec::new();
    check_sequential(case, &mut out);
    let mut f = tempfile::NamedTempFile::new().expect("a temporary file");
    f.write_all(&case.input).expect("write the case");
    f.flush().expect("flush the case");
    let file_case = match &case.expect_file {
        Some(e) => &Case { expect: e.clone(), ..case.clone() },
        None => case,
    };
    check_from_path(file_case, f.path(), &mut out);
    check_parallel(file_case, f.path(), &mut out);
    out
}

/// The labels of every path [`check_case`] runs, for the test that checks
/// a wrong expectation is caught by each of them.
pub fn path_names() -> Vec<String> {
    let mut names: Vec<String> = SEQUENTIAL.iter().map(|p| format!("[{},", p.0)).collect();
    names.push("[from_path + next_record]".into());
    for form in ["for_each_ordered", "for_each_chunk_ordered", "fold", "count", "for_each"] {
        names.push(format!("[parallel {form},"));
    }
    for form in ["for_each_ordered", "for_each_chunk_ordered", "fold"] {
        names.push(format!("[parallel {form}, relative numbers,"));
    }
    names
}

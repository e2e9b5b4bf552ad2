//! `ParallelReader::sample_starts`: record starts found from the bytes at
//! each place alone. On valid CSV every start must be one the sequential
//! reader reads a record from (its slow twin here), on files built to
//! fool a guess: quoted fields whose text is itself CSV with the right
//! field count, quoted newlines and doubled quotes everywhere, CRLF, a
//! BOM, lenient quoting; and most places must settle (the test can fail
//! by finding nothing as well as by finding wrong starts).

use std::collections::HashSet;
use std::io::Write;

use swath_csv::{ParallelReader, ReaderBuilder};

/// A valid three-column CSV of `rows` records; `nasty` of 100 hold a
/// quoted field whose text is CSV records of three fields.
fn csv(seed: u64, rows: usize, nasty: u64, crlf: bool, bom: bool) -> Vec<u8> {
    let mut r = swath_testkit::Rng::new(seed);
    let eol: &[u8] = if crlf { b"\r\n" } else { b"\n" };
    let mut out = Vec::new();
    if bom {
        out.extend_from_slice(b"\xEF\xBB\xBF");
    }
    out.extend_from_slice(b"id,text,n");
    out.extend_from_slice(eol);
    for i in 0..rows {
        write!(out, "{i},").unwrap();
        match r.below(100) {
            k if k < nasty => {
                // Text that reads as records, whole lines of them.
                out.push(b'"');
                for _ in 0..1 + r.below(6) {
                    write!(out, "{},x{},{}", r.below(1000), r.below(9), r.below(50)).unwrap();
                    out.extend_from_slice(eol);
                }
                out.extend_from_slice(b"tail\"");
            }
            k if k < nasty + 20 => {
                out.extend_from_slice(b"\"a \"\"quoted\"\", b\nc,d\"");
            }
            k if k < nasty + 40 => out.extend_from_slice(b"\"Smith, J\""),
            _ => write!(out, "plain{}", r.below(100_000)).unwrap(),
        }
        write!(out, ",{}", r.below(1_000_000)).unwrap();
        out.extend_from_slice(eol);
    }
    out
}

/// The byte offsets the sequential reader reads records from.
fn true_starts(b: &ReaderBuilder, path: &std::path::Path) -> HashSet<u64> {
    let mut rdr = b.from_path(path).unwrap();
    let mut starts = HashSet::new();
    while let Some(rec) = rdr.next_record().unwrap() {
        starts.insert(rec.position().byte);
    }
    starts
}

fn file_with(data: &[u8]) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(data).unwrap();
    f.flush().unwrap();
    f
}

/// Every start returned is a true one, past `after`, in order; returns
/// how many there were.
fn check(b: &ReaderBuilder, data: &[u8], after: u64, points: usize) -> usize {
    let f = file_with(data);
    let truth = true_starts(b, f.path());
    let got = ParallelReader::new(b, f.path()).threads(2).sample_starts(after, points).unwrap();
    assert!(got.len() <= points, "{} starts for {points} places", got.len());
    let mut last = after;
    for p in &got {
        assert!(p.byte > last, "start {} not past {last}", p.byte);
        assert!(truth.contains(&p.byte), "byte {} is not a record start", p.byte);
        last = p.byte;
    }
    got.len()
}

#[test]
fn every_start_is_a_record_start_of_the_sequential_read() {
    for seed in 0..12 {
        for (nasty, crlf, bom) in [(0, false, false), (10, false, true), (40, true, false)] {
            let data = csv(seed, 4_000, nasty, crlf, bom);
            let b = ReaderBuilder::new();
            for points in [1, 7, 64, 400] {
                let found = check(&b, &data, 0, points);
                // Most places settle within the window on such files.
                assert!(found * 2 >= points.min(64), "{found} of {points} places settled");
            }
            // Past a head, as inference asks.
            let after = data.len() as u64 / 3;
            check(&b, &data, after, 64);
        }
    }
}

#[test]
fn quoted_text_longer_than_the_window_is_not_mistaken_for_records() {
    // One quoted field of 3 MiB of lines that are valid records: a place
    // inside it sees clean CSV under the wrong hypothesis for longer than
    // it looks. It must be left out, not taken.
    let mut data = b"id,text,n\n1,\"".to_vec();
    while data.len() < 3 << 20 {
        data.extend_from_slice(b"7,x,8\n");
    }
    data.extend_from_slice(b"end\",2\n");
    for i in 0..20_000 {
        writeln!(data, "{i},y,{i}").unwrap();
    }
    let b = ReaderBuilder::new();
    check(&b, &data, 0, 64);
}

#[test]
fn lenient_quoting_takes_the_exact_plan() {
    let mut data = csv(3, 3_000, 10, false, false);
    // A bare quote in a field: lenient reads it as text.
    data.extend_from_slice(b"9,ab\"c,1\n");
    let mut b = ReaderBuilder::new();
    b.lenient(true);
    assert!(check(&b, &data, 0, 16) > 0);
}

#[test]
fn an_escape_byte_or_a_place_past_the_end_gives_no_starts() {
    let data = csv(1, 1_000, 10, false, false);
    let f = file_with(&data);
    let mut b = ReaderBuilder::new();
    b.escape(Some(b'\\'));
    let got = ParallelReader::new(&b, f.path()).sample_starts(0, 8).unwrap();
    assert!(got.is_empty());
    let b = ReaderBuilder::new();
    let got = ParallelReader::new(&b, f.path()).sample_starts(data.len() as u64, 8).unwrap();
    assert!(got.is_empty());
}

#[test]
fn broken_csv_is_no_error_and_no_panic() {
    let mut data = csv(5, 3_000, 20, false, false);
    let mid = data.len() / 2;
    data.splice(mid..mid, b"\"\"\"oops,\"x".iter().copied());
    let f = file_with(&data);
    let b = ReaderBuilder::new();
    let got = ParallelReader::new(&b, f.path()).sample_starts(0, 64).unwrap();
    assert!(got.windows(2).all(|w| w[0].byte < w[1].byte));
}

#[test]
fn without_quoting_every_place_settles_at_the_next_line() {
    // Quotes are text here: `"` starts no quoted field.
    let mut data = b"id,text,n\n".to_vec();
    for i in 0..20_000 {
        writeln!(data, "{i},a\"b,{i}").unwrap();
    }
    let mut b = ReaderBuilder::new();
    b.quoting(false);
    assert_eq!(check(&b, &data, 0, 64), 64);
}

#[test]
fn a_file_without_quotes_gets_its_starts_from_the_exact_plan() {
    let mut data = b"id,text,n\n".to_vec();
    for i in 0..20_000 {
        writeln!(data, "{i},plain,{i}").unwrap();
    }
    let found = check(&ReaderBuilder::new(), &data, 0, 64);
    assert!(found >= 32, "{found} starts");
}

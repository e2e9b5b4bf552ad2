//! The reader's API and limits: sizes at the limit with 1-byte reads,
//! huge field counts, runaway quotes, UTF-8, headers, typed scans, sticky
//! I/O errors.

mod common;

use std::io::{self, Read};

use common::Chunked;
use swath_csv::{ErrorKind, OwnedRecord, Position, Reader, ReaderBuilder};
use swath_testkit::Rng;

#[test]
fn record_size_limit_minus_one_at_and_plus_one_however_chunked() {
    const LIMIT: usize = 1000;
    for chunk in [1, 7, 64, 1 << 16] {
        for len in [LIMIT - 1, LIMIT, LIMIT + 1] {
            let mut doc = b"x\n".to_vec();
            doc.extend(std::iter::repeat_n(b'a', len));
            doc.extend_from_slice(b"\r\ny\n");
            let mut rdr = ReaderBuilder::new()
                .has_headers(false)
                .max_record_bytes(LIMIT)
                .capacity(chunk)
                .from_reader(Chunked { data: &doc, chunk })
                .unwrap();
            assert_eq!(rdr.next_record().unwrap().unwrap().get(0), Some(&b"x"[..]));
            if len <= LIMIT {
                assert_eq!(rdr.next_record().unwrap().unwrap().get(0).unwrap().len(), len);
                assert_eq!(rdr.next_record().unwrap().unwrap().get(0), Some(&b"y"[..]));
                assert!(rdr.next_record().unwrap().is_none());
            } else {
                for _ in 0..2 {
                    let err = rdr.next_record().unwrap_err();
                    assert!(
                        matches!(
                            err.kind(),
                            ErrorKind::RecordTooLarge { limit: LIMIT, open_quote: None }
                        ),
                        "{err}"
                    );
                    assert_eq!(err.position(), Some(Position::new(2, 2, 2)));
                }
            }
        }
    }
}

#[test]
fn tiny_limits_and_buffers_still_read_valid_input() {
    for chunk in [1, 2, 5] {
        let mut rdr = ReaderBuilder::new()
            .has_headers(false)
            .max_record_bytes(1)
            .capacity(1)
            .from_reader(Chunked { data: b"\xEF\xBB\xBFa\r\n\nb\rc", chunk })
            .unwrap();
        let recs: Vec<_> = rdr.records().map(|r| r.unwrap().to_strings()).collect();
        assert_eq!(recs, [["a"], ["b"], ["c"]], "chunk {chunk}");
    }
}

#[test]
fn a_million_fields_in_one_record_and_the_field_limit() {
    let mut doc = vec![b','; 999_999];
    doc.push(b'\n');
    let mut rdr = ReaderBuilder::new().has_headers(false).from_reader(&doc[..]).unwrap();
    assert_eq!(rdr.next_record().unwrap().unwrap().len(), 1_000_000);
    // Spanning many refills must not re-scan (the machine keeps its state).
    let mut rdr = ReaderBuilder::new()
        .has_headers(false)
        .capacity(4096)
        .from_reader(Chunked { data: &doc, chunk: 4096 })
        .unwrap();
    assert_eq!(rdr.next_record().unwrap().unwrap().len(), 1_000_000);
    let mut rdr =
        ReaderBuilder::new().has_headers(false).max_fields(1000).from_reader(&doc[..]).unwrap();
    let err = rdr.next_record().unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::TooManyFields { limit: 1000 }));
    assert!(!err.is_recoverable());
}

#[test]
fn a_stray_quote_runs_into_the_limit_and_says_where_it_opened() {
    let mut doc = b"a,b\nc,\"d\n".to_vec();
    for i in 0..40_000 {
        doc.extend_from_slice(format!("{i},x\n").as_bytes());
    }
    let mut rdr = ReaderBuilder::new()
        .max_record_bytes(100_000)
        .capacity(4096)
        .from_reader(&doc[..])
        .unwrap();
    let err = rdr.next_record().unwrap_err();
    match err.kind() {
        ErrorKind::RecordTooLarge { open_quote: Some(q), .. } => {
            assert_eq!(*q, Position::new(6, 2, 2))
        }
        k => panic!("{k:?}"),
    }
    assert!(
        err.to_string().contains("a quote opened at record 2 (line 2, byte 6) is still open"),
        "{err}"
    );
}

#[test]
fn get_str_reports_invalid_utf8_with_its_position_and_reading_goes_on() {
    let mut rdr =
        ReaderBuilder::new().has_headers(false).from_reader(&b"a,\xff\xfeb\nc,d\n"[..]).unwrap();
    let rec = rdr.next_record().unwrap().unwrap();
    assert_eq!(rec.get_str(0).unwrap(), "a");
    let err = rec.get_str(1).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::InvalidUtf8 { field: 1, valid_up_to: 0 }));
    assert_eq!(err.position(), Some(Position::new(2, 1, 1)));
    let rec = rdr.next_record().unwrap().unwrap();
    assert_eq!(rec.get_str(1).unwrap(), "d");
}

#[test]
fn headers_names_positions_and_reuse() {
    let data = b"id,name\n1,\"A, \"\"x\"\"\"\n2,B\n";
    let mut rdr = Reader::new(&data[..]);
    assert_eq!(rdr.headers().unwrap().unwrap().to_strings(), ["id", "name"]);
    assert_eq!(rdr.index_of("name"), Some(1));
    let rec = rdr.next_record().unwrap().unwrap();
    assert_eq!(rec.get_by_name("name"), Some(&b"A, \"x\""[..]));
    assert_eq!(rec.header(0), Some(&b"id"[..]));
    assert_eq!(rec.position(), Position::new(8, 2, 2));
    assert_eq!(rec.iter().count(), 2);
    assert_eq!(format!("{rec:?}"), r#"["1", "A, \"x\""]"#);
    let mut owned = OwnedRecord::new();
    assert!(rdr.read_into(&mut owned).unwrap());
    assert_eq!(owned.to_strings(), ["2", "B"]);
    assert_eq!(owned.position().record, 3);
    assert!(!rdr.read_into(&mut owned).unwrap());
    let all: Vec<_> =
        Reader::new(&data[..]).into_records().map(|r| r.unwrap().to_strings()).collect();
    assert_eq!(all, [vec!["1", "A, \"x\""], vec!["2", "B"]]);
}

type Twelve<'a> = (&'a [u8], u128, i16, usize, isize, u32, u16, i8, i32, f32, f64, bool);

#[test]
fn typed_scan_converts_and_names_what_failed() {
    let data = "id,score,ok,opt,name\n7,2.5,true,,Ann\n-9223372036854775808,1e3,false,4,Bo\nx,1,true,1,C\n";
    let mut rdr = Reader::new(data.as_bytes());
    let r = rdr.next_record().unwrap().unwrap();
    let t: (u8, f64, bool, Option<i32>, &str) = r.scan().unwrap();
    assert_eq!(t, (7, 2.5, true, None, "Ann"));
    let r = rdr.next_record().unwrap().unwrap();
    let t: (i64, f32, bool, Option<u16>, String) = r.scan().unwrap();
    assert_eq!(t, (i64::MIN, 1000.0, false, Some(4), "Bo".to_string()));
    assert!(r.parse::<u64>(0).is_err());
    assert!(r.parse::<i8>(2).is_err());
    let err = r.scan::<(i64, f32, bool, Option<u16>, String, u8)>().unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::MissingField { field: 5 }));
    let r = rdr.next_record().unwrap().unwrap();
    let err = r.scan::<(u64, f64)>().unwrap_err();
    match err.kind() {
        ErrorKind::Parse { field, header, text, ty, .. } => {
            assert_eq!(
                (*field, header.as_deref(), text.as_str(), *ty),
                (0, Some("id"), "x", "u64")
            );
        }
        k => panic!("{k:?}"),
    }
    assert_eq!(err.position(), Some(Position::new(73, 4, 4)));
    assert_eq!(
        err.to_string(),
        "record 4 (line 4, byte 73): field 0 (\"id\"): cannot parse \"x\" as u64: invalid digit"
    );
    assert!(r.parse::<u8>(1).is_ok());
    assert_eq!(r.parse::<u8>(1).unwrap(), 1);
    assert!(r.parse::<u8>(4).is_err(), "C is not a number");
    let mut rdr = Reader::new(&b"h\n256\n"[..]);
    assert!(rdr.next_record().unwrap().unwrap().parse::<u8>(0).is_err());
    let mut rdr = ReaderBuilder::new()
        .has_headers(false)
        .from_reader(&b"ab,1,-2,3,-4,5,6,-7,8,9.5,10,true\n"[..])
        .unwrap();
    let t: Twelve = rdr.next_record().unwrap().unwrap().scan().unwrap();
    assert_eq!(t, (&b"ab"[..], 1, -2, 3, -4, 5, 6, -7, 8, 9.5, 10.0, true));
}

/// Yields some bytes, then fails.
struct Failing(&'static [u8]);

impl Read for Failing {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.0.is_empty() {
            return Err(io::Error::other("disk on fire"));
        }
        let n = self.0.len().min(out.len());
        out[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn io_errors_are_sticky() {
    let mut rdr = ReaderBuilder::new().has_headers(false).from_reader(Failing(b"a,b\nc,")).unwrap();
    assert_eq!(rdr.next_record().unwrap().unwrap().len(), 2);
    for _ in 0..3 {
        let err = rdr.next_record().unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Io(_)), "{err}");
        assert!(err.to_string().contains("disk on fire"), "{err}");
    }
}

#[test]
fn records_iterator_continues_past_recoverable_errors_and_stops_at_fatal_ones() {
    let rdr = ReaderBuilder::new().from_reader(&b"a,b\nc\nd,e\n"[..]).unwrap();
    let kinds: Vec<bool> = rdr.into_records().map(|r| r.is_ok()).collect();
    assert_eq!(kinds, [false, true]);
    let rdr =
        ReaderBuilder::new().max_record_bytes(3).from_reader(&b"a,b\nccccc\nd,e\n"[..]).unwrap();
    assert_eq!(rdr.into_records().count(), 1);
}

#[test]
fn builder_rejects_bad_delimiters_with_a_clear_message() {
    for d in [b'"', b'\r', b'\n', 0xA3] {
        let err = ReaderBuilder::new().delimiter(d).from_reader(&b""[..]).unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Config(_)), "{d}");
    }
    let err = ReaderBuilder::new().delimiter(0xC2).from_reader(&b""[..]).unwrap_err();
    assert!(err.to_string().contains("not ASCII"), "{err}");
    // A quote byte as delimiter is fine once quoting is off.
    assert!(ReaderBuilder::new().delimiter(b'"').quoting(false).from_reader(&b""[..]).is_ok());
}

/// Every record's line is one more than the `\n`s before its first byte
/// (the obvious twin of the reader's counting), on documents whose quoted
/// fields hold newlines, doubled quotes and CRLFs, read whole and in small
/// pieces: the fast path counts the newlines of quoted fields itself.
#[test]
fn record_lines_count_the_newlines_inside_quoted_fields() {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut next = move |n: u64| rng.below(n);
    let pieces: [&[u8]; 9] = [
        b"ab",
        b"\"x\ny\"",
        b"\"\n\n\"",
        b"\"a\"\"\nb\"",
        b"\"\"",
        b"\"q\r\nr\"",
        b"",
        b"7",
        b"\"p\"",
    ];
    for case in 0..300 {
        let mut doc = Vec::new();
        let fields = 1 + next(4);
        for _ in 0..1 + next(30) {
            for f in 0..fields {
                if f > 0 {
                    doc.push(b',');
                }
                doc.extend_from_slice(pieces[next(pieces.len() as u64) as usize]);
            }
            doc.extend_from_slice(if next(4) == 0 { b"\r\n" } else { b"\n" });
        }
        for chunk in [1, 5, 64, 1 << 16] {
            let mut rdr = ReaderBuilder::new()
                .has_headers(false)
                .capacity(chunk)
                .from_reader(Chunked { data: &doc, chunk })
                .unwrap();
            let mut n = 0;
            while let Some(rec) = rdr.next_record().unwrap() {
                let pos = rec.position();
                let want = 1 + doc[..pos.byte as usize].iter().filter(|&&b| b == b'\n').count();
                assert_eq!(pos.line, want as u64, "case {case} chunk {chunk} record {n}");
                n += 1;
            }
            assert!(n > 0);
        }
    }
}

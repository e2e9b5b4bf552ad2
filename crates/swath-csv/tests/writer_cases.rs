//! The writer's cases as data: BAD-INPUTS.md A4 (oracle: `csv::Writer`
//! with its defaults), every quote style, the escape byte, CRLF, the
//! formula guard, typed fields and the field count.

use swath_csv::{QuoteStyle, Terminator, WriteErrorKind, Writer, WriterBuilder};

/// Records written with `b`, as bytes.
fn write_with(b: &WriterBuilder, records: &[&[&[u8]]]) -> Vec<u8> {
    let mut wtr = b.from_writer(Vec::new());
    for rec in records {
        wtr.write_record(rec.iter()).unwrap();
    }
    wtr.finish().unwrap()
}

/// The same records through `csv::Writer` with its defaults.
fn oracle(records: &[&[&[u8]]]) -> Vec<u8> {
    let mut wtr = csv::WriterBuilder::new().flexible(true).from_writer(Vec::new());
    for rec in records {
        wtr.write_record(rec.iter()).unwrap();
    }
    wtr.into_inner().unwrap()
}

/// (record, expected output with the defaults, same as csv::Writer?)
type Case<'a> = (&'a [&'a [u8]], &'a [u8], bool);

#[test]
fn a4_edge_cases_match_the_oracle() {
    let cases: &[Case] = &[
        (&[b""], b"\"\"\n", true),
        (&[b"", b""], b",\n", true),
        (&[b" a"], b" a\n", true),
        (&[b"a "], b"a \n", true),
        (&[b"a\rb"], b"\"a\rb\"\n", true),
        (&[b"a\nb"], b"\"a\nb\"\n", true),
        (&[b"#x"], b"#x\n", true),
        (&[b"\\."], b"\\.\n", true),
        (&[b"x\0y"], b"x\0y\n", true),
        (&[b"\xff"], b"\xff\n", true),
        (&[b"a\"b"], b"\"a\"\"b\"\n", true),
        (&[b"\""], b"\"\"\"\"\n", true),
        (&[b"a,b", b"c"], b"\"a,b\",c\n", true),
        (&[b"", b"x", b""], b",x,\n", true),
        // csv::Writer leaves a leading BOM bare, and csv::Reader then drops
        // it; we quote it (only at the very start of the output).
        (&[b"\xEF\xBB\xBFa"], b"\"\xEF\xBB\xBFa\"\n", false),
    ];
    let b = WriterBuilder::new();
    for (i, (rec, want, same)) in cases.iter().enumerate() {
        let got = write_with(&b, &[rec]);
        assert_eq!(got, *want, "case {i}: {:?}", String::from_utf8_lossy(want));
        if *same {
            assert_eq!(got, oracle(&[rec]), "case {i} differs from csv::Writer");
        }
    }
}

#[test]
fn a_bom_is_quoted_only_at_the_start_of_the_output() {
    let b = WriterBuilder::new();
    assert_eq!(
        write_with(&b, &[&[b"x", b"\xEF\xBB\xBF"], &[b"\xEF\xBB\xBF"]]),
        b"x,\xEF\xBB\xBF\n\xEF\xBB\xBF\n"
    );
}

#[test]
fn a4_comment_byte_is_quoted_when_set() {
    let mut b = WriterBuilder::new();
    b.comment(Some(b'#'));
    assert_eq!(write_with(&b, &[&[b"#x"]]), b"\"#x\"\n");
    assert_eq!(write_with(&b, &[&[b"a", b"#x"]]), b"a,\"#x\"\n");
    assert_eq!(write_with(&b, &[&[b"a#"]]), b"a#\n");
}

#[test]
fn a4_crlf_keeps_the_cr() {
    let mut b = WriterBuilder::new();
    b.terminator(Terminator::CrLf);
    assert_eq!(write_with(&b, &[&[b"a\rb"], &[b"c"]]), b"\"a\rb\"\r\nc\r\n");
}

#[test]
fn zero_fields_is_an_empty_line() {
    assert_eq!(write_with(&WriterBuilder::new(), &[&[]]), b"\n");
}

#[test]
fn quote_styles() {
    let rec: &[&[u8]] = &[b"a", b"", b"1", b"-2.5", b"1e5", b"NaN", b"x,y", b"12a"];
    let cases: &[(QuoteStyle, &[u8])] = &[
        (QuoteStyle::Necessary, b"a,,1,-2.5,1e5,NaN,\"x,y\",12a\n"),
        (QuoteStyle::Always, b"\"a\",\"\",\"1\",\"-2.5\",\"1e5\",\"NaN\",\"x,y\",\"12a\"\n"),
        (QuoteStyle::NonNumeric, b"\"a\",\"\",1,-2.5,1e5,NaN,\"x,y\",\"12a\"\n"),
        (QuoteStyle::Never, b"a,,1,-2.5,1e5,NaN,x,y,12a\n"),
    ];
    for (style, want) in cases {
        let got = write_with(WriterBuilder::new().quote_style(*style), &[rec]);
        assert_eq!(got, *want, "{style:?}");
        let csv_style = match style {
            QuoteStyle::Necessary => csv::QuoteStyle::Necessary,
            QuoteStyle::Always => csv::QuoteStyle::Always,
            QuoteStyle::NonNumeric => csv::QuoteStyle::NonNumeric,
            _ => csv::QuoteStyle::Never,
        };
        let mut oracle = csv::WriterBuilder::new().quote_style(csv_style).from_writer(Vec::new());
        oracle.write_record(rec.iter()).unwrap();
        assert_eq!(got, oracle.into_inner().unwrap(), "{style:?} vs csv");
    }
}

#[test]
fn never_cannot_protect_a_sole_empty_field() {
    let b = WriterBuilder::new().quote_style(QuoteStyle::Never).clone();
    assert_eq!(write_with(&b, &[&[b""]]), b"\n");
}

#[test]
fn non_numeric_uses_the_type_for_typed_fields() {
    let mut wtr = WriterBuilder::new().quote_style(QuoteStyle::NonNumeric).from_writer(Vec::new());
    wtr.write_row((1u8, "1", true, 2.5f64, None::<u8>, 'c', -7i64)).unwrap();
    assert_eq!(wtr.finish().unwrap(), b"1,1,\"true\",2.5,\"\",\"c\",-7\n");
}

#[test]
fn escape_byte() {
    let mut b = WriterBuilder::new();
    b.escape(Some(b'\\'));
    let cases: &[(&[u8], &[u8])] = &[
        (b"plain", b"plain\n"),
        (b"a\"b", b"\"a\\\"b\"\n"),
        (b"a\\b", b"\"a\\\\b\"\n"),
        (b"a,b", b"\"a,b\"\n"),
        (b"\\\"", b"\"\\\\\\\"\"\n"),
    ];
    for (field, want) in cases {
        assert_eq!(write_with(&b, &[&[field]]), *want);
    }
}

#[test]
fn other_delimiter_and_quote() {
    let mut b = WriterBuilder::new();
    b.delimiter(b'\t').quote(b'\'');
    assert_eq!(write_with(&b, &[&[b"a\tb", b"it's", b"x,y\"z"]]), b"'a\tb'\t'it''s'\tx,y\"z\n");
}

#[test]
fn numbers_are_scanned_when_the_delimiter_could_be_in_them() {
    let mut wtr = WriterBuilder::new().delimiter(b'.').from_writer(Vec::new());
    wtr.write_row((1.5f64, 2u8, -3i8)).unwrap();
    assert_eq!(wtr.finish().unwrap(), b"\"1.5\".2.-3\n");
    let mut wtr = WriterBuilder::new().delimiter(b'-').from_writer(Vec::new());
    wtr.write_row((1.5f64, -3i8)).unwrap();
    assert_eq!(wtr.finish().unwrap(), b"1.5-\"-3\"\n");
}

#[test]
fn formula_guard() {
    let mut b = WriterBuilder::new();
    b.formula_guard(true);
    let cases: &[(&[u8], &[u8])] = &[
        (b"=1+2", b"\"'=1+2\"\n"),
        (b"+a", b"\"'+a\"\n"),
        (b"-b", b"\"'-b\"\n"),
        (b"@c", b"\"'@c\"\n"),
        (b"\tx", b"\"'\tx\"\n"),
        (b"\ry", b"\"'\ry\"\n"),
        (b"=\"q\"", b"\"'=\"\"q\"\"\"\n"),
        (b"a=b", b"a=b\n"),
        (b"", b"\"\"\n"),
    ];
    for (field, want) in cases {
        assert_eq!(write_with(&b, &[&[field]]), *want, "{:?}", String::from_utf8_lossy(field));
    }
    // Off by default.
    assert_eq!(write_with(&WriterBuilder::new(), &[&[b"=1+2"]]), b"=1+2\n");
    // Typed numbers are data, not formulas.
    let mut wtr = b.from_writer(Vec::new());
    wtr.write_row((-5i32, -0.5f64, "-5")).unwrap();
    assert_eq!(wtr.finish().unwrap(), b"-5,-0.5,\"'-5\"\n");
    // The prefix is escaped when it is the quote byte; Never only prefixes.
    let mut q = b.clone();
    q.quote(b'\'');
    assert_eq!(write_with(&q, &[&[b"=x"]]), b"'''=x'\n");
    let mut never = b.clone();
    never.quote_style(QuoteStyle::Never);
    assert_eq!(write_with(&never, &[&[b"=x"]]), b"'=x\n");
}

#[test]
fn typed_fields() {
    let mut wtr = Writer::from_writer(Vec::new());
    wtr.write_row((1.0f64, 0.1f64, 1e20f64, f64::NAN, f64::INFINITY, -f64::INFINITY)).unwrap();
    wtr.write_row((0.1f32, -0.0f64, f64::MIN_POSITIVE, 5e-324f64)).unwrap();
    wtr.write_row((i128::MIN, u128::MAX, u64::MAX, i8::MIN, 0usize, -1isize)).unwrap();
    wtr.write_row(('é', true, false, String::from("s"), vec![0xffu8], b"\0")).unwrap();
    wtr.write_row((Some(1u8), None::<f64>, Some("a,b"), std::borrow::Cow::from("c"))).unwrap();
    wtr.write_row([1u32, 2, 3]).unwrap();
    wtr.write_row(&[&b"x"[..], b"y"][..]).unwrap();
    wtr.write_row(vec!["v"]).unwrap();
    let want = "1.0,0.1,1e20,NaN,inf,-inf\n\
                0.1,-0.0,2.2250738585072014e-308,5e-324\n\
                -170141183460469231731687303715884105728,340282366920938463463374607431768211455,18446744073709551615,-128,0,-1\n\
                é,true,false,s,\u{fffd},\0\n\
                1,,\"a,b\",c\n\
                1,2,3\n\
                x,y\n\
                v\n";
    let got = wtr.finish().unwrap();
    assert_eq!(String::from_utf8_lossy(&got), want);
    // Floats read back to the same value.
    for s in ["0.1", "1e20", "2.2250738585072014e-308", "5e-324", "inf", "-inf"] {
        let x: f64 = s.parse().unwrap();
        let mut wtr = Writer::from_writer(Vec::new());
        wtr.write_row((x,)).unwrap();
        assert_eq!(wtr.finish().unwrap(), format!("{s}\n").as_bytes());
    }
}

#[test]
fn field_count_is_checked_before_writing() {
    let mut wtr = WriterBuilder::new().fields(Some(2)).from_writer(Vec::new());
    wtr.write_row((1, 2)).unwrap();
    let err = wtr.write_row((1, 2, 3)).unwrap_err();
    assert!(matches!(err.kind(), WriteErrorKind::FieldCount { expected: 2, got: 3 }));
    assert_eq!(err.record(), 2);
    assert_eq!(err.to_string(), "writing record 2: record has 3 fields, expected 2");
    let err = wtr.write_record(["only"]).unwrap_err();
    assert!(matches!(err.kind(), WriteErrorKind::FieldCount { got: 1, .. }));
    let err = wtr.write_record(["a", "b", "c"]).unwrap_err();
    assert!(matches!(err.kind(), WriteErrorKind::FieldCount { got: 3, .. }));
    // Streaming: the third field is refused and the whole record dropped.
    wtr.write_field("x").unwrap();
    wtr.write_field("y").unwrap();
    assert!(wtr.write_field("z").is_err());
    wtr.write_field("one").unwrap();
    assert!(wtr.end_record().is_err());
    wtr.write_row(("a", "b")).unwrap();
    assert_eq!(wtr.records(), 2);
    assert_eq!(wtr.finish().unwrap(), b"1,2\na,b\n");
}

#[test]
fn a_lying_to_row_is_refused() {
    struct Liar;
    impl swath_csv::ToRow for Liar {
        fn field_count(&self) -> usize {
            2
        }
        fn append_fields(&self, row: &mut swath_csv::RowBuf<'_>) {
            row.field("only one");
        }
    }
    let mut wtr = WriterBuilder::new().fields(Some(2)).from_writer(Vec::new());
    assert!(wtr.write_row(Liar).is_err());
    assert_eq!(wtr.finish().unwrap(), b"");
}

#[test]
fn streaming_fields_and_finish_ends_the_open_record() {
    let mut wtr = Writer::from_writer(Vec::new());
    wtr.write_field(&1u8).unwrap();
    wtr.write_field("a\nb").unwrap();
    wtr.end_record().unwrap();
    wtr.write_field("tail").unwrap();
    assert_eq!(wtr.finish().unwrap(), b"1,\"a\nb\"\ntail\n");
}

#[test]
fn records_longer_than_the_buffer() {
    let long = "ab\"c,".repeat(1000);
    let mut wtr = WriterBuilder::new().buffer_capacity(16).from_writer(Vec::new());
    for _ in 0..3 {
        wtr.write_row((long.as_str(), 1u8)).unwrap();
        wtr.write_row(("short",)).unwrap();
    }
    let got = wtr.finish().unwrap();
    let one = format!("\"{}\",1\nshort\n", long.replace('"', "\"\""));
    assert_eq!(String::from_utf8(got).unwrap(), one.repeat(3));

    // One record of 200 KB through a 1 KiB buffer: the buffer grows for it,
    // then is given back; nothing is lost.
    let huge = "x,".repeat(100_000);
    let mut wtr = WriterBuilder::new().buffer_capacity(1024).from_writer(Vec::new());
    wtr.write_field("open").unwrap();
    wtr.write_row((huge.as_str(),)).unwrap();
    for i in 0..1000 {
        wtr.write_row((i, "tail")).unwrap();
    }
    let got = wtr.finish().unwrap();
    let mut want = format!("open,\"{huge}\"\n");
    for i in 0..1000 {
        want.push_str(&format!("{i},tail\n"));
    }
    assert_eq!(String::from_utf8(got).unwrap(), want);
}

#[test]
fn drop_flushes_complete_records() {
    use std::cell::RefCell;
    use std::io;
    use std::rc::Rc;

    #[derive(Clone, Default)]
    struct Shared(Rc<RefCell<Vec<u8>>>);
    impl io::Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    let out = Shared::default();
    let mut wtr = Writer::from_writer(out.clone());
    wtr.write_row(("a", 1)).unwrap();
    wtr.write_field("open").unwrap();
    drop(wtr);
    assert_eq!(*out.0.borrow(), b"a,1\n");
}

#[test]
fn from_path_writes_a_file() {
    let dir = std::env::temp_dir().join(format!("swath-writer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("out.csv");
    let mut wtr = Writer::from_path(&path).unwrap();
    wtr.write_row(("x", 2)).unwrap();
    wtr.finish().unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), b"x,2\n");
    assert!(Writer::from_path(dir.join("no/such/dir/out.csv")).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "serde")]
mod serde_cases {
    use super::*;

    #[derive(serde::Serialize)]
    #[allow(dead_code)]
    enum Color {
        Red,
        Blue,
    }

    #[derive(serde::Serialize)]
    struct Row<'a> {
        id: u64,
        name: &'a str,
        score: Option<f64>,
        color: Color,
        ok: bool,
    }

    #[test]
    fn structs_with_a_header() {
        let mut wtr = Writer::from_writer(Vec::new());
        let rows = [
            Row { id: 1, name: "a,b", score: Some(0.5), color: Color::Red, ok: true },
            Row { id: 2, name: "", score: None, color: Color::Blue, ok: false },
        ];
        for r in &rows {
            wtr.serialize(r).unwrap();
        }
        assert_eq!(
            wtr.finish().unwrap(),
            b"id,name,score,color,ok\n1,\"a,b\",0.5,Red,true\n2,,,Blue,false\n"
        );
    }

    #[test]
    fn same_bytes_as_the_csv_crate() {
        let rows = [
            Row { id: 7, name: "q\"x", score: Some(1e21), color: Color::Blue, ok: true },
            Row { id: 8, name: "line\nbreak", score: Some(-0.1), color: Color::Red, ok: false },
        ];
        let mut ours = Writer::from_writer(Vec::new());
        let mut theirs = csv::Writer::from_writer(Vec::new());
        for r in &rows {
            ours.serialize(r).unwrap();
            theirs.serialize(r).unwrap();
        }
        assert_eq!(ours.finish().unwrap(), theirs.into_inner().unwrap());
    }

    #[test]
    fn tuples_without_header_and_errors() {
        let mut wtr = WriterBuilder::new().fields(Some(2)).from_writer(Vec::new());
        wtr.serialize((1, "x")).unwrap();
        wtr.serialize(["a", "b"]).unwrap();
        let err = wtr.serialize((1, (2, 3))).unwrap_err();
        assert!(matches!(err.kind(), WriteErrorKind::Serialize(_)), "{err}");
        let mut map = std::collections::BTreeMap::new();
        map.insert("k", 1);
        assert!(wtr.serialize(&map).is_err());
        assert!(wtr.serialize((1, 2, 3)).is_err());
        assert_eq!(wtr.finish().unwrap(), b"1,x\na,b\n");

        let mut wtr = WriterBuilder::new().has_headers(false).from_writer(Vec::new());
        wtr.serialize(Row { id: 3, name: "n", score: None, color: Color::Red, ok: true }).unwrap();
        assert_eq!(wtr.finish().unwrap(), b"3,n,,Red,true\n");
    }
}

/// `from_vec` encodes in place: the same bytes as a writer over a `Vec`,
/// after what the `Vec` held, with no flush into the inner writer however
/// much is written, and a flush on the way changes nothing.
#[test]
fn from_vec_writes_in_place_what_from_writer_writes() {
    let bom_field: &[u8] = b"\xEF\xBB\xBFa";
    let records: Vec<Vec<&[u8]>> = (0..20_000)
        .map(|i| match i % 4 {
            0 => vec![&b"plain"[..], b"a,b"],
            1 => vec![&b"q\"uote"[..], b""],
            2 => vec![&b"line\nbreak"[..], bom_field],
            _ => vec![&b""[..], b"x"],
        })
        .collect();
    let b = WriterBuilder::new();
    let want = write_with(&b, &records.iter().map(|r| &r[..]).collect::<Vec<_>>());

    let mut wtr = b.from_vec(Vec::new());
    for rec in &records {
        wtr.write_record(rec.iter()).unwrap();
    }
    // 330 KB, past the default buffer: nothing went to the inner writer.
    assert!(wtr.get_ref().is_empty());
    assert_eq!(wtr.into_vec().unwrap(), want);

    // A flush on the way moves bytes to the inner Vec; the result is the same.
    let mut wtr = b.from_vec(Vec::new());
    for (i, rec) in records.iter().enumerate() {
        wtr.write_record(rec.iter()).unwrap();
        if i == 100 {
            wtr.flush().unwrap();
        }
    }
    assert_eq!(wtr.into_vec().unwrap(), want);

    // After bytes already there, the output does not start at the writer:
    // a leading BOM stays bare, as in the middle of any output.
    let mut wtr = b.from_vec(b"h\n".to_vec());
    wtr.write_record([bom_field]).unwrap();
    assert_eq!(wtr.into_vec().unwrap(), b"h\n\xEF\xBB\xBFa\n");
    let mut wtr = b.from_vec(Vec::new());
    wtr.write_record([bom_field]).unwrap();
    assert_eq!(wtr.into_vec().unwrap(), b"\"\xEF\xBB\xBFa\"\n");

    // An open record is ended, and checked against the field count.
    let mut wtr = b.from_vec(Vec::new());
    wtr.write_field("a").unwrap();
    assert_eq!(wtr.into_vec().unwrap(), b"a\n");
    let mut wtr = WriterBuilder::new().fields(Some(2)).from_vec(Vec::new());
    wtr.write_field("a").unwrap();
    let err = wtr.into_vec().unwrap_err();
    assert!(matches!(err.kind(), WriteErrorKind::FieldCount { expected: 2, got: 1 }), "{err}");
}

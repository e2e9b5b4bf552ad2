//! Round trip through two readers, the `csv` crate's (`ByteRecord`,
//! `has_headers(false)`) and swath-csv's own (strict quoting): for any
//! records of arbitrary bytes, reading what we wrote gives the same
//! records, for every quote style that can represent them, both
//! terminators, doubling or an escape byte, other delimiters and quotes,
//! and a comment byte.
//!
//! The documented exceptions, left out of the generators on purpose:
//! - a record of zero fields (written as an empty line, which readers skip);
//! - under `QuoteStyle::Never`, a field holding the delimiter, the quote,
//!   the escape or comment byte, `\r` or `\n`, and a record of one empty
//!   field: Never cannot represent them.

use proptest::prelude::*;
use swath_csv::{QuoteStyle, Terminator, WriterBuilder};

#[derive(Clone, Copy, Debug)]
struct Dialect {
    delimiter: u8,
    quote: u8,
    escape: Option<u8>,
    comment: Option<u8>,
    terminator: Terminator,
}

fn dialects() -> impl Strategy<Value = Dialect> {
    (
        prop::sample::select(vec![b',', b';', b'\t', b'|']),
        prop::sample::select(vec![b'"', b'\'']),
        prop::sample::select(vec![None, Some(b'\\')]),
        prop::sample::select(vec![None, Some(b'#')]),
        prop::sample::select(vec![Terminator::Lf, Terminator::CrLf]),
    )
        .prop_map(|(delimiter, quote, escape, comment, terminator)| Dialect {
            delimiter,
            quote,
            escape,
            comment,
            terminator,
        })
}

/// Bytes biased towards the ones that matter, plus any byte at all.
fn field_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        3 => prop::sample::select(b",;\t|\"'\\#\r\n \0a".to_vec()),
        1 => any::<u8>(),
    ]
}

fn records(byte: impl Strategy<Value = u8>) -> impl Strategy<Value = Vec<Vec<Vec<u8>>>> {
    let field = prop::collection::vec(byte, 0..10);
    let record = prop::collection::vec(field, 1..6);
    prop::collection::vec(record, 1..8)
}

fn write(style: QuoteStyle, d: Dialect, recs: &[Vec<Vec<u8>>]) -> Vec<u8> {
    let mut wtr = WriterBuilder::new()
        .quote_style(style)
        .delimiter(d.delimiter)
        .quote(d.quote)
        .escape(d.escape)
        .comment(d.comment)
        .terminator(d.terminator)
        .buffer_capacity(16)
        .from_writer(Vec::new());
    for rec in recs {
        wtr.write_record(rec).unwrap();
    }
    wtr.finish().unwrap()
}

fn read_csv(d: Dialect, data: &[u8]) -> Vec<Vec<Vec<u8>>> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(d.delimiter)
        .quote(d.quote)
        .escape(d.escape)
        .double_quote(d.escape.is_none())
        .comment(d.comment)
        .from_reader(data);
    let mut out = Vec::new();
    let mut rec = csv::ByteRecord::new();
    while rdr.read_byte_record(&mut rec).unwrap() {
        out.push(rec.iter().map(<[u8]>::to_vec).collect());
    }
    out
}

fn read_swath(d: Dialect, data: &[u8]) -> Vec<Vec<Vec<u8>>> {
    let mut rdr = swath_csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(d.delimiter)
        .quote(d.quote)
        .escape(d.escape)
        .double_quote(d.escape.is_none())
        .comment(d.comment)
        .capacity(16)
        .from_reader(data)
        .unwrap();
    let mut out = Vec::new();
    while let Some(rec) = rdr.next_record().unwrap() {
        out.push(rec.iter().map(<[u8]>::to_vec).collect());
    }
    out
}

/// Both readers give back `recs`.
fn check(d: Dialect, out: &[u8], recs: &[Vec<Vec<u8>>]) -> Result<(), TestCaseError> {
    prop_assert_eq!(&read_csv(d, out), recs, "csv crate");
    prop_assert_eq!(&read_swath(d, out), recs, "swath-csv");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn necessary(d in dialects(), recs in records(field_byte())) {
        let out = write(QuoteStyle::Necessary, d, &recs);
        check(d, &out, &recs)?;
    }

    #[test]
    fn always(d in dialects(), recs in records(field_byte())) {
        let out = write(QuoteStyle::Always, d, &recs);
        check(d, &out, &recs)?;
    }

    #[test]
    fn non_numeric(d in dialects(), recs in records(prop_oneof![field_byte(), prop::sample::select(b"0123456789.-e".to_vec())])) {
        let out = write(QuoteStyle::NonNumeric, d, &recs);
        check(d, &out, &recs)?;
    }

    #[test]
    fn never_for_plain_fields(
        d in dialects(),
        recs in records(prop::sample::select(b"ab \0\xff019.-".to_vec()))
            .prop_filter("one empty field", |rs| rs.iter().all(|r| r.len() != 1 || !r[0].is_empty())),
    ) {
        let out = write(QuoteStyle::Never, d, &recs);
        check(d, &out, &recs)?;
    }
}

#[test]
fn a_leading_byte_order_mark_survives() {
    let d = Dialect {
        delimiter: b',',
        quote: b'"',
        escape: None,
        comment: None,
        terminator: Terminator::Lf,
    };
    let recs = vec![vec![b"\xEF\xBB\xBFa".to_vec(), b"b".to_vec()]];
    let out = write(QuoteStyle::Necessary, d, &recs);
    assert_eq!(read_csv(d, &out), recs);
    assert_eq!(read_swath(d, &out), recs);
}

//! `record.deserialize::<T>()` (feature `serde`).

#![cfg(feature = "serde")]

use serde::Deserialize;
use swath_csv::{ErrorKind, Position, ReaderBuilder};

#[derive(Debug, Deserialize, PartialEq)]
struct Row<'a> {
    id: u64,
    name: &'a str,
    score: Option<f64>,
    active: bool,
    kind: Kind,
    raw: &'a [u8],
}

#[derive(Debug, Deserialize, PartialEq)]
enum Kind {
    #[serde(rename = "a")]
    A,
    #[serde(rename = "b")]
    B,
}

const DATA: &[u8] =
    b"name,id,score,active,kind,raw\n\"Smith, \"\"J\"\"\",1,2.5,true,a,x\nLee,2,,false,b,\xff\n";

#[test]
fn structs_by_header_name_borrowing_from_the_buffer() {
    let mut rdr = ReaderBuilder::new().from_reader(DATA).unwrap();
    let rec = rdr.next_record().unwrap().unwrap();
    let row: Row = rec.deserialize().unwrap();
    assert_eq!(
        row,
        Row {
            id: 1,
            name: "Smith, \"J\"",
            score: Some(2.5),
            active: true,
            kind: Kind::A,
            raw: b"x"
        }
    );
    let rec = rdr.next_record().unwrap().unwrap();
    let row: Row = rec.deserialize().unwrap();
    assert_eq!((row.id, row.score, row.kind, row.raw), (2, None, Kind::B, &b"\xff"[..]));
    // The name borrows straight from the reader's buffer.
    assert!(rec.get(0).unwrap().as_ptr() == row.name.as_ptr());
}

#[test]
fn tuples_and_structs_by_position_without_headers() {
    #[derive(Debug, Deserialize, PartialEq)]
    struct P<'a>(&'a str, i32);
    let mut rdr = ReaderBuilder::new().has_headers(false).from_reader(&b"x,-3\n"[..]).unwrap();
    let rec = rdr.next_record().unwrap().unwrap();
    assert_eq!(rec.deserialize::<(&str, i32)>().unwrap(), ("x", -3));
    assert_eq!(rec.deserialize::<P>().unwrap(), P("x", -3));
    assert_eq!(rec.deserialize::<Vec<String>>().unwrap(), ["x", "-3"]);
}

#[test]
fn errors_name_the_field_header_and_text_at_its_position() {
    let mut rdr = ReaderBuilder::new().from_reader(&b"id,name\n1,a\nzz,b\n"[..]).unwrap();
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct R<'a> {
        id: u32,
        name: &'a str,
    }
    rdr.next_record().unwrap().unwrap().deserialize::<R>().unwrap();
    let rec = rdr.next_record().unwrap().unwrap();
    let err = rec.deserialize::<R>().unwrap_err();
    match err.kind() {
        ErrorKind::Deserialize(msg) => {
            assert!(msg.starts_with("field 0 (\"id\"): cannot parse \"zz\" as u32"), "{msg}")
        }
        k => panic!("{k:?}"),
    }
    assert_eq!(err.position(), Some(Position::new(12, 3, 3)));
    let err = rec.deserialize::<(u8, u8, u8)>().unwrap_err();
    assert!(err.to_string().contains("cannot parse"), "{err}");
}

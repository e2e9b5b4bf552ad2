//! The sniffer on the vendored conformance suites and on generated files in
//! every dialect (delimiter, quoting, escape style, line end, header or
//! not), read back with the dialect it finds; and on files that change
//! part-way: quotes only after 10,000 rows, commas then semicolons.

use std::io::Write;
use std::path::{Path, PathBuf};

use swath::text::TextEncoding;
use swath_csv::sniff::{Encoding, LineEnd, Sniffer};
use swath_csv::ReaderBuilder;

fn suite(name: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/conformance").join(name);
    assert!(dir.is_dir(), "conformance suite {name} missing at {}", dir.display());
    dir
}

#[test]
fn csv_spectrum_is_comma_double_quote_with_a_header() {
    let mut seen = 0;
    for entry in std::fs::read_dir(suite("csv-spectrum/csvs")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let s = Sniffer::new().sniff_path(&path).unwrap();
        let d = s.dialect;
        // location_coordinates has no quoted field and a bare `"` in an
        // unquoted one (`37°36'37.8"N`): only a non-quoting reader reads it
        // without an error.
        let quote = if name == "location_coordinates.csv" { None } else { Some(b'"') };
        assert_eq!((d.delimiter, d.quote, d.escape), (b',', quote, None), "{name}: {s:?}");
        assert_eq!(s.encoding, Encoding::Utf8 { bom: false }, "{name}");
        let crlf = name.contains("crlf");
        assert_eq!(d.line_end == LineEnd::CrLf, crlf, "{name}: {:?}", d.line_end);
        // Headers: every file has one; the all-text ones are a guess that
        // must still be right.
        assert!(d.has_headers, "{name}: {s:?}");
        seen += 1;
    }
    assert_eq!(seen, 12);
}

#[test]
fn fastcsv_boms_name_their_encoding() {
    let dir = suite("fastcsv-spec/bom");
    let wide =
        |encoding, bom| Encoding::Decoded { encoding, evidence: "byte order mark".into(), bom };
    let want = [
        ("utf8_nobom.csv", Encoding::Utf8 { bom: false }),
        ("utf8_bom.csv", Encoding::Utf8 { bom: true }),
        ("utf16le_bom.csv", wide(TextEncoding::UTF_16LE, true)),
        ("utf16be_bom.csv", wide(TextEncoding::UTF_16BE, true)),
        ("utf32le_bom.csv", wide(TextEncoding::Utf32 { little_endian: true }, true)),
        ("utf32be_bom.csv", wide(TextEncoding::Utf32 { little_endian: false }, true)),
    ];
    for (file, enc) in want {
        let s = Sniffer::new().sniff_path(dir.join(file)).unwrap();
        assert_eq!(s.encoding, enc, "{file}");
        assert_eq!(s.dialect.delimiter, b',', "{file}: {s:?}");
    }
}

/// One generated dialect.
#[derive(Clone, Copy, Debug)]
struct Gen {
    delim: u8,
    quote: Option<u8>,
    escape: Option<u8>,
    crlf: bool,
    header: bool,
}

impl Gen {
    fn field(&self, text: &str, out: &mut Vec<u8>) {
        let Some(q) = self.quote else {
            out.extend_from_slice(text.as_bytes());
            return;
        };
        let needs = text
            .bytes()
            .any(|b| b == self.delim || b == q || b == b'\n' || b == b'\r' || b == b'\\');
        if !needs {
            out.extend_from_slice(text.as_bytes());
            return;
        }
        out.push(q);
        for b in text.bytes() {
            if b == q || (self.escape.is_some() && b == b'\\') {
                out.push(self.escape.unwrap_or(q));
            }
            out.push(b);
        }
        out.push(q);
    }

    /// The file and its records.
    fn file(&self, rows: usize) -> (Vec<u8>, Vec<Vec<String>>) {
        let d = self.delim as char;
        let mut recs: Vec<Vec<String>> = Vec::new();
        if self.header {
            recs.push(["id", "name", "score", "when", "note"].map(String::from).to_vec());
        }
        for i in 0..rows {
            let name = match (self.quote, i % 3) {
                (Some(_), 0) => format!("Smith{d} J"),
                (None, _) if d == ' ' => format!("n{}", i % 17),
                _ => format!("n {}", i % 17),
            };
            let note = match (self.quote, i % 5) {
                (Some(q), 0) => format!("say {}hi{}", q as char, q as char),
                (Some(_), 1) if i % 10 == 1 => "two\nlines".to_string(),
                // A bare quote mid-field: only a non-quoting reader takes it.
                (None, 0) if d == ' ' => "12\"ruler".to_string(),
                (None, 0) => "12\" ruler".to_string(),
                _ => "plain".to_string(),
            };
            let score = format!("{}.{}", i % 100, i % 7);
            let when = format!("2024-0{}-1{}", i % 9 + 1, i % 10);
            recs.push(vec![i.to_string(), name, score, when, note]);
        }
        let mut out = Vec::new();
        for r in &recs {
            for (j, f) in r.iter().enumerate() {
                if j > 0 {
                    out.push(self.delim);
                }
                self.field(f, &mut out);
            }
            out.extend_from_slice(if self.crlf { b"\r\n" } else { b"\n" });
        }
        (out, recs)
    }
}

fn read_back(path: &Path, s: &swath_csv::sniff::Sniffed) -> Vec<Vec<String>> {
    let mut b = ReaderBuilder::new();
    s.dialect.configure(&mut b);
    b.has_headers(false);
    let mut rdr = b.from_path(path).unwrap();
    let mut out = Vec::new();
    while let Some(r) = rdr.next_record().unwrap() {
        out.push(r.iter().map(|f| String::from_utf8(f.to_vec()).unwrap()).collect());
    }
    out
}

#[test]
fn generated_files_in_every_dialect_are_sniffed_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g.csv");
    let mut cases = 0;
    for &delim in b",\t;|:^~ " {
        for (quote, escape) in
            [(Some(b'"'), None), (Some(b'\''), None), (Some(b'"'), Some(b'\\')), (None, None)]
        {
            for crlf in [false, true] {
                for header in [true, false] {
                    let g = Gen { delim, quote, escape, crlf, header };
                    let (bytes, recs) = g.file(1500);
                    std::fs::write(&path, &bytes).unwrap();
                    // Small samples: many of them, spread over the file.
                    let s = Sniffer::new().sample_bytes(4096).sniff_path(&path).unwrap();
                    let d = s.dialect;
                    let ctx = format!("{g:?}: {s:?}");
                    assert_eq!(d.delimiter, delim, "{ctx}");
                    assert_eq!((d.quote, d.escape), (quote, escape), "{ctx}");
                    assert_eq!(d.has_headers, header, "{ctx}");
                    assert_eq!(d.line_end, if crlf { LineEnd::CrLf } else { LineEnd::Lf }, "{ctx}");
                    assert_eq!(s.fields, 5, "{ctx}");
                    assert!(s.confidence >= 0.75, "{ctx}");
                    assert!(s.samples.len() > 5 || escape.is_some(), "{ctx}");
                    assert_eq!(s.quotes_seen, quote.is_some(), "{ctx}");
                    assert_eq!(read_back(&path, &s), recs, "{ctx}");
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 8 * 4 * 2 * 2);
}

#[test]
fn quotes_after_ten_thousand_rows_are_found() {
    // 10,000 rows without a quote, then fields quoted with `'` that hold
    // the delimiter: read from the head alone, the default `"` would split
    // them.
    let mut bytes = b"id,name,city\n".to_vec();
    for i in 0..10_000 {
        writeln!(bytes, "{i},n{},c{}", i % 13, i % 7).unwrap();
    }
    for i in 10_000..12_000 {
        writeln!(bytes, "{i},'Smith, J{}','Paris, FR'", i % 13).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("late.csv");
    std::fs::write(&path, &bytes).unwrap();
    let s = Sniffer::new().sniff_path(&path).unwrap();
    assert_eq!((s.dialect.delimiter, s.dialect.quote), (b',', Some(b'\'')), "{s:?}");
    assert!(s.quotes_seen && s.dialect.has_headers, "{s:?}");
    let recs = read_back(&path, &s);
    assert_eq!(recs.len(), 12_001);
    assert_eq!(recs[11_000], ["10999", "Smith, J1", "Paris, FR"]);
    // The head alone cannot see them.
    let head = Sniffer::new().sniff_bytes(&bytes[..64 << 10]);
    assert_eq!(head.dialect.quote, Some(b'"'));
    assert!(!head.quotes_seen);
}

#[test]
fn a_file_that_turns_from_commas_to_semicolons_says_so() {
    let mut bytes = b"a,b,c\n".to_vec();
    for i in 0..6000 {
        writeln!(bytes, "{i},x{i},{}", i % 9).unwrap();
    }
    for i in 0..6000 {
        writeln!(bytes, "{i};y{i};{}", i % 9).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("half.csv");
    std::fs::write(&path, &bytes).unwrap();
    let s = Sniffer::new().sample_bytes(4096).sniff_path(&path).unwrap();
    assert!(!s.disagreements.is_empty(), "{s:?}");
    assert!(s.disagreements.iter().all(|d| d.delimiter == b';' && d.byte > 60_000), "{s:?}");
    assert!(s.confidence < 0.6, "{s:?}");
}

#[test]
fn not_utf8_is_detected_naming_the_byte() {
    let mut bytes = b"name,city\n".to_vec();
    for i in 0..3000 {
        writeln!(bytes, "n{i},Paris").unwrap();
    }
    let at = bytes.len() as u64 + 4;
    bytes.extend_from_slice(b"n1,Z\xfcrich\n");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("latin1.csv");
    std::fs::write(&path, &bytes).unwrap();
    let s = Sniffer::new().sample_bytes(4096).sniff_path(&path).unwrap();
    assert_eq!(s.encoding.decoded(), Some(TextEncoding::WINDOWS_1252), "{s:?}");
    let said = s.encoding.describe();
    assert!(said.starts_with(&format!("windows-1252 (not UTF-8 (byte {at}: FC);")), "{said}");
}

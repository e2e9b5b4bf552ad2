//! Generated CSV documents for the tests that cut files: quoted newlines
//! (`\n`, `\r\n`, several in a row), doubled quotes, delimiters inside
//! quotes, empty fields, optionally CRLF records and a BOM, so that any
//! byte of the file may be a seam a split or a checkpoint falls on.

use crate::Rng;

/// What a generated document has.
#[derive(Clone, Copy, Debug, Default)]
pub struct CsvShape {
    /// Records end with `\r\n` instead of `\n`.
    pub crlf: bool,
    /// The file starts with a UTF-8 BOM.
    pub bom: bool,
    /// No `\n` after the last record.
    pub no_final_newline: bool,
}

/// A document of a header row `id,text,n` and `rows` records of 3 fields,
/// the same for the same seed.
pub fn csv_document(seed: u64, rows: usize, shape: CsvShape) -> Vec<u8> {
    let mut r = Rng::new(seed);
    let eol: &[u8] = if shape.crlf { b"\r\n" } else { b"\n" };
    let mut out = Vec::new();
    if shape.bom {
        out.extend_from_slice(b"\xEF\xBB\xBF");
    }
    out.extend_from_slice(b"id,text,n");
    out.extend_from_slice(eol);
    for i in 0..rows {
        out.extend_from_slice(i.to_string().as_bytes());
        out.push(b',');
        match r.below(7) {
            0 => out.extend_from_slice(b"\"two\nlines\""),
            1 => out.extend_from_slice(b"\"crlf\r\ninside\""),
            2 => out.extend_from_slice(b"\"say \"\"hi\"\"\nthen, \"\"bye\"\"\""),
            3 => out.extend_from_slice(b"\"\n\n\""),
            4 => {}
            _ => out.extend_from_slice(b"plain"),
        }
        out.push(b',');
        out.extend_from_slice(r.below(1000).to_string().as_bytes());
        if i + 1 < rows || !shape.no_final_newline {
            out.extend_from_slice(eol);
        }
    }
    out
}

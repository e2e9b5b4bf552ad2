//! `swath csv to-json`: one JSON value per record per line.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use anyhow::Result;

use super::CsvOpts;

/// Convert to JSON lines: with headers, one object per record keyed by the
/// header names in column order; with --no-headers, one array of strings.
/// Invalid UTF-8 is an error with its position; so is a record with a
/// different number of fields, unless --flexible.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
With --flexible and headers, a field past the last header is keyed by its
column number (\"3\"), and a missing field is left out of the object.")]
pub struct Args {
    #[command(flatten)]
    opts: CsvOpts,
}

/// Run `swath csv to-json`.
pub fn run(args: Args) -> Result<ExitCode> {
    let mut rdr = args.opts.open(&args.opts.builder())?;
    let headers: Option<Vec<String>> = match rdr.headers()? {
        Some(h) => {
            Some((0..h.len()).map(|i| h.get_str(i).map(str::to_owned)).collect::<Result<_, _>>()?)
        }
        None => None,
    };
    let mut out = BufWriter::with_capacity(256 * 1024, io::stdout().lock());
    // One line buffer, reused: no allocation per record.
    let mut line = Vec::with_capacity(4096);
    while let Some(rec) = rdr.next_record()? {
        line.clear();
        line.push(if headers.is_some() { b'{' } else { b'[' });
        for i in 0..rec.len() {
            let field = rec.get_str(i)?;
            if i > 0 {
                line.push(b',');
            }
            if let Some(h) = &headers {
                match h.get(i) {
                    Some(name) => json_string(&mut line, name),
                    None => json_string(&mut line, itoa::Buffer::new().format(i)),
                }
                line.push(b':');
            }
            json_string(&mut line, field);
        }
        line.extend_from_slice(if headers.is_some() { b"}\n" } else { b"]\n" });
        out.write_all(&line)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Append `s` as a JSON string.
fn json_string(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        if esc.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 15)]);
        } else {
            out.extend_from_slice(esc);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    #[test]
    fn json_strings_are_escaped() {
        let mut out = Vec::new();
        super::json_string(&mut out, "a\"b\\c\nd\u{1}é");
        assert_eq!(String::from_utf8(out).unwrap(), r#""a\"b\\c\nd\u0001é""#);
    }
}

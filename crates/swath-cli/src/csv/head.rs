//! `swath csv head`: the first records, written back as CSV.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use anyhow::Result;

use super::CsvOpts;

/// Print the header row and the first N records, as CSV.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// How many records (the header row not included).
    #[arg(short = 'n', long, default_value_t = 10)]
    lines: u64,
    #[command(flatten)]
    opts: CsvOpts,
}

/// Run `swath csv head`.
pub fn run(args: Args) -> Result<ExitCode> {
    let mut rdr = args.opts.open(&args.opts.builder())?;
    let (delim, quote) = (args.opts.delimiter, args.opts.quote);
    let mut out = BufWriter::new(io::stdout().lock());
    if let Some(h) = rdr.headers()? {
        write_record(&mut out, h.iter(), delim, quote)?;
    }
    let mut n = 0;
    while n < args.lines {
        let Some(rec) = rdr.next_record()? else { break };
        write_record(&mut out, rec.iter(), delim, quote)?;
        n += 1;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Write one record, quoting a field only when it must be (it holds the
/// delimiter, the quote, `\r` or `\n`, or is the only field and empty, so
/// that it survives a round trip).
fn write_record<'a>(
    out: &mut impl Write,
    fields: impl ExactSizeIterator<Item = &'a [u8]>,
    delim: u8,
    quote: u8,
) -> io::Result<()> {
    let single = fields.len() == 1;
    for (i, f) in fields.enumerate() {
        if i > 0 {
            out.write_all(&[delim])?;
        }
        let needs = (single && f.is_empty())
            || f.iter().any(|&b| b == delim || b == quote || b == b'\r' || b == b'\n');
        if !needs {
            out.write_all(f)?;
            continue;
        }
        out.write_all(&[quote])?;
        for part in f.split_inclusive(|&b| b == quote) {
            out.write_all(part)?;
            if part.last() == Some(&quote) {
                out.write_all(&[quote])?;
            }
        }
        out.write_all(&[quote])?;
    }
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn quotes_only_what_needs_it() {
        let mut out = Vec::new();
        let f: [&[u8]; 4] = [b"a", b"b,c", b"say \"hi\"", b""];
        super::write_record(&mut out, f.into_iter(), b',', b'"').unwrap();
        let one: [&[u8]; 1] = [b""];
        super::write_record(&mut out, one.into_iter(), b',', b'"').unwrap();
        assert_eq!(out, b"a,\"b,c\",\"say \"\"hi\"\"\",\n\"\"\n");
    }
}

//! `swath csv head`: the first records, written back as CSV in the input's
//! dialect by swath-csv's writer (`CsvOpts::writer`), so head quotes
//! exactly as select and every other CSV output does.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Result;
use swath_csv::Writer;

use super::CsvOpts;
use crate::quarantine::{drain, Quarantine};

/// Print the header row and the first N records, as CSV.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// How many records (the header row not included).
    #[arg(short = 'n', long, default_value_t = 10)]
    lines: u64,
    #[command(flatten)]
    opts: CsvOpts,
    /// Broken records among those read: the first N good records are
    /// printed, the broken ones before them put aside.
    #[command(flatten)]
    bad: crate::args::on_bad::BadArgs,
}

/// Run `swath csv head`.
pub fn run(args: Args) -> Result<ExitCode> {
    let mut quarantine = Quarantine::open(&args.bad, &args.opts.name())?;
    let mut b = args.opts.builder();
    if quarantine.is_some() {
        b.on_bad(swath_csv::OnBad::PutAside);
    }
    let rdr = args.opts.open(&b)?;
    let wtr = args.opts.writer().from_writer(io::stdout().lock());
    let (mut out, good) = head(rdr, wtr, args.lines, quarantine.as_mut())?;
    out.flush()?;
    match quarantine {
        Some(q) => q.finish(good),
        None => Ok(ExitCode::SUCCESS),
    }
}

/// Write the header row (when the reader has one) and the first `n`
/// records of `rdr` to `wtr`, the broken ones read on the way to
/// `quarantine`; returns the writer's output and the records written.
fn head<R: io::Read, W: Write>(
    mut rdr: swath_csv::Reader<R>,
    mut wtr: Writer<W>,
    n: u64,
    mut quarantine: Option<&mut Quarantine>,
) -> Result<(W, u64)> {
    if let Some(h) = rdr.headers()? {
        wtr.write_record(h.iter())?;
    }
    let mut good = 0;
    while good < n {
        let Some(rec) = rdr.next_record()? else { break };
        wtr.write_record(rec.iter())?;
        good += 1;
        drain(quarantine.as_deref_mut(), &mut rdr)?;
    }
    drain(quarantine, &mut rdr)?;
    Ok((wtr.finish().map_err(|e| e.into_error())?, good))
}

#[cfg(test)]
mod tests {
    use swath_csv::{ReaderBuilder, WriterBuilder};

    /// What head writes for `data`, with the writer built by `dialect`.
    fn head(data: &[u8], b: &ReaderBuilder, dialect: &WriterBuilder, n: u64) -> Vec<u8> {
        let rdr = b.from_reader(data).unwrap();
        super::head(rdr, dialect.from_vec(Vec::new()), n, None).unwrap().0
    }

    #[test]
    fn quotes_only_what_needs_it() {
        let data = b"a,b,c,d\na,\"b,c\",\"say \"\"hi\"\"\",\n\"\"\n";
        let mut b = ReaderBuilder::new();
        b.flexible(true);
        let got = head(data, &b, &WriterBuilder::new(), 10);
        assert_eq!(got, b"a,b,c,d\na,\"b,c\",\"say \"\"hi\"\"\",\n\"\"\n");
    }

    /// head's bytes are the writer's: the rules head once wrote by hand
    /// (and got wrong: a leading BOM, a comment byte) are the writer's.
    #[test]
    fn output_equals_the_writers() {
        let data: &[u8] =
            b"\"\xEF\xBB\xBFx\";y\nlead;1\n\"#not a comment\";2\n\"semi;colon\";\"\"\"\"\n";
        let mut b = ReaderBuilder::new();
        b.delimiter(b';').comment(Some(b'#')).has_headers(false);
        let mut dialect = WriterBuilder::new();
        dialect.delimiter(b';').comment(Some(b'#'));
        let got = head(data, &b, &dialect, 10);
        let mut want = dialect.from_vec(Vec::new());
        let mut rdr = b.from_reader(data).unwrap();
        while let Some(rec) = rdr.next_record().unwrap() {
            want.write_record(rec.iter()).unwrap();
        }
        let want = want.into_vec().unwrap();
        assert_eq!(got, want);
        // And what that means: the BOM field and the comment-looking field
        // stay quoted, so the output reads back to the same records.
        let mut back = b.from_reader(&got[..]).unwrap();
        let mut fields = Vec::new();
        while let Some(rec) = back.next_record().unwrap() {
            fields.push(rec.get(0).unwrap().to_vec());
        }
        assert_eq!(fields[0], b"\xEF\xBB\xBFx");
        assert!(got.starts_with(b"\"\xEF\xBB\xBFx\";y\n"), "{got:?}");
        assert_eq!(fields[2], b"#not a comment");
        assert_eq!(fields.len(), 4);
        // `n` records after the header.
        let two = head(b"h\n1\n2\n3\n", &ReaderBuilder::new(), &WriterBuilder::new(), 2);
        assert_eq!(two, b"h\n1\n2\n");
    }
}

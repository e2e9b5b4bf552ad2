//! `swath csv select`: the command and its sequential loop. The column
//! spec language is in `spec.rs`, the parallel loop in `parallel.rs`;
//! neither imports this file.
//!
//! The loop reads records borrowed from the reader's buffer and writes the
//! chosen fields through swath-csv's writer in the input's dialect
//! (`CsvOpts::writer`): no allocation per record, memory flat.

mod parallel;
pub mod spec;

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use swath_csv::{Reader, Writer};

use super::{CsvOpts, ParOpts};
pub use spec::Spec;

use crate::output::Output;
use crate::quarantine::{drain, Quarantine};

/// Keep, reorder or repeat columns of a CSV file.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Columns: names, 1-based indexes, ranges (`2-4`, `3-`, `-2`),
    /// negation (`!id`, `!2-3`), `name[k]` for the k-th of duplicate
    /// names, `"a,b"` for names with special characters. Comma-separated;
    /// the output follows this order.
    #[arg(short, long, value_name = "COLUMNS", allow_hyphen_values = true)]
    pub columns: String,
    #[command(flatten)]
    pub opts: CsvOpts,
    #[command(flatten)]
    pub par: ParOpts,
    /// Output file, written beside its target and renamed into place on
    /// success; `-` for standard output.
    #[arg(short, long, default_value = "-")]
    pub output: PathBuf,
    /// Write Excel's `sep=X` line first (X the output's delimiter): Excel
    /// then splits the file at X whatever its locale says. swath reads
    /// the line back as the delimiter.
    #[arg(long)]
    pub excel: bool,
    #[command(flatten)]
    pub bad: crate::args::on_bad::BadArgs,
}

/// `swath csv select`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let spec = Spec::parse(&args.columns)?;
    // The header row is read here, as the first record, to resolve the spec.
    let mut b = args.opts.builder();
    b.has_headers(false);
    let mut quarantine = Quarantine::open(&args.bad, &args.opts.name())?;
    if quarantine.is_some() {
        b.on_bad(swath_csv::OnBad::PutAside);
    }
    let rdr = args.opts.open(&b)?;
    let out = Output::create(&args.output)
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    let dialect = args.opts.writer();
    let mut wtr = dialect.from_writer(out);
    if args.excel {
        wtr.write_excel_sep()?;
    }
    let (out, written) = if args.par.parallel_input(&args.opts) {
        let job = parallel::Job {
            dialect: &dialect,
            reader: &b,
            opts: &args.opts,
            par: &args.par,
            headers: !args.opts.no_headers,
            output: &args.output,
        };
        job.select(rdr, wtr, &spec, quarantine.as_mut())?
    } else {
        let n = select(rdr, &mut wtr, &spec, !args.opts.no_headers, quarantine.as_mut())?;
        (wtr.finish().map_err(|e| e.into_error())?, n)
    };
    // The quarantine first: a run past --max-bad N% leaves no output.
    let status = match quarantine {
        Some(q) => q.finish(written.saturating_sub(u64::from(!args.opts.no_headers)))?,
        None => ExitCode::SUCCESS,
    };
    out.finish().with_context(|| format!("cannot write {}", args.output.display()))?;
    Ok(status)
}

/// Copy the chosen columns of every record; the first record is the
/// header when `headers` is true. Records the reader put aside go to
/// `quarantine`. Returns the records written.
pub fn select<R: Read, W: Write>(
    mut rdr: Reader<R>,
    wtr: &mut Writer<W>,
    spec: &Spec,
    headers: bool,
    mut quarantine: Option<&mut Quarantine>,
) -> anyhow::Result<u64> {
    let cols = {
        let Some(first) = rdr.next_record()? else {
            return Ok(0);
        };
        let names: Vec<&[u8]> = first.iter().collect();
        let cols = spec.resolve(headers.then_some(&names[..]), names.len())?;
        for &c in &cols {
            wtr.write_field(names[c])?;
        }
        wtr.end_record()?;
        cols
    };
    let mut n = 1;
    while let Some(rec) = rdr.next_record()? {
        for &c in &cols {
            wtr.write_field(rec.get(c).unwrap_or(b""))?;
        }
        wtr.end_record()?;
        n += 1;
        drain(quarantine.as_deref_mut(), &mut rdr)?;
    }
    drain(quarantine, &mut rdr)?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use swath_csv::ReaderBuilder;

    fn run_select(data: &str, spec: &str, headers: bool, flexible: bool) -> anyhow::Result<String> {
        let rdr = ReaderBuilder::new()
            .has_headers(false)
            .flexible(flexible)
            .capacity(8)
            .from_reader(data.as_bytes())?;
        let mut wtr = Writer::from_writer(Vec::new());
        select(rdr, &mut wtr, &Spec::parse(spec)?, headers, None)?;
        Ok(String::from_utf8(wtr.finish().map_err(|e| e.into_error())?)?)
    }

    #[test]
    fn the_loop_selects_reorders_and_quotes_minimally() {
        let data = "id,name,note\n1,\"Smith, J\",\"plain\"\n2,\"say \"\"hi\"\"\",\"two\nlines\"\n";
        assert_eq!(
            run_select(data, "note,name,id,id", true, false).unwrap(),
            "note,name,id,id\nplain,\"Smith, J\",1,1\n\"two\nlines\",\"say \"\"hi\"\"\",2,2\n"
        );
        assert_eq!(
            run_select(data, "!name", true, false).unwrap(),
            "id,note\n1,plain\n2,\"two\nlines\"\n"
        );
        assert_eq!(
            run_select(data, "3-1", false, false).unwrap().lines().next(),
            Some("note,name,id")
        );
        assert_eq!(run_select("", "1", true, false).unwrap(), "");
        // A sole empty selected field stays a record.
        assert_eq!(run_select("a,b\n,x\n", "1", true, false).unwrap(), "a\n\"\"\n");
    }

    #[test]
    fn the_loop_reports_bad_specs_and_short_records() {
        let e = run_select("a,b\n1,2\n", "c", true, false).unwrap_err().to_string();
        assert!(e.contains("no column named `c`"), "{e}");
        let e = run_select("a,b\n1,2\n", "a", false, false).unwrap_err().to_string();
        assert!(e.contains("no header row"), "{e}");
        // Strict field counts by default: the reader names the record.
        let e = run_select("a,b\n1\n", "2", true, false).unwrap_err().to_string();
        assert!(e.contains("record 2"), "{e}");
        // Flexible: a missing column is empty.
        assert_eq!(run_select("a,b\n1\n", "2,1", true, true).unwrap(), "b,a\n,1\n");
    }
}

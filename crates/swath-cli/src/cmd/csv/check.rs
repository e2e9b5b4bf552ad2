//! `swath csv check`: validate a whole file and list every problem with its
//! record, line and byte.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use anyhow::Result;

use super::CsvOpts;

/// Validate a file (strict quoting unless --lenient): print every problem
/// with its record, line and byte, up to --limit; exit 1 if there is any.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    opts: CsvOpts,
    /// Print at most this many problems (all are counted).
    #[arg(long, default_value_t = 20)]
    limit: u64,
    #[command(flatten)]
    par: super::ParOpts,
}

/// Run `swath csv check`.
pub fn run(args: Args) -> Result<ExitCode> {
    let name = args.opts.name();
    // A valid file is checked on every core; a file with problems is read
    // again on one, to list them all in order.
    if args.par.parallel_input(&args.opts) {
        let mut rdr = args.par.reader(&args.opts, &args.opts.builder());
        let n = rdr.count();
        args.par.note(&args.opts, &rdr);
        if let Ok(records) = n {
            args.opts.finish_progress();
            writeln!(io::stdout(), "{name}: ok, {records} records")?;
            return Ok(ExitCode::SUCCESS);
        }
    }
    // Problems are listed as they are found.
    args.opts.finish_progress();
    let mut rdr = args.opts.open(&args.opts.builder())?;
    let mut out = BufWriter::new(io::stdout().lock());
    let (mut problems, mut records) = (0u64, 0u64);
    loop {
        match rdr.next_record() {
            Ok(Some(_)) => records += 1,
            Ok(None) => break,
            Err(e) => {
                problems += 1;
                if problems <= args.limit {
                    // The error names the file already.
                    writeln!(out, "{e}")?;
                }
                if !e.is_recoverable() {
                    break;
                }
                records += 1;
            }
        }
    }
    if problems > args.limit {
        writeln!(out, "{name}: ... {} more problems not shown", problems - args.limit)?;
    }
    if problems == 0 {
        writeln!(out, "{name}: ok, {records} records")?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "{name}: {problems} problems")?;
    out.flush()?;
    Ok(crate::exit::problems())
}

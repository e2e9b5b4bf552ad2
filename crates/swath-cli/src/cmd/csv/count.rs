//! `swath csv count`: the number of records (the header row excluded).

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;

use super::CsvOpts;

/// Count records (the header row is not counted unless --no-headers).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    opts: CsvOpts,
    #[command(flatten)]
    par: super::ParOpts,
}

/// Run `swath csv count`.
pub fn run(args: Args) -> Result<ExitCode> {
    let mut rdr = args.par.reader(&args.opts, &args.opts.builder());
    let n = rdr.count();
    args.par.note(&args.opts, &rdr);
    let n = n?;
    args.opts.finish_progress();
    writeln!(std::io::stdout(), "{n}")?;
    Ok(ExitCode::SUCCESS)
}

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
}

/// Run `swath csv count`.
pub fn run(args: Args) -> Result<ExitCode> {
    let mut rdr = args.opts.open(&args.opts.builder())?;
    let mut n = 0u64;
    while rdr.next_record()?.is_some() {
        n += 1;
    }
    writeln!(std::io::stdout(), "{n}")?;
    Ok(ExitCode::SUCCESS)
}

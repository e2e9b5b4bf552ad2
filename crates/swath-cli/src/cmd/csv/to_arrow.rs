//! `swath csv to-arrow`: typed columns as Arrow IPC (a file, or a stream on
//! standard output).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::quarantine::Quarantine;

use super::schema::{ArrowOpts, Batches};
use super::{CsvOpts, ParOpts};
use crate::output::arrow::{is_broken_pipe, ArrowFile};

/// Convert to Arrow IPC: an `.arrow` file (renamed into place only when
/// complete), or with `-o -` the IPC stream format on standard output, for
/// a pipe into another program.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath csv to-arrow big.csv -o big.arrow          an Arrow IPC file
  swath csv to-arrow big.csv -o - | other-program  the IPC stream on standard output")]
pub struct Args {
    #[command(flatten)]
    opts: CsvOpts,
    #[command(flatten)]
    par: ParOpts,
    #[command(flatten)]
    arrow: ArrowOpts,
    /// The Arrow IPC file to write; `-` writes the IPC stream format to
    /// standard output.
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    bad: crate::args::on_bad::BadArgs,
}

/// Run `swath csv to-arrow`.
pub fn run(args: Args) -> Result<ExitCode> {
    let mut quarantine = Quarantine::open(&args.bad, &args.opts.name())?;
    let mut batches = Batches::open(&args.opts, &args.par, &args.arrow, quarantine.is_some())?;
    let mut file = ArrowFile::create(&args.output, &batches.schema())?;
    let res = batches.run(&args.opts, &args.par, |b| file.write(&b), quarantine.as_mut());
    let rows = match res {
        Ok((_, rows)) => rows,
        // A reader downstream that closed the pipe: quietly.
        Err(e) if is_broken_pipe(&e) => return Ok(ExitCode::SUCCESS),
        Err(e) => return Err(e),
    };
    // The quarantine first: a run past --max-bad N% leaves no file.
    let status = match quarantine {
        Some(q) => q.finish(rows)?,
        None => ExitCode::SUCCESS,
    };
    file.finish()?;
    Ok(status)
}

//! `swath json to-arrow`: JSON lines as Arrow IPC (a file, or a stream on
//! standard output).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use super::types::TypeOpts;
use super::JsonOpts;
use crate::output::arrow::{is_broken_pipe, ArrowFile};
use crate::quarantine::Quarantine;

/// Convert to Arrow IPC: an Arrow file, or with `-o -` an IPC stream on
/// standard output (for a program that reads Arrow). Typed and nested
/// columns as `to-parquet` has them.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath json to-arrow events.jsonl -o events.arrow
  swath json to-arrow events.jsonl -o - | other-program")]
pub struct Args {
    #[command(flatten)]
    opts: JsonOpts,
    #[command(flatten)]
    types: TypeOpts,
    #[command(flatten)]
    bad: crate::args::on_bad::BadArgs,
    /// The file to write; `-` writes an IPC stream to standard output.
    #[arg(short, long)]
    output: PathBuf,
}

/// Run `swath json to-arrow`.
pub fn run(args: Args, quiet: bool) -> Result<ExitCode> {
    let watch = args.opts.watch(quiet, Some(&args.output));
    let mut quarantine = Quarantine::open(&args.bad, &args.opts.name())?;
    let mut b = args.opts.builder();
    args.types.configure(&mut b);
    if quarantine.is_some() {
        b.on_bad(swath_json::OnBad::PutAside);
    }
    let src = args.opts.open()?;
    let (typed, mut src) = args.types.resolve(&b, src)?;
    args.opts.note(&b, &src);
    let mut file = ArrowFile::create(&args.output, &typed.schema)?;
    let res = super::write_batches(&b, &mut src, typed.schema, quarantine.as_mut(), |batch| {
        file.write(batch)
    });
    let rows = match res {
        // A reader downstream that closed the pipe: quietly.
        Err(e) if is_broken_pipe(&e) => return Ok(ExitCode::SUCCESS),
        res => res?,
    };
    watch.finish();
    // The quarantine first: a run past --max-bad N% leaves no file.
    let status = match quarantine {
        Some(q) => q.finish(rows)?,
        None => ExitCode::SUCCESS,
    };
    file.finish()?;
    Ok(status)
}

//! `swath json count`: the objects of a JSON-lines input, every line
//! checked.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;

use super::JsonOpts;

/// Count the objects (non-blank lines), checking that every line is one
/// JSON object; the first line that is not is an error naming its record,
/// line and byte.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath json count events.jsonl
  zcat events.jsonl.gz | swath json count
  swath json count events.jsonl --json      {\"records\":..,\"lines\":..}")]
pub struct Args {
    #[command(flatten)]
    opts: JsonOpts,
    /// Print JSON: records and lines (blank ones included).
    #[arg(long)]
    json: bool,
}

/// Run `swath json count`.
pub fn run(args: Args, quiet: bool) -> Result<ExitCode> {
    let watch = args.opts.watch(quiet, None);
    let b = args.opts.builder();
    let mut src = args.opts.open()?;
    args.opts.note(&b, &src);
    // The error names the input and the place.
    let n = b.count(&mut src)?;
    watch.finish();
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{{\"records\":{},\"lines\":{}}}", n.records, n.lines)?;
    } else {
        writeln!(out, "{}", n.records)?;
    }
    Ok(ExitCode::SUCCESS)
}

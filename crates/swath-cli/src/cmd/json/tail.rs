//! `swath json tail`: the last records, as JSON lines, found from the
//! checkpoint index at once, or from the checkpoints of one checking pass.

use std::process::ExitCode;

use anyhow::Result;

use super::front_to_back;
use super::locate::{self, PLAN_INTERVAL};
use super::JsonOpts;
use crate::cmd::csv::IndexOpts;

/// Print the last N records as JSON lines (a document's records each on
/// one line).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath json tail events.jsonl                 the last 10 records
  swath json tail -n 3 export.json             the last 3 elements of a top-level array
  swath json index big.json && swath json tail big.json    from the index, at once")]
pub struct Args {
    /// How many records.
    #[arg(short = 'n', long, default_value_t = 10)]
    lines: u64,
    #[command(flatten)]
    opts: JsonOpts,
    #[command(flatten)]
    idx: IndexOpts,
}

/// Run `swath json tail`.
pub fn run(args: Args, _quiet: bool) -> Result<ExitCode> {
    if front_to_back::needed(&args.opts, &args.idx)? {
        front_to_back::tail(&args.opts, args.lines)?;
        return Ok(crate::exit::success());
    }
    let at = locate::locate(&args.opts, &args.idx, PLAN_INTERVAL)?;
    let records = at.plan.records;
    locate::print_between(&at, records.saturating_sub(args.lines) + 1, records)?;
    Ok(crate::exit::success())
}

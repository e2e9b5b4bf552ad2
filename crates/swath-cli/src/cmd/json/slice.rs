//! `swath json slice`: records by number, as JSON lines, found from the
//! checkpoint index at once (one checkpoint's bytes read at most), or from
//! the checkpoints of one checking pass.

use std::process::ExitCode;

use anyhow::{bail, Result};

use super::front_to_back;
use super::locate::{self, PLAN_INTERVAL};
use super::JsonOpts;
use crate::cmd::csv::IndexOpts;

/// Print records START to END (1-based) as JSON lines (a document's
/// records each on one line).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath json slice events.jsonl --start 1000000 --len 10   records 1000000 to 1000009
  swath json slice export.json --start 5 --end 7           the 5th, 6th and 7th elements
Blank lines of JSON lines are not records.")]
#[command(group(clap::ArgGroup::new("stop").args(["end", "len"])))]
pub struct Args {
    #[command(flatten)]
    opts: JsonOpts,
    /// The first record to print (1-based).
    #[arg(long, value_name = "R")]
    start: u64,
    /// The last record to print (inclusive; default: the last record).
    #[arg(long, value_name = "R")]
    end: Option<u64>,
    /// How many records to print.
    #[arg(long, value_name = "N")]
    len: Option<u64>,
    #[command(flatten)]
    idx: IndexOpts,
}

/// Run `swath json slice`.
pub fn run(args: Args, _quiet: bool) -> Result<ExitCode> {
    if args.start == 0 {
        bail!("--start counts from 1 (the first record)");
    }
    let last = match (args.end, args.len) {
        (Some(e), _) => e,
        (_, Some(n)) => (args.start + n).saturating_sub(1),
        _ => u64::MAX,
    };
    if front_to_back::needed(&args.opts, &args.idx)? {
        if last >= args.start {
            front_to_back::slice(&args.opts, args.start, last)?;
        }
        return Ok(crate::exit::success());
    }
    let at = locate::locate(&args.opts, &args.idx, PLAN_INTERVAL)?;
    locate::print_between(&at, args.start, last.min(at.plan.records))?;
    Ok(crate::exit::success())
}

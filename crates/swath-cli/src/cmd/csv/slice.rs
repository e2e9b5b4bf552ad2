//! `swath csv slice`: records by number, found from the checkpoint index
//! in constant time (one checkpoint's bytes read at most), or from the
//! exact split plan of one parallel pass without an index; compressed
//! input and standard input front to back ([`super::front_to_back`]).

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use swath_csv::SplitSize;

use super::front_to_back;
use super::locate::{self, IndexOpts};
use super::CsvOpts;

/// Print records START to END (1-based, the header row not counted), with
/// the header row first.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath csv slice big.csv --start 1000000 --len 10    records 1000000 to 1000009
  swath csv slice big.csv --start 5 --end 7           records 5, 6 and 7
Record 1 is the first record after the header row (with --no-headers, the
file's first record).")]
#[command(group(clap::ArgGroup::new("stop").args(["end", "len"])))]
pub struct Args {
    #[command(flatten)]
    opts: CsvOpts,
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

/// Run `swath csv slice`.
pub fn run(args: Args) -> Result<ExitCode> {
    if args.start == 0 {
        bail!("--start counts from 1 (the first record after the header row)");
    }
    let last_asked = match (args.end, args.len) {
        (Some(e), _) => Some(e),
        (_, Some(n)) => Some((args.start + n).saturating_sub(1)),
        _ => None,
    };
    if front_to_back::needed(&args.opts, &args.idx)? {
        front_to_back::slice(&args.opts, args.start, last_asked.unwrap_or(u64::MAX))?;
        return Ok(crate::exit::success());
    }
    let plan = locate::plan(&args.opts, &args.idx, SplitSize::Bytes(locate::PLAN_INTERVAL), false)?;
    let (_, first) = locate::data_records(&plan, &args.opts);
    let last = last_asked.unwrap_or(u64::MAX - first);
    let name = || format!("cannot read {}", args.opts.name());
    let from = plan.record_start(first + args.start - 1).with_context(name)?;
    let to = if last < args.start {
        from
    } else {
        plan.record_start((first + last).min(u64::MAX - 1)).with_context(name)?
    };
    locate::write_records(&args.opts, &plan, &plan.split_between(from, to)).with_context(name)?;
    Ok(crate::exit::success())
}

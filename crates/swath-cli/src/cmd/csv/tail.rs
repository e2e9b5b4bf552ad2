//! `swath csv tail`: the last records, found from the checkpoint index in
//! constant time, or from the exact split plan of one parallel pass;
//! compressed input and standard input front to back, keeping the last N
//! ([`super::front_to_back`]).

use std::process::ExitCode;

use anyhow::{Context, Result};
use swath_csv::SplitSize;

use super::front_to_back;
use super::locate::{self, IndexOpts};
use super::CsvOpts;

/// Print the header row and the last N records.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath csv tail big.csv             the header row and the last 10 records
  swath csv index big.csv && swath csv tail -n 3 big.csv   from the index, at once")]
pub struct Args {
    /// How many records (the header row not included).
    #[arg(short = 'n', long, default_value_t = 10)]
    lines: u64,
    #[command(flatten)]
    opts: CsvOpts,
    #[command(flatten)]
    idx: IndexOpts,
}

/// Run `swath csv tail`.
pub fn run(args: Args) -> Result<ExitCode> {
    if front_to_back::needed(&args.opts, &args.idx)? {
        front_to_back::tail(&args.opts, args.lines)?;
        return Ok(crate::exit::success());
    }
    let plan = locate::plan(&args.opts, &args.idx, SplitSize::Bytes(locate::PLAN_INTERVAL), false)?;
    let (records, first) = locate::data_records(&plan, &args.opts);
    let start = first + records.saturating_sub(args.lines);
    let name = || format!("cannot read {}", args.opts.name());
    let from = plan.record_start(start).with_context(name)?;
    let to = plan.record_start(u64::MAX).with_context(name)?;
    locate::write_records(&args.opts, &plan, &plan.split_between(from, to)).with_context(name)?;
    Ok(crate::exit::success())
}

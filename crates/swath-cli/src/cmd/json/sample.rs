//! `swath json sample`: a uniform random sample of N records, in file
//! order, as JSON lines. The record numbers are chosen first (Floyd's
//! algorithm over the record count the index or the checking pass gives:
//! memory for N numbers, not for the file), then only the stretches
//! between checkpoints that hold a chosen record are read, in parallel,
//! and the records written in order.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;

use super::front_to_back;
use super::locate::{self, push_record, PLAN_INTERVAL};
use super::JsonOpts;
use crate::cmd::csv::IndexOpts;
use crate::pick::{choose, seed, Prng};

/// Print a uniform random sample of N records, in file order, as JSON
/// lines.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath json sample -n 1000 events.jsonl             a different sample each run
  swath json sample -n 1000 --seed 7 export.json     the same sample every run")]
pub struct Args {
    /// How many records (all of them when the input has fewer).
    #[arg(short = 'n', long)]
    count: u64,
    /// The random seed: the same seed gives the same sample.
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    opts: JsonOpts,
    #[command(flatten)]
    idx: IndexOpts,
}

/// Run `swath json sample`.
pub fn run(args: Args, _quiet: bool) -> Result<ExitCode> {
    if front_to_back::needed(&args.opts, &args.idx)? {
        front_to_back::sample(&args.opts, args.count, seed(args.seed))?;
        return Ok(crate::exit::success());
    }
    let at = locate::locate(&args.opts, &args.idx, PLAN_INTERVAL)?;
    let mut rng = Prng::new(seed(args.seed));
    let chosen: Vec<u64> =
        choose(at.plan.records, args.count, &mut rng).into_iter().map(|x| x + 1).collect();
    // The chosen records after each checkpoint that holds some.
    let mut work: Vec<&[u64]> = Vec::new();
    let mut rest = &chosen[..];
    while let Some(&r) = rest.first() {
        let next = at.plan.checkpoints.partition_point(|c| c.record <= r);
        let bound = at.plan.checkpoints.get(next).map_or(u64::MAX, |c| c.record);
        let n = rest.partition_point(|&x| x < bound);
        work.push(&rest[..n]);
        rest = &rest[n..];
    }
    let threads = args.opts.thread_count();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut failed: Option<anyhow::Error> = None;
    swath::parallel::run_ordered(
        work.len(),
        threads,
        threads * 2,
        |t| -> Result<Vec<u8>> {
            let want = work[t];
            let mut text = Vec::new();
            let mut next = want.iter().peekable();
            at.each_between(want[0], want[want.len() - 1], |r| {
                if next.peek() == Some(&&r.record) {
                    push_record(&mut text, &at.plan.shape, r.bytes);
                    next.next();
                }
                Ok(())
            })?;
            Ok(text)
        },
        |_, text| match text.and_then(|b| Ok(out.write_all(&b)?)) {
            Ok(()) => true,
            Err(e) => {
                failed = Some(e);
                false
            }
        },
    );
    if let Some(e) = failed {
        return Err(e);
    }
    out.flush()?;
    Ok(crate::exit::success())
}

//! `swath csv sample`: a uniform random sample of N records, in file
//! order. The record numbers are chosen first (Floyd's algorithm over the
//! record count that the index or the split plan gives: memory for N
//! numbers, not for the file), then only the splits that hold a chosen
//! record are read, in parallel, and the records written in order. A
//! compressed file is read twice front to back, giving the plain file's
//! sample for the same seed ([`super::front_to_back`]).

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Context, Result};
use swath_csv::SplitSize;

use super::front_to_back;
use super::locate::{self, IndexOpts};
use super::CsvOpts;
use crate::pick::{choose, seed, Prng};

/// Print the header row and a uniform random sample of N records, in
/// file order.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath csv sample -n 1000 big.csv              a different sample each run
  swath csv sample -n 1000 --seed 7 big.csv     the same sample every run")]
pub struct Args {
    /// How many records (all of them when the file has fewer).
    #[arg(short = 'n', long)]
    count: u64,
    /// The random seed: the same seed gives the same sample.
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    opts: CsvOpts,
    #[command(flatten)]
    idx: IndexOpts,
    /// Threads (0 = all cores).
    #[arg(short = 't', long, default_value_t = 0, value_parser = crate::args::parse_threads)]
    threads: usize,
}

/// Run `swath csv sample`.
pub fn run(args: Args) -> Result<ExitCode> {
    if front_to_back::needed(&args.opts, &args.idx)? {
        front_to_back::sample(&args.opts, args.count, seed(args.seed))?;
        return Ok(crate::exit::success());
    }
    let plan = locate::plan(&args.opts, &args.idx, SplitSize::Bytes(locate::PLAN_INTERVAL), false)?;
    let (records, first) = locate::data_records(&plan, &args.opts);
    let mut rng = Prng::new(seed(args.seed));
    let chosen: Vec<u64> =
        choose(records, args.count, &mut rng).into_iter().map(|x| x + first).collect();
    // The chosen records of each split that holds some.
    let mut work: Vec<(usize, &[u64])> = Vec::new();
    let mut rest = &chosen[..];
    for (i, s) in plan.splits().iter().enumerate() {
        let n = rest.partition_point(|&r| r < s.record + s.records);
        if n > 0 {
            work.push((i, &rest[..n]));
            rest = &rest[n..];
        }
    }
    let name = || format!("cannot read {}", args.opts.name());
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let headers = plan.headers().cloned();
    let mut head = args.opts.writer().from_vec(Vec::new());
    if let Some(h) = &headers {
        head.write_record(h.iter())?;
    }
    out.write_all(&head.into_vec()?)?;
    let threads = if args.threads == 0 { swath::parallel::available_cores() } else { args.threads };
    let mut failed: Option<anyhow::Error> = None;
    swath::parallel::run_ordered(
        work.len(),
        threads,
        threads * 2,
        |t| -> Result<Vec<u8>> {
            let (i, want) = work[t];
            let mut rdr = plan.reader(i)?;
            let mut wtr = args.opts.writer().from_vec(Vec::new());
            let mut want = want.iter().peekable();
            while let Some(rec) = rdr.next_record()? {
                if want.peek() == Some(&&rec.position().record) {
                    wtr.write_record(rec.iter())?;
                    want.next();
                }
            }
            Ok(wtr.into_vec()?)
        },
        |_, bytes| match bytes.and_then(|b| Ok(out.write_all(&b)?)) {
            Ok(()) => true,
            Err(e) => {
                failed = Some(e);
                false
            }
        },
    );
    if let Some(e) = failed {
        return Err(e).with_context(name);
    }
    out.flush()?;
    Ok(crate::exit::success())
}

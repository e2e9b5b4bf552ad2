//! `swath csv to-parquet`: typed columns into a Parquet file.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use crate::quarantine::Quarantine;

use super::schema::{ArrowOpts, Batches};
use super::{CsvOpts, ParOpts};
use crate::args::ParquetArgs;
use crate::output::parquet::ParquetFile;

/// Convert to Parquet: typed columns (inferred, or as --schema says),
/// decoded on every core for a regular file, in file order. The file is
/// written under a temporary name and renamed into place only when
/// complete; an error or Ctrl-C leaves no file.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath csv to-parquet big.csv -o big.parquet                    zstd, statistics, inferred types
  swath csv to-parquet big.csv -o b.parquet --compression snappy
  swath csv to-parquet big.csv -o b.parquet --schema 'id:int64,ts:timestamptz' --on-error null
  swath csv to-parquet export.csv -o e.parquet --encoding auto   windows-1252, UTF-16, GB18030 ...
  swath csv to-parquet report.csv -o r.parquet --skip-rows 5 --skip-last 2
                                        title lines before the header, a Totals footer
  swath csv to-parquet report.csv -o r.parquet -d auto            what `csv sniff` finds, preamble included
  swath csv to-parquet excel.csv -o e.parquet -d ';' --decimal-comma --thousands . --null common
                                        1.299,99 and NA as Excel's European exports write them
  swath csv to-parquet export.csv -o e.parquet --date-format %d.%m.%y   dates as 31.10.23")]
pub struct Args {
    #[command(flatten)]
    opts: CsvOpts,
    #[command(flatten)]
    par: ParOpts,
    #[command(flatten)]
    arrow: ArrowOpts,
    /// The Parquet file to write (`-`: standard output).
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    parquet: ParquetArgs,
    #[command(flatten)]
    bad: crate::args::on_bad::BadArgs,
}

/// The parallel chunk: 2 MiB, half the other commands'. Each decoding
/// thread holds up to two chunks' batches while the writer encodes, and at
/// 4 MiB those alone take the peak RSS past 64 MiB. Measured on 2 cores,
/// 5M rows: 58 MiB and 1.11 s at 2 MiB, 78 MiB and 1.03 s at 4 MiB.
const CHUNK: u64 = 2 << 20;

/// The parallel chunk inside a small cgroup limit: 1 MiB, so that the
/// batches in flight leave the page cache room for the binary's code (as
/// the row groups' byte limit does, `args/parquet.rs`).
const SMALL_CHUNK: u64 = 1 << 20;

/// Run `swath csv to-parquet`.
pub fn run(mut args: Args) -> Result<ExitCode> {
    let small = crate::small_memory::small_limit();
    args.par.chunk_size.get_or_insert(if small.is_some() { SMALL_CHUNK } else { CHUNK });
    let mut quarantine = Quarantine::open(&args.bad, &args.opts.name())?;
    let mut batches = Batches::open(&args.opts, &args.par, &args.arrow, quarantine.is_some())?;
    let decoders = args.par.parallel_input(&args.opts).then_some(args.par.threads);
    let popts = args.parquet.options(decoders, small);
    let mut file = ParquetFile::create(&args.output, batches.schema(), &popts)?;
    let (_, rows) = batches.run(&args.opts, &args.par, |b| file.write(&b), quarantine.as_mut())?;
    // The quarantine first: a run past --max-bad N% leaves no file.
    let status = match quarantine {
        Some(q) => q.finish(rows)?,
        None => ExitCode::SUCCESS,
    };
    file.finish()?;
    Ok(status)
}

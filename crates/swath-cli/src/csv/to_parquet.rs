//! `swath csv to-parquet`: typed columns into a Parquet file.

use std::io::BufWriter;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use swath_arrow::{encode_threads_for, ParquetCompression, ParquetOptions, ParquetSink};

use super::schema::{ArrowOpts, Batches};
use super::{parse_size, CsvOpts, ParOpts};
use crate::output::Output;

/// Convert to Parquet: typed columns (inferred, or as --schema says),
/// decoded on every core for a regular file, in file order. The file is
/// written under a temporary name and renamed into place only when
/// complete; an error or Ctrl-C leaves no file.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath csv to-parquet big.csv -o big.parquet                    zstd, statistics, inferred types
  swath csv to-parquet big.csv -o b.parquet --compression snappy
  swath csv to-parquet big.csv -o b.parquet --schema 'id:int64,ts:timestamptz' --on-error null")]
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
    /// Compression: zstd, snappy or none.
    #[arg(long, default_value = "zstd", value_parser = ["zstd", "snappy", "none"])]
    compression: String,
    /// Rows per row group at most.
    #[arg(long, default_value_t = 1 << 20)]
    row_group_rows: usize,
    /// Encoded bytes per row group at most (suffixes K, M, G; default
    /// 128M, or an eighth of a cgroup memory limit under 512 MiB).
    #[arg(long, value_parser = parse_size)]
    row_group_size: Option<usize>,
    /// Leave out the per-column statistics (min, max, null count).
    #[arg(long)]
    no_statistics: bool,
    /// Threads that encode and compress the columns (0 = half the -t
    /// threads for a file decoded in parallel, every core for input read
    /// on one thread; 1 = on the writing thread). The file is the same for
    /// any number.
    #[arg(long, default_value_t = 0)]
    encode_threads: usize,
}

/// The parallel chunk: 2 MiB, half the other commands'. Each decoding
/// thread holds up to two chunks' batches while the writer encodes, and at
/// 4 MiB those alone take the peak RSS past 64 MiB. Measured on 2 cores,
/// 5M rows: 58 MiB and 1.11 s at 2 MiB, 78 MiB and 1.03 s at 4 MiB.
const CHUNK: u64 = 2 << 20;

/// The parallel chunk inside a small cgroup limit: 1 MiB, so that the
/// batches in flight leave the page cache room for the binary's code (see
/// [`row_group_bytes`]).
const SMALL_CHUNK: u64 = 1 << 20;

/// Row groups close at this many encoded bytes unless told otherwise.
const ROW_GROUP_BYTES: usize = 128 << 20;

/// The row group's byte limit: as given; else inside a small cgroup limit
/// (`small`) an eighth of it, at least 1 MiB; else [`ROW_GROUP_BYTES`].
///
/// The open row group is held encoded in memory until it closes (about
/// 15 MiB at 1Mi rows of a typical file), and inside a 64 MiB cgroup the
/// page cache, the binary's code included, gets what the process leaves.
/// `to-parquet -t 2` of 4.3 GiB under 64 MiB with the full binary: 38.7 s
/// (7,568 major faults) as uncapped; 8 MiB row groups and 1 MiB chunks,
/// 22.5 s (2,157). Uncapped the settings only add row groups.
pub(crate) fn row_group_bytes(given: Option<usize>, small: Option<u64>) -> usize {
    match (given, small) {
        (Some(b), _) => b,
        (None, Some(limit)) => usize::try_from(limit / 8).unwrap_or(usize::MAX).max(1 << 20),
        (None, None) => ROW_GROUP_BYTES,
    }
}

/// Run `swath csv to-parquet`.
pub fn run(mut args: Args) -> Result<ExitCode> {
    let small = crate::small_memory::small_limit();
    args.par.chunk_size.get_or_insert(if small.is_some() { SMALL_CHUNK } else { CHUNK });
    let mut batches = Batches::open(&args.opts, &args.par, &args.arrow)?;
    let popts = ParquetOptions {
        compression: match args.compression.as_str() {
            "snappy" => ParquetCompression::Snappy,
            "none" => ParquetCompression::None,
            _ => ParquetCompression::Zstd,
        },
        row_group_rows: args.row_group_rows,
        row_group_bytes: row_group_bytes(args.row_group_size, small),
        statistics: !args.no_statistics,
        encode_threads: encode_threads(&args),
    };
    let cannot_write = || format!("cannot write {}", args.output.display());
    let out = Output::create(&args.output).with_context(cannot_write)?;
    let mut sink =
        ParquetSink::new(BufWriter::with_capacity(1 << 20, out), batches.schema(), &popts)
            .with_context(cannot_write)?;
    batches.run(&args.opts, &args.par, |b| sink.write(&b).with_context(cannot_write))?;
    let out = sink.finish().with_context(cannot_write)?;
    let out = out.into_inner().map_err(|e| e.into_error()).with_context(cannot_write)?;
    out.finish().with_context(cannot_write)?;
    Ok(ExitCode::SUCCESS)
}

/// The encoder threads: as given, or the cores the decoding leaves
/// ([`swath_arrow::encode_threads_for`]; input read on one thread counts
/// as one decoder whatever `-t` says).
fn encode_threads(args: &Args) -> usize {
    match args.encode_threads {
        0 if args.par.parallel_input(&args.opts) => encode_threads_for(args.par.threads),
        0 => encode_threads_for(1),
        n => n,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_groups_are_an_eighth_of_a_small_limit_unless_given() {
        assert_eq!(row_group_bytes(None, None), 128 << 20);
        assert_eq!(row_group_bytes(None, Some(64 << 20)), 8 << 20);
        assert_eq!(row_group_bytes(None, Some(4 << 20)), 1 << 20);
        assert_eq!(row_group_bytes(Some(3 << 20), Some(64 << 20)), 3 << 20);
        assert_eq!(row_group_bytes(Some(500 << 20), None), 500 << 20);
    }
}

//! `swath csv index`: write the checkpoint index of a CSV file (the
//! format: docs/index-format.md), in one parallel pass.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

use super::CsvOpts;
use crate::sidecar::{report, write_sidecar};

/// Write a checkpoint index (FILE.swathidx) so that split, slice, tail and
/// sample start anywhere in the file at once.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath csv index big.csv               writes big.csv.swathidx
  swath csv index big.csv --json        says how many checkpoints and how far apart
  swath csv tail -n 10 big.csv          uses the index when it is valid")]
pub struct Args {
    #[command(flatten)]
    opts: CsvOpts,
    /// Where to write the index (default FILE.swathidx).
    #[arg(long, value_name = "PATH")]
    index_file: Option<PathBuf>,
    /// Bytes between checkpoints (suffixes K, M, G).
    #[arg(long, default_value = "4M", value_parser = crate::args::parse_size)]
    interval: usize,
    /// Print what was written as JSON.
    #[arg(long)]
    json: bool,
}

/// Run `swath csv index`.
pub fn run(args: Args) -> Result<ExitCode> {
    super::locate::regular_file(&args.opts)?;
    let b = args.opts.builder();
    let index = swath_csv::index::index_csv(&b, args.opts.path(), args.interval as u64)
        .with_context(|| format!("cannot index {}", args.opts.name()))?;
    let target = args
        .index_file
        .clone()
        .unwrap_or_else(|| swath::index::default_index_path(args.opts.path()));
    write_sidecar(&index, &target)?;
    report(&index, &target, args.json)?;
    Ok(crate::exit::success())
}

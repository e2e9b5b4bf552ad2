//! `swath index`: write the checkpoint index of a line file, in one
//! parallel pass (the format: docs/index-format.md).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use swath::Compression;

use crate::sidecar::{report, write_sidecar};

/// Write a checkpoint index of a line file (FILE.swathidx): a line start
/// every few MiB with its line number. For a gzip file, also where its
/// decoding can start, so that every command then decodes it on every
/// core.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath index big.log                  writes big.log.swathidx
  swath index big.log.gz               and big.log.gz.swathidx, with gzip checkpoints
  swath count big.log.gz               then decodes it on every core
  swath sample -n 100 big.log          uses it when it is valid")]
pub struct Args {
    /// The file to index.
    file: PathBuf,
    /// Where to write the index (default FILE.swathidx).
    #[arg(long, value_name = "PATH")]
    index_file: Option<PathBuf>,
    /// Bytes between checkpoints (suffixes K, M, G).
    #[arg(long, default_value = "4M", value_parser = crate::args::parse_size)]
    interval: usize,
    /// Threads (0 = all cores).
    #[arg(short = 't', long, default_value_t = 0, value_parser = crate::args::parse_threads)]
    threads: usize,
    /// Print what was written as JSON.
    #[arg(long)]
    json: bool,
}

/// Run `swath index`.
pub fn run(args: Args) -> Result<ExitCode> {
    let index = match super::open_input(&args.file)? {
        super::LineInput::Plain(_) => {
            swath::index::lines::index_lines(&args.file, args.interval as u64, args.threads)
        }
        // A gzip file: its lines and its gzip checkpoints, in one read.
        super::LineInput::Compressed(Compression::Gzip) => {
            swath::index::lines::index_gzip_lines(&args.file, args.interval as u64)
        }
        super::LineInput::Compressed(format) => {
            return Err(super::refuse_compressed(
                &args.file,
                format,
                "an index holds byte offsets of a plain or gzip file",
            ));
        }
    }
    .with_context(|| format!("cannot index {}", args.file.display()))?;
    let target = super::sidecar_path(&args.file, args.index_file.as_ref());
    write_sidecar(&index, &target)?;
    report(&index, &target, args.json)?;
    Ok(crate::exit::success())
}

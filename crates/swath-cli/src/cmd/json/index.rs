//! `swath json index`: write the checkpoint index of a JSON input (JSON
//! lines or a document's records; the format: docs/index-format.md), in
//! one checking pass on every core.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use swath::index::FileIdentity;

use super::locate;
use super::JsonOpts;
use crate::sidecar::{report, write_sidecar};

/// Write a checkpoint index (FILE.swathidx) so that slice, tail, sample
/// and split start at any record at once, in JSON lines or in one big
/// document.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath json index events.jsonl          writes events.jsonl.swathidx
  swath json index export.json --json    says how many checkpoints and how far apart
  swath json tail -n 10 export.json      uses the index when it is valid")]
pub struct Args {
    #[command(flatten)]
    opts: JsonOpts,
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

/// Run `swath json index`.
pub fn run(args: Args, quiet: bool) -> Result<ExitCode> {
    let (mut src, _, _) = locate::open(&args.opts)?;
    let Some(file) = src.file() else {
        bail!("{}: an index is kept beside a local file, not a remote object", args.opts.name());
    };
    // The identity before the pass: a change while it runs makes the index
    // stale, never wrong.
    let identity =
        FileIdentity::of(file).with_context(|| format!("cannot read {}", args.opts.name()))?;
    let watch = args.opts.watch(quiet, None);
    let mut opts = args.opts.clone();
    opts.chunk_size_or(args.interval.max(1) as u64);
    let b = opts.builder();
    opts.note(&b, &src);
    let plan = b.plan(&mut src)?;
    watch.finish();
    let index = plan.to_index(identity);
    let target = args
        .index_file
        .clone()
        .unwrap_or_else(|| swath::index::default_index_path(args.opts.path()));
    write_sidecar(&index, &target)?;
    report(&index, &target, args.json)?;
    Ok(crate::exit::success())
}

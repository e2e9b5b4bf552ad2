//! `swath json to-arrow`: JSON lines as Arrow IPC (a file, or a stream on
//! standard output).

use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use swath_arrow::IpcSink;

use super::types::TypeOpts;
use super::JsonOpts;
use crate::output::Output;

/// Convert to Arrow IPC: an Arrow file, or with `-o -` an IPC stream on
/// standard output (for a program that reads Arrow). Typed and nested
/// columns as `to-parquet` has them.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath json to-arrow events.jsonl -o events.arrow
  swath json to-arrow events.jsonl -o - | other-program")]
pub struct Args {
    #[command(flatten)]
    opts: JsonOpts,
    #[command(flatten)]
    types: TypeOpts,
    /// The file to write; `-` writes an IPC stream to standard output.
    #[arg(short, long)]
    output: PathBuf,
}

/// Run `swath json to-arrow`.
pub fn run(args: Args, quiet: bool) -> Result<ExitCode> {
    let watch = args.opts.watch(quiet, Some(&args.output));
    let mut b = args.opts.builder();
    args.types.configure(&mut b);
    let src = args.opts.open()?;
    let (typed, mut src) = args.types.resolve(&b, src)?;
    args.opts.note(&b, &src);
    let cannot_write = || format!("cannot write {}", args.output.display());
    let stream = args.output == Path::new("-");
    let out = Output::create(&args.output).with_context(cannot_write)?;
    let mut sink = IpcSink::new(BufWriter::with_capacity(1 << 20, out), &typed.schema, stream)
        .with_context(cannot_write)?;
    let mut own: Option<anyhow::Error> = None;
    let res = b.for_each_batch(&mut src, typed.schema, |batch| {
        sink.write(&batch).map_err(|e| {
            own = Some(anyhow::Error::new(e).context(cannot_write()));
            swath_json::Error::Consumer("stopped".into())
        })
    });
    if let Some(e) = own {
        if crate::is_broken_pipe(&e) {
            return Ok(ExitCode::SUCCESS);
        }
        return Err(e);
    }
    res?;
    watch.finish();
    let out = sink.finish().with_context(cannot_write)?;
    let out = out.into_inner().map_err(|e| e.into_error()).with_context(cannot_write)?;
    out.finish().with_context(cannot_write)?;
    Ok(ExitCode::SUCCESS)
}

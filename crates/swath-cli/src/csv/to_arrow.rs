//! `swath csv to-arrow`: typed columns as Arrow IPC (a file, or a stream on
//! standard output).

use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use swath_arrow::IpcSink;

use super::schema::{ArrowOpts, Batches};
use super::{CsvOpts, ParOpts};
use crate::output::Output;

/// Convert to Arrow IPC: an `.arrow` file (renamed into place only when
/// complete), or with `-o -` the IPC stream format on standard output, for
/// a pipe into another program.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath csv to-arrow big.csv -o big.arrow          an Arrow IPC file
  swath csv to-arrow big.csv -o - | other-program  the IPC stream on standard output")]
pub struct Args {
    #[command(flatten)]
    opts: CsvOpts,
    #[command(flatten)]
    par: ParOpts,
    #[command(flatten)]
    arrow: ArrowOpts,
    /// The Arrow IPC file to write; `-` writes the IPC stream format to
    /// standard output.
    #[arg(short, long)]
    output: PathBuf,
}

/// Run `swath csv to-arrow`.
pub fn run(args: Args) -> Result<ExitCode> {
    let mut batches = Batches::open(&args.opts, &args.par, &args.arrow)?;
    let cannot_write = || format!("cannot write {}", args.output.display());
    let stream = args.output == Path::new("-");
    let out = Output::create(&args.output).with_context(cannot_write)?;
    let mut sink = IpcSink::new(BufWriter::with_capacity(1 << 20, out), &batches.schema(), stream)
        .with_context(cannot_write)?;
    let res = batches.run(&args.opts, &args.par, |b| sink.write(&b).with_context(cannot_write));
    if let Err(e) = res {
        // A reader downstream that closed the pipe: quietly.
        if is_broken_pipe(&e) {
            return Ok(ExitCode::SUCCESS);
        }
        return Err(e);
    }
    let out = sink.finish().with_context(cannot_write)?;
    let out = out.into_inner().map_err(|e| e.into_error()).with_context(cannot_write)?;
    out.finish().with_context(cannot_write)?;
    Ok(ExitCode::SUCCESS)
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || c.downcast_ref::<swath_arrow::Error>().is_some_and(|a| match a {
                swath_arrow::Error::Io(io) => io.kind() == std::io::ErrorKind::BrokenPipe,
                swath_arrow::Error::Arrow(swath_arrow::arrow_schema::ArrowError::IoError(
                    _,
                    io,
                )) => io.kind() == std::io::ErrorKind::BrokenPipe,
                _ => false,
            })
    })
}

//! `swath json to-parquet`: JSON lines into a Parquet file, nested fields
//! as Parquet groups and lists.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use super::types::TypeOpts;
use super::JsonOpts;
use crate::args::ParquetArgs;
use crate::output::parquet::ParquetFile;
use crate::quarantine::Quarantine;

/// Convert to Parquet: typed columns (inferred, or as --schema says),
/// decoded on every core for a regular file, in file order. The file is
/// written under a temporary name and renamed into place only when
/// complete; an error or Ctrl-C leaves no file.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath json to-parquet events.jsonl -o events.parquet             zstd, statistics, inferred types
  swath json to-parquet events.jsonl -o e.parquet --infer full     every line read first
  swath json to-parquet events.jsonl -o e.parquet --schema 'status:utf8'
  swath json to-parquet events.jsonl -o e.parquet --on-bad quarantine=bad.jsonl   broken lines kept aside")]
pub struct Args {
    #[command(flatten)]
    opts: JsonOpts,
    #[command(flatten)]
    types: TypeOpts,
    #[command(flatten)]
    bad: crate::args::on_bad::BadArgs,
    /// The Parquet file to write (`-`: standard output).
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    parquet: ParquetArgs,
}

/// Run `swath json to-parquet`.
pub fn run(mut args: Args, quiet: bool) -> Result<ExitCode> {
    let small = crate::small_memory::small_limit();
    // Chunks of 512 KiB (256 KiB in a small container): each decoding
    // thread holds two chunks' batches while the writer encodes, and a
    // JSON chunk's batches (structs, lists, every string copied) are
    // larger than a CSV chunk's. Measured on 1M generated log lines (248
    // MB), -t 2, two runs each: 2 MiB 0.83 s, 79 MiB peak; 1 MiB 0.56-0.72
    // s, 64-68 MiB; 512 KiB 0.60 s, 61 MiB; 256 KiB 0.67-0.75 s, 58 MiB.
    args.opts.chunk_size_or(if small.is_some() { 256 << 10 } else { 512 << 10 });
    let watch = args.opts.watch(quiet, Some(&args.output));
    let mut quarantine = Quarantine::open(&args.bad, &args.opts.name())?;
    let mut b = args.opts.builder();
    args.types.configure(&mut b);
    if quarantine.is_some() {
        b.on_bad(swath_json::OnBad::PutAside);
    }
    let src = args.opts.open()?;
    let (typed, mut src) = args.types.resolve(&b, src)?;
    let parallel = b.mode(&src) == "parallel";
    args.opts.note(&b, &src);
    let popts = args.parquet.options(parallel.then_some(b.thread_count()), small);
    let mut file = ParquetFile::create(&args.output, typed.schema.clone(), &popts)?;
    let rows = super::write_batches(&b, &mut src, typed.schema, quarantine.as_mut(), |batch| {
        file.write(batch)
    })?;
    watch.finish();
    // The quarantine first: a run past --max-bad N% leaves no file.
    let status = match quarantine {
        Some(q) => q.finish(rows)?,
        None => ExitCode::SUCCESS,
    };
    file.finish()?;
    Ok(status)
}

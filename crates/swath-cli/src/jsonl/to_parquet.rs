//! `swath json to-parquet`: JSON lines into a Parquet file, nested fields
//! as Parquet groups and lists.

use std::io::BufWriter;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use swath_arrow::{encode_threads_for, ParquetCompression, ParquetOptions, ParquetSink};

use super::types::TypeOpts;
use super::JsonOpts;
use crate::csv::parse_size;
use crate::output::Output;

/// Convert to Parquet: typed columns (inferred, or as --schema says),
/// decoded on every core for a regular file, in file order. The file is
/// written under a temporary name and renamed into place only when
/// complete; an error or Ctrl-C leaves no file.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath json to-parquet events.jsonl -o events.parquet             zstd, statistics, inferred types
  swath json to-parquet events.jsonl -o e.parquet --infer full     every line read first
  swath json to-parquet events.jsonl -o e.parquet --schema 'status:utf8'")]
pub struct Args {
    #[command(flatten)]
    opts: JsonOpts,
    #[command(flatten)]
    types: TypeOpts,
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
    /// threads for a file decoded in parallel, every core for a stream; 1 =
    /// on the writing thread). The file is the same for any number.
    #[arg(long, default_value_t = 0)]
    encode_threads: usize,
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
    let mut b = args.opts.builder();
    args.types.configure(&mut b);
    let src = args.opts.open()?;
    let (typed, mut src) = args.types.resolve(&b, src)?;
    let parallel = b.mode(&src) == "parallel";
    args.opts.note(&b, &src);
    let popts = ParquetOptions {
        compression: match args.compression.as_str() {
            "snappy" => ParquetCompression::Snappy,
            "none" => ParquetCompression::None,
            _ => ParquetCompression::Zstd,
        },
        row_group_rows: args.row_group_rows,
        row_group_bytes: crate::csv::row_group_bytes(args.row_group_size, small),
        statistics: !args.no_statistics,
        encode_threads: match args.encode_threads {
            0 if parallel => encode_threads_for(b.thread_count()),
            0 => encode_threads_for(1),
            n => n,
        },
    };
    let cannot_write = || format!("cannot write {}", args.output.display());
    let out = Output::create(&args.output).with_context(cannot_write)?;
    let mut sink =
        ParquetSink::new(BufWriter::with_capacity(1 << 20, out), typed.schema.clone(), &popts)
            .with_context(cannot_write)?;
    let mut own: Option<anyhow::Error> = None;
    let res = b.for_each_batch(&mut src, typed.schema, |batch| {
        sink.write(&batch).map_err(|e| {
            own = Some(anyhow::Error::new(e).context(cannot_write()));
            swath_json::Error::Consumer("stopped".into())
        })
    });
    if let Some(e) = own {
        return Err(e);
    }
    res?;
    watch.finish();
    let out = sink.finish().with_context(cannot_write)?;
    let out = out.into_inner().map_err(|e| e.into_error()).with_context(cannot_write)?;
    out.finish().with_context(cannot_write)?;
    Ok(ExitCode::SUCCESS)
}

//! `swath csv ...`: exact CSV work on files of any size, with flat memory.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Subcommand;
use swath::Source;
use swath_csv::{QuoteStyle, Reader, ReaderBuilder, WriterBuilder};

use crate::args::DialectArgs;

pub use locate::IndexOpts;

mod auto;
mod check;
mod count;
mod frequency;
pub mod front_to_back;
mod head;
mod index;
mod locate;
mod sample;
mod schema;
mod search;
mod select;
mod slice;
mod sniff;
mod split;
mod split_aside;
mod stats;
mod tail;
mod to_arrow;
mod to_json;
mod to_parquet;

/// Read CSV: count, check, search, select, sniff, describe, convert to JSON, Parquet or Arrow, and start anywhere (index, split, slice, tail, sample).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    Count(count::Args),
    Check(check::Args),
    Head(head::Args),
    ToJson(to_json::Args),
    Select(select::Args),
    Search(search::Args),
    Frequency(frequency::Args),
    Sniff(sniff::Args),
    Stats(stats::Args),
    ToParquet(to_parquet::Args),
    ToArrow(to_arrow::Args),
    Schema(schema::Args),
    Index(index::Args),
    Split(split::Args),
    Slice(slice::Args),
    Tail(tail::Args),
    Sample(sample::Args),
}

/// Run `swath csv`.
pub fn run(args: Args) -> Result<ExitCode> {
    match args.cmd {
        Cmd::Count(a) => count::run(a),
        Cmd::Check(a) => check::run(a),
        Cmd::Head(a) => head::run(a),
        Cmd::ToJson(a) => to_json::run(a),
        Cmd::Select(a) => select::run(a),
        Cmd::Search(a) => search::run(a),
        Cmd::Frequency(a) => frequency::run(a),
        Cmd::Sniff(a) => sniff::run(a),
        Cmd::Stats(a) => stats::run(a),
        Cmd::ToParquet(a) => to_parquet::run(a),
        Cmd::ToArrow(a) => to_arrow::run(a),
        Cmd::Schema(a) => schema::run(a),
        Cmd::Index(a) => index::run(a),
        Cmd::Split(a) => split::run(a),
        Cmd::Slice(a) => slice::run(a),
        Cmd::Tail(a) => tail::run(a),
        Cmd::Sample(a) => sample::run(a),
    }
}

/// The options every csv command shares, with `-d auto` resolved
/// (`auto.rs`): what the commands see.
#[derive(Debug, Clone)]
pub struct CsvOpts {
    args: CsvArgs,
    /// False when `-d auto` found a file that is never quoted.
    quoting: bool,
    /// The progress display while the command runs (`progress.rs`).
    progress: Option<std::sync::Arc<crate::progress::Watch>>,
}

/// The options as given.
#[derive(Debug, Clone, clap::Args)]
pub struct CsvArgs {
    /// The file to read; `-` (the default) reads standard input.
    #[arg(default_value = "-")]
    file: PathBuf,
    #[command(flatten)]
    dialect: DialectArgs,
}

impl CsvOpts {
    /// A builder with these options.
    pub fn builder(&self) -> ReaderBuilder {
        self.args.dialect.builder(self.quoting)
    }

    /// A writer in the input's dialect: the same delimiter, quote, escape
    /// and comment bytes, quoting only where needed (so the output reads
    /// back with the same options to the same records).
    pub fn writer(&self) -> WriterBuilder {
        let a = &self.args.dialect;
        let mut b = WriterBuilder::new();
        b.delimiter(a.delimiter.byte())
            .quote(a.quote)
            .escape(a.escape)
            .comment(a.comment)
            .quote_style(QuoteStyle::Necessary);
        b
    }

    /// Clear the progress display (before a result goes to stdout, which
    /// may be the same terminal).
    pub fn finish_progress(&self) {
        if let Some(w) = &self.progress {
            w.finish();
        }
    }

    /// Open the file with these options.
    pub fn open(&self, b: &ReaderBuilder) -> Result<Reader<Source>> {
        b.from_path(&self.args.file).with_context(|| format!("cannot read {}", self.name()))
    }

    /// The input's path (`-` for standard input).
    pub fn path(&self) -> &std::path::Path {
        &self.args.file
    }

    /// The first record is a header row.
    pub fn has_headers(&self) -> bool {
        !self.no_headers
    }

    /// The input's name for messages.
    pub fn name(&self) -> String {
        self.args.file.display().to_string()
    }
}

/// How many threads, for the commands that read a regular file in
/// parallel (exactly: see swath_csv::parallel).
#[derive(Debug, Clone, clap::Args)]
pub struct ParOpts {
    /// Threads for a regular file (0 = all cores). Pipes, stdin and
    /// compressed input are read on one.
    #[arg(short = 't', long, default_value_t = 0, value_parser = crate::args::parse_threads)]
    pub threads: usize,
    /// Say on stderr how the input was read (parallel, or sequential and
    /// why).
    #[arg(short, long)]
    pub verbose: bool,
    /// Bytes per parallel chunk (tests use small ones to cross many seams;
    /// default 4 MiB, to-parquet's 2 MiB).
    #[arg(long, hide = true)]
    pub chunk_size: Option<u64>,
}

impl ParOpts {
    /// The parallel chunk's length: as given, or 4 MiB.
    pub fn chunk_len(&self) -> u64 {
        self.chunk_size.unwrap_or(4 << 20)
    }

    /// A parallel reader of the input with these threads.
    pub fn reader(&self, opts: &CsvOpts, b: &ReaderBuilder) -> swath_csv::ParallelReader {
        swath_csv::ParallelReader::new(b, opts.path())
            .threads(self.threads)
            .chunk_size(self.chunk_len())
            // No command here looks at a record's number or line; errors
            // stay exact.
            .relative_numbers(true)
    }

    /// True when the input is a regular file or a remote object, that may
    /// be read in parallel, and read twice (a pipe cannot).
    pub fn parallel_input(&self, opts: &CsvOpts) -> bool {
        self.threads != 1 && crate::remote::rereadable(opts.path())
    }

    /// The `--verbose` note.
    pub fn note(&self, opts: &CsvOpts, rdr: &swath_csv::ParallelReader) {
        if self.verbose {
            eprintln!("swath: {}: {}", opts.name(), rdr.mode());
        }
    }
}

//! `swath json ...`: JSON lines (one object a line) and the records of JSON
//! documents at the reader's speed: count, check, select, schema,
//! conversion to CSV, Parquet and Arrow, and the commands that start at any
//! record (index, slice, tail, sample, split).
//! The reading is swath-json's: exact byte ranges on every core for a
//! regular file, one thread for pipes and compressed input.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Subcommand;
use swath::Source;
use swath_json::JsonReaderBuilder;

mod check;
mod count;
mod front_to_back;
mod index;
mod locate;
mod sample;
mod schema;
mod select;
mod slice;
mod split;
mod tail;
mod to_arrow;
mod to_csv;
mod to_parquet;
mod types;

/// Read JSON lines and JSON documents: count, check, select fields, infer
/// a schema, convert to CSV, Parquet or Arrow, and start anywhere (index,
/// slice, tail, sample, split).
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    Count(count::Args),
    Check(check::Args),
    Select(select::Args),
    Schema(schema::Args),
    ToCsv(to_csv::Args),
    ToParquet(to_parquet::Args),
    ToArrow(to_arrow::Args),
    Index(index::Args),
    Slice(slice::Args),
    Tail(tail::Args),
    Sample(sample::Args),
    Split(split::Args),
}

/// Run `swath json`.
pub fn run(args: Args, quiet: bool) -> Result<ExitCode> {
    match args.cmd {
        Cmd::Count(a) => count::run(a, quiet),
        Cmd::Check(a) => check::run(a, quiet),
        Cmd::Select(a) => select::run(a, quiet),
        Cmd::Schema(a) => schema::run(a, quiet),
        Cmd::ToCsv(a) => to_csv::run(a, quiet),
        Cmd::ToParquet(a) => to_parquet::run(a, quiet),
        Cmd::ToArrow(a) => to_arrow::run(a, quiet),
        Cmd::Index(a) => index::run(a, quiet),
        Cmd::Slice(a) => slice::run(a, quiet),
        Cmd::Tail(a) => tail::run(a, quiet),
        Cmd::Sample(a) => sample::run(a, quiet),
        Cmd::Split(a) => split::run(a, quiet),
    }
}

/// The input and how to read it, for every `json` command.
#[derive(Debug, Clone, clap::Args)]
pub struct JsonOpts {
    /// The file to read (JSON lines; compressed input recognised); `-` (the
    /// default) reads standard input.
    #[arg(default_value = "-")]
    file: PathBuf,
    /// Threads for a regular file (0 = all cores). Pipes, stdin and
    /// compressed input are read on one.
    #[arg(short = 't', long, default_value_t = 0, value_parser = crate::args::parse_threads)]
    threads: usize,
    /// Longest line accepted, in bytes (suffixes K, M, G allowed). It bounds
    /// memory: a chunk holds at most its size plus one line.
    #[arg(long, default_value = "64M", value_parser = crate::args::parse_size)]
    max_line_size: usize,
    /// Say on stderr how the input was read (parallel or sequential).
    #[arg(short, long)]
    verbose: bool,
    /// Where the records are: `auto` (the default: a top-level array, an
    /// object whose one member is an array such as CloudTrail's
    /// `{"Records": [...]}`, pretty-printed objects one after another, or
    /// lines, decided from the first bytes; `-v` says which), `lines` (one
    /// object a line), `values` (objects one after another, pretty-printed
    /// or not), `$` (the elements of a top-level array), or the path of
    /// keys to an array: `Records`, `features`, `data.items`.
    #[arg(long, default_value = "auto", value_name = "auto|lines|values|$|PATH")]
    records: swath_json::Records,
    /// Bytes per parallel chunk (tests use small ones to cross many seams).
    #[arg(long, hide = true)]
    chunk_size: Option<u64>,
}

impl JsonOpts {
    /// Use `bytes` chunks unless `--chunk-size` says otherwise.
    pub fn chunk_size_or(&mut self, bytes: u64) {
        self.chunk_size.get_or_insert(bytes);
    }

    /// Threads to work on: as asked, every core for 0.
    pub fn thread_count(&self) -> usize {
        if self.threads == 0 {
            swath::parallel::available_cores()
        } else {
            self.threads
        }
    }

    /// A reader builder with these options.
    pub fn builder(&self) -> JsonReaderBuilder {
        let mut b = JsonReaderBuilder::new();
        b.threads(self.threads).max_line_len(self.max_line_size).records(self.records.clone());
        if let Some(c) = self.chunk_size {
            b.chunk_size(c);
        }
        b
    }

    /// Open the input.
    pub fn open(&self) -> Result<Source> {
        let src = if self.file == std::path::Path::new("-") {
            Source::stdin()
        } else {
            Source::open(&self.file)
        };
        src.with_context(|| format!("cannot read {}", self.name()))
    }

    /// The input's name for messages.
    pub fn name(&self) -> String {
        self.file.display().to_string()
    }

    /// The input's path.
    pub fn path(&self) -> &std::path::Path {
        &self.file
    }

    /// Progress on stderr while the command runs (not with `--quiet`, not
    /// when `streams` output goes to the same terminal).
    pub fn watch(&self, quiet: bool, output: Option<&std::path::Path>) -> crate::progress::Watch {
        let streams = output.is_some_and(|o| o.as_os_str() == "-")
            && std::io::IsTerminal::is_terminal(&std::io::stdout());
        crate::progress::watch(&[self.file.as_path()], quiet, streams)
    }

    /// The `--verbose` note: how the input is read, and where its records
    /// are (a stream's first bytes decide when it is read).
    pub fn note(&self, b: &JsonReaderBuilder, src: &Source) {
        if self.verbose {
            let records = match b.shape(src) {
                Ok(Some(shape)) => format!("records: {}", shape.describe()),
                Ok(None) => format!("records: {} (from the first bytes)", b.records_asked()),
                Err(e) => format!("records: {e}"),
            };
            let mode = match src.decoding() {
                Some(how) => {
                    format!("{} ({}-compressed, {how})", b.mode(src), src.compression().name())
                }
                None => b.mode(src).to_string(),
            };
            eprintln!("swath: {}: {mode}; {records}", self.name());
        }
    }
}

/// A problem in a line as the commands print it: the input, its position,
/// the field, the reason.
pub fn problem_line(name: &str, p: &swath_json::Problem) -> String {
    match &p.field {
        Some(f) => format!("{name}: {}: field {f:?}: {}", p.pos, p.reason),
        None => format!("{name}: {}: {}", p.pos, p.reason),
    }
}

/// Decode every record of `src` into batches of `schema` and hand them to
/// `write` in file order, the records put aside to `quarantine`: the
/// Arrow commands' loop. Returns the objects written.
///
/// # Errors
///
/// `write`'s error as it is (a closed pipe stays recognisable), the
/// quarantine's (past `--max-bad`), the input's.
pub fn write_batches(
    b: &JsonReaderBuilder,
    src: &mut Source,
    schema: swath_json::arrow_schema::SchemaRef,
    mut quarantine: Option<&mut crate::quarantine::Quarantine>,
    mut write: impl FnMut(&swath_json::arrow_array::RecordBatch) -> Result<()>,
) -> Result<u64> {
    // The first error of our own (the writer's or the quarantine's): the
    // reader only hears that the consumer stopped.
    let stopped = std::cell::RefCell::new(None);
    let stop = |e: anyhow::Error| {
        stopped.borrow_mut().get_or_insert(e);
        swath_json::Error::Consumer("stopped".into())
    };
    let res = b.for_each_batch_with_bad(
        src,
        schema,
        |batch| write(&batch).map_err(stop),
        |bad| match quarantine.as_deref_mut() {
            Some(q) => q.take(bad).map_err(stop),
            None => Ok(()),
        },
    );
    if let Some(e) = stopped.into_inner() {
        return Err(e);
    }
    Ok(res?)
}

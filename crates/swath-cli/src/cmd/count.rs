//! `swath count`: lines per file, like `wc -l`, on every core.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use swath::{count_source, CountOptions, LineCount, Parallel, Source};

/// Count lines, like `wc -l` but on every core.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  swath count big.log                  lines of one file, all cores
  swath count --threads 1 a.log b.log  one thread, with a total line
  cat big.log | swath count            stdin, streamed
  swath count --newlines --json x.log  exact `wc -l` semantics, as JSON
  swath count logs.gz                  compressed input is decoded (by magic bytes:
                                       gzip, zstd, bzip2, xz, lz4, zip)

A final line without a newline is counted (wc -l does not count it; use
--newlines for wc's answer).")]
pub struct Args {
    /// Files to count; none or `-` reads standard input.
    files: Vec<PathBuf>,
    /// Threads for regular files (0 = all cores).
    #[arg(short = 't', long, default_value_t = 0, value_parser = crate::args::parse_threads)]
    threads: usize,
    /// Read regular files through a memory map (a file truncated while being
    /// read is an error naming the byte, not a SIGBUS crash).
    #[arg(long)]
    mmap: bool,
    /// Count newline bytes only, exactly like `wc -l`.
    #[arg(long)]
    newlines: bool,
    /// Count the bytes as they are, without decoding compressed input.
    #[arg(long)]
    no_decompress: bool,
    /// Print one JSON document instead of text.
    #[arg(long)]
    json: bool,
    /// Say on stderr how each compressed input is decoded (its spans and
    /// threads, or why it is read on one thread).
    #[arg(short = 'v', long)]
    verbose: bool,
}

/// One file's result.
struct Counted {
    name: String,
    count: LineCount,
}

/// Run `swath count`.
pub fn run(args: Args, quiet: bool) -> Result<ExitCode> {
    let files = if args.files.is_empty() { vec![PathBuf::from("-")] } else { args.files.clone() };
    let paths: Vec<&std::path::Path> = files.iter().map(PathBuf::as_path).collect();
    // Several files print a line each as they go: that is progress enough
    // on a terminal.
    let several = files.len() > 1 && io::IsTerminal::is_terminal(&io::stdout());
    let progress = crate::progress::watch(&paths, quiet, several);
    let opts = CountOptions {
        parallel: Parallel::new().threads(args.threads),
        mmap: args.mmap,
        ..CountOptions::default()
    };
    let mut out = io::stdout().lock();
    let mut done = Vec::new();
    let mut failed = false;
    for path in &files {
        let src = if args.no_decompress { Source::open_raw(path) } else { Source::open(path) };
        let counted = src.and_then(|mut src| {
            if let (true, Some(how)) = (args.verbose, src.decoding()) {
                eprintln!(
                    "swath: {}: {}-compressed input, {how}",
                    src.name(),
                    src.compression().name()
                );
            }
            let count = count_source(&mut src, &opts)?;
            Ok(Counted { name: src.name(), count })
        });
        match counted {
            Ok(c) => {
                progress.finish();
                if !args.json {
                    writeln!(out, "{} {}", figure(&c.count, args.newlines), c.name)?;
                }
                done.push(c);
            }
            Err(err) if err.is_broken_pipe() => return Err(err.into()),
            Err(err) => {
                // One bad file does not stop the others; the exit code says it.
                out.flush()?;
                eprintln!("swath: {err}");
                failed = true;
            }
        }
    }
    let total: u64 = done.iter().map(|c| figure(&c.count, args.newlines)).sum();
    if args.json {
        write_json(&mut out, &done, total, args.newlines)?;
    } else if files.len() > 1 {
        writeln!(out, "{total} total")?;
    }
    out.flush()?;
    Ok(if failed { crate::exit::error() } else { crate::exit::success() })
}

fn figure(count: &LineCount, newlines: bool) -> u64 {
    if newlines {
        count.newlines
    } else {
        count.lines()
    }
}

/// `--json`'s document, in this key order.
#[derive(serde::Serialize)]
struct Doc<'a> {
    unit: &'static str,
    files: Vec<FileDoc<'a>>,
    total: u64,
}

/// One file in `--json`.
#[derive(serde::Serialize)]
struct FileDoc<'a> {
    path: &'a str,
    count: u64,
    bytes: u64,
}

fn write_json(
    out: &mut impl Write,
    done: &[Counted],
    total: u64,
    newlines: bool,
) -> io::Result<()> {
    let files = done
        .iter()
        .map(|c| FileDoc { path: &c.name, count: figure(&c.count, newlines), bytes: c.count.bytes })
        .collect();
    let doc = Doc { unit: if newlines { "newlines" } else { "lines" }, files, total };
    serde_json::to_writer(&mut *out, &doc)?;
    writeln!(out)
}

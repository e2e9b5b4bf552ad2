//! `swath gen`: the lab's and the benches' data, for anyone's benchmarks.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Subcommand;
use swath_lab::gen::{access_log, csv, jsonl, log};
use swath_lab::units::{format_bytes, parse_size};

use crate::output::Output;

/// Generate test data: the seed's log file, a 6-column CSV or a JSON-lines
/// application log.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  swath gen log --size 512M big.log        the seed's 86-byte line, cut at 512 MiB
  swath gen csv --rows 5000000 rows.csv    id,name,score,active,city,ts
  swath gen csv --rows 10 --seed 7 -       to standard output
  swath gen csv --rows 1M --quoted-newlines 20 nl.csv
  swath gen jsonl --lines 5M app.jsonl     ~262-byte log objects, nested
  swath gen access-log --records 4800000 access.csv
                                           a 15-column access log, ~1 GB,
                                           ~5:1 under gzip (compressed inputs)

Files are written under a temporary name and renamed into place when
complete, so a failed or interrupted run never leaves a half-written file.")]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(Debug, Subcommand)]
enum What {
    /// The seed's log line (86 bytes with its newline), repeated and cut at
    /// exactly --size bytes; a cut last line counts as a line.
    Log(LogArgs),
    /// CSV `id,name,score,active,city,ts`, ~10% of names quoted (a comma or
    /// a doubled quote inside), deterministic from --seed.
    Csv(CsvArgs),
    /// JSON lines: an application log (ts, level, service, host, a `req`
    /// object, a `user` object null or missing on some lines, a `tags`
    /// array, msg with escapes and raw UTF-8 on some, `error` on status
    /// 500), deterministic from --seed; `req.id` is the line number.
    Jsonl(JsonlArgs),
    /// CSV: a realistic 15-column access log (timestamps, levels,
    /// services, client addresses, paths, status, bytes, latency, user
    /// agents, referers, request ids, quoted messages, 1 in 50 of them
    /// with a newline), about 220 bytes a record and about 5:1 under gzip;
    /// deterministic from --seed.
    AccessLog(AccessLogArgs),
}

#[derive(Debug, clap::Args)]
struct AccessLogArgs {
    /// Data records to write, header not counted (K, M, G multiply by 1024).
    #[arg(long, value_parser = parse_size)]
    records: u64,
    /// Seed: the same seed gives the same bytes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output file; `-` is standard output.
    out: PathBuf,
}

#[derive(Debug, clap::Args)]
struct JsonlArgs {
    /// Lines (objects) to write (K, M, G multiply by 1024).
    #[arg(long, value_parser = parse_size)]
    lines: u64,
    /// Seed: the same seed gives the same bytes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output file; `-` is standard output.
    out: PathBuf,
}

#[derive(Debug, clap::Args)]
struct LogArgs {
    /// Exact size in bytes; K, M, G, T are powers of 1024.
    #[arg(long, default_value = "512M", value_parser = parse_size)]
    size: u64,
    /// Output file; `-` is standard output.
    out: PathBuf,
}

#[derive(Debug, clap::Args)]
struct CsvArgs {
    /// Data rows, header not counted (K, M, G multiply by 1024).
    #[arg(long, value_parser = parse_size)]
    rows: u64,
    /// Seed: the same seed gives the same bytes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Percentage of rows whose name holds a newline inside quotes.
    #[arg(long, value_name = "PCT", default_value_t = 0,
          value_parser = clap::value_parser!(u8).range(0..=100))]
    quoted_newlines: u8,
    /// Output file; `-` is standard output.
    out: PathBuf,
}

/// Run `swath gen`.
pub fn run(args: Args) -> Result<ExitCode> {
    match args.what {
        What::Log(a) => {
            check_space(&a.out, a.size)?;
            let mut out = open(&a.out)?;
            log::write(&mut out, a.size).with_context(|| describe(&a.out))?;
            finish(out, &a.out)?;
            if !is_stdout(&a.out) {
                println!(
                    "{}: {} ({} bytes), {} lines",
                    a.out.display(),
                    format_bytes(a.size),
                    a.size,
                    log::line_count(a.size)
                );
            }
        }
        What::Csv(a) => {
            let opts = csv::CsvOptions {
                rows: a.rows,
                seed: a.seed,
                quoted_newlines_pct: a.quoted_newlines,
            };
            let mut out = open(&a.out)?;
            let sum = csv::write(&mut out, &opts).with_context(|| describe(&a.out))?;
            finish(out, &a.out)?;
            if !is_stdout(&a.out) {
                println!(
                    "{}: {} ({} bytes), {} rows + header, {} newlines",
                    a.out.display(),
                    format_bytes(sum.bytes),
                    sum.bytes,
                    sum.rows,
                    sum.newlines
                );
            }
        }
        What::Jsonl(a) => {
            let mut out = open(&a.out)?;
            let sum = jsonl::write(&mut out, a.lines, a.seed).with_context(|| describe(&a.out))?;
            finish(out, &a.out)?;
            if !is_stdout(&a.out) {
                println!(
                    "{}: {} ({} bytes), {} lines, {} with an error object",
                    a.out.display(),
                    format_bytes(sum.bytes),
                    sum.bytes,
                    sum.lines,
                    sum.errors
                );
            }
        }
        What::AccessLog(a) => {
            let mut out = open(&a.out)?;
            let sum =
                access_log::write(&mut out, a.records, a.seed).with_context(|| describe(&a.out))?;
            finish(out, &a.out)?;
            if !is_stdout(&a.out) {
                println!(
                    "{}: {} ({} bytes), {} records + header, {} newlines",
                    a.out.display(),
                    format_bytes(sum.bytes),
                    sum.bytes,
                    sum.records,
                    sum.newlines
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn is_stdout(path: &std::path::Path) -> bool {
    path.as_os_str() == "-"
}

fn describe(path: &std::path::Path) -> String {
    if is_stdout(path) {
        "writing to standard output".to_string()
    } else {
        format!("writing {}", path.display())
    }
}

/// Refuse up front when a file of `size` bytes cannot fit beside `path`.
fn check_space(path: &std::path::Path, size: u64) -> Result<()> {
    if is_stdout(path) {
        return Ok(());
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    // A directory we cannot ask about fails at create, with a better message.
    if let Ok(free) = swath_lab::os::free_space(dir) {
        if size > free {
            anyhow::bail!(
                "not enough disk space for {}: {} needed, {} free",
                path.display(),
                format_bytes(size),
                format_bytes(free)
            );
        }
    }
    Ok(())
}

fn open(path: &std::path::Path) -> Result<Output> {
    Ok(Output::create(path)?)
}

fn finish(out: Output, path: &std::path::Path) -> Result<()> {
    out.finish().with_context(|| describe(path))?;
    let _ = io::stderr().flush();
    Ok(())
}

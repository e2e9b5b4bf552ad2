//! `swath json split`: cut a JSON input (JSON lines or a document's
//! records) into parts of whole records, each part JSON lines, written in
//! parallel. Each part is read from the checkpoint before its first record
//! and every record is checked on the way; a part is written under a
//! temporary name and renamed when complete, and a failure or Ctrl-C
//! removes the parts already written, so no part is left that looks like
//! a complete split.

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use super::locate::{self, push_record, Located, PLAN_INTERVAL};
use super::JsonOpts;
use crate::cmd::csv::IndexOpts;
use crate::output::parts::{part_path, write_each, Compress, PartsArgs};
use crate::output::AtomicFile;

/// Split a JSON input into parts of whole records, each part JSON lines
/// (`.jsonl`; a document's records each on one line).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath json split export.json -n 8 -o parts/     8 parts of about equal records
  swath json split events.jsonl --rows 1000000    parts of 1000000 records
  swath json split export.json -n 4 --zstd --json the parts and their records")]
#[command(group(clap::ArgGroup::new("size").required(true).args(["parts", "rows"])))]
pub struct Args {
    #[command(flatten)]
    opts: JsonOpts,
    /// This many parts of about equal numbers of records.
    #[arg(short = 'n', long)]
    parts: Option<u64>,
    /// Parts of this many records.
    #[arg(long)]
    rows: Option<u64>,
    #[command(flatten)]
    out: PartsArgs,
    /// Print the parts (path, first record, records) as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    idx: IndexOpts,
}

/// One part: where it goes and its records.
struct Part {
    path: PathBuf,
    first: u64,
    records: u64,
}

/// Run `swath json split`.
pub fn run(args: Args, _quiet: bool) -> Result<ExitCode> {
    if args.parts == Some(0) || args.rows == Some(0) {
        bail!("the number of parts or rows must be at least 1");
    }
    let at = locate::locate(&args.opts, &args.idx, PLAN_INTERVAL)?;
    let total = at.plan.records;
    let per = match (args.parts, args.rows) {
        (Some(n), _) => total.div_ceil(n).max(1),
        (_, Some(r)) => r,
        _ => total.max(1),
    };
    let count = total.div_ceil(per).max(1);
    let (prefix, _) = args.out.names(args.opts.path());
    let ext = format!(".jsonl{}", args.out.compress().suffix());
    let dir = args.out.create_dir()?;
    let parts: Vec<Part> = (0..count)
        .map(|i| Part {
            path: part_path(dir, &prefix, i as usize, count as usize, &ext),
            first: 1 + i * per,
            records: per.min(total.saturating_sub(i * per)),
        })
        .collect();
    let threads = args.opts.thread_count();
    let paths: Vec<PathBuf> = parts.iter().map(|p| p.path.clone()).collect();
    let compress = args.out.compress();
    write_each(&paths, threads, None, &|i| write_part(&at, &parts[i], compress))?;
    if args.json {
        print_json(&parts)?;
    }
    Ok(crate::exit::success())
}

fn write_part(at: &Located, part: &Part, compress: Compress) -> Result<()> {
    let name = || format!("cannot write {}", part.path.display());
    let mut file = AtomicFile::create(&part.path).with_context(name)?;
    let buffered = io::BufWriter::new(&mut file);
    let mut buffered = compress.write(buffered, |w| write_records(at, part, w))?;
    buffered.flush().with_context(name)?;
    drop(buffered);
    file.commit().with_context(name)?;
    Ok(())
}

/// The part's records, as JSON lines, to `out`; all of them must be there.
fn write_records(at: &Located, part: &Part, out: &mut dyn Write) -> Result<()> {
    let mut line = Vec::new();
    let last = part.first + part.records - 1;
    let mut written = 0u64;
    at.each_between(part.first, last, |r| {
        line.clear();
        push_record(&mut line, &at.plan.shape, r.bytes);
        written += 1;
        out.write_all(&line).with_context(|| format!("cannot write {}", part.path.display()))
    })?;
    if written != part.records {
        bail!(
            "cannot read {}: records {}..={} were not all there: it changed while it was split",
            at.name,
            part.first,
            last
        );
    }
    Ok(())
}

#[derive(serde::Serialize)]
struct PartDoc<'a> {
    path: &'a Path,
    /// The 1-based number of its first record in the whole input.
    first_record: u64,
    records: u64,
}

#[derive(serde::Serialize)]
struct PartsDoc<'a> {
    parts: Vec<PartDoc<'a>>,
}

fn print_json(parts: &[Part]) -> Result<()> {
    let docs = parts
        .iter()
        .map(|p| PartDoc { path: &p.path, first_record: p.first, records: p.records })
        .collect();
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, &PartsDoc { parts: docs })?;
    writeln!(out)?;
    Ok(())
}

//! `swath csv split`: cut a CSV file into parts at exact record
//! boundaries (quoted newlines are never cut), each part in the input's
//! dialect with the header row, written in parallel. The bytes are copied
//! as they are (`copy_file_range`), not re-encoded, and checked on the
//! way, so a malformed record is the sequential reader's error with its
//! position, and no part is left behind:
//!
//! - with a valid index (made only of a file that read cleanly, and
//!   checked to be this file) the cuts come from its checkpoints and the
//!   split is only copies;
//! - with the quote-parity plan, the parallel reader's validating count
//!   runs over the whole file while the parts are copied: it meets the
//!   sequential reader's first error, and its count must be the plan's
//!   (the parity model held, so every cut is a record start);
//! - with any other plan, or `--each-part` (the slow twin, for tests),
//!   each part's records are read before it is copied.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{Context, Result};
use swath_csv::split::Cut;
use swath_csv::split::PlanMethod;
use swath_csv::{SplitPlan, SplitSize};

use super::locate::{self, IndexOpts};
use super::split_aside::{self, Broken, Want};
use super::{CsvOpts, ParOpts};
use crate::output::parts::{part_path, write_parts, Checks, Part, PartsArgs};
use crate::quarantine::Quarantine;

/// Split a CSV file into parts, each with the header row, exactly at
/// record boundaries.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath csv split big.csv -n 8 -o parts/       8 parts of about equal bytes
  swath csv split big.csv --rows 1000000       parts of 1000000 records
  swath csv split big.csv --bytes 1G --zstd    parts of about 1 GiB, zstd-compressed
  swath csv split big.csv -n 4 --json          the parts, their byte ranges and records")]
#[command(group(clap::ArgGroup::new("size").required(true).args(["parts", "rows", "bytes"])))]
pub struct Args {
    #[command(flatten)]
    opts: CsvOpts,
    /// This many parts of about equal size in bytes.
    #[arg(short = 'n', long)]
    parts: Option<usize>,
    /// Parts of this many records (the header row not counted).
    #[arg(long)]
    rows: Option<u64>,
    /// Parts of about this many bytes (suffixes K, M, G).
    #[arg(long, value_parser = crate::args::parse_size)]
    bytes: Option<usize>,
    #[command(flatten)]
    out: PartsArgs,
    /// Print the parts (path, byte range, records) as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    idx: IndexOpts,
    #[command(flatten)]
    par: ParOpts,
    /// Read each part's records before it is copied, whatever the plan
    /// (the slow twin of the checks that run alongside the copies).
    #[arg(long, hide = true)]
    each_part: bool,
    #[command(flatten)]
    bad: crate::args::on_bad::BadArgs,
}

/// Run `swath csv split`.
pub fn run(args: Args) -> Result<ExitCode> {
    if args.parts == Some(0) || args.rows == Some(0) {
        anyhow::bail!("the number of parts or rows must be at least 1");
    }
    if swath::remote::is_url(args.opts.path()) {
        // Parts are copied in the kernel (copy_file_range) from a local file.
        anyhow::bail!(
            "{}: csv split cuts local files; for a remote object, csv slice takes any range",
            args.opts.name()
        );
    }
    let size = match (args.parts, args.bytes) {
        (Some(n), _) => SplitSize::Count(n),
        (_, Some(b)) => SplitSize::Bytes(b as u64),
        _ => SplitSize::Bytes(locate::PLAN_INTERVAL),
    };
    let mut quarantine = Quarantine::open(&args.bad, &args.opts.name())?;
    let plan = locate::plan(&args.opts, &args.idx, size, true)?;
    let threads =
        if args.par.threads == 0 { swath::parallel::available_cores() } else { args.par.threads };
    // With records put aside, the cuts and the holes come from the exact
    // reader (`split_aside.rs`); else from the plan.
    let broken = match quarantine.as_mut() {
        Some(q) => Some(split_aside::find_broken(&args.opts, threads, args.par.chunk_len(), q)?),
        None => None,
    };
    let cuts = match &broken {
        Some(broken) => {
            let good_end = first_data(&args) + broken.good;
            let wants = wants(&args, plan.file_len(), good_end);
            let chunk = args.par.chunk_len();
            split_aside::find_cuts(&args.opts, threads, chunk, &wants, broken, plan.file_len())?
        }
        None => match cuts(&plan, &args, threads) {
            Ok(c) => c,
            Err(e) => return Err(first_error(&args.opts, e)),
        },
    };
    let compress = args.out.compress();
    let (prefix, ext) = args.out.names(args.opts.path());
    let out_dir = args.out.create_dir()?;
    let count = cuts.len() - 1;
    let top = top_of_records(&plan)?;
    let parts: Vec<Part> = cuts
        .windows(2)
        .enumerate()
        .map(|(i, w)| Part {
            path: part_path(out_dir, &prefix, i, count, &ext),
            range: if i == 0 { top..w[1].0 } else { w[0].0..w[1].0 },
            with_prefix: i > 0,
            holes: match &broken {
                Some(b) => b
                    .holes
                    .iter()
                    .filter(|h| (w[0].0..w[1].0).contains(&h.start))
                    .cloned()
                    .collect(),
                None => Vec::new(),
            },
        })
        .collect();
    let header = header_bytes(&plan, &args.opts)?;
    let each_part = |i: usize| -> Result<()> {
        let split = plan.split_between(cuts[i], cuts[i + 1]);
        let mut rdr = plan.reader_of(&split)?;
        while rdr.next_record()?.is_some() {}
        Ok(())
    };
    let whole = || validate_whole(&plan, &args.opts, threads);
    let checks = match plan.method() {
        // Every record was read exactly to find the broken ones.
        _ if broken.is_some() => Checks::None,
        _ if args.each_part => Checks::EachPart(&each_part),
        PlanMethod::Index => Checks::None,
        PlanMethod::Parity => Checks::Alongside(&whole),
        _ => Checks::EachPart(&each_part),
    };
    if args.par.verbose {
        let how = match checks {
            Checks::None if broken.is_some() => "every record read to find the broken ones",
            Checks::None => "none (the index says the file read cleanly)",
            Checks::EachPart(_) => "each part's records read before it is copied",
            Checks::Alongside(_) => "a validating count of the file while the parts are copied",
        };
        eprintln!("swath: {}: plan: {:?}; checks: {how}", args.opts.name(), plan.method());
    }
    // The quarantine first: a run past --max-bad N% leaves no part.
    let status = match (quarantine, &broken) {
        (Some(q), Some(b)) => q.finish(b.good)?,
        _ => crate::exit::success(),
    };
    write_parts(plan.path(), &header, &parts, compress, threads, checks)?;
    if args.json {
        print_json(&parts, &cuts, args.opts.has_headers(), broken.as_ref())?;
    }
    Ok(status)
}

/// The check that runs alongside the copies of a quote-parity plan's
/// parts: the validating count meets the sequential reader's first error
/// (at its position), and a clean file whose count is the plan's is one
/// where the parity model held, so every cut is a record start.
fn validate_whole(plan: &SplitPlan, opts: &CsvOpts, threads: usize) -> Result<()> {
    let counted = swath_csv::ParallelReader::new(&opts.builder(), opts.path())
        .threads(threads)
        .count()
        .with_context(|| format!("cannot read {}", opts.name()))?;
    let header = u64::from(plan.headers().is_some());
    if counted + header != plan.records() {
        anyhow::bail!(
            "cannot read {}: it holds {} records but its split plan {}: it changed while it was split",
            opts.name(),
            counted + header,
            plan.records()
        );
    }
    Ok(())
}

/// The error to report when finding the cuts failed: a cut past a
/// malformed record may have been looked for from a mispredicted start,
/// so the validating count (which meets the sequential reader's error)
/// says what is wrong with the file; `err` when it finds nothing.
fn first_error(opts: &CsvOpts, err: swath_csv::Error) -> anyhow::Error {
    let counted = swath_csv::ParallelReader::new(&opts.builder(), opts.path()).count();
    let err = counted.err().unwrap_or(err);
    anyhow::Error::new(err).context(format!("cannot read {}", opts.name()))
}

/// The first data record's number: 2 after a header row, else 1.
fn first_data(args: &Args) -> u64 {
    if args.opts.has_headers() {
        2
    } else {
        1
    }
}

/// Where the parts after the first start: every `--rows` records up to
/// record `end` (not included), or at bytes spread over the file's `len`.
fn wants(args: &Args, len: u64, end: u64) -> Vec<Want> {
    let mut wants = Vec::new();
    if let Some(rows) = args.rows {
        let mut r = first_data(args) + rows;
        while r < end {
            wants.push(Want::Record(r));
            r += rows;
        }
    } else {
        let chunk = match (args.parts, args.bytes) {
            (Some(n), _) => len.div_ceil(n as u64).max(1),
            (_, Some(b)) => b as u64,
            _ => len.max(1),
        };
        let count = args.parts.unwrap_or_else(|| len.div_ceil(chunk).max(1) as usize);
        wants.extend((1..count as u64).map(|k| Want::Byte(k.saturating_mul(chunk))));
    }
    wants
}

/// Where each part starts, then the end of the file. Each cut reads at
/// most one split of the plan; the cuts are found on `threads` threads.
fn cuts(plan: &SplitPlan, args: &Args, threads: usize) -> swath_csv::Result<Vec<Cut>> {
    let end = plan.record_start(u64::MAX)?;
    let wants = wants(args, plan.file_len(), end.2);
    let found = map_in_parallel(&wants, threads, |w| match *w {
        Want::Record(r) => plan.record_start(r),
        Want::Byte(b) => plan.first_record_at(b),
    })?;
    // A part after the first starts at record 2 at the earliest: the first
    // one holds the file's first record (and whatever comes before it).
    let second = if found.iter().any(|c| c.2 < 2) { Some(plan.record_start(2)?) } else { None };
    let mut cuts = vec![(0, 1, 1)];
    cuts.extend(found.into_iter().map(|c| match second {
        Some(s) if c.2 < 2 => s,
        _ => c,
    }));
    cuts.push(end);
    Ok(cuts)
}

/// `f` of every item, in order, on up to `threads` threads; the first
/// error in order when any fails.
fn map_in_parallel<T: Sync, R: Send, E: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> Result<R, E> + Sync,
) -> Result<Vec<R>, E> {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<Result<R, E>>>> = items.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                *slots[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(r);
            });
        }
    });
    slots
        .into_iter()
        .map(|m| {
            let slot = m.into_inner().unwrap_or_else(|e| e.into_inner());
            slot.expect("every item was mapped")
        })
        .collect()
}

/// Where the first part starts: the top of the file (its byte order mark
/// and empty lines kept), or its first record when lines before it are
/// skipped (a preamble is no part of any part).
fn top_of_records(plan: &SplitPlan) -> Result<u64> {
    let Some(first) = plan.first_record_byte() else { return Ok(0) };
    let (file, _) = swath::range::open_ranged(plan.path())?;
    let mut head = vec![0u8; first as usize];
    let n = swath::range::read_full_at(&*file, &mut head, 0)?;
    let head = head[..n].strip_prefix(swath::UTF8_BOM).unwrap_or(&head[..n]);
    Ok(if head.iter().all(|&b| b == b'\r' || b == b'\n') { 0 } else { first })
}

/// The header row's bytes as the file has them (after any BOM or skipped
/// lines, up to the first data record), for every part after the first.
fn header_bytes(plan: &SplitPlan, opts: &CsvOpts) -> Result<Vec<u8>> {
    if !opts.has_headers() {
        return Ok(Vec::new());
    }
    let from = top_of_records(plan)?;
    let first_data = plan.record_start(2)?.0;
    let (file, _) = swath::range::open_ranged(plan.path())?;
    let mut head = vec![0u8; (first_data - from) as usize];
    let n = swath::range::read_full_at(&*file, &mut head, from)?;
    head.truncate(n);
    if head.starts_with(swath::UTF8_BOM) {
        head.drain(..swath::UTF8_BOM.len());
    }
    Ok(head)
}

#[derive(serde::Serialize)]
struct PartDoc<'a> {
    path: &'a Path,
    /// The input's bytes the part holds (its header row added in front).
    start: u64,
    end: u64,
    /// Data records (the header row not counted).
    records: u64,
    /// The 1-based number of its first record in the whole file (the
    /// header row being record 1 when there is one).
    first_record: u64,
}

#[derive(serde::Serialize)]
struct PartsDoc<'a> {
    parts: Vec<PartDoc<'a>>,
}

fn print_json(parts: &[Part], cuts: &[Cut], headers: bool, broken: Option<&Broken>) -> Result<()> {
    let docs: Vec<PartDoc<'_>> = parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let (from, to) = (cuts[i], cuts[i + 1]);
            let header = u64::from(i == 0 && headers && to.2 > 1);
            PartDoc {
                path: &p.path,
                start: p.range.start,
                end: p.range.end,
                records: (to.2 - from.2)
                    .saturating_sub(header)
                    .saturating_sub(broken.map_or(0, |b| b.among(from.2, to.2))),
                first_record: from.2 + header,
            }
        })
        .collect();
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, &PartsDoc { parts: docs })?;
    writeln!(out)?;
    Ok(())
}

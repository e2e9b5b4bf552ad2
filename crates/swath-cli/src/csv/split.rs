//! `swath csv split`: cut a CSV file into parts at exact record
//! boundaries (quoted newlines are never cut), each part in the input's
//! dialect with the header row, written in parallel. The bytes are copied
//! as they are (`copy_file_range`), not re-encoded; every part's records
//! are read on the way, so a malformed record is the sequential reader's
//! error with its position, and no part is left behind.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use swath_csv::split::Cut;
use swath_csv::{SplitPlan, SplitSize};

use super::locate::{self, IndexOpts};
use super::{CsvOpts, ParOpts};
use crate::parts::{part_path, write_parts, Part, PartsArgs};

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
    #[arg(long, value_parser = super::parse_size)]
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
}

/// Run `swath csv split`.
pub fn run(args: Args) -> Result<ExitCode> {
    if args.parts == Some(0) || args.rows == Some(0) {
        anyhow::bail!("the number of parts or rows must be at least 1");
    }
    let size = match (args.parts, args.bytes) {
        (Some(n), _) => SplitSize::Count(n),
        (_, Some(b)) => SplitSize::Bytes(b as u64),
        _ => SplitSize::Bytes(locate::PLAN_INTERVAL),
    };
    let plan = locate::plan(&args.opts, &args.idx, size, true)?;
    if args.par.verbose {
        eprintln!("swath: {}: plan: {:?}", args.opts.name(), plan.method());
    }
    let cuts = match cuts(&plan, &args) {
        Ok(c) => c,
        Err(e) => return Err(first_error(&args.opts, e)),
    };
    let compress = args.out.compress();
    let (prefix, ext) = args.out.names(args.opts.path());
    let out_dir = args.out.create_dir()?;
    let count = cuts.len() - 1;
    let parts: Vec<Part> = cuts
        .windows(2)
        .enumerate()
        .map(|(i, w)| Part {
            path: part_path(out_dir, &prefix, i, count, &ext),
            range: if i == 0 { 0..w[1].0 } else { w[0].0..w[1].0 },
            with_prefix: i > 0,
        })
        .collect();
    let header = header_bytes(&plan, &args.opts)?;
    let check = |i: usize| -> Result<()> {
        let split = plan.split_between(cuts[i], cuts[i + 1]);
        let mut rdr = plan.reader_of(&split)?;
        while rdr.next_record()?.is_some() {}
        Ok(())
    };
    let threads =
        if args.par.threads == 0 { swath::parallel::available_cores() } else { args.par.threads };
    write_parts(plan.path(), &header, &parts, compress, threads, &check)?;
    if args.json {
        print_json(&parts, &cuts, args.opts.has_headers())?;
    }
    Ok(crate::exit::success())
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

/// Where each part starts, then the end of the file.
fn cuts(plan: &SplitPlan, args: &Args) -> swath_csv::Result<Vec<Cut>> {
    let first_data = if args.opts.has_headers() { 2 } else { 1 };
    let end = plan.record_start(u64::MAX)?;
    let mut cuts = vec![(0, 1, 1)];
    // A part after the first starts at record 2 at the earliest: the first
    // one holds the file's first record (and whatever comes before it).
    let at_least_second = |c: Cut| -> swath_csv::Result<Cut> {
        if c.2 < 2 {
            plan.record_start(2)
        } else {
            Ok(c)
        }
    };
    if let Some(rows) = args.rows {
        let mut r = first_data + rows;
        while r < end.2 {
            cuts.push(at_least_second(plan.record_start(r)?)?);
            r += rows;
        }
    } else {
        let len = plan.file_len();
        let chunk = match (args.parts, args.bytes) {
            (Some(n), _) => len.div_ceil(n as u64).max(1),
            (_, Some(b)) => b as u64,
            _ => len.max(1),
        };
        let count = args.parts.unwrap_or_else(|| len.div_ceil(chunk).max(1) as usize);
        for k in 1..count as u64 {
            cuts.push(at_least_second(plan.first_record_at(k.saturating_mul(chunk))?)?);
        }
    }
    cuts.push(end);
    Ok(cuts)
}

/// The header row's bytes as the file has them (after any BOM, up to the
/// first data record), for every part after the first.
fn header_bytes(plan: &SplitPlan, opts: &CsvOpts) -> Result<Vec<u8>> {
    if !opts.has_headers() {
        return Ok(Vec::new());
    }
    let first_data = plan.record_start(2)?.0;
    let file = std::fs::File::open(plan.path())?;
    let mut head = vec![0u8; first_data as usize];
    let n = swath::range::read_full_at(&file, &mut head, 0)?;
    head.truncate(n);
    if head.starts_with(b"\xEF\xBB\xBF") {
        head.drain(..3);
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

fn print_json(parts: &[Part], cuts: &[Cut], headers: bool) -> Result<()> {
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
                records: (to.2 - from.2).saturating_sub(header),
                first_record: from.2 + header,
            }
        })
        .collect();
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, &PartsDoc { parts: docs })?;
    writeln!(out)?;
    Ok(())
}

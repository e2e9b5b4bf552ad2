//! `swath csv frequency`: the most frequent values of the chosen columns,
//! with exact counts, in one parallel pass (a table per chunk, merged in
//! file order), within a memory budget.
//!
//! A column whose distinct values outgrow the budget switches to a
//! Misra-Gries sketch (`tally.rs`, `misra_gries.rs`) and a HyperLogLog
//! count of its distinct values (`hll.rs`); the output says so, with the
//! error bound. Never silently approximate.

mod hll;
mod misra_gries;
mod render;
mod tally;

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Result;

use super::select::Spec;
use super::{CsvOpts, ParOpts};
use render::ColumnReport;
use tally::Tally;

/// The most frequent values per column, with exact counts (or a stated
/// error bound past the memory budget), empty values and distinct counts.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  swath csv frequency -s city data.csv              the 10 most frequent cities
  swath csv frequency -s city,name -l 0 data.csv    every value of two columns
  swath csv frequency --json -s 2 --no-headers x.csv
  swath csv frequency --memory 1G -s user_id big.csv

Empty values are counted apart (\"empty\"), not listed. Ties are listed
in byte order. The count tables of all columns and threads together stay
within --memory (estimated: a value costs its length plus about 80 bytes;
half of it is for the merged tables, split evenly between the columns).
A column with more distinct values than that is counted with a
Misra-Gries sketch instead: the output marks it APPROXIMATE and gives the
bound B (each true count is between the count listed and it plus B; a
value not listed occurred at most B times), and its distinct count is a
HyperLogLog estimate (standard error 0.8%).")]
pub struct Args {
    #[command(flatten)]
    pub opts: CsvOpts,
    /// Columns to count (as `select -c`: names, indexes, ranges,
    /// negation); default all.
    #[arg(short = 's', long = "select", value_name = "COLUMNS", allow_hyphen_values = true)]
    pub columns: Option<String>,
    /// Values to list per column (0 = all).
    #[arg(short, long, default_value_t = 10)]
    pub limit: usize,
    /// Print JSON instead of a report.
    #[arg(long)]
    pub json: bool,
    /// Memory for the count tables (suffixes K, M, G).
    #[arg(long, default_value = "256M", value_parser = crate::args::parse_size)]
    pub memory: usize,
    #[command(flatten)]
    pub par: ParOpts,
}

/// `swath csv frequency`.
pub fn run(args: Args) -> Result<ExitCode> {
    let spec = args.columns.as_deref().map(Spec::parse).transpose()?;
    let headers = !args.opts.no_headers;
    // The first record names the columns (or gives their number); it is
    // data with --no-headers.
    let mut b = args.opts.builder();
    b.has_headers(false);
    let mut rdr = args.opts.open(&b)?;
    let Some(first) = rdr.next_record()?.map(|r| r.to_owned_record()) else {
        return print(&args, &[]);
    };
    let names: Vec<&[u8]> = first.iter().collect();
    let cols = match &spec {
        Some(s) => s.resolve(headers.then_some(&names[..]), names.len())?,
        None => (0..names.len()).collect(),
    };
    let threads = match args.par.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let budget = Budget::new(args.memory, cols.len(), threads);
    let init = || vec![Tally::new(budget.chunk); cols.len()];
    let tallies = if args.par.parallel_input(&args.opts) {
        drop(rdr);
        let mut prdr = args
            .par
            .reader(&args.opts, &args.opts.builder())
            .chunk_size(args.par.chunk_len().min(MAX_CHUNK));
        let res = prdr.fold(
            init,
            |acc, rec| {
                tally(acc, &cols, &rec);
                Ok(())
            },
            |mut total, chunk| {
                for (t, c) in total.iter_mut().zip(chunk) {
                    t.raise_budget(budget.total);
                    t.merge(c);
                }
                total
            },
        );
        args.par.note(&args.opts, &prdr);
        res?
    } else {
        let mut acc = vec![Tally::new(budget.total); cols.len()];
        if !headers {
            tally(&mut acc, &cols, &first.as_record());
        }
        while let Some(rec) = rdr.next_record()? {
            tally(&mut acc, &cols, &rec);
        }
        acc
    };
    let reports: Vec<ColumnReport> = cols
        .iter()
        .zip(&tallies)
        .map(|(&c, t)| {
            let name = match headers {
                true => String::from_utf8_lossy(names[c]).into_owned(),
                false => (c + 1).to_string(),
            };
            ColumnReport::new(name, t, args.limit)
        })
        .collect();
    print(&args, &reports)
}

/// Input bytes per parallel chunk at most: a chunk's tables hold at most
/// its values, so small chunks keep them well inside their share.
const MAX_CHUNK: u64 = 1 << 20;

/// How `--memory` is shared: half for the merged tables (one per column),
/// half for the chunks' tables (up to two chunks per thread in flight,
/// one table per column each).
#[derive(Clone, Copy, Debug)]
struct Budget {
    /// Bytes of one column's merged table.
    total: usize,
    /// Bytes of one column's table in one chunk.
    chunk: usize,
}

impl Budget {
    fn new(memory: usize, columns: usize, threads: usize) -> Budget {
        let total = (memory / 2 / columns.max(1)).max(1);
        Budget { total, chunk: (total / (2 * threads)).max(1) }
    }
}

/// Count the chosen fields of `rec` (a field the record lacks is not
/// counted, not even as empty).
#[inline]
fn tally(acc: &mut [Tally], cols: &[usize], rec: &swath_csv::Record<'_>) {
    for (t, &c) in acc.iter_mut().zip(cols) {
        if let Some(f) = rec.get(c) {
            t.add(f);
        }
    }
}

fn print(args: &Args, reports: &[ColumnReport]) -> Result<ExitCode> {
    args.opts.finish_progress();
    let mut out = io::stdout().lock();
    let memory = swath_lab::units::format_bytes(args.memory as u64);
    if args.json {
        render::json(&mut out, reports)?;
    } else {
        render::table(&mut out, reports, &memory)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

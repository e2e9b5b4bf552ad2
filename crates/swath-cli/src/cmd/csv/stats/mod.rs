//! `swath csv stats`: per-column statistics in one parallel pass with flat
//! memory. The statistics are named as `xan stats` and `qsv stats` name
//! them (count, count_empty, type, min, max, mean, stddev, sum,
//! min_length, max_length, cardinality).

mod column;
pub(crate) mod hash;
mod infer;
mod render;

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Result;
use swath_csv::ParallelReader;

use column::Column;

/// Per-column statistics: type, counts, min/max, mean, standard deviation,
/// lengths, distinct values.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  swath csv stats data.csv             a table, all cores
  swath csv stats --json data.csv      JSON for programs
  swath csv stats -d ';' --no-headers -
  swath csv stats -v data.csv          say how it was read (parallel or not)

Types: integer, float, boolean (true/false), date (ISO 8601 date or date
and time), string; empty values are counted apart and do not change the
type. Mean, stddev (population) and sum are for integer and float columns;
min and max are numeric there, lexicographic (bytes) elsewhere.")]
pub struct Args {
    #[command(flatten)]
    csv: crate::cmd::csv::CsvOpts,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
    /// Threads for a regular file (0 = all cores; pipes and compressed
    /// input are read on one).
    #[arg(short = 't', long, default_value_t = 0, value_parser = crate::args::parse_threads)]
    threads: usize,
    /// Count distinct values up to this many per column, then report "> N".
    #[arg(long, default_value_t = 1000)]
    distinct_cap: usize,
    /// Say on stderr how the file was read (parallel, or sequential and why).
    #[arg(short, long)]
    verbose: bool,
    /// Bytes per parallel chunk (tests use small ones to cross many seams).
    #[arg(long, default_value_t = 4 << 20, hide = true)]
    chunk_size: u64,
}

/// The per-chunk accumulator: one [`Column`] per column.
#[derive(Debug, Default)]
struct Stats {
    columns: Vec<Column>,
    records: u64,
    /// The header row, taken from the first record that has one (the input
    /// may be stdin, which cannot be read twice).
    headers: Option<Vec<String>>,
}

impl Stats {
    fn merge(mut self, other: Stats, cap: usize) -> Stats {
        self.records += other.records;
        if self.headers.is_none() {
            self.headers = other.headers;
        }
        if self.columns.len() < other.columns.len() {
            self.columns.resize_with(other.columns.len(), Column::default);
        }
        for (a, b) in self.columns.iter_mut().zip(other.columns) {
            a.merge(b, cap);
        }
        self
    }
}

/// Run `swath csv stats`.
pub fn run(args: Args) -> Result<ExitCode> {
    let b = args.csv.builder();
    let file = args.csv.path();
    let cap = args.distinct_cap;
    let mut rdr = ParallelReader::new(&b, file)
        .threads(args.threads)
        .chunk_size(args.chunk_size)
        .relative_numbers(true);
    let stats = rdr.fold(
        Stats::default,
        |s, rec| {
            s.records += 1;
            if s.headers.is_none() {
                if let Some(h) = rec.headers() {
                    s.headers =
                        Some(h.iter().map(|f| String::from_utf8_lossy(f).into_owned()).collect());
                }
            }
            if s.columns.len() < rec.len() {
                s.columns.resize_with(rec.len(), Column::default);
            }
            for (c, f) in s.columns.iter_mut().zip(rec.iter()) {
                c.add(f, cap);
            }
            Ok(())
        },
        |a, b| a.merge(b, cap),
    );
    if args.verbose {
        eprintln!("swath: {}: {}", args.csv.name(), rdr.mode());
    }
    // The error names the file and the position already.
    let stats = stats?;
    let mut stats = stats;
    if stats.headers.is_none() && file.as_os_str() != "-" {
        // No data records: the header row alone still names the columns.
        let h = rdr.headers()?;
        stats.headers =
            h.map(|h| h.iter().map(|f| String::from_utf8_lossy(f).into_owned()).collect());
    }
    let headers = stats.headers.take().unwrap_or_default();
    if stats.columns.len() < headers.len() {
        stats.columns.resize_with(headers.len(), Column::default);
    }
    let names: Vec<String> = (0..stats.columns.len())
        .map(|i| headers.get(i).cloned().unwrap_or_else(|| (i + 1).to_string()))
        .collect();
    args.csv.finish_progress();
    let mut out = io::stdout().lock();
    if args.json {
        render::json(&mut out, &names, &stats.columns, stats.records, cap)?;
    } else {
        render::table(&mut out, &names, &stats.columns, cap)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

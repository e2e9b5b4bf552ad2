//! `swath csv search`: the records where a field of the chosen columns
//! matches a pattern, written in the input's dialect with the header row,
//! in file order; `-c` counts them.
//!
//! Record boundaries come from swath-csv's reader (a quoted newline is
//! inside its record, never a cut). On a regular file the records are read
//! on every core by the ordered per-chunk API, as `select` does
//! (`parallel.rs`); the output is byte for byte the sequential one.

mod matcher;
mod needles;
mod parallel;
mod raw;

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use swath_csv::{Reader, Record, Writer};

use super::select::Spec;
use super::{CsvOpts, ParOpts};
use crate::output::Output;
use crate::quarantine::{drain, Quarantine};
pub use matcher::Matcher;

/// Print the records where a field matches a regex (or plain text).
///
/// `-v` is grep's (invert the match): `--verbose` has no short form here.
#[derive(Debug, clap::Args)]
#[command(mut_arg("verbose", |a| a.short(None)))]
#[command(after_help = "\
Examples:
  swath csv search 'Par(is|ma)' cities.csv          a regex, any column
  swath csv search -s city,country -i paris x.csv   case-insensitive, two columns
  swath csv search --literal 'a.b' -c x.csv          plain text; print the count only
  swath csv search -v '^$' -s email x.csv            records whose email is not empty

A record matches when one of its selected fields does (fields are
unquoted first, so a match may span a quoted newline, never two fields).")]
pub struct Args {
    /// The pattern: a regex (the `regex` crate's syntax), or plain text
    /// with --literal.
    pub pattern: String,
    #[command(flatten)]
    pub opts: CsvOpts,
    /// Columns to search (as `select -c`: names, indexes, ranges,
    /// negation); default all.
    #[arg(short = 's', long = "select", value_name = "COLUMNS", allow_hyphen_values = true)]
    pub columns: Option<String>,
    /// Ignore case.
    #[arg(short, long)]
    pub ignore_case: bool,
    /// Print the records that do not match.
    #[arg(short = 'v', long)]
    pub invert_match: bool,
    /// Print only the number of matching records.
    #[arg(short, long)]
    pub count: bool,
    /// Write Excel's `sep=X` line first (X the output's delimiter): Excel
    /// then splits the file at X whatever its locale says. swath reads
    /// the line back as the delimiter.
    #[arg(long, conflicts_with = "count")]
    pub excel: bool,
    /// The pattern is plain text, not a regex.
    #[arg(long)]
    pub literal: bool,
    /// Parse every record, even where the raw bytes hold no literal of
    /// the pattern (the prefilter off; same output, for comparison).
    #[arg(long)]
    pub no_prefilter: bool,
    #[command(flatten)]
    pub par: ParOpts,
    /// Output file, renamed into place on success; `-` for standard output.
    #[arg(short, long, default_value = "-")]
    pub output: PathBuf,
    #[command(flatten)]
    pub bad: crate::args::on_bad::BadArgs,
}

/// Which records are kept: a record is kept when one of the chosen fields
/// matches (none matches, with `invert`).
#[derive(Clone, Debug)]
pub struct Filter {
    matcher: Matcher,
    /// 0-based columns; `None` is every field of each record.
    cols: Option<Vec<usize>>,
    invert: bool,
}

impl Filter {
    /// Whether `rec` is kept.
    #[inline]
    pub fn keeps(&self, rec: &Record<'_>) -> bool {
        let hit = match &self.cols {
            None => rec.iter().any(|f| self.matcher.is_match(f)),
            Some(cols) => {
                cols.iter().any(|&c| rec.get(c).is_some_and(|f| self.matcher.is_match(f)))
            }
        };
        hit != self.invert
    }
}

/// `swath csv search`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let matcher = Matcher::new(&args.pattern, args.literal, args.ignore_case)?;
    let spec = args.columns.as_deref().map(Spec::parse).transpose()?;
    let headers = !args.opts.no_headers;
    // The header row is read here, as the first record, to resolve the
    // columns; it is data with --no-headers.
    let mut b = args.opts.builder();
    b.has_headers(false);
    let mut quarantine = Quarantine::open(&args.bad, &args.opts.name())?;
    if quarantine.is_some() {
        b.on_bad(swath_csv::OnBad::PutAside);
    }
    let mut rdr = args.opts.open(&b)?;
    let out = Output::create(&args.output)
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    let mut wtr = args.opts.writer().from_writer(out);
    if args.excel {
        wtr.write_excel_sep()?;
    }
    let Some(first) = rdr.next_record()? else {
        return finish(wtr, args.count.then_some(0), &args, (quarantine, 0));
    };
    let names: Vec<&[u8]> = first.iter().collect();
    let cols = match &spec {
        Some(s) => Some(s.resolve(headers.then_some(&names[..]), names.len())?),
        None => None,
    };
    let filter = Filter { matcher, cols, invert: args.invert_match };
    let mut found = 0u64;
    // Whether a record is written already: then no chunk's record starts
    // the output.
    let started = !args.count && (headers || filter.keeps(&first));
    if headers {
        if !args.count {
            wtr.write_record(first.iter())?;
        }
    } else if filter.keeps(&first) {
        found += 1;
        if !args.count {
            wtr.write_record(first.iter())?;
        }
    }
    // The first record is handled above, header row or data: the
    // parallel pass, which reads the file from its start, skips it.
    let first_at = first.position().byte;
    if args.par.parallel_input(&args.opts) {
        drop(rdr);
        if let Some(needles) = prefilter(&args) {
            let mut prdr = args.par.reader(&args.opts, &b);
            // Only a file the validating scan passes (a regular file, not
            // compressed, every record checked) has raw bytes that are its
            // records; any other takes the per-record path below, which
            // meets its error as before. `record_starts` is one start per
            // chunk: memory is bounded by the chunk count.
            let all = prdr.count();
            let scanned = matches!(prdr.mode(), swath_csv::parallel::Mode::Scanned { .. });
            if let (Ok(all), true, Ok(starts)) = (all, scanned, prdr.record_starts()) {
                let starts: Vec<u64> = starts.iter().map(|p| p.byte).collect();
                // With -v -c, count the matching records and subtract.
                let hits = Filter { invert: false, ..filter.clone() };
                let job = raw::RawJob {
                    filter: &hits,
                    needles: &needles,
                    builder: &b,
                    quote: args.opts.quoting.then_some(args.opts.args.quote),
                    delim: args.opts.args.delimiter.byte(),
                    first_at,
                    count_only: args.count,
                    threads: swath::Parallel::new().threads(args.par.threads).thread_count(),
                };
                let mut out = wtr.finish().map_err(|e| e.into_error())?;
                let dialect = args.opts.writer();
                let mut emitter = parallel::Emitter { out: &mut out, dialect: &dialect, started };
                let n = job
                    .run(args.opts.path(), &starts, &dialect, &mut emitter)
                    .with_context(|| format!("cannot write {}", args.output.display()))?
                    .with_context(|| format!("cannot read {}", args.opts.name()))?;
                found += if args.invert_match { all.saturating_sub(1) - n } else { n };
                if args.par.verbose {
                    eprintln!(
                        "swath: {}: prefiltered (only records holding a literal of the pattern parsed)",
                        args.opts.name()
                    );
                }
                // The scan passed: no record was put aside.
                let good = all - u64::from(headers);
                return finish_output(out, args.count.then_some(found), &args, (quarantine, good));
            }
        }
        let job = parallel::Job { filter: &filter, first_at, count_only: args.count };
        let mut out = wtr.finish().map_err(|e| e.into_error())?;
        let prdr = args.par.reader(&args.opts, &b);
        let dialect = args.opts.writer();
        let mut emitter = parallel::Emitter { out: &mut out, dialect: &dialect, started };
        let (prdr, n) = job.run(prdr, &dialect, &mut emitter, quarantine.as_mut(), &args.output)?;
        args.par.note(&args.opts, &prdr);
        let (n, read) = n?;
        found += n;
        let good = read + u64::from(!headers);
        return finish_output(out, args.count.then_some(found), &args, (quarantine, good));
    }
    let (n, read) =
        search(&mut rdr, &filter, (!args.count).then_some(&mut wtr), quarantine.as_mut())?;
    found += n;
    let good = read + u64::from(!headers);
    finish(wtr, args.count.then_some(found), &args, (quarantine, good))
}

/// The needles of the prefilter (`needles.rs`, `raw.rs`), when the
/// pattern has usable ones and the dialect keeps the raw bytes of a field
/// close enough to its text: strict doubled quotes, no escape or comment
/// byte. With -v, only for -c (every record not holding a match is
/// written, so each must be parsed anyway).
fn prefilter(args: &Args) -> Option<needles::Needles> {
    let o = &args.opts;
    if o.args.escape.is_some() || o.args.comment.is_some() || o.args.lenient {
        return None;
    }
    if args.no_prefilter || (args.invert_match && !args.count) {
        return None;
    }
    let quote = o.quoting.then_some(o.args.quote);
    if args.literal && !args.ignore_case {
        needles::Needles::literal(args.pattern.as_bytes(), quote)
    } else {
        let source = if args.literal { regex::escape(&args.pattern) } else { args.pattern.clone() };
        needles::Needles::regex(&source, args.ignore_case, quote)
    }
}

/// The sequential loop over the records after the first: write each kept
/// record (when `wtr` is given), records put aside to `quarantine`;
/// returns how many were kept and how many read.
pub fn search<R: Read, W: Write>(
    rdr: &mut Reader<R>,
    filter: &Filter,
    mut wtr: Option<&mut Writer<W>>,
    mut quarantine: Option<&mut Quarantine>,
) -> anyhow::Result<(u64, u64)> {
    let (mut n, mut read) = (0, 0);
    while let Some(rec) = rdr.next_record()? {
        read += 1;
        if filter.keeps(&rec) {
            n += 1;
            if let Some(w) = wtr.as_deref_mut() {
                w.write_record(rec.iter())?;
            }
        }
        drain(quarantine.as_deref_mut(), rdr)?;
    }
    drain(quarantine, rdr)?;
    Ok((n, read))
}

/// What became of the records put aside, and the good records read (the
/// header row not among them).
type Aside = (Option<Quarantine>, u64);

fn finish(
    wtr: Writer<Output>,
    count: Option<u64>,
    args: &Args,
    aside: Aside,
) -> anyhow::Result<ExitCode> {
    let out = wtr.finish().map_err(|e| e.into_error())?;
    finish_output(out, count, args, aside)
}

/// Write the count (with -c), settle the quarantine and put the output in
/// place.
fn finish_output(
    mut out: Output,
    count: Option<u64>,
    args: &Args,
    (quarantine, good): Aside,
) -> anyhow::Result<ExitCode> {
    let name = || format!("cannot write {}", args.output.display());
    if let Some(n) = count {
        writeln!(out, "{n}").with_context(name)?;
    }
    let status = match quarantine {
        Some(q) => q.finish(good)?,
        None => ExitCode::SUCCESS,
    };
    out.finish().with_context(name)?;
    Ok(status)
}

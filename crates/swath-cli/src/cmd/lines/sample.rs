//! `swath sample`: a uniform random sample of N lines, in file order. The
//! line numbers are chosen first (Floyd's algorithm over the line count,
//! from a valid index or from one parallel pass), then only the stretches
//! between checkpoints that hold a chosen line are read, in parallel. A
//! compressed file is decoded twice, front to back: once to count its
//! lines, once to pick the chosen ones; the same seed gives the same
//! sample as from the plain file.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use swath::index::{load_index, IndexKind, Loaded};

use crate::pick::{choose, seed, Prng};

/// Print a uniform random sample of N lines, in file order.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath sample -n 1000 big.log
  swath sample -n 1000 --seed 7 big.log     the same sample every run")]
pub struct Args {
    /// How many lines (all of them when the file has fewer).
    #[arg(short = 'n', long)]
    count: u64,
    /// The random seed: the same seed gives the same sample.
    #[arg(long)]
    seed: Option<u64>,
    /// The file to read.
    file: PathBuf,
    /// The checkpoint index to use (default FILE.swathidx, when present).
    #[arg(long, value_name = "PATH")]
    index_file: Option<PathBuf>,
    /// Threads (0 = all cores).
    #[arg(short = 't', long, default_value_t = 0, value_parser = crate::args::parse_threads)]
    threads: usize,
}

/// Run `swath sample`.
pub fn run(args: Args) -> Result<ExitCode> {
    let name = || format!("cannot read {}", args.file.display());
    let file = match super::open_input(&args.file)? {
        super::LineInput::Plain(file) => file,
        super::LineInput::Compressed(_) => {
            let open = || swath::Source::open(&args.file).with_context(name);
            let opts = swath::CountOptions::default();
            let lines = swath::count_source(&mut open()?, &opts).with_context(name)?.lines();
            let chosen = chosen_lines(lines, &args);
            let picked = pick_lines(open()?, 1, &chosen).with_context(name)?;
            let mut out = std::io::stdout().lock();
            out.write_all(&picked)?;
            out.flush()?;
            return Ok(crate::exit::success());
        }
    };
    let sidecar = super::sidecar_path(&args.file, args.index_file.as_ref());
    let index = match load_index(&sidecar, IndexKind::Lines, "", &file)
        .with_context(|| format!("cannot read {}", sidecar.display()))?
    {
        Loaded::Fresh(index) => index,
        other => {
            if let Loaded::Stale(why) = other {
                eprintln!(
                    "swath: note: ignoring the stale index {}: {why} (run `swath index` again)",
                    sidecar.display()
                );
            }
            swath::index::lines::index_lines(
                &args.file,
                swath::index::lines::DEFAULT_INTERVAL,
                args.threads,
            )
            .with_context(name)?
        }
    };
    let len = index.identity.len;
    let chosen = chosen_lines(index.records, &args);
    let cps = &index.checkpoints;
    let mut work: Vec<(usize, &[u64])> = Vec::new();
    let mut rest = &chosen[..];
    for i in 0..cps.len() {
        let next_line = cps.get(i + 1).map_or(u64::MAX, |c| c.line);
        let n = rest.partition_point(|&l| l < next_line);
        if n > 0 {
            work.push((i, &rest[..n]));
            rest = &rest[n..];
        }
    }
    let threads = if args.threads == 0 { swath::parallel::available_cores() } else { args.threads };
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut failed: Option<anyhow::Error> = None;
    swath::parallel::run_ordered(
        work.len(),
        threads,
        threads * 2,
        |t| -> Result<Vec<u8>> {
            let (i, want) = work[t];
            let end = cps.get(i + 1).map_or(len, |c| c.byte);
            let src = swath::RangeReader::new(&file, cps[i].byte..end);
            pick_lines(src, cps[i].line, want)
        },
        |_, bytes| match bytes.and_then(|b| Ok(out.write_all(&b)?)) {
            Ok(()) => true,
            Err(e) => {
                failed = Some(e);
                false
            }
        },
    );
    if let Some(e) = failed {
        return Err(e).with_context(name);
    }
    out.flush()?;
    Ok(crate::exit::success())
}

/// The numbers (1-based, sorted) of the lines to print, of `lines`.
fn chosen_lines(lines: u64, args: &Args) -> Vec<u64> {
    choose(lines, args.count, &mut Prng::new(seed(args.seed))).into_iter().map(|x| x + 1).collect()
}

/// The lines numbered `want` (sorted) of `src`, whose first line is
/// number `first`, each with its terminator (`\n` added to a last line
/// without one).
fn pick_lines(src: impl Read, first: u64, want: &[u64]) -> Result<Vec<u8>> {
    let mut rdr = swath::LineReaderBuilder::new().keep_terminator(true).from_reader(src);
    let mut out = Vec::new();
    let mut number = first;
    let mut want = want.iter().peekable();
    while let Some(line) = rdr.next_line()? {
        if want.peek() == Some(&&number) {
            out.extend_from_slice(line);
            if !line.ends_with(b"\n") {
                out.push(b'\n');
            }
            want.next();
            if want.peek().is_none() {
                break;
            }
        }
        number += 1;
    }
    Ok(out)
}

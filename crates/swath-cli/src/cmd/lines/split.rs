//! `swath split`: a line file cut into N parts without cutting a line, as
//! GNU `split -n l/N` does (part k holds the lines whose first byte lies
//! in bytes `k*S .. (k+1)*S` with `S = max(1, size / N)`, the last part
//! the rest),
//! but written in parallel, the bytes copied in the kernel.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Result};
use swath::range::Framing;

use crate::output::parts::{part_path, write_parts, Checks, Part, PartsArgs};

/// Split a line file into N parts at line boundaries (GNU `split -n l/N`).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath split big.log -n 8 -o parts/      parts/big_0001.log ... parts/big_0008.log
  swath split big.log -n 4 --zstd --json")]
pub struct Args {
    /// The file to split.
    file: PathBuf,
    /// How many parts.
    #[arg(short = 'n', long)]
    parts: usize,
    #[command(flatten)]
    out: PartsArgs,
    /// Print the parts (path, byte range) as JSON.
    #[arg(long)]
    json: bool,
    /// Threads (0 = all cores).
    #[arg(short = 't', long, default_value_t = 0, value_parser = crate::args::parse_threads)]
    threads: usize,
}

/// The byte ranges of the `n` parts of a file of `len` bytes, GNU's way.
pub fn ranges(
    file: &std::fs::File,
    len: u64,
    n: usize,
) -> swath::Result<Vec<std::ops::Range<u64>>> {
    // GNU takes at least one byte per part (so a file smaller than N
    // still has its first line in the first part).
    let size = (len / n as u64).max(1);
    let mut cuts = vec![0];
    for k in 1..n as u64 {
        cuts.push(swath::LineFraming.record_start(file, k * size, len)?);
    }
    cuts.push(len);
    Ok(cuts.windows(2).map(|w| w[0]..w[1].max(w[0])).collect())
}

/// Run `swath split`.
pub fn run(args: Args) -> Result<ExitCode> {
    if args.parts == 0 {
        bail!("the number of parts must be at least 1");
    }
    let file = match super::open_input(&args.file)? {
        super::LineInput::Plain(file) => file,
        super::LineInput::Compressed(format) => {
            return Err(super::refuse_compressed(
                &args.file,
                format,
                "split copies byte ranges of a plain file",
            ))
        }
    };
    let len = file.metadata()?.len();
    let compress = args.out.compress();
    let (prefix, ext) = args.out.names(&args.file);
    let out_dir = args.out.create_dir()?;
    let parts: Vec<Part> = ranges(&file, len, args.parts)?
        .into_iter()
        .enumerate()
        .map(|(i, range)| Part {
            path: part_path(out_dir, &prefix, i, args.parts, &ext),
            range,
            with_prefix: false,
            holes: Vec::new(),
        })
        .collect();
    let threads = if args.threads == 0 { swath::parallel::available_cores() } else { args.threads };
    write_parts(&args.file, &[], &parts, compress, threads, Checks::None)?;
    if args.json {
        let docs: Vec<_> = parts
            .iter()
            .map(|p| PartDoc { path: &p.path, start: p.range.start, end: p.range.end })
            .collect();
        let mut out = std::io::stdout().lock();
        serde_json::to_writer(&mut out, &PartsDoc { parts: docs })?;
        writeln!(out)?;
    }
    Ok(crate::exit::success())
}

#[derive(serde::Serialize)]
struct PartDoc<'a> {
    path: &'a std::path::Path,
    start: u64,
    end: u64,
}

#[derive(serde::Serialize)]
struct PartsDoc<'a> {
    parts: Vec<PartDoc<'a>>,
}

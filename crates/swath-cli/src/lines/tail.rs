//! `swath tail`: the last N lines of a file, found by reading backwards
//! from its end (as GNU `tail` does): the time depends on N and the
//! lines' length, not on the file's size, so no index is needed.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

/// Print the last N lines of a file.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath tail big.log             the last 10 lines
  swath tail -n 100 big.log")]
pub struct Args {
    /// How many lines.
    #[arg(short = 'n', long, default_value_t = 10)]
    lines: u64,
    /// The file to read.
    file: PathBuf,
}

/// Where the last `n` lines of `file` (length `len`) start: after the
/// `n`-th `\n` from the end, the file's last byte not counted (it ends the
/// last line).
pub fn start_of_last(file: &std::fs::File, len: u64, n: u64) -> std::io::Result<u64> {
    if n == 0 {
        return Ok(len);
    }
    let mut buf = vec![0u8; 64 * 1024];
    let mut end = len.saturating_sub(1); // the last byte never starts a line
    let mut seen = 0;
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let block = &mut buf[..(end - start) as usize];
        let got = swath::range::read_full_at(file, block, start)?;
        if got < block.len() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the file shrank while it was read",
            ));
        }
        for i in memchr::memrchr_iter(b'\n', block) {
            seen += 1;
            if seen == n {
                return Ok(start + i as u64 + 1);
            }
        }
        end = start;
    }
    Ok(0)
}

/// Run `swath tail`.
pub fn run(args: Args) -> Result<ExitCode> {
    let file = super::regular_file(&args.file)?;
    let name = || format!("cannot read {}", args.file.display());
    let len = file.metadata().with_context(name)?.len();
    let start = start_of_last(&file, len, args.lines).with_context(name)?;
    let mut out = std::io::stdout().lock();
    crate::parts::stream_range(&file, &mut out, start..len).with_context(name)?;
    out.flush()?;
    Ok(crate::exit::success())
}

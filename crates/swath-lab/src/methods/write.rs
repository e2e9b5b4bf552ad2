//! Writing lines (seed 001): one `write` per line, `BufWriter`, and a
//! swath-style page-aligned buffer. Written into the page cache, not
//! synced: the difference measured is the cost of the calls.

use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::Path;

use super::{Counted, Outcome, WRITE_LINE};
use crate::aligned::AlignedBuf;

fn outcome(lines: u64, calls: u64) -> Outcome {
    Outcome {
        lines,
        bytes: lines * WRITE_LINE.len() as u64,
        syscalls: Some(calls),
        buf_offset: None,
        id_sum: None,
    }
}

/// `write_all` of each line straight to the file.
pub fn unbuffered(path: &Path, lines: u64) -> io::Result<Outcome> {
    let mut out = Counted::new(File::create(path)?);
    for _ in 0..lines {
        out.write_all(WRITE_LINE)?;
    }
    Ok(outcome(lines, out.calls()))
}

/// Each line through a default `BufWriter` (8 KiB).
pub fn bufwriter(path: &Path, lines: u64) -> io::Result<Outcome> {
    let mut out = BufWriter::new(Counted::new(File::create(path)?));
    for _ in 0..lines {
        out.write_all(WRITE_LINE)?;
    }
    out.flush()?;
    Ok(outcome(lines, out.get_ref().calls()))
}

/// Each line copied into a 256 KiB page-aligned buffer, written when full.
pub fn swath(path: &Path, lines: u64) -> io::Result<Outcome> {
    let mut out = Counted::new(File::create(path)?);
    let mut buf = AlignedBuf::new(256 * 1024);
    let mut used = 0;
    for _ in 0..lines {
        if used + WRITE_LINE.len() > buf.len() {
            out.write_all(&buf[..used])?;
            used = 0;
        }
        buf[used..used + WRITE_LINE.len()].copy_from_slice(WRITE_LINE);
        used += WRITE_LINE.len();
    }
    out.write_all(&buf[..used])?;
    Ok(outcome(lines, out.calls()))
}

/// The lines in what a write method wrote, checking its size first.
pub fn read_back(path: &Path, expect_bytes: u64) -> io::Result<u64> {
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    if len != expect_bytes {
        return Err(io::Error::other(format!(
            "{} holds {len} bytes, {expect_bytes} were written",
            path.display()
        )));
    }
    let mut buf = AlignedBuf::new(1 << 20);
    let mut count = swath::LineCount::default();
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        count.add(&buf[..n]);
    }
    Ok(count.lines())
}

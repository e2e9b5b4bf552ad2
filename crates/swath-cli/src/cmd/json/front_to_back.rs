//! `json slice`, `json tail` and `json sample` on a compressed file or
//! object, which cannot be read from a record in the middle: its records
//! are read front to back (on every core where the file's spans or its
//! gzip index allow), each checked as `json count` checks it
//! ([`swath_json::JsonReaderBuilder::for_each_record`]), and the answer is
//! the plain file's:
//!
//! - slice: reading stops after the last record asked for; the records'
//!   shape (lines or a document) is found first from the file's first
//!   bytes, so records are printed as they come;
//! - tail: the last N records are kept (memory for N records), printed
//!   once the whole input has read cleanly;
//! - sample: read twice, once to count the records and once to pick the
//!   chosen ones: the same seed gives the plain file's sample.
//!
//! Standard input stays refused (`locate::open` says why): a document's
//! shape is only known once read, and a sample reads twice.

use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use swath_json::Shape;

use super::locate::push_record;
use super::JsonOpts;
use crate::cmd::csv::IndexOpts;
use crate::pick::{choose, Prng};

/// True for a compressed file or object (standard input is left to
/// `locate::open`, which refuses it). Said on stderr when an index was
/// named: it cannot be used.
pub fn needed(opts: &JsonOpts, idx: &IndexOpts) -> Result<bool> {
    let path = opts.path();
    if path == Path::new("-") {
        return Ok(false);
    }
    let compressed = crate::cmd::csv::front_to_back::compressed(path, &opts.name())?;
    if compressed && idx.index_file.is_some() {
        eprintln!(
            "swath: note: the index is not used: {} is compressed and read from its start",
            opts.name()
        );
    }
    Ok(compressed)
}

/// Hand every record to `each` (number, bytes) in file order until it
/// returns false; the records' shape. `-v`'s note with `note`.
fn each_record(opts: &JsonOpts, note: bool, each: impl FnMut(u64, &[u8]) -> bool) -> Result<Shape> {
    let mut src = opts.open()?;
    let b = opts.builder();
    if note {
        opts.note(&b, &src);
    }
    Ok(b.for_each_record(&mut src, each)?)
}

/// Records `first..=last` (1-based).
pub fn slice(opts: &JsonOpts, first: u64, last: u64) -> Result<()> {
    // The shape from the first record (reading stops there).
    let shape = each_record(opts, false, |_, _| false)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut line = Vec::new();
    let mut failed = None;
    each_record(opts, true, |k, bytes| {
        if k >= first {
            line.clear();
            push_record(&mut line, &shape, bytes);
            if let Err(e) = out.write_all(&line) {
                failed = Some(e);
                return false;
            }
        }
        k < last
    })?;
    if let Some(e) = failed {
        return Err(e.into());
    }
    out.flush()?;
    Ok(())
}

/// Write `kept` records, formatted for `shape`, to standard output.
fn print(shape: &Shape, kept: impl IntoIterator<Item = Vec<u8>>) -> Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut line = Vec::new();
    for bytes in kept {
        line.clear();
        push_record(&mut line, shape, &bytes);
        out.write_all(&line)?;
    }
    out.flush()?;
    Ok(())
}

/// The last `n` records.
pub fn tail(opts: &JsonOpts, n: u64) -> Result<()> {
    let keep = usize::try_from(n).unwrap_or(usize::MAX);
    let mut ring: VecDeque<Vec<u8>> = VecDeque::new();
    let shape = each_record(opts, true, |_, bytes| {
        if keep > 0 {
            let mut slot =
                if ring.len() == keep { ring.pop_front().unwrap_or_default() } else { Vec::new() };
            slot.clear();
            slot.extend_from_slice(bytes);
            ring.push_back(slot);
        }
        true
    })?;
    print(&shape, ring)
}

/// `count` records chosen with `seed` as the plain file's sample chooses
/// them.
pub fn sample(opts: &JsonOpts, count: u64, seed: u64) -> Result<()> {
    let b = opts.builder();
    let mut src = opts.open()?;
    let records =
        b.count(&mut src).with_context(|| format!("cannot read {}", opts.name()))?.records;
    let chosen = choose(records, count, &mut Prng::new(seed));
    let mut want = chosen.iter().map(|x| x + 1).peekable();
    let mut kept = Vec::with_capacity(chosen.len());
    let shape = each_record(opts, true, |k, bytes| {
        if want.peek() == Some(&k) {
            kept.push(bytes.to_vec());
            want.next();
        }
        want.peek().is_some()
    })?;
    if want.peek().is_some() {
        anyhow::bail!("{}: the input changed between its two reads", opts.name());
    }
    print(&shape, kept)
}

//! `csv slice`, `csv tail` and `csv sample` on input that cannot be read
//! from a record in the middle: a compressed file (its bytes are not the
//! records' bytes) and standard input. The records are read front to back
//! by the sequential reader over the decoded bytes (on every core where
//! the file's spans allow), and the answer is the one the plain file gives:
//!
//! - slice: records before `--start` are skipped, reading stops after the
//!   last one asked for (as `head`, a broken record further on is not
//!   looked at);
//! - tail: the last N records are kept in a ring of reused buffers
//!   (memory for N records, not for the file), and nothing is written
//!   before the whole input has read cleanly;
//! - sample: a compressed file is read twice, once to count its records
//!   and once to pick the chosen ones, so that the same seed gives the
//!   plain file's sample. Standard input cannot be read twice: refused.

use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;

use anyhow::{bail, Context, Result};
use swath::Compression;

use super::locate::IndexOpts;
use super::CsvOpts;
use crate::pick::{choose, Prng};

/// True when the input has to be read front to back: standard input, a
/// compressed file or object, or text decoded from another encoding (its
/// records are not byte ranges of the file). Said on stderr when an index
/// was named (it cannot be used).
pub fn needed(opts: &CsvOpts, idx: &IndexOpts) -> Result<bool> {
    let path = opts.path();
    let front_to_back = path == Path::new("-") || compressed(path, &opts.name())? || decoded(opts)?;
    if front_to_back && idx.index_file.is_some() {
        eprintln!(
            "swath: note: the index is not used: {} is read from its start (compressed, decoded or a stream)",
            opts.name()
        );
    }
    Ok(front_to_back)
}

/// The file's text is decoded from another encoding (`--encoding`, or a
/// byte order mark of UTF-16 or UTF-32).
fn decoded(opts: &CsvOpts) -> Result<bool> {
    let cannot = || format!("cannot read {}", opts.name());
    let mut src = swath::Source::open_raw(opts.path()).with_context(cannot)?;
    Ok(src.text_to_decode(opts.decoding()).with_context(cannot)?.is_some())
}

/// The file (or object) starts with a compressed format's magic bytes.
pub fn compressed(path: &Path, name: &str) -> Result<bool> {
    let cannot = || format!("cannot read {name}");
    if swath::remote::is_url(path) {
        let src = swath::Source::open(path).with_context(cannot)?;
        return Ok(src.compression() != Compression::None);
    }
    let mut head = [0u8; swath::decompress::MAGIC_LEN];
    let file = std::fs::File::open(path).with_context(cannot)?;
    let n = swath::range::read_full_at(&file, &mut head, 0).with_context(cannot)?;
    Ok(Compression::detect(&head[..n]) != Compression::None)
}

/// Records `start..=last` (1-based data records).
pub fn slice(opts: &CsvOpts, start: u64, last: u64) -> Result<()> {
    let name = || format!("cannot read {}", opts.name());
    let mut rdr = opts.open(&opts.builder())?;
    let mut wtr = opts.writer().from_writer(std::io::BufWriter::new(std::io::stdout().lock()));
    if let Some(h) = rdr.headers().with_context(name)? {
        wtr.write_record(h.iter())?;
    }
    let mut k = 0u64;
    while k < last {
        let Some(rec) = rdr.next_record().with_context(name)? else { break };
        k += 1;
        if k >= start {
            wtr.write_record(rec.iter())?;
        }
    }
    finish(wtr)
}

/// One kept record: its fields' bytes end to end, and where each ends.
#[derive(Default)]
struct Kept {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Kept {
    fn fields(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(self.ends.iter().copied()).map(|(s, e)| &self.bytes[s..e])
    }
}

/// The last `n` records.
pub fn tail(opts: &CsvOpts, n: u64) -> Result<()> {
    let name = || format!("cannot read {}", opts.name());
    let mut rdr = opts.open(&opts.builder())?;
    // Nothing is written before the whole input has read cleanly.
    let header: Option<Vec<Vec<u8>>> =
        rdr.headers().with_context(name)?.map(|h| h.iter().map(<[u8]>::to_vec).collect());
    let keep = usize::try_from(n).unwrap_or(usize::MAX);
    let mut ring: VecDeque<Kept> = VecDeque::new();
    while let Some(rec) = rdr.next_record().with_context(name)? {
        if keep == 0 {
            continue;
        }
        let mut slot =
            if ring.len() == keep { ring.pop_front().unwrap_or_default() } else { Kept::default() };
        slot.bytes.clear();
        slot.ends.clear();
        for field in rec.iter() {
            slot.bytes.extend_from_slice(field);
            slot.ends.push(slot.bytes.len());
        }
        ring.push_back(slot);
    }
    let mut wtr = opts.writer().from_writer(std::io::BufWriter::new(std::io::stdout().lock()));
    if let Some(h) = &header {
        wtr.write_record(h.iter().map(Vec::as_slice))?;
    }
    for kept in &ring {
        wtr.write_record(kept.fields())?;
    }
    finish(wtr)
}

/// `count` records chosen with `seed` as the plain file's sample chooses
/// them: a first pass counts the records.
pub fn sample(opts: &CsvOpts, count: u64, seed: u64) -> Result<()> {
    if opts.path() == Path::new("-") {
        bail!(
            "sample reads its input twice (to count the records, then to pick them), \
             and standard input cannot be read twice: give a file"
        );
    }
    let name = || format!("cannot read {}", opts.name());
    let b = opts.builder();
    let records = swath_csv::ParallelReader::new(&b, opts.path()).count().with_context(name)?;
    let chosen = choose(records, count, &mut Prng::new(seed));
    let mut want = chosen.iter().peekable();
    let mut rdr = opts.open(&b)?;
    let mut wtr = opts.writer().from_writer(std::io::BufWriter::new(std::io::stdout().lock()));
    if let Some(h) = rdr.headers().with_context(name)? {
        wtr.write_record(h.iter())?;
    }
    let mut k = 0u64;
    while want.peek().is_some() {
        let Some(rec) = rdr.next_record().with_context(name)? else {
            bail!("{}: the input changed between its two reads", opts.name());
        };
        if want.peek() == Some(&&k) {
            wtr.write_record(rec.iter())?;
            want.next();
        }
        k += 1;
    }
    finish(wtr)
}

fn finish<W: Write>(wtr: swath_csv::Writer<W>) -> Result<()> {
    let mut out = wtr.finish().map_err(|e| e.into_error())?;
    out.flush()?;
    Ok(())
}

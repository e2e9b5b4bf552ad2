//! Every use the split plans make of the crate's internals, in one place:
//! the parallel reader's quote-parity plan and speculative first starts,
//! the configuration, and a reader resumed in the middle of a file.

use std::io::Read;
use std::path::Path;
use swath::ReadAt;

use swath::Parallel;

use crate::error::Result;
use crate::parallel::for_splits::{plan, speculate, CountOpts, ScanOpts};
use crate::reader::builder::ReaderBuilder;
use crate::reader::record::OwnedRecord;
use crate::reader::Reader;

/// What a split plan needs to know of the reader's settings.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dialect {
    /// Why the quote-parity model does not hold, if it does not.
    pub(crate) not_parity_safe: Option<&'static str>,
    /// Bare quotes are data (they break the quote parity).
    pub(crate) lenient: bool,
    pub(crate) has_headers: bool,
    pub(crate) skip_empty_lines: bool,
}

pub(crate) fn dialect(b: &ReaderBuilder) -> Dialect {
    let c = b.config();
    let not_parity_safe = if c.quoting && c.escape.is_some() {
        Some("an escape byte breaks the quote-parity model")
    } else if c.comment.is_some() {
        Some("comment lines break the quote-parity model")
    } else {
        None
    };
    Dialect {
        not_parity_safe,
        lenient: c.lenient && c.quoting,
        has_headers: c.has_headers,
        skip_empty_lines: c.skip_empty_lines,
    }
}

/// One chunk's first record boundary, as the quote-parity chain finds it:
/// `(byte, line)`, and the record starts predicted from there to the next.
pub(crate) struct ParityStart {
    pub(crate) byte: u64,
    pub(crate) line: u64,
    pub(crate) predicted: u64,
}

/// The longest range the quote-parity pass reads at a time: a split of
/// hundreds of MiB is scanned in pieces of this size or less, so the pass
/// holds a few MiB a thread and stops soon after a record over the limit.
const SCAN_PIECE: u64 = 4 << 20;

/// The quote-parity plan of `file` cut into `chunk`-byte pieces on
/// `threads` threads: the first boundary of every piece that has one (the
/// first entry is the top of the file, byte 0), in file order; several may
/// fall in one chunk. `None` when the pass stopped where no record had
/// started for longer than the record limit: only the sequential reader
/// can tell that record's error (or, where bare quotes misled the parity,
/// read on).
pub(crate) fn parity_starts(
    b: &ReaderBuilder,
    file: &dyn ReadAt,
    len: u64,
    bom: u64,
    chunk: u64,
    threads: usize,
) -> swath::Result<Option<Vec<ParityStart>>> {
    let c = b.config();
    let par = Parallel::new().threads(threads).chunk_size(chunk);
    let opts = ScanOpts {
        quote: c.quoting.then_some(c.quote),
        skip_empty: c.skip_empty_lines,
        starts: true,
    };
    let pieces = chunk.div_ceil(SCAN_PIECE);
    let plan = plan(file, len, bom, &par, pieces, c.kernel, opts, c.max_record as u64)?;
    if plan.long_record {
        return Ok(None);
    }
    Ok(Some(
        plan.tasks
            .iter()
            .map(|t| ParityStart { byte: t.start, line: t.line, predicted: t.predicted })
            .collect(),
    ))
}

/// Each chunk's first record start as guessed from its first bytes (both
/// quote hypotheses); the first entry is the top of the file.
pub(crate) fn guessed_starts(
    b: &ReaderBuilder,
    file: &dyn ReadAt,
    len: u64,
    bom: u64,
    chunk: u64,
    threads: usize,
    expected: Option<usize>,
) -> swath::Result<Vec<u64>> {
    let c = b.config();
    let par = Parallel::new().threads(threads).chunk_size(chunk);
    let tasks = speculate(file, len, bom, &par, c.kernel, CountOpts::new(c, expected))?;
    Ok(tasks.iter().map(|t| t.start).collect())
}

/// A reader over `src`, which holds the file from byte `byte` on (the
/// whole file when `byte` is 0), numbering as a read of the whole file
/// would at that point: line `line`, `records` records behind it.
pub(crate) fn reader_at<R: Read>(
    b: &ReaderBuilder,
    src: R,
    (len, path): (u64, &Path),
    (byte, line, records): (u64, u64, u64),
    top: &Top,
) -> Result<Reader<R>> {
    let mut rdr = b.from_reader(src)?;
    rdr.set_source_info(Some(len), Some(path.to_path_buf()));
    if byte > 0 {
        rdr.resume_at(byte, line, records, top.headers.clone(), top.expected);
    }
    Ok(rdr)
}

/// The next record's `(byte, line)` without reading it; `None` at the end.
pub(crate) fn next_record_start<R: Read>(rdr: &mut Reader<R>) -> Result<Option<(u64, u64)>> {
    Ok(rdr.next_record_start()?.map(|s| (s.byte, s.line)))
}

/// What every split's reader needs from the top of the file.
#[derive(Clone, Debug, Default)]
pub(crate) struct Top {
    /// The header row, when headers are on.
    pub(crate) headers: Option<OwnedRecord>,
    /// The field count learnt from the first record, if one is learnt.
    pub(crate) expected: Option<usize>,
    /// Where the first record starts (`None`: no record at all).
    pub(crate) first: Option<u64>,
}

/// Read the header row (or the first record, when the field count is
/// learnt without headers) of `file`.
pub(crate) fn read_top(b: &ReaderBuilder, file: &dyn ReadAt, len: u64, path: &Path) -> Result<Top> {
    let c = b.config();
    let mut rdr = reader_at(
        b,
        swath::RangeReader::new(file, 0..len),
        (len, path),
        (0, 1, 0),
        &Top::default(),
    )?;
    let mut top = Top::default();
    if c.has_headers {
        top.first = rdr.headers()?.map(|h| h.position().byte);
        top.headers = rdr.headers()?.cloned();
    } else {
        top.first = rdr.next_record_start()?.map(|s| s.byte);
        if c.fields == crate::reader::config::FieldCount::Learn {
            // The field count comes from the first record; its errors are
            // the split reader's to report.
            let _ = rdr.next_record();
        }
    }
    top.expected = rdr.expected_fields();
    Ok(top)
}

//! Reading one split alone: exactly the records whose first byte lies in
//! the split's range, numbered as in the whole file, and a check that the
//! split ends where the plan says the next one begins.

use std::io::Read;
use std::path::Path;
use swath::range::OwnedRange;

use super::bridge::{self, Top};
use super::Split;
use crate::error::{Error, ErrorKind, Position, Result};
use crate::reader::builder::ReaderBuilder;
use crate::reader::record::{OwnedRecord, Record};
use crate::reader::Reader;
use crate::reader::RecordBlock;

/// The records of one [`Split`], read alone (no other split need be read):
/// [`next_record`](Self::next_record) returns them in file order with the
/// whole file's record numbers, lines and bytes in their positions and
/// errors, then `None` after the last one.
///
/// The reader may read past the split's end to finish its last record,
/// and looks at where the next record starts (without reading it). When
/// that is not where the plan says the next split begins, or the split
/// held another number of records than planned, the last call returns an
/// [`ErrorKind::SplitMismatch`] error instead of `None`: a plan that does
/// not fit the file (it changed, or other settings made the plan) is never
/// a silent wrong record.
pub struct SplitReader<R = OwnedRange> {
    rdr: Reader<R>,
    /// Records starting at or past this byte are not the split's.
    end: u64,
    /// Records starting before this byte are skipped (a reader on a byte
    /// range that starts inside a split).
    skip_before: u64,
    /// The first record of the file is the first split's, wherever its
    /// first byte is (a BOM or empty lines may come before it).
    take_first: bool,
    /// Where the plan says the next record after the split starts, if the
    /// plan knows (`Some(None)`: at the end of input).
    expect_next: Option<Option<u64>>,
    /// Records the plan says the split holds (header row included).
    expect_records: Option<u64>,
    /// Records read (the header row not included).
    records: u64,
    /// The split holds the file's header row (the first split, headers on).
    has_header_row: bool,
    done: bool,
    /// Where the first record past the split starts, once known.
    next: Option<Option<(u64, u64)>>,
    /// Where the split's first record starts, once read.
    first: Option<(u64, u64)>,
}

impl<R: Read> SplitReader<R> {
    /// Records of `rdr` (positioned at a record start) that start before
    /// `end`, skipping those before `skip_before`.
    ///
    /// `take_first`: this is the first split, which owns the file's first
    /// record (and its header row, when `has_headers`).
    pub(crate) fn new(
        rdr: Reader<R>,
        end: u64,
        skip_before: u64,
        take_first: bool,
        has_headers: bool,
    ) -> Self {
        SplitReader {
            rdr,
            end,
            skip_before,
            // With headers, the file's first record is the header row, which
            // the reader reads before any other.
            take_first: take_first && !has_headers,
            expect_next: None,
            expect_records: None,
            records: 0,
            has_header_row: take_first && has_headers,
            done: false,
            next: None,
            first: None,
        }
    }

    /// Check the end against the plan: the next record starts at
    /// `next` (`None`: end of input) and the split holds `records`.
    pub(crate) fn expect(mut self, next: Option<u64>, records: Option<u64>) -> Self {
        self.expect_next = Some(next);

        self.expect_records = records;
        self
    }

    /// Do not check the end against the plan (a range that is not the
    /// plan's own).
    pub(crate) fn unchecked(&mut self) {
        self.expect_next = None;
        self.expect_records = None;
    }

    /// The split's next record, or `None` after its last one.
    ///
    /// # Errors
    ///
    /// As [`Reader::next_record`] (with the file's numbers), and
    /// [`ErrorKind::SplitMismatch`] at the end when the plan does not fit
    /// the file.
    pub fn next_record(&mut self) -> Result<Option<Record<'_>>> {
        if self.done {
            return Ok(None);
        }
        loop {
            match bridge::next_record_start(&mut self.rdr)? {
                Some((byte, _)) if byte < self.skip_before && !self.take_first => {
                    // Not ours: a record before the range asked for.
                    if let Err(e) = self.rdr.next_record() {
                        if !e.is_recoverable() {
                            return Err(e);
                        }
                    }
                }
                Some((byte, line)) if byte < self.end || self.take_first => {
                    self.take_first = false;
                    self.first.get_or_insert((byte, line));
                    self.records += 1;
                    return self.rdr.next_record();
                }
                next => {
                    self.done = true;
                    self.next = Some(next);
                    return self.check_end(next.map(|s| s.0)).map(|()| None);
                }
            }
        }
    }

    /// The split's next records as one block, at most `max`, or `None`
    /// when the next record is not one a block takes (or is not the
    /// split's): read it with [`next_record`](Self::next_record), which
    /// also ends the split, then ask again. As [`Reader::next_block`].
    ///
    /// # Errors
    ///
    /// As [`next_record`](Self::next_record) when finding where the next
    /// record starts fails.
    pub fn next_block(&mut self, max: usize) -> Result<Option<RecordBlock<'_>>> {
        if self.done || self.take_first {
            return Ok(None);
        }
        match bridge::next_record_start(&mut self.rdr)? {
            Some((byte, _)) if byte >= self.skip_before && byte < self.end => {}
            _ => return Ok(None),
        }
        let Some(block) = self.rdr.block_before(max, self.end) else {
            return Ok(None);
        };
        let first = block.position(0);
        self.first.get_or_insert((first.byte, first.line));
        self.records += block.len() as u64;
        Ok(Some(block))
    }

    fn check_end(&mut self, found: Option<u64>) -> Result<()> {
        let held = self.held()?;
        // Say what differs: where the next record starts, else how many
        // records the split held (its end agreeing with the plan).
        let kind = match (self.expect_next, self.expect_records) {
            (Some(planned), _) if planned != found => ErrorKind::SplitMismatch { planned, found },
            (Some(_), Some(planned)) if planned != held => {
                ErrorKind::SplitRecordsMismatch { planned, found: held }
            }
            _ => return Ok(()),
        };
        let pos = self.rdr.position();
        let at = Position::new(found.unwrap_or(pos.byte), pos.line, pos.record);
        let mut err = Error::new(kind).at(at);
        if let Some(p) = self.rdr.path() {
            err = err.with_path(p);
        }
        Err(err)
    }

    /// The header row, when headers are on (the file's, read from its top).
    ///
    /// # Errors
    ///
    /// As [`Reader::headers`].
    pub fn headers(&mut self) -> Result<Option<&OwnedRecord>> {
        self.rdr.headers()
    }

    /// The records read so far (the header row not included).
    pub fn records_read(&self) -> u64 {
        self.records
    }

    /// Where the first record after the split starts, `(byte, line)`, once
    /// [`next_record`](Self::next_record) has returned `None` (`Some(None)`:
    /// at the end of input).
    pub fn next_start(&self) -> Option<Option<(u64, u64)>> {
        self.next
    }

    /// Where the split's first record starts, `(byte, line)`, once read.
    pub fn first_start(&self) -> Option<(u64, u64)> {
        self.first
    }

    /// Records read, the header row included when the split holds it.
    pub(crate) fn held(&mut self) -> Result<u64> {
        let header = self.has_header_row && self.rdr.headers()?.is_some();
        Ok(self.records + u64::from(header))
    }

    /// The underlying reader (its path, position, and header lookups).
    pub fn reader(&self) -> &Reader<R> {
        &self.rdr
    }
}

impl<R> std::fmt::Debug for SplitReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SplitReader")
            .field("end", &self.end)
            .field("records", &self.records)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

/// Open `split` of the file at `path` (length `len`), knowing the top of
/// the file already; records starting before `skip_before` are skipped.
pub(crate) fn open_split(
    b: &ReaderBuilder,
    path: &Path,
    len: u64,
    split: &Split,
    top: &Top,
    skip_before: u64,
) -> Result<SplitReader<OwnedRange>> {
    let (src, _) = b.open_ranged(path)?;
    let at = if split.index == 0 { 0 } else { split.start };
    let file = OwnedRange::new(src, at, len);
    let records = split.record.saturating_sub(1);
    let rdr = bridge::reader_at(b, file, (len, path), (at, split.line, records), top)?;
    let next = (split.end < len).then_some(split.end);
    let first = split.index == 0 && skip_before == 0;
    let rdr =
        SplitReader::new(rdr, split.range.end, skip_before, first, bridge::dialect(b).has_headers);
    Ok(rdr.expect(next, Some(split.records)))
}

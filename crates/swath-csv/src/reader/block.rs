//! Blocks: many records of one buffer fill at once, for work that goes
//! column by column (an Arrow decoder) rather than record by record.
//!
//! [`Reader::next_block`] runs the reader's fast path (`read_fast`) over
//! the buffer from record to record without consuming it in between, and
//! stops at the first record that path does not take whole: a record
//! crossing the end of the buffer, an empty line or comment, a quote the
//! general machine must read, a field count that differs, a record past
//! the limit, a lone `\r`. That record is then read by `next_record`, the
//! general path, which says everything about it a record-at-a-time read
//! would (errors included). So a block holds only clean records, and
//! reading by blocks and by `next_record` gives the same records with the
//! same positions: the tests run every case through both.

use std::io::Read;

use super::machine::{Progress, Step};
use super::record::{OwnedRecord, Record, Span, SCRATCH};
use super::{fast_terminator, Reader};
use crate::error::{Position, Result};

/// Where one record of a block is, relative to the block's first byte.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BlockRecord {
    /// Its first byte.
    off: usize,
    /// Its bytes, terminator excluded.
    len: usize,
    /// Its line (1-based, of the whole input).
    line: u64,
}

/// Many records of one buffer fill, borrowed from the reader until its
/// next read; every record has [`width`](Self::width) fields. Field `c` of
/// record `r` is [`field(r, c)`](Self::field), unescaped.
///
/// ```
/// let mut rdr = swath_csv::Reader::new(&b"id,name\n1,Ada\n2,\"Grace, H\"\n"[..]);
/// let mut names = Vec::new();
/// loop {
///     if let Some(block) = rdr.next_block(1024)? {
///         for r in 0..block.len() {
///             names.push(String::from_utf8(block.field(r, 1).to_vec()).unwrap());
///         }
///     } else if let Some(rec) = rdr.next_record()? {
///         // The records a block does not take (the first one here: the
///         // field count is learnt from the header row only once it is read).
///         names.push(rec.get_str(1)?.to_string());
///     } else {
///         break;
///     }
/// }
/// assert_eq!(names, ["Ada", "Grace, H"]);
/// # Ok::<(), swath_csv::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct RecordBlock<'r> {
    data: &'r [u8],
    scratch: &'r [u8],
    /// `width` spans a record, records back to back; each relative to its
    /// record's first byte (or in `scratch`).
    spans: &'r [Span],
    recs: &'r [BlockRecord],
    width: usize,
    /// The input offset of `data[0]`.
    byte: u64,
    /// The record number of the first record.
    record: u64,
    headers: Option<&'r OwnedRecord>,
}

impl<'r> RecordBlock<'r> {
    /// Records in the block (at least one).
    #[inline]
    pub fn len(&self) -> usize {
        self.recs.len()
    }

    /// Always false: a block holds at least one record.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.recs.is_empty()
    }

    /// Fields in every record of the block.
    #[inline]
    pub fn width(&self) -> usize {
        self.width
    }

    /// Field `c` of record `r`, unescaped.
    ///
    /// # Panics
    ///
    /// When `r >= len()` or `c >= width()`.
    #[inline(always)]
    pub fn field(&self, r: usize, c: usize) -> &'r [u8] {
        assert!(c < self.width, "field {c} of a block of {} fields", self.width);
        let s = self.spans[r * self.width + c];
        if s.start & SCRATCH != 0 {
            &self.scratch[s.start & !SCRATCH..s.end]
        } else {
            let off = self.recs[r].off;
            &self.data[off + s.start..off + s.end]
        }
    }

    /// Field `c` of every record, in order: what a column-wise decoder
    /// walks (cheaper than [`field`](Self::field) for each record).
    ///
    /// # Panics
    ///
    /// When `c >= width()`.
    #[inline]
    pub fn column(&self, c: usize) -> BlockColumn<'r> {
        assert!(c < self.width, "field {c} of a block of {} fields", self.width);
        BlockColumn { block: *self, c, r: 0 }
    }

    /// Record `r` as a [`Record`], as `next_record` would have returned it.
    ///
    /// # Panics
    ///
    /// When `r >= len()`.
    pub fn record(&self, r: usize) -> Record<'r> {
        let rec = self.recs[r];
        Record {
            data: &self.data[rec.off..rec.off + rec.len],
            scratch: self.scratch,
            spans: &self.spans[r * self.width..(r + 1) * self.width],
            pos: self.position(r),
            headers: self.headers,
        }
    }

    /// Where record `r` starts (byte 0-based; line and record 1-based).
    ///
    /// # Panics
    ///
    /// When `r >= len()`.
    pub fn position(&self, r: usize) -> Position {
        let rec = self.recs[r];
        Position::new(self.byte + rec.off as u64, rec.line, self.record + r as u64)
    }

    /// Record `r`'s bytes as the input has them, terminator included.
    ///
    /// # Panics
    ///
    /// When `r >= len()`.
    pub fn raw(&self, r: usize) -> &'r [u8] {
        let rec = self.recs[r];
        let end = rec.off + rec.len;
        let term = fast_terminator(self.data, end).expect("a block's records end in a terminator");
        &self.data[rec.off..end + term]
    }

    /// The block's bytes, from its first record's first byte to its last
    /// record's terminator, and the bytes of the fields that needed
    /// unescaping: every field of the block is in one of them (a check of
    /// both, such as UTF-8 validity, holds for every field).
    pub fn bytes(&self) -> (&'r [u8], &'r [u8]) {
        (self.data, self.scratch)
    }
}

/// One field of every record of a block ([`RecordBlock::column`]).
#[derive(Clone)]
pub struct BlockColumn<'r> {
    block: RecordBlock<'r>,
    c: usize,
    r: usize,
}

impl<'r> Iterator for BlockColumn<'r> {
    type Item = &'r [u8];

    #[inline(always)]
    fn next(&mut self) -> Option<&'r [u8]> {
        let b = &self.block;
        let rec = b.recs.get(self.r)?;
        let s = b.spans[self.r * b.width + self.c];
        self.r += 1;
        Some(if s.start & SCRATCH != 0 {
            &b.scratch[s.start & !SCRATCH..s.end]
        } else {
            &b.data[rec.off + s.start..rec.off + s.end]
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.block.recs.len() - self.r;
        (n, Some(n))
    }
}

impl ExactSizeIterator for BlockColumn<'_> {}

impl std::fmt::Debug for RecordBlock<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecordBlock")
            .field("records", &self.len())
            .field("width", &self.width)
            .field("first", &self.position(0))
            .finish_non_exhaustive()
    }
}

impl<R: Read> Reader<R> {
    /// The next records of the buffer as one block, at most `max` of them,
    /// or `None` when the next record is not one a block takes (the end of
    /// input among them): read it with [`next_record`](Self::next_record),
    /// then ask again. See [`RecordBlock`] for a loop.
    ///
    /// Reading by blocks and records gives the same records, positions and
    /// errors as reading by records alone; a block never holds a record
    /// with an error, and it holds the records of one buffer fill (a few
    /// thousand, at the default capacity).
    ///
    /// # Errors
    ///
    /// None of its own (a fatal error is returned by the next
    /// `next_record`); the `Result` is for forms that may read.
    pub fn next_block(&mut self, max: usize) -> Result<Option<RecordBlock<'_>>> {
        self.next_block_before(max, u64::MAX)
    }

    /// [`next_block`](Self::next_block) of the records that start before
    /// byte `stop` (a byte range's end): the first record at or past it is
    /// left to `next_record`.
    ///
    /// # Errors
    ///
    /// None of its own, as [`next_block`](Self::next_block).
    pub fn next_block_before(&mut self, max: usize, stop: u64) -> Result<Option<RecordBlock<'_>>> {
        Ok(self.block_before(max, stop))
    }

    pub(crate) fn block_before(&mut self, max: usize, stop: u64) -> Option<RecordBlock<'_>> {
        self.has_record = false;
        self.feed.buffer_mut().consume(self.pending);
        self.pending = 0;
        if !self.steady || max == 0 {
            return None;
        }
        // Every record of a block has the field count the reader wants
        // (or, when any will do, the block's first one's).
        let mut width = self.expected;
        if width.is_none() && !self.any_count() {
            return None;
        }
        let byte = self.feed.buffer().offset();
        let data = self.feed.buffer().data();
        self.block_spans.clear();
        self.block_recs.clear();
        self.scratch.clear();
        let mut at = 0;
        let mut line = self.line;
        while self.block_recs.len() < max && byte + (at as u64) < stop {
            let rest = &data[at..];
            let Some(&b) = rest.first() else { break };
            if b == b'\n' || b == b'\r' || Some(b) == self.cfg.comment {
                break;
            }
            let (spans, scratch) = (self.block_spans.len(), self.scratch.len());
            let mut s = Progress::new();
            let step = self.machine.fast_fields(
                &mut s,
                &mut self.cur,
                rest,
                byte + at as u64,
                &mut self.block_spans,
                &mut self.scratch,
            );
            let n = self.block_spans.len() - spans;
            let end = match step {
                Some(Step::End(i)) if i <= self.cfg.max_record && width.is_none_or(|w| w == n) => {
                    fast_terminator(rest, i).map(|term| (i, i + term))
                }
                _ => None,
            };
            let Some((len, next)) = end else {
                // Not a record for a block: left for `next_record`.
                self.block_spans.truncate(spans);
                self.scratch.truncate(scratch);
                break;
            };
            width = Some(n);
            self.block_recs.push(BlockRecord { off: at, len, line });
            line += 1 + s.lines;
            at += next;
        }
        let n = self.block_recs.len();
        let (Some(width), true) = (width, n > 0) else {
            return None;
        };
        let record = self.records + 1;
        self.records += n as u64;
        let last = self.block_recs[n - 1];
        self.rec_pos = Position::new(byte + last.off as u64, last.line, self.records);
        self.line = line;
        self.pending = at;
        Some(RecordBlock {
            data: &data[..at],
            scratch: &self.scratch,
            spans: &self.block_spans,
            recs: &self.block_recs,
            width,
            byte,
            record,
            headers: self.headers.as_ref(),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::{Position, ReaderBuilder};

    /// The blocks' lengths and every record's fields, in order.
    fn blocks(b: &ReaderBuilder, input: &[u8], max: usize) -> (Vec<usize>, Vec<Vec<Vec<u8>>>) {
        let mut rdr = b.from_reader(input).unwrap();
        let (mut lens, mut recs) = (Vec::new(), Vec::new());
        loop {
            if let Some(blk) = rdr.next_block(max).unwrap() {
                lens.push(blk.len());
                for r in 0..blk.len() {
                    recs.push((0..blk.width()).map(|c| blk.field(r, c).to_vec()).collect());
                }
            } else if let Some(rec) = rdr.next_record().unwrap() {
                lens.push(0);
                recs.push(rec.iter().map(<[u8]>::to_vec).collect());
            } else {
                return (lens, recs);
            }
        }
    }

    #[test]
    fn a_block_takes_every_clean_record_of_the_buffer() {
        let mut doc = b"id,name\n".to_vec();
        for i in 0..1000 {
            doc.extend_from_slice(format!("{i},\"n, {i}\"\r\n").as_bytes());
        }
        let b = ReaderBuilder::new();
        let (lens, recs) = blocks(&b, &doc, 10_000);
        // The first record learns nothing new (the header row set the
        // count), but is read by the general path with the header row.
        assert_eq!(lens, [0, 999]);
        assert_eq!(recs.len(), 1000);
        assert_eq!(recs[999], [b"999".to_vec(), b"n, 999".to_vec()]);
        // `max` cuts blocks.
        let (lens, _) = blocks(&b, &doc, 300);
        assert_eq!(lens, [0, 300, 300, 300, 99]);
    }

    #[test]
    fn positions_count_lines_inside_quotes_and_crlf() {
        let doc = b"a,b\n1,\"x\ny\"\n2,z\r\n3,w\n";
        let mut rdr = ReaderBuilder::new().from_reader(&doc[..]).unwrap();
        rdr.next_record().unwrap().unwrap();
        let blk = rdr.next_block(10).unwrap().unwrap();
        assert_eq!(blk.len(), 2);
        assert_eq!(blk.position(0), Position::new(12, 4, 3));
        assert_eq!(blk.position(1), Position::new(17, 5, 4));
        assert_eq!(blk.field(1, 1), b"w");
        assert!(rdr.next_block(10).unwrap().is_none());
        assert!(rdr.next_record().unwrap().is_none());
    }

    #[test]
    fn what_a_block_leaves_to_next_record() {
        // A field count that differs (strict: an error for next_record),
        // an empty line, a bare quote, a record over the limit.
        let mut b = ReaderBuilder::new();
        b.has_headers(false).max_record_bytes(12);
        let doc = b"1,2\n3,4\n5\n6,7\n\n8,9\n1,a\"b\n2,3\n123456,789012\n4,5\n";
        let mut rdr = b.from_reader(&doc[..]).unwrap();
        let mut seen = Vec::new();
        loop {
            match rdr.next_block(100) {
                Ok(Some(blk)) => seen.push(format!("block {}", blk.len())),
                Ok(None) => match rdr.next_record() {
                    Ok(Some(_)) => seen.push("record".into()),
                    Ok(None) => break,
                    Err(e) if e.is_recoverable() => seen.push("recoverable".into()),
                    Err(_) => {
                        seen.push("fatal".into());
                        break;
                    }
                },
                Err(e) => panic!("{e}"),
            }
        }
        let want = [
            "record",
            "block 1",
            "recoverable",
            "block 1",
            "record",
            "recoverable",
            "block 1",
            "fatal",
        ];
        assert_eq!(seen, want);
    }

    #[test]
    fn flexible_blocks_end_where_the_field_count_changes() {
        let mut b = ReaderBuilder::new();
        b.has_headers(false).flexible(true);
        let (lens, recs) = blocks(&b, b"1,2\n3,4\n5\n6\n7,8,9\n", 100);
        // The first record starts the reader (the general path).
        assert_eq!(lens, [0, 1, 2, 1]);
        assert_eq!(recs[4], [b"7".to_vec(), b"8".to_vec(), b"9".to_vec()]);
    }
}

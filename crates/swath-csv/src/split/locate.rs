//! Records by number and by byte: where record `r` starts, the first
//! record at or after a byte, and a [`Split`] of any run of records, read
//! from the plan's split (or checkpoint) before it, so no more than one
//! split's bytes are read to find a place.

use super::{reader, Split, SplitPlan, SplitReader};
use crate::error::Result;

/// A record start: `(byte, line, record)`.
pub type Cut = (u64, u64, u64);

impl SplitPlan {
    /// Where record `record` (1-based, the header row is record 1) starts:
    /// `(byte, line, record)`; the top of the file `(0, 1, 1)` for record 1,
    /// and past the end `(file length, line, records + 1)` for any record
    /// after the last.
    ///
    /// # Errors
    ///
    /// An error reading the records before it in its split.
    pub fn record_start(&self, record: u64) -> Result<Cut> {
        if record <= 1 {
            return Ok((0, 1, 1));
        }
        let Some(i) = self
            .splits
            .iter()
            .position(|s| s.records > 0 && s.record <= record && record < s.record + s.records)
        else {
            return Ok(self.end_cut());
        };
        let mut rdr = self.reader(i)?;
        while let Some(rec) = rdr.next_record()? {
            let p = rec.position();
            if p.record >= record {
                return Ok((p.byte, p.line, p.record));
            }
        }
        Ok(self.end_cut())
    }

    /// The first record that starts at or after `byte` (the top of the
    /// file for byte 0), as [`record_start`](Self::record_start) gives it.
    ///
    /// # Errors
    ///
    /// An error reading the records before it in its split.
    pub fn first_record_at(&self, byte: u64) -> Result<Cut> {
        if byte == 0 {
            return Ok((0, 1, 1));
        }
        if byte >= self.len {
            return Ok(self.end_cut());
        }
        let mut rdr = self.reader_for_range(byte..self.len)?;
        if let Some(rec) = rdr.next_record()? {
            let p = rec.position();
            return Ok((p.byte, p.line, p.record));
        }
        Ok(self.end_cut())
    }

    /// Past the last record.
    fn end_cut(&self) -> Cut {
        let line = self.splits.last().map_or(1, |s| s.line);
        (self.len, line, self.records() + 1)
    }

    /// The split of the records from `from` up to (not including) `to`,
    /// two record starts of this file: it starts at the top of the file
    /// when `from` is record 1, and its reader checks that it ends at `to`
    /// having read every record between.
    pub fn split_between(&self, from: Cut, to: Cut) -> Split {
        let index = usize::from(from.2 > 1);
        let start = if index == 0 { 0 } else { from.0 };
        Split {
            index,
            range: start..to.0.max(start),
            start,
            end: to.0.max(start),
            record: from.2,
            line: from.1,
            records: to.2.saturating_sub(from.2),
        }
    }

    /// A reader of `split`, any run of records of this file (see
    /// [`split_between`](Self::split_between)), checked at its end.
    ///
    /// # Errors
    ///
    /// An I/O error opening the file.
    pub fn reader_of(&self, split: &Split) -> Result<SplitReader> {
        reader::open_split(&self.builder, &self.path, self.len, split, &self.top, 0)
    }
}

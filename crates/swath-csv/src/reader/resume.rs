//! Parallel reading (`crate::parallel`): a reader that starts in the
//! middle of an input, and record starts found without reading records.

use std::io::Read;

use swath::Buffer;

use super::record::OwnedRecord;
use super::Reader;
use crate::error::Result;

/// Where a record starts: its absolute byte offset and its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RecordStart {
    pub(crate) byte: u64,
    pub(crate) line: u64,
}

/// Parallel reading (`crate::parallel`): start in the middle of an input
/// and find record starts without reading the records.
impl<R: Read> Reader<R> {
    /// Make this fresh reader, whose source starts at byte `byte` of the
    /// input, continue a read that has `records` records behind it and is
    /// at line `line`, with the header row and field count already known.
    pub(crate) fn resume_at(
        &mut self,
        byte: u64,
        line: u64,
        records: u64,
        headers: Option<OwnedRecord>,
        expected: Option<usize>,
    ) {
        self.feed.buffer_mut().set_offset(byte);
        self.line = line;
        self.records = records;
        self.resumed = true;
        self.started = true;
        self.headers = headers;
        self.headers_read = true;
        if self.expected.is_none() {
            self.expected = expected;
        }
        self.steady = self.is_steady();
    }

    /// Skip to the next record's first byte (reading the header row first
    /// if needed) without reading the record: its byte offset and line, or
    /// `None` at end of input. The next [`next_record`](Self::next_record)
    /// reads the record that starts there.
    pub(crate) fn next_record_start(&mut self) -> Result<Option<RecordStart>> {
        if self.cfg.has_headers && !self.headers_read {
            self.read_headers()?;
        }
        self.has_record = false;
        self.feed.buffer_mut().consume(self.pending);
        self.pending = 0;
        if let Some(f) = self.fatal {
            return Err(self.fatal_error(f));
        }
        if !self.started {
            self.start()?;
        }
        let found = self.skip_to_record();
        self.steady = self.is_steady();
        if !found? {
            return Ok(None);
        }
        Ok(Some(RecordStart { byte: self.feed.buffer().offset(), line: self.line }))
    }

    /// The field count every record must have, once known.
    pub(crate) fn expected_fields(&self) -> Option<usize> {
        self.expected
    }

    /// The buffer, for another reader (see `with_buffer`).
    pub(crate) fn into_buffer(self) -> Buffer {
        self.feed.into_parts().1
    }
}

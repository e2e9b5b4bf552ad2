//! [`ArrowReader`]: CSV records into batches on the calling thread.

use std::io;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use swath_csv::Reader;

use crate::decode::{Decoder, Plan};
use crate::error::Result;

/// The input of a reader built from a stream: the bytes read ahead for
/// inference, then the rest.
pub type StreamInput<R> = io::Chain<io::Cursor<Vec<u8>>, R>;

/// Batches from a CSV [`Reader`], in order; an [`Iterator`] of
/// `Result<RecordBatch, ArrowError>` and an Arrow [`RecordBatchReader`]
/// (a CSV error travels inside `ArrowError::ExternalError`, and
/// `swath_arrow::Error::from` takes it back out). [`next_batch`](Self::next_batch)
/// gives this crate's [`Error`](crate::Error) directly.
pub struct ArrowReader<R> {
    rdr: Reader<R>,
    dec: Decoder,
    schema: SchemaRef,
    batch_size: usize,
    /// Stop before the first record that starts at or past this byte.
    end: Option<u64>,
    done: bool,
}

impl<R> std::fmt::Debug for ArrowReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArrowReader").field("schema", &self.schema).finish_non_exhaustive()
    }
}

impl<R: io::Read> ArrowReader<R> {
    pub(crate) fn new(rdr: Reader<R>, plan: Plan, end: Option<u64>) -> Result<ArrowReader<R>> {
        Ok(ArrowReader {
            rdr,
            dec: Decoder::new(&plan),
            schema: plan.schema.clone(),
            batch_size: plan.batch_size,
            end,
            done: false,
        })
    }

    /// The schema of the batches (projected).
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Fields made null because they did not fit ([`crate::OnError::Null`]).
    pub fn nulled(&self) -> u64 {
        self.dec.nulled
    }

    /// The next batch of up to the batch size rows, or `None` at the end.
    ///
    /// # Errors
    ///
    /// The CSV reader's errors and the decoder's (a field that does not
    /// fit its type), with record, line, byte and column. After an error
    /// the reader is done.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if self.done {
            return Ok(None);
        }
        match self.fill() {
            Ok(()) => {}
            Err(e) => {
                self.done = true;
                return Err(e.into());
            }
        }
        if self.dec.rows() == 0 {
            return Ok(None);
        }
        Ok(Some(self.dec.finish()?))
    }

    fn fill(&mut self) -> swath_csv::Result<()> {
        while self.dec.rows() < self.batch_size {
            let stop = self.end.unwrap_or(u64::MAX);
            if let Some(blk) = self.rdr.next_block_before(self.dec.room(), stop)? {
                self.dec.decode_block(&blk)?;
                for bad in self.dec.take_bad() {
                    self.rdr.keep_bad(bad);
                }
                continue;
            }
            // The records a block does not take, one at a time.
            let rec = match self.rdr.next_record() {
                Ok(Some(rec)) => rec,
                Ok(None) => {
                    self.done = true;
                    return Ok(());
                }
                // A record that starts past a range's end is not ours,
                // nor its error.
                Err(e)
                    if self
                        .end
                        .is_some_and(|end| e.record_position().is_some_and(|p| p.byte >= end)) =>
                {
                    self.done = true;
                    return Ok(());
                }
                Err(e) => return Err(e),
            };
            if self.end.is_some_and(|end| rec.position().byte >= end) {
                self.done = true;
                return Ok(());
            }
            match self.dec.decode(&rec) {
                Err(e) if self.dec.puts_aside() => self.rdr.put_aside(e),
                res => res?,
            }
        }
        Ok(())
    }

    /// The records put aside since the last call, in file order: broken
    /// ones (under [`swath_csv::OnBad::PutAside`]) and ones with a field
    /// that does not fit (under [`crate::OnError::PutAside`]).
    pub fn take_bad_records(&mut self) -> Vec<swath_csv::BadRecord> {
        let mut bad = self.rdr.take_bad_records();
        // A range's reader reads one record past its end: not ours.
        if let Some(end) = self.end {
            bad.retain(|b| b.position().byte < end);
        }
        bad
    }
}

impl<R: io::Read> Iterator for ArrowReader<R> {
    type Item = std::result::Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch().map_err(ArrowError::from).transpose()
    }
}

impl<R: io::Read> RecordBatchReader for ArrowReader<R> {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

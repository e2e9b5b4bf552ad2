//! Arrow batches of one split of an exact split plan
//! ([`swath_csv::SplitPlan`]): what an engine's worker decodes when it
//! knows nothing of the other splits.

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use swath_csv::SplitReader;

use crate::builder::ArrowReaderBuilder;
use crate::decode::Decoder;
use crate::error::{Error, Result};

/// Batches of the records of one split (or of a byte range of a plan,
/// [`swath_csv::SplitPlan::reader_for_range`]), with the whole file's
/// record numbers, lines, bytes and path in its errors, and the split
/// reader's check that the split ended where the plan says the next one
/// starts. Made by [`ArrowReaderBuilder::from_split_reader`].
pub struct SplitArrowReader {
    rdr: SplitReader,
    dec: Decoder,
    schema: SchemaRef,
    batch_size: usize,
    done: bool,
}

impl std::fmt::Debug for SplitArrowReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SplitArrowReader").field("schema", &self.schema).finish_non_exhaustive()
    }
}

impl ArrowReaderBuilder {
    /// Batches of the records `rdr` reads (one split of a plan made with
    /// the same CSV settings). The schema must be given
    /// ([`schema`](Self::schema)): the whole file's, one field per column;
    /// the projection applies.
    ///
    /// # Errors
    ///
    /// [`Error::Schema`] without a schema, or a projection that does not
    /// fit it.
    pub fn from_split_reader(&self, rdr: SplitReader) -> Result<SplitArrowReader> {
        let schema = self
            .given_schema()
            .ok_or_else(|| Error::Schema("reading a split needs a given schema".into()))?;
        let plan = self.plan(&schema)?;
        Ok(SplitArrowReader {
            rdr,
            dec: Decoder::new(&plan),
            schema: plan.schema.clone(),
            batch_size: plan.batch_size,
            done: false,
        })
    }
}

impl SplitArrowReader {
    /// The schema of the batches (projected).
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Fields made null because they did not fit ([`crate::OnError::Null`]).
    pub fn nulled(&self) -> u64 {
        self.dec.nulled
    }

    /// The next batch of up to the batch size rows, or `None` after the
    /// split's last record.
    ///
    /// # Errors
    ///
    /// The CSV reader's errors (a split that does not fit its plan
    /// included) and the decoder's, with path, record, line, byte and
    /// column. After an error the reader is done.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if self.done {
            return Ok(None);
        }
        if let Err(e) = self.fill() {
            self.done = true;
            return Err(e.into());
        }
        if self.dec.rows() == 0 {
            return Ok(None);
        }
        Ok(Some(self.dec.finish()?))
    }

    fn fill(&mut self) -> swath_csv::Result<()> {
        while self.dec.rows() < self.batch_size {
            if let Some(blk) = self.rdr.next_block(self.dec.room())? {
                self.dec.decode_block(&blk)?;
                continue;
            }
            match self.rdr.next_record()? {
                Some(rec) => self.dec.decode(&rec)?,
                None => {
                    self.done = true;
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}

impl Iterator for SplitArrowReader {
    type Item = std::result::Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch().map_err(ArrowError::from).transpose()
    }
}

impl RecordBatchReader for SplitArrowReader {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

//! [`JsonBatches`]: the batches of [`JsonReaderBuilder::for_each_batch`]
//! as an Arrow `RecordBatchReader`, decoded on a thread of their own (with
//! its workers) and handed over a channel of two; dropping it stops them.

use std::sync::mpsc;
use std::thread;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use swath::Source;

use crate::error::{Error, Result};
use crate::reader::JsonReaderBuilder;

/// Batches in file order, pulled; see the module.
#[derive(Debug)]
pub struct JsonBatches {
    schema: SchemaRef,
    rx: Option<mpsc::Receiver<Result<RecordBatch>>>,
    handle: Option<thread::JoinHandle<()>>,
}

impl JsonReaderBuilder {
    /// Decode `src` into batches of `schema` on a thread of its own: an
    /// iterator and an Arrow [`RecordBatchReader`].
    ///
    /// # Errors
    ///
    /// A schema the decoder cannot build; reading errors come through the
    /// iterator, after the batches before them.
    pub fn into_batches(&self, mut src: Source, schema: SchemaRef) -> Result<JsonBatches> {
        crate::decode::Decoder::new(schema.clone())?;
        let (tx, rx) = mpsc::sync_channel::<Result<RecordBatch>>(2);
        let b = self.clone();
        let s = schema.clone();
        let handle = thread::Builder::new()
            .name("swath-json".into())
            .spawn(move || {
                let err_tx = tx.clone();
                let res = b.for_each_batch(&mut src, s, |batch| {
                    tx.send(Ok(batch))
                        .map_err(|_| Error::Consumer("the batch reader was dropped".into()))
                });
                if let Err(e) = res {
                    let _ = err_tx.send(Err(e));
                }
            })
            .map_err(|e| Error::Read(e.into()))?;
        Ok(JsonBatches { schema, rx: Some(rx), handle: Some(handle) })
    }
}

impl JsonBatches {
    /// The next batch, or `None` at the end.
    ///
    /// # Errors
    ///
    /// As [`JsonReaderBuilder::for_each_batch`].
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        let Some(rx) = &self.rx else { return Ok(None) };
        match rx.recv() {
            Ok(Ok(b)) => Ok(Some(b)),
            Ok(Err(e)) => {
                self.rx = None;
                Err(e)
            }
            Err(_) => {
                self.rx = None;
                Ok(None)
            }
        }
    }
}

impl Iterator for JsonBatches {
    type Item = std::result::Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch().map_err(ArrowError::from).transpose()
    }
}

impl RecordBatchReader for JsonBatches {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

impl Drop for JsonBatches {
    fn drop(&mut self) {
        // Close the channel first: the decoding thread's next send fails.
        self.rx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

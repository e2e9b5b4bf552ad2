//! [`JsonBatches`]: the batches of [`JsonReaderBuilder::for_each_batch`]
//! as an Arrow `RecordBatchReader`, decoded on a thread of their own (with
//! its workers) and handed over a channel of two
//! ([`swath_arrow::ThreadBatches`]); dropping it stops them.

use arrow_schema::SchemaRef;
use swath::Source;
use swath_arrow::ThreadBatches;

use crate::bad::BadRecord;
use crate::error::{Error, Result};
use crate::reader::JsonReaderBuilder;

/// Batches in file order, pulled; see the module.
pub type JsonBatches = ThreadBatches<Error>;

impl JsonReaderBuilder {
    /// Decode `src` into batches of `schema` on a thread of its own: an
    /// iterator and an Arrow [`RecordBatchReader`](arrow_array::RecordBatchReader).
    ///
    /// # Errors
    ///
    /// A schema the decoder cannot build; reading errors come through the
    /// iterator, after the batches before them.
    pub fn into_batches(&self, src: Source, schema: SchemaRef) -> Result<JsonBatches> {
        self.into_batches_with_bad(src, schema, |_| Ok(()))
    }

    /// [`into_batches`](Self::into_batches), the records put aside
    /// ([`on_bad`](Self::on_bad)) handed to `aside` on the decoding thread,
    /// as [`for_each_batch_with_bad`](Self::for_each_batch_with_bad) does.
    ///
    /// # Errors
    ///
    /// As [`into_batches`](Self::into_batches); `aside`'s errors come
    /// through the iterator.
    pub fn into_batches_with_bad(
        &self,
        mut src: Source,
        schema: SchemaRef,
        aside: impl FnMut(Vec<BadRecord>) -> Result<()> + Send + 'static,
    ) -> Result<JsonBatches> {
        crate::decode::Decoder::new(schema.clone())?;
        let b = self.clone();
        let s = schema.clone();
        let dropped = || Error::Consumer("the batch reader was dropped".into());
        ThreadBatches::spawn("swath-json", schema, dropped, move |push| {
            (b.for_each_batch_with_bad(&mut src, s, push, aside).map(|_| ()), ())
        })
        .map_err(|e| Error::Read(e.into()))
    }
}

//! [`JsonBatches`]: the batches of [`JsonReaderBuilder::for_each_batch`]
//! as an Arrow `RecordBatchReader`, decoded on a thread of their own (with
//! its workers) and handed over a channel of two
//! ([`swath_arrow::ThreadBatches`]); dropping it stops them.

use arrow_schema::SchemaRef;
use swath::Source;
use swath_arrow::ThreadBatches;

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
    pub fn into_batches(&self, mut src: Source, schema: SchemaRef) -> Result<JsonBatches> {
        crate::decode::Decoder::new(schema.clone())?;
        let b = self.clone();
        let s = schema.clone();
        let dropped = || Error::Consumer("the batch reader was dropped".into());
        ThreadBatches::spawn("swath-json", schema, dropped, move |push| {
            (b.for_each_batch(&mut src, s, push).map(|_| ()), ())
        })
        .map_err(|e| Error::Read(e.into()))
    }
}

//! Opening one partition's piece of a JSON-lines file: the lines that
//! start in its byte range ([`swath_json::RangeBatches`]), or a compressed
//! file whole, on a thread of its own.

use std::path::PathBuf;
use std::sync::{mpsc, Arc};

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{FileOpenFuture, FileOpener};
use datafusion::error::Result;
use futures::StreamExt;

use super::{from_json, SwathJsonOptions};
use crate::paths::is_compressed;

/// Opens files (or their byte ranges) of a swath JSON table.
pub(crate) struct SwathJsonOpener {
    pub(crate) opts: Arc<SwathJsonOptions>,
    /// The whole file schema.
    pub(crate) file_schema: SchemaRef,
    /// The top-level fields the query needs, in file order.
    pub(crate) file_indices: Vec<usize>,
    pub(crate) batch_size: usize,
    /// Rows at most (a `LIMIT` pushed down).
    pub(crate) limit: Option<usize>,
}

/// Batches of one piece: a byte range pulled on the caller's thread, or a
/// stream decoded on a thread of its own.
enum Batches {
    Range(Box<swath_json::RangeBatches>),
    Stream(mpsc::Receiver<swath_json::Result<RecordBatch>>),
}

impl Batches {
    fn next_batch(&mut self) -> swath_json::Result<Option<RecordBatch>> {
        match self {
            Batches::Range(r) => r.next_batch(),
            Batches::Stream(rx) => rx.recv().ok().transpose(),
        }
    }
}

impl FileOpener for SwathJsonOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let path: PathBuf = self.opts.path_of(&file.object_meta.location)?;
        let schema: SchemaRef = Arc::new(Schema::new(
            self.file_indices
                .iter()
                .map(|&i| self.file_schema.field(i).clone())
                .collect::<Vec<_>>(),
        ));
        let mut b = self.opts.reader.clone();
        let batch_size = self.limit.map_or(self.batch_size, |l| l.clamp(1, self.batch_size));
        b.batch_size(batch_size).threads(1);
        let range = file.range.as_ref().map(|r| (r.start.max(0) as u64)..(r.end.max(0) as u64));
        let limit = self.limit;
        Ok(Box::pin(async move {
            let batches = if is_compressed(&path) {
                if range.as_ref().is_some_and(|r| r.start > 0) {
                    // A compressed file is read whole by the piece from 0.
                    return Ok(futures::stream::empty().boxed());
                }
                let (tx, rx) = mpsc::sync_channel(2);
                let p = path.clone();
                std::thread::spawn(move || {
                    let res = swath::Source::open(&p).map_err(swath_json::Error::from).and_then(
                        |mut src| {
                            b.for_each_batch(&mut src, schema, |batch| {
                                tx.send(Ok(batch)).map_err(|_| {
                                    swath_json::Error::Consumer("the scan was dropped".into())
                                })
                            })
                        },
                    );
                    if let Err(e) = res {
                        let _ = tx.send(Err(e));
                    }
                });
                Batches::Stream(rx)
            } else {
                let (src, len) =
                    swath::range::open_ranged(&path).map_err(|e| from_json(e.into(), &path))?;
                let range = range.unwrap_or(0..len);
                let rdr = b
                    .range_batches(src, len, range, schema, Some(path.clone()))
                    .map_err(|e| from_json(e, &path))?;
                Batches::Range(Box::new(rdr))
            };
            let state = (batches, limit.unwrap_or(usize::MAX), path);
            let stream = futures::stream::unfold(Some(state), |state| async move {
                let (mut batches, left, path) = state?;
                if left == 0 {
                    return None;
                }
                match batches.next_batch() {
                    Ok(Some(batch)) => {
                        let batch =
                            if batch.num_rows() > left { batch.slice(0, left) } else { batch };
                        let left = left - batch.num_rows();
                        Some((Ok(batch), Some((batches, left, path))))
                    }
                    Ok(None) => None,
                    Err(e) => Some((Err(from_json(e, &path)), None)),
                }
            });
            Ok(stream.boxed())
        }))
    }
}

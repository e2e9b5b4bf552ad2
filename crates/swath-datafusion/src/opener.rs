//! Opening one partition's piece of a file: a byte range of the file's
//! exact split plan, decoded by swath-arrow.

use std::path::PathBuf;
use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{FileOpenFuture, FileOpener};
use datafusion::error::{DataFusionError, Result};
use futures::StreamExt;

use crate::error::{from_arrow, from_shared};
use crate::options::SwathCsvOptions;
use crate::paths::is_compressed;
use crate::plan_cache::PlanCache;

/// Opens files (or their byte ranges) of a swath CSV table.
pub(crate) struct SwathCsvOpener {
    pub(crate) opts: Arc<SwathCsvOptions>,
    pub(crate) cache: Arc<PlanCache>,
    /// The whole file schema, one field per CSV column.
    pub(crate) file_schema: SchemaRef,
    /// The file columns the query needs, in file order.
    pub(crate) file_indices: Vec<usize>,
    pub(crate) batch_size: usize,
    /// Rows at most (a `LIMIT` pushed down): decoding stops there.
    pub(crate) limit: Option<usize>,
}

/// Batches of one piece, by whichever reader it needs.
enum Batches {
    Split(swath_arrow::SplitArrowReader),
    Whole(swath_arrow::ArrowReader<swath_arrow::StreamInput<swath::Source>>),
}

impl Batches {
    fn next_batch(&mut self) -> swath_arrow::Result<Option<RecordBatch>> {
        match self {
            Batches::Split(r) => r.next_batch(),
            Batches::Whole(r) => r.next_batch(),
        }
    }
}

impl FileOpener for SwathCsvOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let path: PathBuf = self.opts.path_of(&file.object_meta.location)?;
        let mut b = self.opts.arrow.clone();
        let batch_size = self.limit.map_or(self.batch_size, |l| l.clamp(1, self.batch_size));
        b.schema(self.file_schema.clone())
            .projection(self.file_indices.clone())
            .batch_size(batch_size);
        let range = file.range.as_ref().map(|r| (r.start.max(0) as u64)..(r.end.max(0) as u64));
        let opts = self.opts.clone();
        let cache = self.cache.clone();
        let limit = self.limit;
        Ok(Box::pin(async move {
            let batches = match range {
                Some(r) if !is_compressed(&path) => {
                    let plan = cache.plan(&path, &opts).map_err(|e| from_shared(e, &path))?;
                    let rdr =
                        plan.reader_for_range(r).map_err(|e| crate::error::from_csv(e, &path))?;
                    Batches::Split(b.from_split_reader(rdr).map_err(|e| from_arrow(e, &path))?)
                }
                Some(r) if r.start > 0 => {
                    return Err(DataFusionError::Execution(format!(
                        "{}: a compressed file cannot be read from byte {}",
                        path.display(),
                        r.start
                    )))
                }
                _ => Batches::Whole(b.from_path(&path).map_err(|e| from_arrow(e, &path))?),
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
                    // After an error, nothing more.
                    Err(e) => Some((Err(from_arrow(e, &path)), None)),
                }
            });
            Ok(stream.boxed())
        }))
    }
}

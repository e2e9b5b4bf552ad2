//! Opening one partition's piece of a file as a stream of batches, cut
//! short at a pushed-down `LIMIT`, with nothing after an error.

use std::sync::Arc;

use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{FileOpenFuture, FileOpener};
use datafusion::error::Result;
use futures::StreamExt;

use super::{NextBatch, Piece, ReadSpec, ScanFormat};

/// Opens files (or their byte ranges) of a swath table.
pub(crate) struct SwathOpener<F> {
    pub(crate) scan: Arc<F>,
    pub(crate) read: ReadSpec,
    /// Rows at most (a `LIMIT` pushed down): decoding stops there.
    pub(crate) limit: Option<usize>,
}

/// What a partition reads of `file`; `None`: nothing (a range of a
/// compressed file that does not hold its byte 0, see the module doc).
fn piece_of(file: &PartitionedFile, compressed: bool) -> Option<Piece> {
    let range = file.range.as_ref().map(|r| (r.start.max(0) as u64)..(r.end.max(0) as u64));
    match range {
        Some(r) if compressed && r.start > 0 => None,
        Some(r) if !compressed => Some(Piece::Range(r)),
        _ => Some(Piece::Whole { compressed }),
    }
}

impl<F: ScanFormat> FileOpener for SwathOpener<F> {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let path = self.scan.path_of(&file.object_meta.location)?;
        let mut read = self.read.clone();
        read.batch_size = self.limit.map_or(read.batch_size, |l| l.clamp(1, read.batch_size));
        let scan = self.scan.clone();
        let limit = self.limit.unwrap_or(usize::MAX);
        Ok(Box::pin(async move {
            let Some(piece) = piece_of(&file, scan.read_whole(&path)) else {
                return Ok(futures::stream::empty().boxed());
            };
            let batches = scan.open(&path, piece, &read)?;
            Ok(limited(batches, limit).boxed())
        }))
    }
}

/// The batches, `limit` rows at most; nothing after an error.
fn limited(
    batches: Box<dyn NextBatch>,
    limit: usize,
) -> impl futures::Stream<Item = Result<datafusion::arrow::array::RecordBatch>> {
    futures::stream::unfold(Some((batches, limit)), |state| async move {
        let (mut batches, left) = state?;
        if left == 0 {
            return None;
        }
        match batches.next_batch() {
            Ok(Some(batch)) => {
                let batch = if batch.num_rows() > left { batch.slice(0, left) } else { batch };
                let left = left - batch.num_rows();
                Some((Ok(batch), Some((batches, left))))
            }
            Ok(None) => None,
            Err(e) => Some((Err(e), None)),
        }
    })
}

#[cfg(test)]
mod tests {
    use datafusion::datasource::listing::FileRange;

    use super::*;

    fn file(range: Option<(i64, i64)>) -> PartitionedFile {
        let mut f = PartitionedFile::new("f", 100);
        f.range = range.map(|(start, end)| FileRange { start, end });
        f
    }

    #[test]
    fn a_compressed_file_is_read_by_the_range_that_holds_its_first_byte() {
        let whole = Some(Piece::Whole { compressed: true });
        assert_eq!(piece_of(&file(None), true), whole);
        assert_eq!(piece_of(&file(Some((0, 40))), true), whole);
        assert_eq!(piece_of(&file(Some((40, 100))), true), None);
        assert_eq!(piece_of(&file(Some((40, 100))), false), Some(Piece::Range(40..100)));
        assert_eq!(piece_of(&file(None), false), Some(Piece::Whole { compressed: false }));
    }
}

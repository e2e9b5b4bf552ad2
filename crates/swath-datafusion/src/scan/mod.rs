//! One DataFusion scan for every format swath reads.
//!
//! A format ([`ScanFormat`]) says only what is its own: how its schema is
//! inferred, where a plain file may be cut (CSV: at the splits of its
//! exact plan; JSON lines: anywhere), and how a piece of a file becomes
//! Arrow batches. Everything around that is here, once:
//!
//! - [`SwathFormat`]: the DataFusion `FileFormat` (extension, statistics,
//!   the physical plan), with the format's inference;
//! - [`SwathSource`]: the `FileSource` (projection and batch size pushed
//!   down, and the files cut into pieces, dealt to the partitions largest
//!   first onto the least loaded);
//! - the opener: a piece read as a stream of batches, stopped at a pushed
//!   down `LIMIT`, nothing after an error.
//!
//! A compressed file cannot be cut: it is one piece, and a range of it is
//! read by the rule every piece follows: a record belongs to the range
//! that holds its first byte. The whole decoded stream starts at byte 0,
//! so the range that holds byte 0 reads the whole file and any other
//! range of it reads nothing. Any cover of the file in ranges then reads
//! each record once, for CSV and JSON alike.

mod format;
pub(crate) mod listing;
mod opener;
mod source;

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::error::Result;

pub use format::SwathFormat;
pub use source::SwathSource;

/// What a file format gives the shared scan. Implemented by
/// [`CsvScan`](crate::CsvScan) and [`JsonScan`](crate::JsonScan);
/// `docs/design.md` has the recipe for a new one.
pub trait ScanFormat: fmt::Debug + Send + Sync + 'static {
    /// The scan's name in a plan (`swath_csv`).
    const FILE_TYPE: &'static str;
    /// The ending of a directory's files when the options name none.
    const DEFAULT_EXTENSION: &'static str;
    /// Said after the scan's files in `EXPLAIN` (`exact_splits=true`).
    const EXPLAIN: &'static str;

    /// The ending the options name for a directory's files.
    fn file_extension(&self) -> Option<&str>;

    /// The path swath opens for an object of the table's store.
    fn path_of(&self, location: &object_store::path::Path) -> Result<PathBuf>;

    /// The schema of the table made of these files.
    fn infer_schema(&self, paths: &[PathBuf]) -> Result<SchemaRef>;

    /// The records of the file, where the format knows them without
    /// reading it (`will_split`: the scan is about to cut the file, so
    /// work done to cut it may be done now).
    fn num_rows(&self, _path: &Path, _will_split: bool) -> Result<Option<usize>> {
        Ok(None)
    }

    /// The file is read whole, from its start, by one partition: it is
    /// compressed, or (a format that decodes text) in another encoding,
    /// so that its bytes are not its records' and cannot be cut.
    fn read_whole(&self, path: &Path) -> bool {
        is_compressed(path)
    }

    /// Cut a plain file of `len` bytes (more than 0) into at most `share`
    /// ranges, each starting where a reader of the range starts its first
    /// record, together covering the file.
    fn cut(&self, path: &Path, len: u64, share: usize) -> Result<Vec<Range<u64>>>;

    /// A reader of one piece of a file.
    fn open(&self, path: &Path, piece: Piece, read: &ReadSpec) -> Result<Box<dyn NextBatch>>;
}

/// Which part of a file a partition reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    /// The records that start in this byte range of a plain file.
    Range(Range<u64>),
    /// The whole file, decoded when it is compressed.
    Whole {
        /// Whether the file starts with a compression format's magic.
        compressed: bool,
    },
}

/// What the query wants of a piece.
#[derive(Clone, Debug)]
pub struct ReadSpec {
    /// The whole file schema.
    pub file_schema: SchemaRef,
    /// The file columns the query needs, in file order.
    pub file_indices: Vec<usize>,
    /// Rows a batch at most.
    pub batch_size: usize,
}

impl ReadSpec {
    /// The schema of the needed columns.
    pub fn projected_schema(&self) -> SchemaRef {
        std::sync::Arc::new(datafusion::arrow::datatypes::Schema::new(
            self.file_indices
                .iter()
                .map(|&i| self.file_schema.field(i).clone())
                .collect::<Vec<_>>(),
        ))
    }
}

/// Batches of one piece, pulled one at a time; errors name the file.
pub trait NextBatch: Send {
    /// The next batch; `None` at the piece's end.
    fn next_batch(&mut self) -> Result<Option<RecordBatch>>;
}

/// Whether the file (or remote object) starts with the magic of a
/// compression format.
pub(crate) use crate::paths::is_compressed;

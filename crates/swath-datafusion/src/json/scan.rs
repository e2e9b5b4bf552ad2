//! JSON in the shared scan: the schema by swath-json's inference (joined
//! over the files) or the user's, files cut into even byte ranges for
//! JSON lines (any cut is exact: a range reads the lines that start in
//! it) or at record starts for a document (an array, a wrapper, pretty
//! objects: the parity-and-depth chain), a range
//! read by [`swath_json::RangeBatches`] on the caller's thread, a
//! compressed file decoded on a thread of its own
//! ([`swath_json::JsonBatches`]).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::{Schema, SchemaRef};
use datafusion::error::Result;
use swath_json::infer::{schema_of, Obj};

use super::{from_json, SwathJsonOptions};
use crate::scan::{NextBatch, Piece, ReadSpec, ScanFormat, SwathFormat, SwathSource};

/// JSON lines read by swath: exact byte ranges, swath's types and errors.
pub type SwathJsonFormat = SwathFormat<JsonScan>;

/// The scan of a swath JSON table.
pub type SwathJsonSource = SwathSource<JsonScan>;

/// The JSON-lines side of the shared scan.
#[derive(Debug)]
pub struct JsonScan {
    pub(crate) opts: SwathJsonOptions,
}

impl SwathJsonFormat {
    /// A format reading with these options.
    pub fn new(opts: SwathJsonOptions) -> SwathJsonFormat {
        SwathFormat { scan: Arc::new(JsonScan { opts }) }
    }
}

impl JsonScan {
    /// How its files are read.
    pub fn options(&self) -> &SwathJsonOptions {
        &self.opts
    }
}

impl ScanFormat for JsonScan {
    const FILE_TYPE: &'static str = "swath_json";
    const DEFAULT_EXTENSION: &'static str = ".jsonl";
    const EXPLAIN: &'static str = "line_ranges=true";

    fn file_extension(&self) -> Option<&str> {
        self.opts.file_extension.as_deref()
    }

    fn path_of(&self, location: &object_store::path::Path) -> Result<PathBuf> {
        self.opts.path_of(location)
    }

    fn infer_schema(&self, paths: &[PathBuf]) -> Result<SchemaRef> {
        if let Some(s) = &self.opts.schema {
            return Ok(s.clone());
        }
        // The files' types joined field by field, as one file's lines are.
        let mut root = Obj::default();
        for path in paths {
            let inferred = self.opts.reader.infer_schema(path).map_err(|e| from_json(e, path))?;
            root.join(inferred.root);
        }
        Ok(Arc::new(if paths.is_empty() { Schema::empty() } else { schema_of(&root) }))
    }

    /// Compressed, or broken records put aside ([`crate::bad`]).
    fn read_whole(&self, path: &Path) -> bool {
        self.opts.put_aside.is_some() || crate::scan::is_compressed(path)
    }

    fn cut(&self, path: &Path, len: u64, share: usize) -> Result<Vec<std::ops::Range<u64>>> {
        // Lines: even cuts (any cut is exact). A document (an array, a
        // wrapper, pretty objects): cuts moved to record starts by the
        // parity-and-depth chain.
        let (src, len_now) =
            swath::range::open_ranged(path).map_err(|e| from_json(e.into(), path))?;
        if len_now != len {
            return Err(from_json(
                swath_json::Error::Schema(format!(
                    "the file changed while planning: {len} bytes, now {len_now}"
                )),
                path,
            ));
        }
        self.opts.reader.record_ranges(&*src, len, share).map_err(|e| from_json(e, path))
    }

    fn open(&self, path: &Path, piece: Piece, read: &ReadSpec) -> Result<Box<dyn NextBatch>> {
        let schema = read.projected_schema();
        let mut b = self.opts.reader.clone();
        b.batch_size(read.batch_size).threads(1);
        let path = path.to_path_buf();
        let range = match piece {
            Piece::Whole { compressed } if compressed || self.opts.put_aside.is_some() => {
                let src = swath::Source::open(&path).map_err(|e| from_json(e.into(), &path))?;
                let batches = match self.opts.put_aside.clone() {
                    Some(sink) => {
                        let at = path.clone();
                        b.into_batches_with_bad(src, schema, move |bad| {
                            sink.put(&at, bad).map_err(|e| swath_json::Error::Consumer(Box::new(e)))
                        })
                    }
                    None => b.into_batches(src, schema),
                }
                .map_err(|e| from_json(e, &path))?;
                return Ok(Box::new(Decoded { batches, path }));
            }
            Piece::Whole { .. } => None,
            Piece::Range(r) => Some(r),
        };
        let (src, len) =
            swath::range::open_ranged(&path).map_err(|e| from_json(e.into(), &path))?;
        let rdr = b
            .range_batches(src, len, range.unwrap_or(0..len), schema, Some(path.clone()))
            .map_err(|e| from_json(e, &path))?;
        Ok(Box::new(Ranged { rdr: Box::new(rdr), path }))
    }
}

/// A byte range pulled on the caller's thread.
struct Ranged {
    rdr: Box<swath_json::RangeBatches>,
    path: PathBuf,
}

impl NextBatch for Ranged {
    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        self.rdr.next_batch().map_err(|e| from_json(e, &self.path))
    }
}

/// A compressed file's batches, decoded on a thread of their own (the
/// decoder is a stream; two batches wait at most).
struct Decoded {
    batches: swath_json::JsonBatches,
    path: PathBuf,
}

impl NextBatch for Decoded {
    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        self.batches.next_batch().map_err(|e| from_json(e, &self.path))
    }
}

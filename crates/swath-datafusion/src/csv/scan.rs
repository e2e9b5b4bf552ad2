//! CSV in the shared scan: the schema by swath's inference (or the
//! user's), row counts and cuts from each file's exact split plan, a range
//! read by swath-arrow from its first record's byte, record number and
//! line, a whole file (or a compressed one) by the streaming reader.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::error::{DataFusionError, Result};
use swath_arrow::ColumnType;

use super::error::{from_arrow, from_csv, from_shared};
use super::options::SwathCsvOptions;
use super::plan_cache::PlanCache;
use crate::bad::PutAside;
use crate::scan::{NextBatch, Piece, ReadSpec, ScanFormat, SwathFormat, SwathSource};

/// CSV read by swath: exact parallel splits (quoted newlines, doubled
/// quotes, CRLF and all), swath's types and errors.
pub type SwathCsvFormat = SwathFormat<CsvScan>;

/// The scan of a swath CSV table: its partitions are runs of a file's
/// exact splits, so each starts at a record.
pub type SwathCsvSource = SwathSource<CsvScan>;

/// The CSV side of the shared scan: the table's options and its files'
/// split plans.
#[derive(Debug, Default)]
pub struct CsvScan {
    pub(crate) opts: Arc<SwathCsvOptions>,
    pub(crate) cache: Arc<PlanCache>,
}

impl CsvScan {
    /// How its files are read.
    pub fn options(&self) -> &SwathCsvOptions {
        &self.opts
    }

    /// Its plans (the codec ships them with a query).
    #[cfg(feature = "codec")]
    pub(crate) fn plan_cache(&self) -> &Arc<PlanCache> {
        &self.cache
    }
}

impl SwathCsvFormat {
    /// A format reading with these options.
    pub fn new(opts: SwathCsvOptions) -> SwathCsvFormat {
        Self::with_cache(opts, Arc::default())
    }

    /// A format reading with these options whose plans go to `cache`
    /// (shared with other formats of the same options).
    pub(crate) fn with_cache(opts: SwathCsvOptions, cache: Arc<PlanCache>) -> SwathCsvFormat {
        SwathFormat { scan: Arc::new(CsvScan { opts: Arc::new(opts), cache }) }
    }

    /// Its options.
    pub fn options(&self) -> &SwathCsvOptions {
        &self.scan.opts
    }
}

impl SwathCsvSource {
    /// How its files are read.
    pub fn options(&self) -> &SwathCsvOptions {
        &self.format().opts
    }
}

impl ScanFormat for CsvScan {
    const FILE_TYPE: &'static str = "swath_csv";
    const DEFAULT_EXTENSION: &'static str = ".csv";
    const EXPLAIN: &'static str = "exact_splits=true";

    fn file_extension(&self) -> Option<&str> {
        self.opts.file_extension.as_deref()
    }

    fn path_of(&self, location: &object_store::path::Path) -> Result<PathBuf> {
        self.opts.path_of(location)
    }

    fn infer_schema(&self, paths: &[PathBuf]) -> Result<SchemaRef> {
        if let Some(s) = self.opts.arrow.given_schema() {
            return Ok(s);
        }
        let mut merged: Option<(SchemaRef, &Path)> = None;
        for path in paths {
            let s = self.opts.arrow.infer_schema(path).map_err(|e| from_arrow(e, path))?.schema;
            merged = Some(match merged {
                None => (s, path),
                Some((m, first)) => (widen(&m, &s, first, path)?, first),
            });
        }
        Ok(merged.map(|m| m.0).unwrap_or_else(|| Arc::new(Schema::empty())))
    }

    /// Compressed, or text decoded from another encoding (`--encoding`,
    /// a UTF-16 byte order mark): read from its start by the streaming
    /// reader, which decodes it.
    /// Also when broken records are put aside ([`crate::bad`]).
    fn read_whole(&self, path: &Path) -> bool {
        if self.opts.put_aside.is_some() {
            return true;
        }
        let decoding = self.opts.csv_builder().decoding();
        crate::paths::is_compressed(path)
            || swath::Source::open_raw(path)
                .and_then(|mut s| s.text_to_decode(decoding))
                .is_ok_and(|e| e.is_some())
    }

    /// The records the plan pass counted. Exact as a count of records,
    /// but their fields are not checked until they are read. The plan is
    /// made here only when the scan will be split anyway.
    /// None when broken records are put aside: the plan counts them.
    fn num_rows(&self, path: &Path, will_split: bool) -> Result<Option<usize>> {
        if self.opts.put_aside.is_some() {
            return Ok(None);
        }
        let plan = if will_split {
            Some(self.cache.plan(path, &self.opts).map_err(|e| from_shared(e, path))?)
        } else {
            self.cache.cached(path)
        };
        Ok(plan.map(|p| {
            let header = u64::from(p.headers().is_some());
            p.records().saturating_sub(header) as usize
        }))
    }

    /// The file's plan joins consecutive splits into `share` ranges.
    fn cut(&self, path: &Path, _len: u64, share: usize) -> Result<Vec<Range<u64>>> {
        let plan = self.cache.plan(path, &self.opts).map_err(|e| from_shared(e, path))?;
        Ok(plan.group_ranges(share))
    }

    fn open(&self, path: &Path, piece: Piece, read: &ReadSpec) -> Result<Box<dyn NextBatch>> {
        let mut b = self.opts.arrow.clone();
        b.schema(read.file_schema.clone())
            .projection(read.file_indices.clone())
            .batch_size(read.batch_size);
        let batches = match piece {
            Piece::Range(r) => {
                let plan = self.cache.plan(path, &self.opts).map_err(|e| from_shared(e, path))?;
                let rdr = plan.reader_for_range(r).map_err(|e| from_csv(e, path))?;
                Batches::Split(b.from_split_reader(rdr).map_err(|e| from_arrow(e, path))?)
            }
            Piece::Whole { .. } => {
                Batches::Whole(b.from_path(path).map_err(|e| from_arrow(e, path))?)
            }
        };
        let put_aside = self.opts.put_aside.clone();
        Ok(Box::new(Named { batches, path: path.to_path_buf(), put_aside }))
    }
}

/// Batches of one piece, by whichever reader it needs.
enum Batches {
    Split(swath_arrow::SplitArrowReader),
    Whole(swath_arrow::ArrowReader<swath_arrow::StreamInput<swath::Source>>),
}

/// A piece's batches, their errors naming the file.
struct Named {
    batches: Batches,
    path: PathBuf,
    /// Where the whole reader's broken records go.
    put_aside: Option<Arc<PutAside>>,
}

impl NextBatch for Named {
    fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        let next = match &mut self.batches {
            Batches::Split(r) => r.next_batch(),
            Batches::Whole(r) => {
                let next = r.next_batch();
                if let Some(sink) = &self.put_aside {
                    sink.put(&self.path, r.take_bad_records())?;
                }
                next
            }
        };
        next.map_err(|e| from_arrow(e, &self.path))
    }
}

/// The schema that holds the values of both files' columns: the same
/// columns, each of the narrowest type both fit (Int64 and Float64 make
/// Float64; any other two types make Utf8).
fn widen(a: &Schema, b: &Schema, pa: &Path, pb: &Path) -> Result<SchemaRef> {
    let names = |s: &Schema| s.fields().iter().map(|f| f.name().clone()).collect::<Vec<_>>();
    if names(a) != names(b) {
        return Err(DataFusionError::Plan(format!(
            "the files of one table need the same columns: {} has {:?}, {} has {:?}",
            pa.display(),
            names(a),
            pb.display(),
            names(b)
        )));
    }
    let fields: Vec<Field> = a
        .fields()
        .iter()
        .zip(b.fields())
        .map(|(fa, fb)| {
            let ty = match (fa.data_type(), fb.data_type()) {
                (x, y) if x == y => x.clone(),
                (DataType::Int64, DataType::Float64) | (DataType::Float64, DataType::Int64) => {
                    DataType::Float64
                }
                _ => ColumnType::Utf8.data_type(),
            };
            Field::new(fa.name(), ty, fa.is_nullable() || fb.is_nullable())
        })
        .collect();
    Ok(Arc::new(Schema::new(fields)))
}

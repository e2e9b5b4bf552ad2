//! JSON lines as DataFusion tables: swath-json's reader behind a
//! [`FileFormat`](datafusion::datasource::file_format::FileFormat).
//!
//! A JSON-lines record holds no raw newline, so any byte cut of a file is
//! exact once each range starts at its first line start: partitions are
//! even byte ranges (no plan pass, unlike CSV), each read by
//! [`swath_json::RangeBatches`] a chunk at a time, in the scan every
//! format shares ([`crate::scan`]). Compressed files are read whole by one
//! partition. Errors name the file, record, line and
//! byte, found by reading up to the error only when there is one.
//!
//! Not here: Ballista. The codec ships CSV tables only.

mod register;
mod scan;

pub use register::SwathJsonExt;
pub use scan::{JsonScan, SwathJsonFormat, SwathJsonSource};

use swath_json::arrow_schema::SchemaRef;
use swath_json::JsonReaderBuilder;

/// How a swath JSON table reads its files: the reader's settings (line
/// limit, chunk, inference), a schema if given, the files' ending.
#[derive(Clone, Debug, Default)]
pub struct SwathJsonOptions {
    pub(crate) reader: JsonReaderBuilder,
    pub(crate) schema: Option<SchemaRef>,
    pub(crate) file_extension: Option<String>,
    pub(crate) store_url: Option<String>,
    /// Where broken records go; `None`: they fail the query.
    pub(crate) put_aside: Option<std::sync::Arc<crate::PutAside>>,
}

impl SwathJsonOptions {
    /// Types inferred by sampling, 64 MiB lines.
    pub fn new() -> SwathJsonOptions {
        SwathJsonOptions::default()
    }

    /// The reader's settings (line limit, chunk size, inference); its
    /// threads and batch size are the query's and are ignored.
    pub fn reader(mut self, reader: JsonReaderBuilder) -> SwathJsonOptions {
        self.reader = reader;
        self
    }

    /// The table's schema; nothing is inferred.
    pub fn schema(mut self, schema: SchemaRef) -> SwathJsonOptions {
        self.schema = Some(schema);
        self
    }

    /// Only files with this ending when the table is a directory (default
    /// `.jsonl`); a table of one file reads it whatever its name.
    pub fn file_extension(mut self, ext: impl Into<String>) -> SwathJsonOptions {
        self.file_extension = Some(ext.into());
        self
    }

    /// Put broken records (not one object, a key twice, a value that does
    /// not fit) aside into `sink` instead of failing the query. Each file
    /// is then read whole by one partition ([`crate::bad`]).
    pub fn put_aside(mut self, sink: std::sync::Arc<crate::PutAside>) -> SwathJsonOptions {
        self.reader.on_bad(swath_json::OnBad::PutAside);
        self.put_aside = Some(sink);
        self
    }

    /// The path swath opens for an object of the table's store.
    pub(crate) fn path_of(
        &self,
        location: &object_store::path::Path,
    ) -> datafusion::error::Result<std::path::PathBuf> {
        crate::paths::object_path(self.store_url.as_deref(), location)
    }
}

/// A swath-json error while reading `path`, as a DataFusion error (the
/// swath error reachable as its source: [`json_error`]).
pub(crate) fn from_json(
    e: swath_json::Error,
    path: &std::path::Path,
) -> datafusion::error::DataFusionError {
    match e {
        e @ swath_json::Error::Line { path: Some(_), .. } => {
            datafusion::error::DataFusionError::External(Box::new(e))
        }
        swath_json::Error::Line { path: None, pos, field, reason } => {
            let e = swath_json::Error::Line { path: Some(path.into()), pos, field, reason };
            datafusion::error::DataFusionError::External(Box::new(e))
        }
        swath_json::Error::Read(r) if r.path().is_none() => {
            datafusion::error::DataFusionError::External(Box::new(swath_json::Error::Read(
                r.with_path(path),
            )))
        }
        other => datafusion::error::DataFusionError::External(Box::new(other)),
    }
}

/// The swath-json error inside a DataFusion error, if it came from reading
/// JSON lines (for a caller that wants its position).
pub fn json_error(e: &datafusion::error::DataFusionError) -> Option<&swath_json::Error> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = cur {
        if let Some(j) = err.downcast_ref::<swath_json::Error>() {
            return Some(j);
        }
        cur = err.source();
    }
    None
}

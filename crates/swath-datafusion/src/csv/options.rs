//! How a swath CSV table reads its files.

use std::sync::Arc;

use swath_arrow::arrow_schema::SchemaRef;
use swath_arrow::ArrowReaderBuilder;
use swath_csv::ReaderBuilder;

use crate::bad::PutAside;

/// The settings of a swath CSV table: the CSV dialect and the Arrow
/// decoding (schema or column types, inference, null text, what to do with
/// a field that does not fit) as swath-arrow has them, and how finely the
/// split plan cuts each file.
#[derive(Clone, Debug, Default)]
pub struct SwathCsvOptions {
    pub(crate) arrow: ArrowReaderBuilder,
    pub(crate) split_bytes: Option<u64>,
    pub(crate) file_extension: Option<String>,
    /// For a table on an object store: the store's URL (`s3://bucket/`),
    /// which an object's location is joined to for swath to open it by URL.
    /// `None`: the local file system.
    pub(crate) store_url: Option<String>,
    /// Where broken records go; `None`: they fail the query.
    pub(crate) put_aside: Option<Arc<PutAside>>,
}

impl SwathCsvOptions {
    /// The path swath opens for an object of the table's store: its local
    /// path, or its URL on a remote store.
    ///
    /// # Errors
    ///
    /// A location that is not a local path of the local file system store.
    pub(crate) fn path_of(
        &self,
        location: &object_store::path::Path,
    ) -> datafusion::error::Result<std::path::PathBuf> {
        crate::paths::object_path(self.store_url.as_deref(), location)
    }

    /// Comma-separated, a header row, types inferred by sampling.
    pub fn new() -> SwathCsvOptions {
        SwathCsvOptions::default()
    }

    /// The CSV dialect (delimiter, quoting, headers, limits, ...).
    pub fn csv(mut self, csv: ReaderBuilder) -> SwathCsvOptions {
        self.arrow.csv(csv);
        self
    }

    /// The whole Arrow decoding setup: dialect, schema or column types,
    /// inference, null text, error policy. Its projection, batch size and
    /// threads are the query's to set and are ignored.
    pub fn arrow(mut self, arrow: ArrowReaderBuilder) -> SwathCsvOptions {
        self.arrow = arrow;
        self
    }

    /// The table's schema, one field per CSV column in file order; nothing
    /// is inferred.
    pub fn schema(mut self, schema: SchemaRef) -> SwathCsvOptions {
        self.arrow.schema(schema);
        self
    }

    /// Bytes per split of a file's plan (the finest a partition's range
    /// can be); by default 1/256 of the file, at least 1 MiB. Partitions
    /// are whole runs of splits.
    pub fn split_bytes(mut self, bytes: u64) -> SwathCsvOptions {
        self.split_bytes = Some(bytes.max(1));
        self
    }

    /// Only files with this ending when the table is a directory (default
    /// `.csv`); a table of one file reads it whatever its name.
    pub fn file_extension(mut self, ext: impl Into<String>) -> SwathCsvOptions {
        self.file_extension = Some(ext.into());
        self
    }

    /// Put broken records (a field too many or too few, a quoting error)
    /// aside into `sink` instead of failing the query. Each file is then
    /// read whole by one partition ([`crate::bad`]).
    pub fn put_aside(mut self, sink: Arc<PutAside>) -> SwathCsvOptions {
        let mut csv = self.arrow.csv_builder().clone();
        csv.on_bad(swath_csv::OnBad::PutAside);
        self.arrow.csv(csv);
        self.put_aside = Some(sink);
        self
    }

    /// The Arrow decoding setup.
    pub fn arrow_builder(&self) -> &ArrowReaderBuilder {
        &self.arrow
    }

    /// The CSV dialect.
    pub fn csv_builder(&self) -> &ReaderBuilder {
        self.arrow.csv_builder()
    }

    /// Bytes per split for a file of `len` bytes.
    pub(crate) fn split_bytes_for(&self, len: u64) -> u64 {
        self.split_bytes.unwrap_or_else(|| len.div_ceil(256).max(1 << 20))
    }
}

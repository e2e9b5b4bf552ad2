//! A Parquet file being written: under a temporary name (or to standard
//! output), renamed into place only when complete, every error naming the
//! file.

use std::io::BufWriter;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use swath_arrow::arrow_array::RecordBatch;
use swath_arrow::arrow_schema::SchemaRef;
use swath_arrow::{ParquetOptions, ParquetSink};

use super::Output;

/// Batches into a Parquet file.
pub struct ParquetFile {
    sink: ParquetSink<BufWriter<Output>>,
    path: PathBuf,
}

impl ParquetFile {
    /// Start the file at `path` (`-`: standard output).
    pub fn create(path: &Path, schema: SchemaRef, opts: &ParquetOptions) -> Result<ParquetFile> {
        let cannot_write = || format!("cannot write {}", path.display());
        let out = Output::create_binary(path, "a Parquet file").with_context(cannot_write)?;
        let sink = ParquetSink::new(BufWriter::with_capacity(1 << 20, out), schema, opts)
            .with_context(cannot_write)?;
        Ok(ParquetFile { sink, path: path.to_path_buf() })
    }

    /// Write one batch.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.sink.write(batch).with_context(|| self.cannot_write())
    }

    /// What an error writing it says first.
    pub fn cannot_write(&self) -> String {
        format!("cannot write {}", self.path.display())
    }

    /// Close the file and put it in place.
    pub fn finish(self) -> Result<()> {
        let cannot_write = self.cannot_write();
        let out = self.sink.finish().context(cannot_write.clone())?;
        let out = out.into_inner().map_err(|e| e.into_error()).context(cannot_write.clone())?;
        out.finish().context(cannot_write)
    }
}

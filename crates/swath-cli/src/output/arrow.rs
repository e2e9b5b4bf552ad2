//! An Arrow IPC output: a file written under a temporary name and renamed
//! into place only when complete, or with `-` the IPC stream format on
//! standard output; every error naming the output.

use std::io::BufWriter;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use swath_arrow::arrow_array::RecordBatch;
use swath_arrow::arrow_schema::SchemaRef;
use swath_arrow::IpcSink;

use super::Output;

/// Batches into an Arrow IPC file or stream.
pub struct ArrowFile {
    sink: IpcSink<BufWriter<Output>>,
    path: PathBuf,
}

impl ArrowFile {
    /// Start the output at `path`; `-` writes the stream format to
    /// standard output (a file format needs a seekable end).
    pub fn create(path: &Path, schema: &SchemaRef) -> Result<ArrowFile> {
        let cannot_write = || format!("cannot write {}", path.display());
        let stream = path == Path::new("-");
        let out = Output::create_binary(path, "an Arrow IPC file").with_context(cannot_write)?;
        let sink = IpcSink::new(BufWriter::with_capacity(1 << 20, out), schema, stream)
            .with_context(cannot_write)?;
        Ok(ArrowFile { sink, path: path.to_path_buf() })
    }

    /// Write one batch.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let path = &self.path;
        self.sink.write(batch).with_context(|| format!("cannot write {}", path.display()))
    }

    /// Close the output and put the file in place.
    pub fn finish(self) -> Result<()> {
        let cannot_write = format!("cannot write {}", self.path.display());
        let out = self.sink.finish().context(cannot_write.clone())?;
        let out = out.into_inner().map_err(|e| e.into_error()).context(cannot_write.clone())?;
        out.finish().context(cannot_write)
    }
}

/// A reader downstream closed the pipe (`to-arrow -o - | head`): not an
/// error worth a message. Arrow's writer wraps the I/O error in its own.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    let pipe = |io: &std::io::Error| io.kind() == std::io::ErrorKind::BrokenPipe;
    crate::is_broken_pipe(e)
        || e.chain().any(|c| {
            c.downcast_ref::<swath_arrow::Error>().is_some_and(|a| match a {
                swath_arrow::Error::Io(io) => pipe(io),
                swath_arrow::Error::Arrow(swath_arrow::arrow_schema::ArrowError::IoError(
                    _,
                    io,
                )) => pipe(io),
                _ => false,
            })
        })
}

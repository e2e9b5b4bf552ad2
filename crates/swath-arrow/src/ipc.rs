//! Writing batches to Arrow IPC: the file format (with a footer, for
//! seekable readers) or the stream format (for a pipe).

use std::io::Write;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;

use crate::error::Result;

/// Arrow IPC out: the file format (with a footer, seekable readers) or the
/// stream format (for a pipe).
pub enum IpcSink<W: Write> {
    /// `.arrow` files.
    File(arrow_ipc::writer::FileWriter<W>),
    /// A stream, e.g. to stdout.
    Stream(arrow_ipc::writer::StreamWriter<W>),
}

impl<W: Write> std::fmt::Debug for IpcSink<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            IpcSink::File(_) => "IpcSink::File",
            IpcSink::Stream(_) => "IpcSink::Stream",
        })
    }
}

impl<W: Write> IpcSink<W> {
    /// Start an IPC file (`stream` false) or stream of `schema` on `out`.
    ///
    /// # Errors
    ///
    /// Writing the schema.
    pub fn new(out: W, schema: &SchemaRef, stream: bool) -> Result<IpcSink<W>> {
        Ok(if stream {
            IpcSink::Stream(arrow_ipc::writer::StreamWriter::try_new(out, schema)?)
        } else {
            IpcSink::File(arrow_ipc::writer::FileWriter::try_new(out, schema)?)
        })
    }

    /// Write one batch.
    ///
    /// # Errors
    ///
    /// I/O.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        match self {
            IpcSink::File(w) => w.write(batch)?,
            IpcSink::Stream(w) => w.write(batch)?,
        }
        Ok(())
    }

    /// Write the end (footer or end-of-stream marker) and return the output.
    ///
    /// # Errors
    ///
    /// I/O.
    pub fn finish(self) -> Result<W> {
        Ok(match self {
            IpcSink::File(mut w) => {
                w.finish()?;
                w.into_inner()?
            }
            IpcSink::Stream(mut w) => {
                w.finish()?;
                w.into_inner()?
            }
        })
    }
}

//! Batches decoded on a thread of their own, one ahead of the consumer, so
//! that a Python thread waiting for the next one can wake every few
//! milliseconds to run the signal handlers (Ctrl-C), whatever the source
//! (a pipe that stalls, a sequential gzip read, the parallel reader).

use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::Duration;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};

/// Batches from any thread.
pub type Batches = Box<dyn RecordBatchReader + Send>;

/// What [`Ahead::next_timeout`] saw.
pub enum Waited {
    /// The next item (`None`: the end).
    Got(Option<Result<RecordBatch, ArrowError>>),
    /// Nothing yet.
    Timeout,
}

/// A reader of batches produced on its own thread. Dropping it stops the
/// producer at its next batch (and drops the source, which stops a
/// parallel reader's workers).
pub struct Ahead {
    schema: SchemaRef,
    /// `None` once the end (or an error) was handed out.
    rx: Option<Receiver<Item>>,
}

/// A batch or an error; `None` marks the end, so that a producer that
/// died (a panic) is not mistaken for the end of the file.
type Item = Option<Result<RecordBatch, ArrowError>>;

impl Ahead {
    /// Start producing `batches` on a new thread, at most one batch ahead.
    pub fn spawn(batches: Batches) -> std::io::Result<Ahead> {
        let schema = batches.schema();
        let (tx, rx) = mpsc::sync_channel(1);
        thread::Builder::new().name("swath-batches".into()).spawn(move || {
            for item in batches {
                let stop = item.is_err();
                // The consumer is gone: stop reading.
                if tx.send(Some(item)).is_err() || stop {
                    return;
                }
            }
            let _ = tx.send(None);
        })?;
        Ok(Ahead { schema, rx: Some(rx) })
    }

    /// Wait at most `wait` for the next batch.
    pub fn next_timeout(&mut self, wait: Duration) -> Waited {
        let Some(rx) = &self.rx else { return Waited::Got(None) };
        match rx.recv_timeout(wait) {
            Ok(item) => Waited::Got(self.seen(item)),
            Err(RecvTimeoutError::Timeout) => Waited::Timeout,
            Err(RecvTimeoutError::Disconnected) => Waited::Got(self.seen(Some(Err(died())))),
        }
    }

    /// Hand out `item`; after the end or an error, nothing more.
    fn seen(&mut self, item: Item) -> Item {
        if !matches!(item, Some(Ok(_))) {
            self.rx = None;
        }
        item
    }
}

impl Iterator for Ahead {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.rx.as_ref()?.recv().unwrap_or_else(|_| Some(Err(died())));
        self.seen(item)
    }
}

/// The error for a producer thread that ended without saying so.
fn died() -> ArrowError {
    ArrowError::ExternalError("swath: the thread decoding batches stopped (a bug)".into())
}

impl RecordBatchReader for Ahead {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

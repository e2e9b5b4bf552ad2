//! [`ThreadBatches`]: batches pushed by a decoder on a thread of its own,
//! pulled by the caller one at a time: the one way swath turns a push
//! reader (a callback per batch, as the parallel readers of every format
//! have) into an iterator and an Arrow `RecordBatchReader`.
//!
//! The channel holds two batches, so memory stays that of the decoder
//! plus two batches. Dropping the reader closes the channel first: the
//! decoder's next push fails, and it stops.

use std::sync::mpsc;
use std::thread;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};

/// Batches in order, decoded on a thread of its own; see the module. `E`
/// is the decoder's error; `R` what the decoder returns at its end (a
/// count of its own), given by [`ThreadBatches::finish`].
#[derive(Debug)]
pub struct ThreadBatches<E, R = ()> {
    schema: SchemaRef,
    rx: Option<mpsc::Receiver<Result<RecordBatch, E>>>,
    handle: Option<thread::JoinHandle<R>>,
}

impl<E: Send + 'static, R: Send + 'static> ThreadBatches<E, R> {
    /// Run `decode` on a thread named `name`. It gets a push function for
    /// its batches, which fails with `dropped()` once the reader is gone
    /// (its error should then end it), and returns its result and what
    /// [`finish`](Self::finish) gives; an error it returns is the last
    /// item the reader hands out.
    ///
    /// # Errors
    ///
    /// The thread could not be started.
    pub fn spawn<D>(
        name: &str,
        schema: SchemaRef,
        dropped: fn() -> E,
        decode: D,
    ) -> std::io::Result<ThreadBatches<E, R>>
    where
        D: FnOnce(&mut dyn FnMut(RecordBatch) -> Result<(), E>) -> (Result<(), E>, R)
            + Send
            + 'static,
    {
        let (tx, rx) = mpsc::sync_channel::<Result<RecordBatch, E>>(2);
        let handle = thread::Builder::new().name(name.into()).spawn(move || {
            let mut push = |batch| tx.send(Ok(batch)).map_err(|_| dropped());
            let (res, end) = decode(&mut push);
            if let Err(e) = res {
                let _ = tx.send(Err(e));
            }
            end
        })?;
        Ok(ThreadBatches { schema, rx: Some(rx), handle: Some(handle) })
    }

    /// The next batch, or `None` at the end (and after an error).
    ///
    /// # Errors
    ///
    /// The decoder's error, after the batches before it.
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>, E> {
        let Some(rx) = &self.rx else { return Ok(None) };
        match rx.recv() {
            Ok(Ok(b)) => Ok(Some(b)),
            Ok(Err(e)) => {
                self.rx = None;
                Err(e)
            }
            Err(_) => {
                self.rx = None;
                Ok(None)
            }
        }
    }

    /// Stop reading, wait for the decoder's end and return what it
    /// returned (`None` if its thread panicked).
    pub fn finish(mut self) -> Option<R> {
        self.rx = None;
        self.handle.take().and_then(|h| h.join().ok())
    }

    /// The batches' schema.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

impl<E: Send + 'static, R: Send + 'static> Iterator for ThreadBatches<E, R>
where
    ArrowError: From<E>,
{
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch().map_err(ArrowError::from).transpose()
    }
}

impl<E: Send + 'static, R: Send + 'static> RecordBatchReader for ThreadBatches<E, R>
where
    ArrowError: From<E>,
{
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

impl<E, R> Drop for ThreadBatches<E, R> {
    fn drop(&mut self) {
        // Close the channel first: the decoder's next push fails and it
        // stops.
        self.rx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::Int64Array;
    use arrow_schema::{DataType, Field, Schema};

    use super::*;

    fn batch(schema: &SchemaRef, v: i64) -> RecordBatch {
        RecordBatch::try_new(schema.clone(), vec![Arc::new(Int64Array::from(vec![v]))]).unwrap()
    }

    #[test]
    fn batches_in_order_then_the_error_then_nothing() {
        let schema: SchemaRef =
            Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
        let s = schema.clone();
        let mut r = ThreadBatches::<String, u64>::spawn(
            "t",
            schema,
            || "dropped".into(),
            move |push| {
                for v in 0..5 {
                    if let Err(e) = push(batch(&s, v)) {
                        return (Err(e), v as u64);
                    }
                }
                (Err("broken at 5".into()), 5)
            },
        )
        .unwrap();
        for v in 0..5 {
            let b = r.next_batch().unwrap().unwrap();
            assert_eq!(b.column(0).as_any().downcast_ref::<Int64Array>().unwrap().value(0), v);
        }
        assert_eq!(r.next_batch(), Err("broken at 5".to_string()));
        assert_eq!(r.next_batch(), Ok(None));
        assert_eq!(r.finish(), Some(5));
    }

    #[test]
    fn dropping_the_reader_stops_the_decoder() {
        let schema: SchemaRef =
            Arc::new(Schema::new(vec![Field::new("x", DataType::Int64, false)]));
        let s = schema.clone();
        let (done_tx, done_rx) = mpsc::channel();
        let mut r = ThreadBatches::<String, ()>::spawn(
            "t",
            schema,
            || "dropped".into(),
            move |push| {
                let mut v = 0;
                let res = loop {
                    if let Err(e) = push(batch(&s, v)) {
                        break Err(e);
                    }
                    v += 1;
                };
                done_tx.send(res.clone()).unwrap();
                (res, ())
            },
        )
        .unwrap();
        assert!(r.next_batch().unwrap().is_some());
        drop(r);
        assert_eq!(done_rx.recv().unwrap(), Err("dropped".to_string()));
    }
}

//! [`ParallelArrowReader`]: batches decoded on every core by the exact
//! parallel CSV reader, handed out in file order.

use std::path::PathBuf;
use std::sync::mpsc;
use std::thread;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef};
use swath_csv::{ErrorKind, ParallelReader, ReaderBuilder};

use crate::decode::{Decoder, Plan};
use crate::error::{Error, Result};

/// Decodes one regular file's records into batches on many threads
/// ([`swath_csv::ParallelReader`], exact with quoted newlines); batches
/// come out in file order, with at most two chunks' batches per thread in
/// flight. The values are the same for any thread count; batch
/// boundaries also fall at the end of each chunk of the file.
#[derive(Debug)]
pub struct ParallelArrowReader {
    csv: ReaderBuilder,
    path: PathBuf,
    plan: Plan,
    threads: usize,
    chunk_size: u64,
    nulled: u64,
    mode: String,
}

/// What one chunk gave: its batches and the fields it made null.
type ChunkOut = (Vec<RecordBatch>, u64);

impl ParallelArrowReader {
    pub(crate) fn new(
        csv: ReaderBuilder,
        path: PathBuf,
        plan: Plan,
        threads: usize,
        chunk_size: u64,
    ) -> ParallelArrowReader {
        ParallelArrowReader { csv, path, plan, threads, chunk_size, nulled: 0, mode: String::new() }
    }

    /// The schema of the batches (projected).
    pub fn schema(&self) -> SchemaRef {
        self.plan.schema.clone()
    }

    /// Fields made null because they did not fit ([`crate::OnError::Null`]),
    /// after a run.
    pub fn nulled(&self) -> u64 {
        self.nulled
    }

    /// How the last run read the file (parallel, or sequential and why).
    pub fn mode(&self) -> &str {
        &self.mode
    }

    /// Call `f` with every batch, in file order, on the calling thread.
    ///
    /// # Errors
    ///
    /// The first error a sequential read would meet (the batches before it
    /// are handed to `f` first), or the first error of `f`.
    pub fn for_each_batch(&mut self, mut f: impl FnMut(RecordBatch) -> Result<()>) -> Result<()> {
        let plan = &self.plan;
        let mut rdr = ParallelReader::new(&self.csv, &self.path)
            .threads(self.threads)
            .chunk_size(self.chunk_size)
            // Errors stay exact; the batches carry no record numbers.
            .relative_numbers(true);
        let mut nulled = 0u64;
        let mut stopped: Option<Error> = None;
        let res = rdr.for_each_chunk_ordered(
            || (Vec::new(), 0u64),
            |out: &mut ChunkOut, recs| {
                let mut dec = Decoder::new(plan);
                loop {
                    if let Some(blk) = recs.next_block(dec.room())? {
                        dec.decode_block(&blk)?;
                    } else if let Some(rec) = recs.next_record()? {
                        dec.decode(&rec)?;
                    } else {
                        break;
                    }
                    if dec.rows() == plan.batch_size {
                        out.0.push(dec.finish()?);
                    }
                }
                if dec.rows() > 0 {
                    out.0.push(dec.finish()?);
                }
                out.1 = dec.nulled;
                Ok(())
            },
            |(batches, n)| {
                nulled += n;
                for b in batches {
                    if let Err(e) = f(b) {
                        stopped = Some(e);
                        return Err(swath_csv::Error::new(ErrorKind::Config("stopped".into())));
                    }
                }
                Ok(())
            },
        );
        self.nulled = nulled;
        self.mode = rdr.mode().to_string();
        match (stopped, res) {
            (Some(e), _) => Err(e),
            (None, Err(e)) => Err(e.into()),
            (None, Ok(())) => Ok(()),
        }
    }

    /// The batches as an Arrow [`RecordBatchReader`]: the decoding runs on
    /// a thread of its own (with its workers) and hands batches over a
    /// channel of two; dropping the reader stops it.
    pub fn into_batches(mut self) -> ParallelBatches {
        let schema = self.schema();
        let (tx, rx) = mpsc::sync_channel::<std::result::Result<RecordBatch, Error>>(2);
        let handle = thread::spawn(move || {
            let err_tx = tx.clone();
            let res = self.for_each_batch(|b| {
                tx.send(Ok(b)).map_err(|_| Error::Schema("the batch reader was dropped".into()))
            });
            if let Err(e) = res {
                let _ = err_tx.send(Err(e));
            }
            self.nulled
        });
        ParallelBatches { schema, rx: Some(rx), handle: Some(handle) }
    }
}

/// [`ParallelArrowReader::into_batches`]: an iterator of batches in file
/// order and an Arrow [`RecordBatchReader`].
#[derive(Debug)]
pub struct ParallelBatches {
    schema: SchemaRef,
    rx: Option<mpsc::Receiver<std::result::Result<RecordBatch, Error>>>,
    handle: Option<thread::JoinHandle<u64>>,
}

impl ParallelBatches {
    /// The next batch, or `None` at the end.
    ///
    /// # Errors
    ///
    /// As [`ParallelArrowReader::for_each_batch`].
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
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

    /// Fields made null ([`crate::OnError::Null`]): wait for the end and
    /// return the count (0 if the decoding thread panicked).
    pub fn finish(mut self) -> u64 {
        self.rx = None;
        self.handle.take().and_then(|h| h.join().ok()).unwrap_or(0)
    }
}

impl Iterator for ParallelBatches {
    type Item = std::result::Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch().map_err(ArrowError::from).transpose()
    }
}

impl RecordBatchReader for ParallelBatches {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }
}

impl Drop for ParallelBatches {
    fn drop(&mut self) {
        // Close the channel first: the decoding thread's next send fails
        // and it stops.
        self.rx = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

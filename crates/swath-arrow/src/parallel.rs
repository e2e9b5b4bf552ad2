//! [`ParallelArrowReader`]: batches decoded on every core by the exact
//! parallel CSV reader, handed out in file order.

use std::path::PathBuf;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use swath_csv::{BadRecord, ErrorKind, ParallelReader, ReaderBuilder};

use crate::decode::{Decoder, Plan};
use crate::error::{Error, Result};
use crate::thread_batches::ThreadBatches;

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
    pub fn for_each_batch(&mut self, f: impl FnMut(RecordBatch) -> Result<()>) -> Result<()> {
        self.for_each_batch_with_bad(f, |_| Ok(()))
    }

    /// As [`for_each_batch`](Self::for_each_batch), with `bad` given the
    /// records put aside (broken ones under [`swath_csv::OnBad::PutAside`],
    /// ones with a field that does not fit under
    /// [`crate::OnError::PutAside`]), in file order, each chunk's after
    /// its batches: the same records at every thread count.
    ///
    /// # Errors
    ///
    /// As [`for_each_batch`](Self::for_each_batch), and the first error of
    /// `bad`.
    pub fn for_each_batch_with_bad(
        &mut self,
        mut f: impl FnMut(RecordBatch) -> Result<()>,
        mut bad: impl FnMut(Vec<BadRecord>) -> Result<()>,
    ) -> Result<()> {
        let plan = &self.plan;
        let mut rdr = ParallelReader::new(&self.csv, &self.path)
            .threads(self.threads)
            .chunk_size(self.chunk_size)
            // Errors stay exact; the batches carry no record numbers.
            .relative_numbers(true);
        let mut nulled = 0u64;
        let mut stopped: Option<Error> = None;
        let res = rdr.for_each_chunk_ordered_with_bad(
            || (Vec::new(), 0u64),
            |out: &mut ChunkOut, recs| {
                let mut dec = Decoder::new(plan);
                loop {
                    if let Some(blk) = recs.next_block(dec.room())? {
                        dec.decode_block(&blk)?;
                        for b in dec.take_bad() {
                            recs.keep_bad(b);
                        }
                    } else if let Some(rec) = recs.next_record()? {
                        match dec.decode(&rec) {
                            Err(e) if dec.puts_aside() => recs.put_aside(e),
                            res => res?,
                        }
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
            |(batches, n), put_aside| {
                nulled += n;
                let mut stop = |e| {
                    stopped = Some(e);
                    Err(swath_csv::Error::new(ErrorKind::Config("stopped".into())))
                };
                for b in batches {
                    if let Err(e) = f(b) {
                        return stop(e);
                    }
                }
                if !put_aside.is_empty() {
                    if let Err(e) = bad(put_aside) {
                        return stop(e);
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

    /// The batches as an Arrow [`RecordBatchReader`](arrow_array::RecordBatchReader): the decoding runs on
    /// a thread of its own (with its workers) and hands batches over a
    /// channel of two ([`ThreadBatches`]); dropping the reader stops it.
    /// Its [`finish`](ThreadBatches::finish) gives the fields made null
    /// ([`crate::OnError::Null`]).
    ///
    /// # Errors
    ///
    /// The thread could not be started.
    pub fn into_batches(mut self) -> Result<ParallelBatches> {
        let schema = self.schema();
        let dropped = || Error::Schema("the batch reader was dropped".into());
        let batches = ThreadBatches::spawn("swath-arrow", schema, dropped, move |push| {
            let res = self.for_each_batch(push);
            (res, self.nulled)
        })?;
        Ok(batches)
    }
}

/// [`ParallelArrowReader::into_batches`]: an iterator of batches in file
/// order and an Arrow [`RecordBatchReader`](arrow_array::RecordBatchReader), ending with the count of
/// fields made null.
pub type ParallelBatches = ThreadBatches<Error, u64>;

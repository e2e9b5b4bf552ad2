//! Parquet column chunks encoded on several threads at once.
//!
//! One Parquet writer encodes and compresses every column of a row group
//! on the thread that hands it batches. Where decoding leaves cores idle
//! (input decoded on one thread, or many cores) that single thread is the
//! slowest stage of `to-parquet`. Here each leaf column of
//! the schema belongs to one of N encoder threads (round robin), every
//! batch's columns go to their threads over bounded channels, and when a
//! row group closes the column chunks come back and are appended in schema
//! order, so the file has the same layout as a one-thread writer's: the
//! same row groups (by rows; by bytes see [`ParallelEncoder::write`]), the
//! same pages, the same statistics. `ParquetSink` with one thread is the
//! slow twin the tests compare this against.

use std::io::Write;
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::{self, JoinHandle};

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::arrow_writer::{
    compute_leaves, ArrowColumnChunk, ArrowColumnWriter, ArrowLeafColumn,
    ArrowRowGroupWriterFactory,
};
use parquet::arrow::ArrowWriter;
use parquet::errors::ParquetError;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::types::ColumnPath;

use crate::error::Result;

/// Batches in flight to each encoder thread: enough to keep it busy while
/// the decoder makes the next, few enough that memory stays flat.
const IN_FLIGHT: usize = 2;

/// The row-group byte limit reads the encoded size after all but the last
/// this many batches: those queued and the one being encoded. Waiting for
/// it costs nothing the bounded queues did not already wait for (a
/// thread's queue has room for batch `k` once it has encoded `k - 3`).
const SIZE_LAG: usize = IN_FLIGHT + 1;

/// What an encoder thread is told.
enum Job {
    /// A new row group: the writers of this thread's leaves, in order.
    Start(Vec<ArrowColumnWriter>),
    /// One batch's leaves for this thread, in the same order.
    Write(Vec<ArrowLeafColumn>),
    /// Close the row group and send its chunks back.
    Close,
}

/// One encoder thread: its job queue, its answers, and the encoded size
/// of its leaves' chunks after each batch (read by the row-group byte
/// limit).
struct Encoder {
    jobs: SyncSender<Job>,
    chunks: Receiver<Vec<ArrowColumnChunk>>,
    /// After each `Write`, the encoded bytes of this thread's chunks of the
    /// open row group.
    sizes: Receiver<usize>,
    /// Sizes received in the open row group, and the last of them.
    sizes_seen: usize,
    size: usize,
    handle: Option<JoinHandle<std::result::Result<(), ParquetError>>>,
    /// Leaf indexes (schema order) this thread owns.
    leaves: Vec<usize>,
}

/// When a row group closes: after this many rows, or once its encoded
/// size reaches this many bytes (the sink's options say which).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RowGroupLimits {
    pub(crate) rows: usize,
    pub(crate) bytes: usize,
}

/// A Parquet file whose column chunks are encoded on `threads` threads.
pub(crate) struct ParallelEncoder<W: Write + Send> {
    file: SerializedFileWriter<W>,
    factory: ArrowRowGroupWriterFactory,
    schema: SchemaRef,
    encoders: Pool,
    leaf_count: usize,
    row_groups: usize,
    /// Rows in the open row group (0: none open).
    group_rows: usize,
    /// Batches sent in the open row group.
    group_batches: usize,
    max_rows: usize,
    max_bytes: usize,
}

impl<W: Write + Send> ParallelEncoder<W> {
    /// Start a file of `schema` on `out`, written with `props`, with
    /// `threads` encoder threads.
    pub(crate) fn new(
        out: W,
        schema: SchemaRef,
        props: WriterProperties,
        limits: RowGroupLimits,
        threads: usize,
    ) -> Result<ParallelEncoder<W>> {
        // ArrowWriter writes the same file metadata (the Arrow schema
        // included) as the one-thread path; from it come the file writer
        // and the factory of column writers.
        let writer = ArrowWriter::try_new(out, schema.clone(), Some(props))?;
        ParallelEncoder::continuing(writer, schema, limits, threads)
    }

    /// Go on with the file of `writer` (its open row group closed first)
    /// with `threads` encoder threads.
    pub(crate) fn continuing(
        mut writer: ArrowWriter<W>,
        schema: SchemaRef,
        limits: RowGroupLimits,
        threads: usize,
    ) -> Result<ParallelEncoder<W>> {
        writer.flush()?;
        let row_groups = writer.flushed_row_groups().len();
        let (file, factory) = writer.into_serialized_writer()?;
        let leaf_count = file.schema_descr().num_columns();
        let threads = threads.clamp(1, leaf_count.max(1));
        let mut encoders = Pool(Vec::with_capacity(threads));
        for t in 0..threads {
            let leaves = (t..leaf_count).step_by(threads).collect();
            encoders.0.push(spawn_encoder(leaves)?);
        }
        Ok(ParallelEncoder {
            file,
            factory,
            schema,
            encoders,
            leaf_count,
            row_groups,
            group_rows: 0,
            group_batches: 0,
            max_rows: limits.rows.max(1),
            max_bytes: limits.bytes.max(1),
        })
    }

    /// Encode one batch. A row group closes after exactly `row_group_rows`
    /// rows (the batch is cut there), or before a batch once the encoded
    /// size of the open one has reached `row_group_bytes`. That size is
    /// the one after all but the last [`SIZE_LAG`] batches sent, waited
    /// for if need be: never what the threads happen to have finished, so
    /// the file is the same bytes on every run and for any number of
    /// threads, however fast each stage goes. By bytes a row group can run
    /// over by those batches in flight.
    pub(crate) fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let mut batch = batch.clone();
        while batch.num_rows() > 0 {
            if self.group_rows > 0 && self.encoded_before_in_flight()? >= self.max_bytes {
                self.close_row_group()?;
            }
            if self.group_rows == 0 {
                self.start_row_group()?;
            }
            let take = batch.num_rows().min(self.max_rows - self.group_rows);
            let head = batch.slice(0, take);
            batch = batch.slice(take, batch.num_rows() - take);
            self.send(&head)?;
            self.group_rows += take;
            self.group_batches += 1;
            if self.group_rows == self.max_rows {
                self.close_row_group()?;
            }
        }
        Ok(())
    }

    /// Write `batch` as row groups of its own, on the calling thread, the
    /// columns `plain` (top-level, of a schema without nested columns)
    /// without a dictionary and without statistics: they hold a long value
    /// ([`crate::long_values`]). The open row group is closed first; the
    /// next batch opens a new one.
    pub(crate) fn write_alone(&mut self, batch: &RecordBatch, plain: &[usize]) -> Result<()> {
        if self.group_rows > 0 {
            self.close_row_group()?;
        }
        let mut props = WriterProperties::clone(self.file.properties()).into_builder();
        for &i in plain {
            let path = ColumnPath::from(self.schema.field(i).name().as_str());
            props = props
                .set_column_dictionary_enabled(path.clone(), false)
                .set_column_statistics_enabled(path, EnabledStatistics::None);
        }
        let props = Arc::new(props.build());
        let max_rows = self.max_rows;
        let mut at = 0;
        while at < batch.num_rows() {
            let rows = (batch.num_rows() - at).min(max_rows);
            let part = batch.slice(at, rows);
            // The factory makes writers with the file's properties only;
            // this row group has its own, which only the deprecated free
            // function takes (the same writers otherwise).
            #[allow(deprecated)]
            let mut writers = parquet::arrow::arrow_writer::get_column_writers(
                self.file.schema_descr(),
                &props,
                &self.schema,
            )?;
            let mut leaves = Vec::with_capacity(self.leaf_count);
            for (field, column) in self.schema.fields().iter().zip(part.columns()) {
                leaves.extend(compute_leaves(field, column)?);
            }
            for (w, leaf) in writers.iter_mut().zip(&leaves) {
                w.write(leaf)?;
            }
            let mut group = self.file.next_row_group()?;
            for w in writers {
                w.close()?.append_to_row_group(&mut group)?;
            }
            group.close()?;
            self.row_groups += 1;
            at += rows;
        }
        Ok(())
    }

    /// Close the last row group, write the footer, return the output.
    pub(crate) fn finish(mut self) -> Result<W> {
        if self.group_rows > 0 {
            self.close_row_group()?;
        }
        for e in &mut self.encoders.0 {
            e.stop();
            if let Some(h) = e.handle.take() {
                h.join().unwrap_or_else(|_| Err(panicked()))?;
            }
        }
        Ok(self.file.into_inner()?)
    }

    fn start_row_group(&mut self) -> Result<()> {
        let mut writers: Vec<Option<ArrowColumnWriter>> =
            self.factory.create_column_writers(self.row_groups)?.into_iter().map(Some).collect();
        debug_assert_eq!(writers.len(), self.leaf_count);
        self.group_batches = 0;
        for e in &mut self.encoders.0 {
            (e.sizes_seen, e.size) = (0, 0);
        }
        for i in 0..self.encoders.0.len() {
            let mine =
                self.encoders.0[i].leaves.iter().filter_map(|&l| writers[l].take()).collect();
            self.submit(i, Job::Start(mine))?;
        }
        Ok(())
    }

    fn send(&mut self, batch: &RecordBatch) -> Result<()> {
        let mut leaves: Vec<Option<ArrowLeafColumn>> = Vec::with_capacity(self.leaf_count);
        for (field, column) in self.schema.fields().iter().zip(batch.columns()) {
            leaves.extend(compute_leaves(field, column)?.into_iter().map(Some));
        }
        for i in 0..self.encoders.0.len() {
            let mine = self.encoders.0[i].leaves.iter().filter_map(|&l| leaves[l].take()).collect();
            self.submit(i, Job::Write(mine))?;
        }
        Ok(())
    }

    /// The open row group's encoded bytes after its first
    /// `group_batches - SIZE_LAG` batches (0 before there are more than
    /// [`SIZE_LAG`]), summed over the threads; waits for them.
    fn encoded_before_in_flight(&mut self) -> Result<usize> {
        let Some(upto) = self.group_batches.checked_sub(SIZE_LAG).filter(|&n| n > 0) else {
            return Ok(0);
        };
        let mut total = 0;
        for e in &mut self.encoders.0 {
            e.sizes_until(upto)?;
            total += e.size;
        }
        Ok(total)
    }

    fn close_row_group(&mut self) -> Result<()> {
        for i in 0..self.encoders.0.len() {
            self.submit(i, Job::Close)?;
        }
        // The sizes still to come of this row group, before its chunks.
        let batches = self.group_batches;
        for e in &mut self.encoders.0 {
            e.sizes_until(batches)?;
        }
        let mut chunks: Vec<Option<ArrowColumnChunk>> =
            (0..self.leaf_count).map(|_| None).collect();
        for e in &mut self.encoders.0 {
            let Ok(mine) = e.chunks.recv() else { return Err(e.stopped()) };
            for (&leaf, chunk) in e.leaves.iter().zip(mine) {
                chunks[leaf] = Some(chunk);
            }
        }
        let mut group = self.file.next_row_group()?;
        for chunk in chunks {
            let chunk =
                chunk.ok_or_else(|| ParquetError::General("a column chunk is missing".into()))?;
            chunk.append_to_row_group(&mut group)?;
        }
        group.close()?;
        self.row_groups += 1;
        self.group_rows = 0;
        Ok(())
    }

    /// Hand encoder `i` a job; if it has stopped, its error.
    fn submit(&mut self, i: usize, job: Job) -> Result<()> {
        let e = &mut self.encoders.0[i];
        e.jobs.send(job).map_err(|_| e.stopped())
    }
}

/// The encoder threads; dropped unfinished (an error upstream), it stops
/// them, and the output is the caller's to discard.
struct Pool(Vec<Encoder>);

impl Drop for Pool {
    fn drop(&mut self) {
        for e in &mut self.0 {
            e.stop();
            if let Some(h) = e.handle.take() {
                let _ = h.join();
            }
        }
    }
}

impl Encoder {
    /// Receive this thread's sizes until it has reported `batches` batches
    /// of the open row group (`size` is then the size after that many).
    fn sizes_until(&mut self, batches: usize) -> Result<()> {
        while self.sizes_seen < batches {
            match self.sizes.recv() {
                Ok(size) => (self.sizes_seen, self.size) = (self.sizes_seen + 1, size),
                Err(_) => return Err(self.stopped()),
            }
        }
        Ok(())
    }

    /// Close the job queue: the thread ends once it has done what is queued.
    fn stop(&mut self) {
        let (closed, _) = sync_channel(0);
        drop(std::mem::replace(&mut self.jobs, closed));
    }

    /// The error of a thread that stopped taking jobs: its own, or (if it
    /// has none, which only a bug can cause) one that says so.
    fn stopped(&mut self) -> crate::Error {
        self.stop();
        let res = match self.handle.take() {
            Some(h) => h.join().unwrap_or_else(|_| Err(panicked())),
            None => Ok(()),
        };
        match res {
            Err(e) => e.into(),
            Ok(()) => ParquetError::General("a Parquet encoder thread stopped early".into()).into(),
        }
    }
}

fn panicked() -> ParquetError {
    ParquetError::General("a Parquet encoder thread panicked".into())
}

fn spawn_encoder(leaves: Vec<usize>) -> Result<Encoder> {
    let (jobs, queue) = sync_channel::<Job>(IN_FLIGHT);
    let (done, chunks) = sync_channel::<Vec<ArrowColumnChunk>>(1);
    // Unbounded, so that a size never waits: the writer takes them all by
    // the row group's close, a few numbers a batch.
    let (sized, sizes) = channel::<usize>();
    let handle = thread::Builder::new().name("swath-parquet-encode".into()).spawn(move || {
        let mut writers: Vec<ArrowColumnWriter> = Vec::new();
        for job in queue {
            match job {
                Job::Start(w) => writers = w,
                Job::Write(cols) => {
                    for (w, col) in writers.iter_mut().zip(&cols) {
                        w.write(col)?;
                    }
                    let now: usize = writers.iter().map(|w| w.get_estimated_total_bytes()).sum();
                    if sized.send(now).is_err() {
                        break;
                    }
                }
                Job::Close => {
                    let closed = std::mem::take(&mut writers)
                        .into_iter()
                        .map(ArrowColumnWriter::close)
                        .collect::<std::result::Result<Vec<_>, _>>()?;
                    if done.send(closed).is_err() {
                        break;
                    }
                }
            }
        }
        Ok(())
    })?;
    Ok(Encoder { jobs, chunks, sizes, sizes_seen: 0, size: 0, handle: Some(handle), leaves })
}

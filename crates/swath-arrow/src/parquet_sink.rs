//! Writing batches to Parquet: row groups by rows or bytes, compression,
//! statistics, and column chunks encoded on the writing thread or on
//! threads of their own ([`crate::encode`]). Behind the `parquet` feature
//! (on by default), so that a user of the decoding alone (the fuzz
//! targets) does not build the Parquet crate and zstd.

use std::io::Write;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties};

use crate::encode::{ParallelEncoder, RowGroupLimits};
use crate::error::Result;

/// Parquet compression.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParquetCompression {
    /// zstd at level 1 (the default: DuckDB's choice too, and fast).
    #[default]
    Zstd,
    /// Snappy.
    Snappy,
    /// None.
    None,
}

/// How to write Parquet.
#[derive(Clone, Debug)]
pub struct ParquetOptions {
    /// Compression of every column.
    pub compression: ParquetCompression,
    /// A row group ends after this many rows (default 1Mi)...
    pub row_group_rows: usize,
    /// ...or once its encoded size reaches this many bytes (default 128 MiB).
    pub row_group_bytes: usize,
    /// Statistics (min, max, nulls) per column chunk and page (default on).
    pub statistics: bool,
    /// Threads that encode and compress column chunks (default 1: on the
    /// thread that writes). More spread a row group's columns over that
    /// many threads; the file is the same.
    pub encode_threads: usize,
}

impl Default for ParquetOptions {
    fn default() -> ParquetOptions {
        ParquetOptions {
            compression: ParquetCompression::Zstd,
            row_group_rows: 1 << 20,
            row_group_bytes: 128 << 20,
            statistics: true,
            encode_threads: 1,
        }
    }
}

impl ParquetOptions {
    /// The writer properties these options make.
    pub fn properties(&self) -> WriterProperties {
        let c = match self.compression {
            ParquetCompression::Zstd => {
                Compression::ZSTD(ZstdLevel::try_new(1).unwrap_or_default())
            }
            ParquetCompression::Snappy => Compression::SNAPPY,
            ParquetCompression::None => Compression::UNCOMPRESSED,
        };
        let stats = if self.statistics { EnabledStatistics::Page } else { EnabledStatistics::None };
        WriterProperties::builder()
            .set_compression(c)
            .set_statistics_enabled(stats)
            .set_max_row_group_row_count(Some(self.row_group_rows.max(1)))
            .set_max_row_group_bytes(Some(self.row_group_bytes.max(1)))
            .set_created_by(format!("swath {}", env!("CARGO_PKG_VERSION")))
            .build()
    }

    /// When the encoder closes a row group.
    fn row_group_limits(&self) -> RowGroupLimits {
        RowGroupLimits { rows: self.row_group_rows, bytes: self.row_group_bytes }
    }
}

/// The encoder threads ([`ParquetOptions::encode_threads`]) that go with
/// decoding on `decoders` threads (0: every core): the cores the decoding
/// leaves. Decoding on one thread (a pipe, compressed input, `threads=1`)
/// leaves every core to the encoders; a file decoded in parallel keeps its
/// cores busy, so half as many encoders (one on two cores: measured, a
/// second one there only adds memory).
pub fn encode_threads_for(decoders: usize) -> usize {
    let cores = swath::parallel::available_cores();
    match decoders {
        1 => cores,
        0 => (cores / 2).max(1),
        t => (t / 2).max(1),
    }
}

/// Writes batches to a Parquet file, closing row groups by rows or bytes;
/// encoding on the writing thread or on [`ParquetOptions::encode_threads`].
pub struct ParquetSink<W: Write + Send> {
    /// `None` only while the writer is handed from one encoding to the
    /// other, and after a failure then.
    w: Option<Encoding<W>>,
    schema: SchemaRef,
    opts: ParquetOptions,
    rows: u64,
}

/// Where the column chunks are encoded.
enum Encoding<W: Write + Send> {
    /// Parquet's own writer, on the calling thread.
    Here(ArrowWriter<W>),
    /// Threads of swath's own ([`ParallelEncoder`]).
    Threads(ParallelEncoder<W>),
}

impl<W: Write + Send> std::fmt::Debug for ParquetSink<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetSink").field("rows", &self.rows).finish_non_exhaustive()
    }
}

impl<W: Write + Send> ParquetSink<W> {
    /// Start a Parquet file of `schema` on `out`.
    ///
    /// # Errors
    ///
    /// The writer's (an unsupported type).
    pub fn new(out: W, schema: SchemaRef, opts: &ParquetOptions) -> Result<ParquetSink<W>> {
        let w = if opts.encode_threads > 1 {
            let w = ParallelEncoder::new(
                out,
                schema.clone(),
                opts.properties(),
                opts.row_group_limits(),
                opts.encode_threads,
            )?;
            Encoding::Threads(w)
        } else {
            Encoding::Here(ArrowWriter::try_new(out, schema.clone(), Some(opts.properties()))?)
        };
        Ok(ParquetSink { w: Some(w), schema, opts: opts.clone(), rows: 0 })
    }

    /// Write one batch. A batch with a value of 1 MiB or more is a row
    /// group of its own, its long columns without a dictionary or
    /// statistics (`long_values.rs`: a copy of the value each, of no use
    /// for such values).
    ///
    /// # Errors
    ///
    /// The writer's, I/O included.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        self.rows += batch.num_rows() as u64;
        let long = crate::long_values::long_columns(batch);
        if !long.is_empty() {
            return self.encoder()?.write_alone(batch, &long);
        }
        match self.w.as_mut().ok_or_else(broken)? {
            Encoding::Here(w) => w.write(batch)?,
            Encoding::Threads(w) => w.write(batch)?,
        }
        Ok(())
    }

    /// The encoder that can write a row group with properties of its own,
    /// the one-thread writer's file handed to it when need be (ArrowWriter
    /// has one set of properties for the whole file): from then on it
    /// encodes on a thread of its own, into the same file.
    fn encoder(&mut self) -> Result<&mut ParallelEncoder<W>> {
        if let Some(Encoding::Here(_)) = self.w {
            let Some(Encoding::Here(w)) = self.w.take() else { return Err(broken()) };
            let schema = self.schema.clone();
            self.w = Some(Encoding::Threads(ParallelEncoder::continuing(
                w,
                schema,
                self.opts.row_group_limits(),
                1,
            )?));
        }
        match self.w.as_mut() {
            Some(Encoding::Threads(w)) => Ok(w),
            _ => Err(broken()),
        }
    }

    /// Rows written so far.
    pub fn rows(&self) -> u64 {
        self.rows
    }

    /// Write the footer and return the output.
    ///
    /// # Errors
    ///
    /// The writer's, I/O included.
    pub fn finish(self) -> Result<W> {
        match self.w.ok_or_else(broken)? {
            Encoding::Here(w) => Ok(w.into_inner()?),
            Encoding::Threads(w) => w.finish(),
        }
    }
}

/// The error of a sink whose writer was lost in an earlier failure.
fn broken() -> crate::Error {
    parquet::errors::ParquetError::General("the Parquet writer failed earlier".into()).into()
}

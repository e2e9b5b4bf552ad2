//! `scan_csv`, `read_csv` and `csv_to_parquet`: CSV into typed Arrow
//! batches (swath-arrow), out to Python or to a Parquet file.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatchIterator;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use swath_arrow::{ParquetCompression, ParquetOptions, ParquetSink, DEFAULT_BATCH_SIZE};

use crate::errors::Failure;
use crate::interrupt;
use crate::options::{arrow_failure, Columns, NullArg, ReadOptions};
use crate::put_aside::Taking;
use crate::stream::CsvReader;

/// scan_csv(path, columns=None, schema=None, threads=0, null="", on_error="fail", infer="sample", batch_size=16384, string_view=False, **dialect)
/// --
///
/// Open a CSV file as a stream of Arrow record batches (a CsvReader),
/// decoded ahead on every core for a regular file, with a bounded number
/// of batches in flight. The schema is inferred now (from records spread
/// over the whole file) unless given.
#[pyfunction]
#[pyo3(signature = (path, columns = None, schema = None, threads = 0, null = NullArg::default(), on_error = "fail", infer = "sample", batch_size = DEFAULT_BATCH_SIZE, string_view = false, **dialect))]
#[allow(clippy::too_many_arguments)]
pub fn scan_csv(
    py: Python<'_>,
    path: PathBuf,
    columns: Option<Columns>,
    schema: Option<&Bound<'_, PyAny>>,
    threads: usize,
    null: NullArg,
    on_error: &str,
    infer: &str,
    batch_size: usize,
    string_view: bool,
    dialect: Option<&Bound<'_, PyDict>>,
) -> PyResult<CsvReader> {
    let opts =
        ReadOptions::new(columns, schema, threads, null, on_error, infer, batch_size, dialect)?
            .string_view(string_view);
    if opts.put_aside().is_on() {
        return Err(PyValueError::new_err(
            "on_bad is read_csv's and csv_to_parquet's; scan_csv does not put records aside yet",
        ));
    }
    let (schema, batches) = interrupt::run(py, move |_| {
        let opened = opts.open(&path)?;
        Ok((opened.schema(), opened.into_batches()?))
    })?;
    CsvReader::new(schema, batches)
}

/// _read_csv(path, columns=None, schema=None, threads=0, null="", on_error="fail", infer="sample", batch_size=16384, string_view=False, **dialect)
/// --
///
/// Read a whole CSV file into batches held in memory (every core), and
/// hand them out as a CsvReader; `swath.read_csv` makes it a
/// pyarrow.Table without a copy.
#[pyfunction]
#[pyo3(signature = (path, columns = None, schema = None, threads = 0, null = NullArg::default(), on_error = "fail", infer = "sample", batch_size = DEFAULT_BATCH_SIZE, string_view = false, **dialect))]
#[allow(clippy::too_many_arguments)]
pub fn _read_csv(
    py: Python<'_>,
    path: PathBuf,
    columns: Option<Columns>,
    schema: Option<&Bound<'_, PyAny>>,
    threads: usize,
    null: NullArg,
    on_error: &str,
    infer: &str,
    batch_size: usize,
    string_view: bool,
    dialect: Option<&Bound<'_, PyDict>>,
) -> PyResult<CsvReader> {
    let opts =
        ReadOptions::new(columns, schema, threads, null, on_error, infer, batch_size, dialect)?
            .string_view(string_view);
    let (schema, batches, note) = interrupt::run(py, move |cancel| {
        let mut taking = opts.put_aside().open()?;
        let res = opts.open(&path).and_then(|opened| {
            let schema = opened.schema();
            let mut batches = Vec::new();
            let rows = opened.for_each(cancel, taking.as_mut(), |b| {
                batches.push(b);
                Ok(())
            })?;
            Ok((schema, batches, rows))
        });
        let (schema, batches, rows) = settle(res, &mut taking)?;
        let note = match taking {
            Some(t) => t.finish(rows)?,
            None => None,
        };
        Ok((schema, batches, note))
    })?;
    crate::put_aside::warn(py, note)?;
    let it = RecordBatchIterator::new(batches.into_iter().map(Ok), schema.clone());
    CsvReader::new(schema, Box::new(it))
}

/// csv_to_parquet(src, dst, columns=None, schema=None, threads=0, null="", on_error="fail", infer="sample", compression="zstd", row_group_rows=1048576, row_group_size=None, no_statistics=False, **dialect)
/// --
///
/// Convert a CSV file to Parquet with typed columns, decoded on every
/// core, in file order, with flat memory. The file is written under a
/// temporary name beside `dst` and renamed into place only when complete:
/// an error or Ctrl-C leaves no file. Returns the number of rows written.
///
/// The options are `swath csv to-parquet`'s: a row group ends after
/// `row_group_rows` rows or `row_group_size` encoded bytes (an int, or a
/// str with K, M or G; default 128M); `no_statistics=True` leaves out the per-column
/// min, max and null count. `on_bad="skip"` or `"quarantine=PATH"` (and
/// `max_bad`, `errors_json`) keep broken records aside as `read_csv` does;
/// the count is then not the records read.
#[pyfunction]
#[pyo3(signature = (src, dst, columns = None, schema = None, threads = 0, null = NullArg::default(), on_error = "fail", infer = "sample", compression = "zstd", row_group_rows = 1 << 20, row_group_size = None, no_statistics = false, **dialect))]
#[allow(clippy::too_many_arguments)]
pub fn csv_to_parquet(
    py: Python<'_>,
    src: PathBuf,
    dst: PathBuf,
    columns: Option<Columns>,
    schema: Option<&Bound<'_, PyAny>>,
    threads: usize,
    null: NullArg,
    on_error: &str,
    infer: &str,
    compression: &str,
    row_group_rows: usize,
    row_group_size: Option<&Bound<'_, PyAny>>,
    no_statistics: bool,
    dialect: Option<&Bound<'_, PyDict>>,
) -> PyResult<u64> {
    let opts = ReadOptions::new(
        columns,
        schema,
        threads,
        null,
        on_error,
        infer,
        DEFAULT_BATCH_SIZE,
        dialect,
    )?
    // As the CLI's to-parquet: 2 MiB chunks keep the peak under 64 MiB.
    .chunk_size(2 << 20);
    let compression = match compression {
        "zstd" => ParquetCompression::Zstd,
        "snappy" => ParquetCompression::Snappy,
        "none" => ParquetCompression::None,
        _ => {
            return Err(PyValueError::new_err(
                "compression must be \"zstd\", \"snappy\" or \"none\"",
            ))
        }
    };
    let mut popts = ParquetOptions {
        compression,
        row_group_rows: row_group_rows.max(1),
        statistics: !no_statistics,
        // The cores the decoding leaves encode the columns, as in the
        // CLI's to-parquet.
        encode_threads: swath_arrow::encode_threads_for(threads),
        ..Default::default()
    };
    if let Some(size) = row_group_size {
        popts.row_group_bytes = crate::dialect::size("row_group_size", size)?;
    }
    let (rows, note) = interrupt::run(py, move |cancel| {
        let tmp = temporary_beside(&dst);
        let mut taking = opts.put_aside().open()?;
        let res = write_parquet(&opts, &src, &tmp, &popts, cancel, taking.as_mut());
        // The quarantine's share is checked before the file is put in place.
        let res = res.and_then(|rows| match taking.take() {
            Some(t) => t.finish(rows).map(|note| (rows, note)),
            None => Ok((rows, None)),
        });
        match res {
            Ok((rows, note)) => {
                std::fs::rename(&tmp, &dst).map_err(|e| write_failure(&dst, e))?;
                Ok((rows, note))
            }
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                if let Some(t) = taking {
                    t.abandon();
                }
                Err(e)
            }
        }
    })?;
    crate::put_aside::warn(py, note)?;
    Ok(rows)
}

/// A read's result; on an error its quarantine's files are removed.
pub(crate) fn settle<T>(
    res: Result<T, Failure>,
    taking: &mut Option<Taking>,
) -> Result<T, Failure> {
    if res.is_err() {
        if let Some(t) = taking.take() {
            t.abandon();
        }
    }
    res
}

fn write_parquet(
    opts: &ReadOptions,
    src: &Path,
    tmp: &Path,
    popts: &ParquetOptions,
    cancel: &interrupt::Cancel,
    taking: Option<&mut Taking>,
) -> Result<u64, Failure> {
    let opened = opts.open(src)?;
    let file = File::create(tmp).map_err(|e| write_failure(tmp, e))?;
    let out = BufWriter::with_capacity(1 << 20, file);
    let mut sink = ParquetSink::new(out, opened.schema(), popts).map_err(arrow_failure)?;
    opened.for_each(cancel, taking, |b| sink.write(&b).map_err(arrow_failure))?;
    let rows = sink.rows();
    let out = sink.finish().map_err(arrow_failure)?;
    let file = out.into_inner().map_err(|e| write_failure(tmp, e.into_error()))?;
    file.sync_all().map_err(|e| write_failure(tmp, e))?;
    Ok(rows)
}

/// `dir/.name.PID.swath-partial`: same directory, so the rename is atomic.
pub(crate) fn temporary_beside(dst: &Path) -> PathBuf {
    let name = dst.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = format!(".{name}.{}.swath-partial", std::process::id());
    match dst.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.join(tmp),
        _ => PathBuf::from(tmp),
    }
}

fn write_failure(path: &Path, e: std::io::Error) -> Failure {
    Failure::Core(swath::Error::from(e).with_path(path))
}

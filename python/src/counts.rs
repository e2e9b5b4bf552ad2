//! `count_lines`, `csv_count` and `csv_check`: the CLI's `swath count`,
//! `swath csv count` and `swath csv check`, as functions.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use swath::{count_source, CountOptions, Parallel, Source};
use swath_csv::ParallelReader;

use crate::dialect::Dialect;
use crate::errors::{csv_error, Failure};
use crate::interrupt;

/// How often (in records) a sequential loop looks whether the caller
/// stopped waiting: an atomic load, so often is cheap.
const CANCEL_EVERY: u64 = 4096;

/// count_lines(path, threads=0)
/// --
///
/// The number of lines of a file (a final line without a newline counts,
/// as `swath count`), on every core (`threads=0`). Compressed input
/// (gzip, zstd, bzip2, xz, LZ4, zip) is decoded; `"-"` reads standard input.
///
/// Raises OSError when the file cannot be read.
#[pyfunction]
#[pyo3(signature = (path, threads = 0))]
pub fn count_lines(py: Python<'_>, path: PathBuf, threads: usize) -> PyResult<u64> {
    interrupt::run(py, move |_| {
        let mut src = Source::open(&path)?;
        let opts =
            CountOptions { parallel: Parallel::new().threads(threads), ..CountOptions::default() };
        Ok(count_source(&mut src, &opts)?.lines())
    })
}

/// csv_count(path, threads=0, **dialect)
/// --
///
/// The number of CSV records (the header row not counted unless
/// `no_headers=True`), exact with newlines inside quotes, on every core.
///
/// Raises CsvError at the first problem (as `swath csv count`), OSError
/// when the file cannot be read.
#[pyfunction]
#[pyo3(signature = (path, threads = 0, **dialect))]
pub fn csv_count(
    py: Python<'_>,
    path: PathBuf,
    threads: usize,
    dialect: Option<&Bound<'_, PyDict>>,
) -> PyResult<u64> {
    let b = Dialect::from_kwargs(dialect)?.builder();
    interrupt::run(py, move |_| {
        let mut rdr = ParallelReader::new(&b, &path).threads(threads).relative_numbers(true);
        Ok(rdr.count()?)
    })
}

/// What `csv_check` found.
#[pyclass(module = "swath", frozen, get_all)]
pub struct CheckResult {
    /// Records read (the header row not counted), problems included.
    records: u64,
    /// Problems found (all of them, not only those in `errors`).
    problems: u64,
    /// The first `limit` problems, as CsvError instances with `.record`,
    /// `.line`, `.byte`, `.path`; `str(e)` is the line the CLI prints.
    errors: Py<PyList>,
}

#[pymethods]
impl CheckResult {
    /// True when the file has no problem.
    #[getter]
    fn ok(&self) -> bool {
        self.problems == 0
    }

    fn __repr__(&self) -> String {
        format!("CheckResult(records={}, problems={})", self.records, self.problems)
    }
}

/// csv_check(path, limit=100, threads=0, **dialect)
/// --
///
/// Validate a whole file, as `swath csv check`: strict quoting unless
/// `lenient=True`, the same number of fields in every record unless
/// `flexible=True`. Returns a CheckResult with every problem counted and
/// the first `limit` of them as CsvError instances (record, line, byte).
/// A valid file is checked on every core.
///
/// Raises OSError when the file cannot be read.
#[pyfunction]
#[pyo3(signature = (path, limit = 100, threads = 0, **dialect))]
pub fn csv_check(
    py: Python<'_>,
    path: PathBuf,
    limit: u64,
    threads: usize,
    dialect: Option<&Bound<'_, PyDict>>,
) -> PyResult<CheckResult> {
    let b = Dialect::from_kwargs(dialect)?.builder();
    let (records, problems, shown) = interrupt::run(py, move |cancel| {
        let regular = threads != 1 && std::fs::metadata(&path).is_ok_and(|m| m.is_file());
        if regular {
            let mut rdr = ParallelReader::new(&b, &path).threads(threads).relative_numbers(true);
            if let Ok(n) = rdr.count() {
                return Ok((n, 0, Vec::new()));
            }
        }
        // Problems: read again on one thread, to list them all in order
        // (the CLI does the same).
        let mut rdr = b.from_path(&path)?;
        let (mut records, mut problems, mut shown) = (0u64, 0u64, Vec::new());
        loop {
            if records % CANCEL_EVERY == 0 && cancel.is_set() {
                return Err(Failure::Cancelled);
            }
            match rdr.next_record() {
                Ok(Some(_)) => records += 1,
                Ok(None) => break,
                Err(e) => {
                    problems += 1;
                    let go_on = e.is_recoverable();
                    if problems <= limit {
                        shown.push(e);
                    }
                    if !go_on {
                        break;
                    }
                    records += 1;
                }
            }
        }
        Ok((records, problems, shown))
    })?;
    let errors = PyList::empty(py);
    for e in shown {
        errors.append(csv_error(py, e).into_value(py))?;
    }
    Ok(CheckResult { records, problems, errors: errors.unbind() })
}

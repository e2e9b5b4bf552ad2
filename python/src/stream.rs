//! `CsvReader`, what `scan_csv` returns: Arrow batches through the Arrow
//! PyCapsule interface (`__arrow_c_stream__`), or one by one as
//! pyarrow.RecordBatch when iterated. Batches are decoded ahead (on every
//! core for a regular file) with at most a few in flight: memory stays
//! flat however large the file.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use arrow_array::ffi::to_ffi;
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{Array, RecordBatch, RecordBatchReader, StructArray};
use arrow_schema::ffi::FFI_ArrowSchema;
use arrow_schema::{ArrowError, SchemaRef};
use pyo3::exceptions::{PyRuntimeError, PyStopIteration, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::ahead::{Ahead, Batches, Waited};
use crate::errors::Failure;
use crate::options::arrow_failure;

/// How often a thread waiting in `__next__` looks for a signal.
const POLL: Duration = Duration::from_millis(20);

/// How many exported batches' buffer addresses a reader remembers (for
/// the tests that check that consumers do not copy).
const REMEMBER: usize = 4096;

/// A stream of Arrow record batches read from a CSV file.
///
/// Hand it to pyarrow (`pa.RecordBatchReader.from_stream(r)`,
/// `pa.table(r)`), Polars (`pl.from_arrow(r)`, `pl.DataFrame(r)`) or
/// DuckDB (`duckdb.sql("select ... from r")`): they take the batches
/// through `__arrow_c_stream__` without a copy. Or iterate it for
/// pyarrow.RecordBatch objects. Either way it can be consumed once.
#[pyclass(module = "swath", name = "CsvReader")]
pub struct CsvReader {
    schema: SchemaRef,
    batches: Mutex<Option<Ahead>>,
    exported: Arc<Mutex<Vec<usize>>>,
}

impl CsvReader {
    /// A reader over `batches`, which start decoding ahead now.
    pub fn new(schema: SchemaRef, batches: Batches) -> PyResult<CsvReader> {
        let ahead = Ahead::spawn(batches)
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
        Ok(CsvReader { schema, batches: Mutex::new(Some(ahead)), exported: Arc::default() })
    }

    fn take(&self) -> PyResult<Ahead> {
        self.batches
            .lock()
            .map_err(|_| PyRuntimeError::new_err("a reader thread panicked"))?
            .take()
            .ok_or_else(|| PyValueError::new_err("this CsvReader was consumed already"))
    }
}

#[pymethods]
impl CsvReader {
    /// The Arrow C stream of the batches (the Arrow PyCapsule interface).
    /// `requested_schema` is not honoured (the batches have the schema
    /// they were read with), as the interface allows.
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let batches = self.take()?;
        let recording = Recording { inner: Box::new(batches), exported: self.exported.clone() };
        let stream = FFI_ArrowArrayStream::new(Box::new(recording));
        // The consumer moves the stream out and marks ours released; if it
        // never does, dropping the capsule releases it (FFI_ArrowArrayStream's
        // Drop checks `release`).
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    /// The schema, as a pyarrow.Schema (needs pyarrow).
    #[getter]
    fn schema<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let holder = Bound::new(py, SchemaHolder(self.schema.clone()))?;
        py.import("pyarrow")?.call_method1("schema", (holder,))
    }

    /// The column names.
    #[getter]
    fn columns(&self) -> Vec<String> {
        self.schema.fields().iter().map(|f| f.name().clone()).collect()
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next batch as a pyarrow.RecordBatch (needs pyarrow). Waits
    /// without the GIL, and Ctrl-C interrupts the wait (the reader is then
    /// closed). A CSV problem raises CsvError with its position.
    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let Some(mut batches) = self.batches.lock().ok().and_then(|mut g| g.take()) else {
            return Err(PyStopIteration::new_err(()));
        };
        let next = loop {
            let (waited, back) = py.detach(move || (batches.next_timeout(POLL), batches));
            batches = back;
            match waited {
                Waited::Got(next) => break next,
                // A signal handler that raises (KeyboardInterrupt) ends the
                // read: dropping `batches` stops the decoder.
                Waited::Timeout => py.check_signals()?,
            }
        };
        match next {
            None => Err(PyStopIteration::new_err(())),
            Some(Err(e)) => Err(stream_failure(e).into_py(py)),
            Some(Ok(b)) => {
                if let Ok(mut g) = self.batches.lock() {
                    *g = Some(batches);
                }
                remember(&self.exported, &b);
                let holder = Bound::new(py, BatchHolder(Some(b)))?;
                py.import("pyarrow")?.call_method1("record_batch", (holder,))
            }
        }
    }

    /// Stop reading and free the decoder (also done when the reader is
    /// garbage collected).
    fn close(&self) {
        if let Ok(mut g) = self.batches.lock() {
            g.take();
        }
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, pyo3::types::PyTuple>) {
        self.close();
    }

    /// For tests: the addresses of the value buffers (the last buffer of
    /// each column) of the batches handed out so far, in order, up to
    /// 4096 batches. A consumer that does not copy shows the same
    /// addresses.
    fn _exported_addresses(&self) -> Vec<usize> {
        self.exported.lock().map(|v| v.clone()).unwrap_or_default()
    }

    fn __repr__(&self) -> String {
        format!("CsvReader(columns={:?})", self.columns())
    }
}

/// Records the buffer addresses of the batches going through the stream.
struct Recording {
    inner: Batches,
    exported: Arc<Mutex<Vec<usize>>>,
}

impl Iterator for Recording {
    type Item = Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let next = self.inner.next();
        if let Some(Ok(b)) = &next {
            remember(&self.exported, b);
        }
        next
    }
}

impl RecordBatchReader for Recording {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }
}

fn remember(exported: &Mutex<Vec<usize>>, b: &RecordBatch) {
    let Ok(mut v) = exported.lock() else { return };
    if v.len() >= REMEMBER * b.num_columns().max(1) {
        return;
    }
    for col in b.columns() {
        let data = col.to_data();
        if let Some(buf) = data.buffers().last() {
            v.push(buf.as_ptr() as usize);
        }
    }
}

/// One batch through `__arrow_c_array__`, for `pyarrow.record_batch`.
#[pyclass(module = "swath")]
struct BatchHolder(Option<RecordBatch>);

#[pymethods]
impl BatchHolder {
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &mut self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyCapsule>, Bound<'py, PyCapsule>)> {
        let _ = requested_schema;
        let b = self.0.take().ok_or_else(|| PyValueError::new_err("batch exported already"))?;
        let data = StructArray::from(b).into_data();
        let (array, schema) =
            to_ffi(&data).map_err(|e| Failure::Other(e.to_string()).into_py(py))?;
        Ok((
            PyCapsule::new_with_value(py, schema, c"arrow_schema")?,
            PyCapsule::new_with_value(py, array, c"arrow_array")?,
        ))
    }
}

/// A schema through `__arrow_c_schema__`, for `pyarrow.schema`.
#[pyclass(module = "swath", frozen)]
pub struct SchemaHolder(pub SchemaRef);

#[pymethods]
impl SchemaHolder {
    fn __arrow_c_schema__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let ffi = FFI_ArrowSchema::try_from(self.0.as_ref())
            .map_err(|e| Failure::Other(e.to_string()).into_py(py))?;
        PyCapsule::new_with_value(py, ffi, c"arrow_schema")
    }
}

/// An error out of a batch stream: a JSON-lines reader's error keeps its
/// place (it travels as Arrow's external error), the rest as swath-arrow's.
fn stream_failure(e: ArrowError) -> crate::errors::Failure {
    match e {
        ArrowError::ExternalError(inner) => match inner.downcast::<swath_json::Error>() {
            Ok(j) => crate::errors::Failure::Json(*j),
            Err(other) => arrow_failure(swath_arrow::Error::from(ArrowError::ExternalError(other))),
        },
        e => arrow_failure(swath_arrow::Error::from(e)),
    }
}

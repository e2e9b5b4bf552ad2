//! `scan_json` and `_read_json`: JSON lines into Arrow batches
//! (swath-json), out to Python through the same stream as the CSV readers.

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchIterator};
use arrow_schema::{Field, Schema, SchemaRef};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use swath_arrow::ColumnType;
use swath_json::{Infer, JsonReaderBuilder};

use crate::errors::Failure;
use crate::interrupt;
use crate::put_aside::{PutAside, Taking};
use crate::stream::CsvReader;

/// `schema=`: the whole schema, or types of some top-level fields.
enum SchemaArg {
    Whole(SchemaRef),
    Fields(Vec<(String, ColumnType)>),
}

fn schema_arg(s: &Bound<'_, PyAny>) -> PyResult<SchemaArg> {
    let parse = |ty: &str| ColumnType::parse(ty).map_err(|e| PyValueError::new_err(e.to_string()));
    if let Some(file) = crate::options::schema_file_arg(s)? {
        return Ok(SchemaArg::Whole(Arc::new(file.schema)));
    }
    if let Ok(text) = s.extract::<String>() {
        let specs = swath_arrow::parse_schema_text(&text)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        return Ok(SchemaArg::Fields(specs.into_iter().map(|c| (c.name, c.ty)).collect()));
    }
    if let Ok(d) = s.cast::<PyDict>() {
        let mut out = Vec::new();
        for (k, v) in d.iter() {
            let name: String = k.extract()?;
            let ty: String = v.extract().map_err(|_| {
                PyTypeError::new_err(format!("schema: the type of {name:?} must be a str"))
            })?;
            out.push((name, parse(&ty)?));
        }
        return Ok(SchemaArg::Fields(out));
    }
    if s.hasattr("__arrow_c_schema__")? {
        return Ok(SchemaArg::Whole(Arc::new(crate::options::import_schema(s)?)));
    }
    Err(PyTypeError::new_err(
        "schema must be a pyarrow.Schema (or any object with __arrow_c_schema__), \
         a dict of field name to type name, a str like \"id:int64,name:utf8\", or the \
         path of a schema file (what `swath json schema --json` prints)",
    ))
}

/// Open `path`, infer or take its schema: the schema and the source to
/// read from the start (a stream's head replayed).
fn resolve(
    path: &std::path::Path,
    b: &JsonReaderBuilder,
    schema: Option<SchemaArg>,
) -> Result<(SchemaRef, swath::Source), Failure> {
    let src = swath::Source::open(path)?;
    Ok(match schema {
        Some(SchemaArg::Whole(s)) => (s, src),
        other => {
            let (inferred, src) = b.infer_and_replay(src).map_err(Failure::Json)?;
            let mut fields: Vec<Field> =
                inferred.schema.fields().iter().map(|f| f.as_ref().clone()).collect();
            if let Some(SchemaArg::Fields(given)) = other {
                for (name, ty) in given {
                    let field = Field::new(&name, ty.data_type(), true);
                    match fields.iter_mut().find(|f| *f.name() == name) {
                        Some(f) => *f = field,
                        None => fields.push(field),
                    }
                }
            }
            (Arc::new(Schema::new(fields)), src)
        }
    })
}

/// Open `path`, infer or take its schema: the schema and the batches,
/// decoded ahead on their own thread (every core for a regular file).
fn open(
    path: &std::path::Path,
    b: &JsonReaderBuilder,
    schema: Option<SchemaArg>,
) -> Result<(SchemaRef, swath_json::JsonBatches), Failure> {
    let (schema, src) = resolve(path, b, schema)?;
    let batches = b.into_batches(src, schema.clone()).map_err(Failure::Json)?;
    Ok((schema, batches))
}

/// Every batch of `path` (on every core for a regular file), the records
/// put aside going to `taking`; the objects kept.
fn read_all(
    path: &std::path::Path,
    b: &JsonReaderBuilder,
    schema: Option<SchemaArg>,
    cancel: &interrupt::Cancel,
    mut taking: Option<&mut Taking>,
) -> Result<(SchemaRef, Vec<RecordBatch>, u64), Failure> {
    let (schema, mut src) = resolve(path, b, schema)?;
    let mut batches = Vec::new();
    // Why the read stopped early: Ctrl-C, or the quarantine.
    let mut stopped: Option<Failure> = None;
    let stop = || swath_json::Error::Consumer("stopped".into());
    let res = b.for_each_batch_with_bad(
        &mut src,
        schema.clone(),
        |batch| {
            if cancel.is_set() {
                return Err(stop());
            }
            batches.push(batch);
            Ok(())
        },
        |bad| match taking.as_deref_mut() {
            Some(t) => t.take(bad).map_err(|e| {
                stopped = Some(e);
                stop()
            }),
            None => Ok(()),
        },
    );
    if let Some(e) = stopped {
        return Err(e);
    }
    if cancel.is_set() {
        return Err(Failure::Cancelled);
    }
    let rows = res.map_err(Failure::Json)?;
    Ok((schema, batches, rows))
}

fn builder(
    threads: usize,
    infer: &str,
    batch_size: usize,
    max_line_size: Option<&Bound<'_, PyAny>>,
    records: &str,
) -> PyResult<JsonReaderBuilder> {
    let mut b = JsonReaderBuilder::new();
    let records: swath_json::Records =
        records.parse().map_err(|e: String| PyValueError::new_err(format!("records: {e}")))?;
    b.threads(threads).batch_size(batch_size.max(1)).records(records);
    match infer {
        "sample" => {}
        "full" => {
            b.infer(Infer::Full);
        }
        _ => return Err(PyValueError::new_err("infer must be \"sample\" or \"full\"")),
    }
    if let Some(size) = max_line_size {
        b.max_line_len(crate::dialect::size("max_line_size", size)?);
    }
    Ok(b)
}

/// scan_json(path, schema=None, threads=0, infer="sample", batch_size=16384, max_line_size=None, records="auto")
/// --
///
/// Open a JSON file (compressed input recognised) as a stream of Arrow record
/// batches, decoded ahead on every core for a regular file. `records`:
/// where the records are, as the CLI's `--records` (auto, lines, values,
/// $, or a path of keys such as Records or data.items). The
/// schema is inferred now (from the head and lines spread over the file,
/// or every line with infer="full") unless given.
#[pyfunction]
#[pyo3(signature = (path, schema = None, threads = 0, infer = "sample", batch_size = swath_json::DEFAULT_BATCH_SIZE, max_line_size = None, records = "auto"))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments.
pub fn scan_json(
    py: Python<'_>,
    path: PathBuf,
    schema: Option<&Bound<'_, PyAny>>,
    threads: usize,
    infer: &str,
    batch_size: usize,
    max_line_size: Option<&Bound<'_, PyAny>>,
    records: &str,
) -> PyResult<CsvReader> {
    let b = builder(threads, infer, batch_size, max_line_size, records)?;
    let schema = schema.map(schema_arg).transpose()?;
    let (schema, batches) = interrupt::run(py, move |_| open(&path, &b, schema))?;
    CsvReader::new(schema, Box::new(batches))
}

/// _read_json(path, schema=None, threads=0, infer="sample", batch_size=16384, max_line_size=None, records="auto", on_bad="fail", max_bad=None, errors_json=False)
/// --
///
/// Read a whole JSON-lines file into batches held in memory; `swath.read_json`
/// makes them a pyarrow.Table without a copy. `on_bad`, `max_bad`,
/// `errors_json`: broken records put aside, as `read_csv`'s.
#[pyfunction]
#[pyo3(signature = (path, schema = None, threads = 0, infer = "sample", batch_size = swath_json::DEFAULT_BATCH_SIZE, max_line_size = None, records = "auto", on_bad = None, max_bad = None, errors_json = false))]
#[allow(clippy::too_many_arguments)] // Python's keyword arguments.
pub fn _read_json(
    py: Python<'_>,
    path: PathBuf,
    schema: Option<&Bound<'_, PyAny>>,
    threads: usize,
    infer: &str,
    batch_size: usize,
    max_line_size: Option<&Bound<'_, PyAny>>,
    records: &str,
    on_bad: Option<&Bound<'_, PyAny>>,
    max_bad: Option<&Bound<'_, PyAny>>,
    errors_json: bool,
) -> PyResult<CsvReader> {
    let mut b = builder(threads, infer, batch_size, max_line_size, records)?;
    let schema = schema.map(schema_arg).transpose()?;
    let put_aside = PutAside::new(on_bad, max_bad, errors_json)?;
    if put_aside.is_on() {
        b.on_bad(swath_json::OnBad::PutAside);
    }
    let (schema, batches, note) = interrupt::run(py, move |cancel| {
        let mut taking = put_aside.open()?;
        let res = read_all(&path, &b, schema, cancel, taking.as_mut());
        let (schema, batches, rows) = crate::read::settle(res, &mut taking)?;
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

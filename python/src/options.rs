//! The reading options of `read_csv`, `scan_csv` and `csv_to_parquet`
//! (columns, schema, threads, null, on_error, infer), named as the CLI's
//! `--columns`, `--schema`, `--threads`, `--null`, `--on-error`,
//! `--infer`, and the reader they open.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::ffi::FFI_ArrowSchema;
use arrow_schema::{Schema, SchemaRef};
use pyo3::exceptions::{PyDeprecationWarning, PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyCapsuleMethods, PyDict};
use swath_arrow::schema_file::{self, SchemaFile};
use swath_arrow::{ArrowReaderBuilder, ColumnSpec, ColumnType, Infer, OnError};

use crate::ahead::Batches;
use crate::dialect::Dialect;
use crate::errors::Failure;
use crate::interrupt::Cancel;
use crate::put_aside::{PutAside, Taking};

/// Everything needed to open a file as Arrow batches, read from Python
/// arguments while the GIL is held, used on a worker thread.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    builder: ArrowReaderBuilder,
    threads: usize,
    /// `on_bad=`, `max_bad=`, `errors_json=`.
    put_aside: PutAside,
}

/// The `columns=` argument: names or 0-based indices.
#[derive(FromPyObject)]
pub enum Columns {
    /// By name, in this order.
    Names(Vec<String>),
    /// By position in the file, in this order.
    Indices(Vec<usize>),
}

impl ReadOptions {
    /// Read the options; `schema` may be a pyarrow.Schema (anything with
    /// `__arrow_c_schema__`: the whole file's schema), a dict of column
    /// name to type name (the others inferred), the CLI's text
    /// (`"id:int64!,ts:timestamptz"`), or a schema file's path
    /// ([`schema_file_arg`]).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        columns: Option<Columns>,
        schema: Option<&Bound<'_, PyAny>>,
        threads: usize,
        null: NullArg,
        on_error: &str,
        infer: &str,
        batch_size: usize,
        dialect: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<ReadOptions> {
        // Taken out of the keyword arguments first: the rest are the dialect's.
        let put_aside = PutAside::from_kwargs(dialect)?;
        let numbers = numbers_from_kwargs(dialect)?;
        let (date_form, timestamp_form) = date_forms_from_kwargs(dialect)?;
        let mut csv = Dialect::from_kwargs(dialect)?.builder();
        if put_aside.is_on() {
            csv.on_bad(swath_csv::OnBad::PutAside);
        }
        let mut b = ArrowReaderBuilder::new();
        b.csv(csv).threads(threads).batch_size(batch_size).nulls(null.nulls()).numbers(numbers);
        b.date_formats(date_form, timestamp_form);
        match on_error {
            "fail" => {}
            "null" => {
                b.on_error(OnError::Null);
            }
            "quarantine" if put_aside.is_on() => {
                b.on_error(OnError::PutAside);
            }
            "quarantine" => {
                return Err(PyValueError::new_err(
                    "on_error=\"quarantine\" needs on_bad=\"quarantine=PATH\" (or \"skip\")",
                ))
            }
            _ => {
                return Err(PyValueError::new_err(
                    "on_error must be \"fail\", \"null\" or \"quarantine\"",
                ))
            }
        }
        match infer {
            "sample" => {}
            "full" => {
                b.infer(Infer::Full);
            }
            _ => return Err(PyValueError::new_err("infer must be \"sample\" or \"full\"")),
        }
        match columns {
            None => {}
            Some(Columns::Names(n)) => {
                b.project_names(n);
            }
            Some(Columns::Indices(i)) => {
                b.projection(i);
            }
        }
        if let Some(s) = schema {
            set_schema(&mut b, s)?;
        }
        Ok(ReadOptions { builder: b, threads, put_aside })
    }

    /// What `on_bad=` asked for.
    pub fn put_aside(&self) -> &PutAside {
        &self.put_aside
    }

    /// Text columns as `Utf8View` (pyarrow's `string_view`) instead of
    /// `Utf8`.
    pub fn string_view(mut self, yes: bool) -> ReadOptions {
        self.builder.string_view(yes);
        self
    }

    /// Bytes per parallel chunk (default 4 MiB).
    pub fn chunk_size(mut self, bytes: u64) -> ReadOptions {
        self.builder.chunk_size(bytes);
        self
    }

    /// Open `path`: in parallel for a regular file (unless `threads=1`),
    /// else sequentially (stdin `-`, pipes, gzip, zstd). The schema is
    /// inferred here unless given.
    pub fn open(&self, path: &Path) -> Result<Opened, Failure> {
        let regular = self.threads != 1 && std::fs::metadata(path).is_ok_and(|m| m.is_file());
        if regular {
            let rdr = self.builder.build_parallel(path).map_err(arrow_failure)?;
            Ok(Opened::Parallel(Box::new(rdr)))
        } else {
            let rdr = self.builder.from_path(path).map_err(arrow_failure)?;
            Ok(Opened::Sequential(Box::new(rdr)))
        }
    }
}

/// A file opened for batches.
pub enum Opened {
    /// Decoded on every core, batches in file order.
    Parallel(Box<swath_arrow::ParallelArrowReader>),
    /// Decoded on one thread.
    Sequential(Box<swath_arrow::ArrowReader<swath_arrow::StreamInput<swath::Source>>>),
}

impl Opened {
    /// The batches' schema.
    pub fn schema(&self) -> SchemaRef {
        match self {
            Opened::Parallel(r) => r.schema(),
            Opened::Sequential(r) => r.schema(),
        }
    }

    /// As a reader of batches that decodes ahead on its own thread(s).
    pub fn into_batches(self) -> Result<Batches, Failure> {
        Ok(match self {
            Opened::Parallel(r) => Box::new((*r).into_batches().map_err(arrow_failure)?),
            Opened::Sequential(r) => r,
        })
    }

    /// Call `f` with every batch in file order, stopping when `cancel` is
    /// set (the caller pressed Ctrl-C); records put aside go to `taking`.
    /// Returns the rows handed to `f`.
    pub fn for_each(
        self,
        cancel: &Cancel,
        mut taking: Option<&mut Taking>,
        mut f: impl FnMut(RecordBatch) -> Result<(), Failure>,
    ) -> Result<u64, Failure> {
        let mut own: Option<Failure> = None;
        let mut rows = 0u64;
        let stopped = |own: &mut Option<Failure>, e| {
            *own = Some(e);
            swath_arrow::Error::Schema("stopped".into())
        };
        let mut call = |b: RecordBatch| -> swath_arrow::Result<()> {
            rows += b.num_rows() as u64;
            let res = if cancel.is_set() { Err(Failure::Cancelled) } else { f(b) };
            res.map_err(|e| stopped(&mut own, e))
        };
        let mut own_bad: Option<Failure> = None;
        let mut aside = |bad: Vec<swath_csv::BadRecord>| -> swath_arrow::Result<()> {
            match taking.as_deref_mut() {
                Some(t) => t.take(bad).map_err(|e| stopped(&mut own_bad, e)),
                None => Ok(()),
            }
        };
        let res = match self {
            Opened::Parallel(mut r) => r.for_each_batch_with_bad(&mut call, &mut aside),
            Opened::Sequential(mut r) => loop {
                let next = r.next_batch();
                if let Err(e) = aside(r.take_bad_records()) {
                    break Err(e);
                }
                match next {
                    Ok(Some(b)) => {
                        if let Err(e) = call(b) {
                            break Err(e);
                        }
                    }
                    Ok(None) => break Ok(()),
                    Err(e) => break Err(e),
                }
            },
        };
        if let Some(e) = own.or(own_bad) {
            return Err(e);
        }
        res.map_err(arrow_failure)?;
        Ok(rows)
    }
}

/// A swath-arrow error as a [`Failure`]: CSV problems keep their position.
pub fn arrow_failure(e: swath_arrow::Error) -> Failure {
    match e {
        swath_arrow::Error::Csv(e) => Failure::Csv(e),
        swath_arrow::Error::Schema(m) => Failure::Value(format!("schema: {m}")),
        e => Failure::Other(e.to_string()),
    }
}

/// `schema=` as a schema file (what `swath csv schema --json` and `swath
/// json schema --json` write): a `pathlib.Path`, or a str ending in `.json`
/// or naming a file, as the CLI's `--schema` takes it. `None` for any
/// other `schema=`. The old CSV form is read with a `DeprecationWarning`.
pub fn schema_file_arg(s: &Bound<'_, PyAny>) -> PyResult<Option<SchemaFile>> {
    let path: PathBuf = match s.extract::<String>() {
        Ok(text) if schema_file::names_a_file(&text) => text.into(),
        Ok(_) => return Ok(None),
        Err(_) if s.hasattr("__fspath__")? => s.extract()?,
        Err(_) => return Ok(None),
    };
    let text = std::fs::read_to_string(&path).map_err(|e| {
        PyOSError::new_err(format!("cannot read the schema file {}: {e}", path.display()))
    })?;
    let file = schema_file::parse(&text)
        .map_err(|e| PyValueError::new_err(format!("the schema file {}: {e}", path.display())))?;
    if file.old_form {
        let note = format!("{}: {}", path.display(), schema_file::OLD_FORM_NOTE);
        let note = CString::new(note).unwrap_or_else(|_| c"old schema file form".into());
        let py = s.py();
        PyErr::warn(py, &py.get_type::<PyDeprecationWarning>(), &note, 1)?;
    }
    Ok(Some(file))
}

/// `schema=`: see [`ReadOptions::new`].
fn set_schema(b: &mut ArrowReaderBuilder, s: &Bound<'_, PyAny>) -> PyResult<()> {
    if let Some(file) = schema_file_arg(s)? {
        b.column_types(file.column_specs().map_err(|e| PyValueError::new_err(e.to_string()))?);
        return Ok(());
    }
    if let Ok(text) = s.extract::<String>() {
        let specs = swath_arrow::parse_schema_text(&text)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        b.column_types(specs);
        return Ok(());
    }
    if let Ok(d) = s.cast::<PyDict>() {
        let mut specs = Vec::new();
        for (k, v) in d.iter() {
            let name: String = k.extract()?;
            let ty: String = v.extract().map_err(|_| {
                PyTypeError::new_err(format!("schema: the type of {name:?} must be a str"))
            })?;
            let ty = ColumnType::parse(&ty).map_err(|e| PyValueError::new_err(e.to_string()))?;
            specs.push(ColumnSpec { name, ty, nullable: true });
        }
        b.column_types(specs);
        return Ok(());
    }
    if s.hasattr("__arrow_c_schema__")? {
        b.schema(Arc::new(import_schema(s)?));
        return Ok(());
    }
    Err(PyTypeError::new_err(
        "schema must be a pyarrow.Schema (or any object with __arrow_c_schema__), \
         a dict of column name to type name, a str like \"id:int64,name:utf8\", or the \
         path of a schema file (what `swath csv schema --json` prints)",
    ))
}

/// A schema through the Arrow PyCapsule interface.
pub fn import_schema(s: &Bound<'_, PyAny>) -> PyResult<Schema> {
    let capsule = s.call_method0("__arrow_c_schema__")?;
    let capsule = capsule.cast::<PyCapsule>()?;
    let ptr = capsule.pointer_checked(Some(c"arrow_schema"))?;
    // SAFETY: a capsule named "arrow_schema" holds an ArrowSchema (the
    // PyCapsule interface), alive as long as the capsule, which we hold.
    // We only read it; its producer keeps ownership.
    let ffi = unsafe { ptr.cast::<FFI_ArrowSchema>().as_ref() };
    Schema::try_from(ffi).map_err(|e| PyValueError::new_err(format!("schema: {e}")))
}

/// `null=`: a str as the CLI's `--null` has it (one text, texts separated
/// by commas, or `"common"`), or a list of texts taken exactly.
#[derive(Clone, Debug, FromPyObject)]
pub enum NullArg {
    Text(String),
    List(Vec<String>),
}

impl Default for NullArg {
    fn default() -> NullArg {
        NullArg::Text(String::new())
    }
}

impl NullArg {
    /// The texts read as null.
    pub fn nulls(&self) -> swath_arrow::Nulls {
        match self {
            NullArg::Text(t) => swath_arrow::Nulls::parse(t),
            NullArg::List(l) => swath_arrow::Nulls::list(l),
        }
    }
}

/// `decimal_comma=` and `thousands=`, taken out of the keyword arguments:
/// how numbers are written, as the CLI's `--decimal-comma` and
/// `--thousands`.
fn numbers_from_kwargs(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<swath_arrow::Numbers> {
    let Some(kwargs) = kwargs else { return Ok(swath_arrow::Numbers::default()) };
    let take = |key: &str| pop_kwarg(kwargs, key);
    let comma: bool = take("decimal_comma")?.map(|v| v.extract()).transpose()?.unwrap_or(false);
    let thousands = match take("thousands")? {
        None => None,
        Some(v) => {
            let s: String = v.extract()?;
            let mut chars = s.chars();
            match (chars.next(), chars.next()) {
                (Some(c), None) => Some(c),
                _ => {
                    return Err(PyValueError::new_err(format!(
                        "thousands must be one character, not {s:?}"
                    )))
                }
            }
        }
    };
    swath_arrow::Numbers::new(comma, thousands)
        .map_err(|e| PyValueError::new_err(format!("thousands: {e}")))
}

/// Take `key` out of the keyword arguments (the rest are the dialect's);
/// `None` when absent or None.
pub fn pop_kwarg<'py>(
    kwargs: &Bound<'py, PyDict>,
    key: &str,
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let v = kwargs.get_item(key)?;
    if v.is_some() {
        kwargs.del_item(key)?;
    }
    Ok(v.filter(|v| !v.is_none()))
}

/// `date_format=` and `timestamp_format=`, taken out of the keyword
/// arguments: strftime forms, as the CLI's `--date-format` and
/// `--timestamp-format`.
fn date_forms_from_kwargs(
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<(Option<swath_arrow::DateFormat>, Option<swath_arrow::DateFormat>)> {
    let Some(kwargs) = kwargs else { return Ok((None, None)) };
    let form = |key: &str, time: bool| -> PyResult<Option<swath_arrow::DateFormat>> {
        let Some(v) = pop_kwarg(kwargs, key)? else { return Ok(None) };
        let text: String = v.extract()?;
        let f = swath_arrow::DateFormat::parse(&text)
            .map_err(|e| PyValueError::new_err(format!("{key}: {e}")))?;
        if f.has_time() != time {
            let what = if time { "needs a time of day (%H or %I)" } else { "has a time of day" };
            return Err(PyValueError::new_err(format!("{key}: {text:?} {what}")));
        }
        Ok(Some(f))
    };
    Ok((form("date_format", false)?, form("timestamp_format", true)?))
}

//! Rust errors as Python exceptions: CSV problems as `swath.CsvError`
//! with the position the CLI prints, I/O as `OSError` (so a missing file
//! is a `FileNotFoundError`).

use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyType;

pyo3::create_exception!(
    swath,
    CsvError,
    PyValueError,
    "A CSV problem at a known place: `.record`, `.line`, `.byte` (0-based) \
     and `.path` say where, as `swath csv check` prints it; `.column` is the \
     0-based field index when one field is at fault."
);

pyo3::create_exception!(
    swath,
    JsonError,
    PyValueError,
    "A JSON-lines problem at a known place: `.record`, `.line`, `.byte` \
     (0-based) and `.path` say where, as `swath json check` prints it; \
     `.field` is the field's dotted path when a value does not fit its type."
);

/// An error of the Rust side, made a Python exception on the thread that
/// holds the GIL ([`Failure::into_py`]).
#[derive(Debug)]
pub enum Failure {
    /// From swath-csv: a CSV problem, or I/O with a position.
    Csv(swath_csv::Error),
    /// From swath-json: a JSON-lines problem, or reading with a position.
    Json(swath_json::Error),
    /// From the swath core: opening, reading.
    Core(swath::Error),
    /// A bad argument (`ValueError`).
    Value(String),
    /// Anything else (`RuntimeError`).
    Other(String),
    /// The caller stopped waiting (Ctrl-C); nobody sees this one.
    Cancelled,
}

impl From<swath_csv::Error> for Failure {
    fn from(e: swath_csv::Error) -> Failure {
        Failure::Csv(e)
    }
}

impl From<swath::Error> for Failure {
    fn from(e: swath::Error) -> Failure {
        Failure::Core(e)
    }
}

impl Failure {
    /// The Python exception.
    pub fn into_py(self, py: Python<'_>) -> PyErr {
        match self {
            Failure::Csv(e) => csv_error(py, e),
            Failure::Json(e) => json_error(py, e),
            Failure::Core(e) => core_error(e),
            Failure::Value(m) => PyValueError::new_err(m),
            Failure::Other(m) => PyRuntimeError::new_err(m),
            Failure::Cancelled => PyKeyboardInterrupt::new_err("cancelled"),
        }
    }
}

/// The Python exception for a swath-csv error.
pub fn csv_error(py: Python<'_>, err: swath_csv::Error) -> PyErr {
    if let swath_csv::ErrorKind::Io(io) = err.kind() {
        if err.position().is_none() || matches!(io.kind(), swath::ErrorKind::Io(_)) {
            return os_error(io, err.path(), io.kind().to_string());
        }
    }
    let pos = err.position().or(err.record_position());
    let column = match err.kind() {
        swath_csv::ErrorKind::Parse { field, .. }
        | swath_csv::ErrorKind::InvalidUtf8 { field, .. }
        | swath_csv::ErrorKind::MissingField { field } => Some(*field),
        _ => None,
    };
    let path = err.path().map(|p| p.display().to_string());
    let exc = CsvError::new_err(err.to_string());
    let value = exc.value(py);
    // Setting attributes on a fresh exception instance cannot fail short
    // of memory; the message carries the position anyway.
    let _ = value.setattr("record", pos.map(|p| p.record));
    let _ = value.setattr("line", pos.map(|p| p.line));
    let _ = value.setattr("byte", pos.map(|p| p.byte));
    let _ = value.setattr("path", path);
    let _ = value.setattr("column", column);
    exc
}

/// The Python exception for a swath-json error: OSError for I/O, a
/// JsonError with its place for everything about the input.
pub fn json_error(py: Python<'_>, err: swath_json::Error) -> PyErr {
    let (pos, path, field) = match &err {
        swath_json::Error::Read(e) if matches!(e.kind(), swath::ErrorKind::Io(_)) => {
            return core_error(swath_json_read(err));
        }
        swath_json::Error::Read(e) => {
            (e.position(), e.path().map(|p| p.display().to_string()), None)
        }
        swath_json::Error::Line { path, pos, field, .. } => {
            (Some(*pos), path.as_ref().map(|p| p.display().to_string()), field.clone())
        }
        swath_json::Error::Schema(m) => return PyValueError::new_err(format!("schema: {m}")),
        _ => return PyRuntimeError::new_err(err.to_string()),
    };
    let exc = JsonError::new_err(err.to_string());
    let value = exc.value(py);
    let _ = value.setattr("record", pos.map(|p| p.record).filter(|&r| r > 0));
    let _ = value.setattr("line", pos.map(|p| p.line));
    let _ = value.setattr("byte", pos.map(|p| p.byte));
    let _ = value.setattr("path", path);
    let _ = value.setattr("field", field);
    exc
}

fn swath_json_read(err: swath_json::Error) -> swath::Error {
    match err {
        swath_json::Error::Read(e) => e,
        other => swath::Error::from(std::io::Error::other(other.to_string())),
    }
}

/// The Python exception for a swath core error (opening, reading, counting).
pub fn core_error(err: swath::Error) -> PyErr {
    let msg = err.kind().to_string();
    os_error(&err, err.path(), msg)
}

/// `OSError(errno, message, path)` when the OS gave an errno (Python then
/// picks the subclass: `FileNotFoundError`, `PermissionError`, ...),
/// else `OSError(message)`.
fn os_error(err: &swath::Error, path: Option<&std::path::Path>, msg: String) -> PyErr {
    if let swath::ErrorKind::Io(io) = err.kind() {
        if let Some(errno) = io.raw_os_error() {
            let path = path.map(|p| p.display().to_string());
            // The OS's words, without Rust's " (os error N)": Python
            // prints the errno itself.
            let msg = msg.split(" (os error").next().unwrap_or(&msg).to_string();
            return PyOSError::new_err((errno, msg, path));
        }
    }
    match path {
        Some(p) => PyOSError::new_err(format!("{}: {msg}", p.display())),
        None => PyOSError::new_err(msg),
    }
}

/// Register the exception types on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let ty: Bound<'_, PyType> = py.get_type::<CsvError>();
    // Defaults on the class, so that an instance raised without a position
    // still has the attributes.
    for name in ["record", "line", "byte", "path", "column"] {
        ty.setattr(name, py.None())?;
    }
    m.add("CsvError", ty)?;
    let ty: Bound<'_, PyType> = py.get_type::<JsonError>();
    for name in ["record", "line", "byte", "path", "field"] {
        ty.setattr(name, py.None())?;
    }
    m.add("JsonError", ty)?;
    Ok(())
}

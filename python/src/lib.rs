//! swath for Python: exact, typed CSV and JSON lines with flat memory, handed to
//! pyarrow, Polars, pandas and DuckDB through the Arrow PyCapsule
//! interface (`__arrow_c_stream__`), without a copy.
//!
//! The module is `swath._swath`; `python/swath/__init__.py` is the public
//! face. Every function releases the GIL while Rust works and lets Ctrl-C
//! through ([`interrupt`]).

mod ahead;
mod counts;
mod dialect;
mod errors;
mod interrupt;
mod json;
mod options;
mod put_aside;
mod read;
mod stream;

use pyo3::prelude::*;

/// The native part of the `swath` package.
#[pymodule]
fn _swath(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_function(wrap_pyfunction!(counts::count_lines, m)?)?;
    m.add_function(wrap_pyfunction!(counts::csv_count, m)?)?;
    m.add_function(wrap_pyfunction!(counts::csv_check, m)?)?;
    m.add_class::<counts::CheckResult>()?;
    m.add_function(wrap_pyfunction!(read::scan_csv, m)?)?;
    m.add_function(wrap_pyfunction!(read::_read_csv, m)?)?;
    m.add_function(wrap_pyfunction!(read::csv_to_parquet, m)?)?;
    m.add_function(wrap_pyfunction!(json::scan_json, m)?)?;
    m.add_function(wrap_pyfunction!(json::_read_json, m)?)?;
    m.add_class::<stream::CsvReader>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

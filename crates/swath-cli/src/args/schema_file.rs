//! `--schema FILE`, read the same way by the CSV and the JSON commands.

use anyhow::{Context, Result};
use swath_arrow::schema_file::{self, SchemaFile};

/// The schema file `spec` names, read (its old form said on stderr); `None`
/// when `spec` gives types instead (`id:int64,...`).
///
/// # Errors
///
/// The file cannot be read, or is not a schema file (the error names it).
pub fn read_if_file(spec: &str) -> Result<Option<SchemaFile>> {
    if !schema_file::names_a_file(spec) {
        return Ok(None);
    }
    let text = std::fs::read_to_string(spec)
        .with_context(|| format!("cannot read the schema file {spec}"))?;
    let file = schema_file::parse(&text).with_context(|| format!("the schema file {spec}"))?;
    if file.old_form {
        eprintln!("swath: {spec}: {}", schema_file::OLD_FORM_NOTE);
    }
    Ok(Some(file))
}

//! The line-file commands that start anywhere in a file: `swath index`,
//! `swath split`, `swath tail`, `swath sample` (the CSV ones are under
//! `swath csv`).

pub mod index;
pub mod sample;
pub mod split;
pub mod tail;

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

/// The input must be a regular file: these commands read it from
/// several places.
pub fn regular_file(path: &Path) -> Result<std::fs::File> {
    if path == Path::new("-") {
        bail!("this command needs a regular file, not standard input");
    }
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?;
    let meta = file.metadata().with_context(|| format!("cannot read {}", path.display()))?;
    if !meta.is_file() {
        bail!("{}: this command needs a regular file", path.display());
    }
    Ok(file)
}

/// The sidecar's path: the one given, else `FILE.swathidx`.
pub fn sidecar_path(file: &Path, given: Option<&PathBuf>) -> PathBuf {
    given.cloned().unwrap_or_else(|| swath::index::default_index_path(file))
}

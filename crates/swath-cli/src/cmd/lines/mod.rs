//! The line-file commands that start anywhere in a file: `swath index`,
//! `swath split`, `swath tail`, `swath sample` (the CSV ones are under
//! `swath csv`).

pub mod index;
pub mod sample;
pub mod split;
pub mod tail;

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use swath::decompress::{Compression, MAGIC_LEN};

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

/// What a line command reads: a plain regular file, read by ranges from
/// anywhere, or a compressed one, which has no byte ranges to start at and
/// is read as its decoded stream.
pub enum LineInput {
    /// Plain bytes.
    Plain(std::fs::File),
    /// Compressed: [`swath::Source::open`] decodes it.
    Compressed(Compression),
}

/// Open `path` for a line command: a regular file, its compression
/// recognised by magic bytes (as every command does: compressed bytes are
/// never lines).
///
/// # Errors
///
/// Not a regular file; a format swath recognises but does not decode.
pub fn open_input(path: &Path) -> Result<LineInput> {
    let file = regular_file(path)?;
    let mut head = [0u8; MAGIC_LEN];
    let n = swath::range::read_full_at(&file, &mut head, 0)
        .with_context(|| format!("cannot read {}", path.display()))?;
    match Compression::detect(&head[..n]) {
        Compression::None => Ok(LineInput::Plain(file)),
        c if c.is_decoded() => Ok(LineInput::Compressed(c)),
        c => Err(c.unsupported()).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// The error of a command that works on byte ranges of a plain file and
/// was given a compressed one: it names the format and says what to do.
pub fn refuse_compressed(path: &Path, format: Compression, what: &str) -> anyhow::Error {
    let tool = match format {
        Compression::Zstd => "zstd -dc",
        Compression::Bzip2 => "bzip2 -dc",
        Compression::Xz => "xz -dc",
        Compression::Lz4 => "lz4 -dc",
        Compression::Zip => "unzip -p",
        _ => "gzip -dc",
    };
    anyhow!(
        "{}: {} input: {what}; decompress it first (`{tool} {} > PLAIN`)",
        path.display(),
        format.name(),
        path.display()
    )
}

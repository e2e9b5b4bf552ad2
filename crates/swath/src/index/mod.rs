//! Checkpoint indexes: a small sidecar file (`FILE.swathidx` by default)
//! that lets a command start anywhere in a huge file at a known record.
//!
//! An [`Index`] holds a checkpoint every few MiB (the byte offset of a
//! record start, its 1-based record number and line), the number of
//! records in the file, what identifies the file it was built from
//! ([`FileIdentity`]: length, modification time, a hash of its first and
//! last 64 KiB) and the dialect it was built with (an opaque string the
//! format's user defines; empty for line files). The format is text and is
//! documented in `docs/index-format.md`.
//!
//! An index is only ever used after [`Index::stale_reason`] says it still
//! fits the file: a stale index is ignored, never trusted.
//!
//! - [`identity`]: what identifies a file.
//! - [`format`](mod@format): writing and reading the sidecar.
//! - [`lines`]: the index of a line file, made in one parallel pass.

pub(crate) mod base64;
pub mod format;
pub mod identity;
pub mod lines;

use std::path::{Path, PathBuf};

pub use identity::FileIdentity;

/// What kind of file an index describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexKind {
    /// A line file: every record is a line.
    Lines,
    /// A CSV file: records may span lines (quoted newlines).
    Csv,
    /// JSON: JSON lines, or the records of a document (a top-level
    /// array, a wrapper's array, objects one after another).
    Json,
    /// A gzip file's checkpoints alone, written while it was read
    /// ([`crate::decompress::index_on_read`]): no records counted.
    Gzip,
}

impl IndexKind {
    /// The kind's name in the sidecar.
    pub fn name(self) -> &'static str {
        match self {
            IndexKind::Lines => "lines",
            IndexKind::Csv => "csv",
            IndexKind::Json => "json",
            IndexKind::Gzip => "gzip",
        }
    }
}

/// A record start: where it is and what its numbers are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checkpoint {
    /// The byte offset of the record's first byte (0 for the first
    /// checkpoint, the top of the file, whatever comes before the first
    /// record).
    pub byte: u64,
    /// The record's 1-based number (a CSV header row is record 1).
    pub record: u64,
    /// The 1-based line it starts on.
    pub line: u64,
}

/// A checkpoint index of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Index {
    /// Lines, CSV or JSON.
    pub kind: IndexKind,
    /// The file it was built from.
    pub identity: FileIdentity,
    /// The settings that decide where records start (CSV), compared as a
    /// string; empty for line files.
    pub dialect: String,
    /// Records in the file (a CSV header row included; for line files,
    /// lines, the last one counted even without a terminator).
    pub records: u64,
    /// Checkpoints in file order, the first at byte 0.
    pub checkpoints: Vec<Checkpoint>,
    /// For a gzip file: where decoding can start in it (its checkpoints
    /// above are then offsets in its decoded bytes).
    pub gzip: Option<crate::decompress::gzip_index::GzipIndex>,
}

/// Write `index` to `path` under a temporary name beside it, renamed into
/// place when complete (a reader never sees half a sidecar); the
/// temporary file is removed on an error.
///
/// # Errors
///
/// An I/O error creating, writing or renaming the file.
pub fn write_beside(index: &Index, path: &Path) -> std::io::Result<()> {
    use std::io::Write;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".{}.swath-tmp", std::process::id()));
    let tmp = dir.join(name);
    let written = (|| {
        let file = std::fs::File::options().write(true).create_new(true).open(&tmp)?;
        let mut out = std::io::BufWriter::new(file);
        format::write_index(index, &mut out)?;
        out.flush()?;
        drop(out);
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// The default sidecar of `file`: `FILE.swathidx` beside it.
pub fn default_index_path(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_os_string();
    name.push(".swathidx");
    PathBuf::from(name)
}

impl Index {
    /// Why this index does not describe the file it is checked against,
    /// or `None` when it does: another kind, another dialect, another
    /// length, modification time or head and tail.
    pub fn stale_reason(
        &self,
        kind: IndexKind,
        dialect: &str,
        now: &FileIdentity,
    ) -> Option<String> {
        if self.kind != kind {
            return Some(format!(
                "it indexes a {} file, not a {} file",
                self.kind.name(),
                kind.name()
            ));
        }
        if self.dialect != dialect {
            return Some(format!(
                "it was built with other settings ({}; now {})",
                self.dialect, dialect
            ));
        }
        self.identity.differs(now)
    }

    /// The last checkpoint at or before record `record`.
    pub fn checkpoint_before_record(&self, record: u64) -> Checkpoint {
        let i = self.checkpoints.partition_point(|c| c.record <= record);
        self.checkpoints[i.saturating_sub(1)]
    }

    /// The bytes of the file after the last checkpoint: how much a
    /// command may have to read from a checkpoint at most is the largest
    /// gap between two checkpoints.
    pub fn largest_gap(&self) -> u64 {
        // A gzip file's checkpoints are offsets in its decoded bytes.
        let len = self.gzip.as_ref().map_or(self.identity.len, |g| g.decoded_len);
        let ends = self.checkpoints.iter().skip(1).map(|c| c.byte).chain([len]);
        self.checkpoints.iter().zip(ends).map(|(c, e)| e.saturating_sub(c.byte)).max().unwrap_or(0)
    }
}

/// What [`load_index`] found.
#[derive(Debug)]
pub enum Loaded {
    /// An index that fits the file.
    Fresh(Index),
    /// An index that does not fit (or does not read): why.
    Stale(String),
    /// No index there.
    Missing,
}

/// Read the sidecar at `index_path` and check it against `file` (opened
/// now), the kind and the dialect.
///
/// # Errors
///
/// An I/O error reading the file's identity, or the sidecar (other than
/// its absence).
pub fn load_index(
    index_path: &Path,
    kind: IndexKind,
    dialect: &str,
    file: &std::fs::File,
) -> std::io::Result<Loaded> {
    let sidecar = match std::fs::File::open(index_path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Loaded::Missing),
        Err(e) => return Err(e),
    };
    let index = match format::read_index(std::io::BufReader::new(sidecar)) {
        Ok(i) => i,
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
            return Ok(Loaded::Stale(e.to_string()))
        }
        Err(e) => return Err(e),
    };
    let now = FileIdentity::of(file)?;
    Ok(match index.stale_reason(kind, dialect, &now) {
        None => Loaded::Fresh(index),
        Some(why) => Loaded::Stale(why),
    })
}

/// The gzip checkpoints of the sidecar beside `path` (`FILE.swathidx`),
/// whatever kind of index it is: `Ok(None)` when there is none or it has
/// no gzip section, `Err(why)` when it does not read or no longer fits
/// `file`. The checkpoints themselves are checked as they are used
/// ([`crate::decompress::gzip_index`]).
///
/// # Errors
///
/// Why the sidecar is not used, in words.
pub fn load_gzip_index(
    path: &Path,
    file: &std::fs::File,
) -> std::result::Result<Option<crate::decompress::gzip_index::GzipIndex>, String> {
    let sidecar_path = default_index_path(path);
    let sidecar = match std::fs::File::open(&sidecar_path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let index = format::read_index(std::io::BufReader::new(sidecar)).map_err(|e| e.to_string())?;
    let Some(gzip) = index.gzip else { return Ok(None) };
    let now = FileIdentity::of(file).map_err(|e| e.to_string())?;
    match index.identity.differs(&now) {
        None => Ok(Some(gzip)),
        Some(why) => Err(why),
    }
}

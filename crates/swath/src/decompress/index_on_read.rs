//! The gzip index written during a full read. A large gzip file whose
//! structure gives one span is decoded on one thread the first time; that
//! thread now decodes through the [`Indexer`], which keeps a checkpoint
//! every few MiB at a cost of about 4% (`docs/compressed.md`), and when
//! the last byte has been read and the last member's CRC-32 checked, the
//! checkpoints are written beside the file (`FILE.gz.swathidx`, kind
//! `gzip`). Every later command decodes the file on every core from them.
//!
//! Written only when nothing is there to lose: no sidecar beside the
//! file, or a stale one (a sidecar that fits is used, never replaced).
//! Not written for a read that stops early or fails, for a file that
//! changed while it was read, or where the directory refuses a new file
//! (the read itself goes on). `SWATH_INDEX_ON_READ=0` turns it off; a
//! number sets the smallest compressed size indexed (64 MiB by default:
//! below it a file decodes in a fraction of a second).

use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::gzip_index::{spacing_for, Indexer};
use crate::index::{Checkpoint, FileIdentity, Index, IndexKind};
use crate::range::OwnedRange;

/// Below this compressed size a file is not indexed while read.
pub const INDEX_ON_READ_MIN: u64 = 64 << 20;

/// The smallest compressed size indexed while read; `None`: never
/// (`SWATH_INDEX_ON_READ=0`).
pub fn index_on_read_min() -> Option<u64> {
    match std::env::var("SWATH_INDEX_ON_READ").ok().map(|v| v.trim().to_ascii_lowercase()) {
        None => Some(INDEX_ON_READ_MIN),
        Some(v) if v == "0" || v == "off" || v == "no" => None,
        Some(v) => Some(v.parse().unwrap_or(INDEX_ON_READ_MIN).max(1)),
    }
}

/// A gzip file's decoded bytes, indexed on the way; the sidecar is
/// written when the last byte has been read.
pub struct IndexOnRead {
    indexer: Option<Indexer<OwnedRange>>,
    path: PathBuf,
    identity: FileIdentity,
}

impl IndexOnRead {
    /// Decode `raw` (the whole file at `path`, whose identity at its
    /// opening is `identity`).
    pub fn new(raw: OwnedRange, path: &Path, identity: FileIdentity) -> IndexOnRead {
        let indexer = Indexer::new(raw, spacing_for(identity.len));
        IndexOnRead { indexer: Some(indexer), path: path.to_path_buf(), identity }
    }

    /// Write the sidecar of a file read to its end, if it is still the
    /// file that was read. Errors are not the read's: the file was read
    /// right, only its index is not kept.
    fn write_sidecar(&self, indexer: Indexer<OwnedRange>) {
        let Some(gzip) = indexer.finish() else { return };
        if gzip.checkpoints.is_empty() {
            return;
        }
        let still = std::fs::File::open(&self.path).and_then(|f| FileIdentity::of(&f));
        if !still.is_ok_and(|now| now.differs(&self.identity).is_none()) {
            return;
        }
        let index = Index {
            kind: IndexKind::Gzip,
            identity: self.identity,
            dialect: String::new(),
            records: 0,
            checkpoints: vec![Checkpoint { byte: 0, record: 1, line: 1 }],
            gzip: Some(gzip),
        };
        let _ = crate::index::write_beside(&index, &crate::index::default_index_path(&self.path));
    }
}

impl Read for IndexOnRead {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(indexer) = self.indexer.as_mut() else { return Ok(0) };
        let n = indexer.read(buf)?;
        if n == 0 && !buf.is_empty() {
            if let Some(indexer) = self.indexer.take() {
                self.write_sidecar(indexer);
            }
        }
        Ok(n)
    }
}

//! A temporary file that holds given bytes and is removed on drop, named
//! so that processes and threads never collide; for checks that need a path
//! (split plans, the parallel readers) and run many times a second (the
//! fuzz targets), where a temporary directory per input would cost more.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// A file in the system's temporary directory, removed on drop.
#[derive(Debug)]
pub struct TempFile(PathBuf);

impl TempFile {
    /// Write `bytes` to a new file whose name starts with `swath-{tag}-`.
    ///
    /// # Panics
    ///
    /// When the file cannot be written.
    pub fn new(tag: &str, bytes: &[u8]) -> TempFile {
        static FILES: AtomicU64 = AtomicU64::new(0);
        let path = std::env::temp_dir().join(format!(
            "swath-{tag}-{}-{}.csv",
            std::process::id(),
            FILES.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        TempFile(path)
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

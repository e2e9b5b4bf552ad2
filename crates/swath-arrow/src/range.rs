//! An owned reader of a file from one byte to its end, by `pread`: what a
//! byte-range reader runs over (owned, so it can move to another thread).

use std::io::{self, Read};
use std::sync::Arc;

use swath::ReadAt;

/// Reads `file` from `start` up to `end` (the file's length, or less).
#[derive(Clone)]
pub struct FileRange {
    file: Arc<dyn ReadAt>,
    pos: u64,
    end: u64,
}

impl FileRange {
    /// Read `file` from `start` to `end`.
    pub fn new(file: Arc<dyn ReadAt>, start: u64, end: u64) -> FileRange {
        FileRange { file, pos: start, end: end.max(start) }
    }
}

impl std::fmt::Debug for FileRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileRange").field("pos", &self.pos).field("end", &self.end).finish()
    }
}

impl Read for FileRange {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = buf.len().min(usize::try_from(self.end - self.pos).unwrap_or(usize::MAX));
        if want == 0 {
            return Ok(0);
        }
        let n = self.file.read_at(&mut buf[..want], self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

//! An owned reader of a file from one byte to its end, by `pread`: what a
//! byte-range reader runs over (owned, so it can move to another thread).

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::FileExt;
use std::sync::Arc;

/// Reads `file` from `start` up to `end` (the file's length, or less).
#[derive(Debug, Clone)]
pub struct FileRange {
    file: Arc<File>,
    pos: u64,
    end: u64,
}

impl FileRange {
    /// Read `file` from `start` to `end`.
    pub fn new(file: Arc<File>, start: u64, end: u64) -> FileRange {
        FileRange { file, pos: start, end: end.max(start) }
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

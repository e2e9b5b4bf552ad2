//! A reader or writer that counts the calls it forwards: each one is a
//! `read` or `write` system call when the inner value is a `File`.

use std::fs::File;
use std::io::{self, Read, Write};

use super::behind::Behind;

/// Counts `read`/`write` calls passed to the inner value.
#[derive(Debug)]
pub struct Counted<T> {
    inner: T,
    calls: u64,
    /// Larger than memory: what has been read is dropped from the cache.
    behind: Option<Behind>,
}

impl<T> Counted<T> {
    /// Wrap `inner`.
    pub fn new(inner: T) -> Counted<T> {
        Counted { inner, calls: 0, behind: None }
    }
}

impl Counted<File> {
    /// Wrap a file read from its start; with `behind`, what it has read is
    /// evicted from the page cache as it goes.
    pub fn evicting(file: File, behind: bool) -> Counted<File> {
        let behind = Behind::new(&file, 0, behind);
        Counted { inner: file, calls: 0, behind }
    }
}

impl<T> Counted<T> {
    /// Calls forwarded so far.
    pub fn calls(&self) -> u64 {
        self.calls
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.calls += 1;
        let n = self.inner.read(buf)?;
        if let Some(b) = &mut self.behind {
            b.advance(n);
        }
        Ok(n)
    }
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.calls += 1;
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

//! A reader or writer that counts the calls it forwards: each one is a
//! `read` or `write` system call when the inner value is a `File`.

use std::io::{self, Read, Write};

/// Counts `read`/`write` calls passed to the inner value.
#[derive(Debug)]
pub struct Counted<T> {
    inner: T,
    calls: u64,
}

impl<T> Counted<T> {
    /// Wrap `inner`.
    pub fn new(inner: T) -> Counted<T> {
        Counted { inner, calls: 0 }
    }

    /// Calls forwarded so far.
    pub fn calls(&self) -> u64 {
        self.calls
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.calls += 1;
        self.inner.read(buf)
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

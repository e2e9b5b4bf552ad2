//! Reading bytes at an offset without a shared cursor: the one trait every
//! range, split and framing reads through, for a local file, bytes in
//! memory and (through swath-remote) a remote object.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

/// Anything that reads bytes at an offset without a shared cursor: a local
/// file (`pread`), or a remote object read by ranged GETs (swath-remote).
/// Every range, split and framing below reads through this, so a remote
/// object gets the same exact splits as a file.
///
/// Like `pread`, a read may return fewer bytes than asked for before the
/// end; `Ok(0)` means `offset` is at or past the end.
pub trait ReadAt: Send + Sync {
    /// Read into `buf` from `offset`; returns the bytes read.
    ///
    /// # Errors
    ///
    /// The source's I/O error (for a remote object, one that names its URL
    /// and the byte offset).
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize>;
}

impl ReadAt for File {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let n = FileExt::read_at(self, buf, offset)?;
        crate::memory::read_done(self, offset, n);
        Ok(n)
    }
}

/// Bytes in memory: what a stream's last bytes, kept, are read as by the
/// code that reads files by ranges (`swath tail` of a compressed file).
impl ReadAt for [u8] {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX).min(self.len());
        let n = buf.len().min(self.len() - start);
        buf[..n].copy_from_slice(&self[start..start + n]);
        Ok(n)
    }
}

/// Owned bytes in memory, shareable as an `Arc<dyn ReadAt>`.
impl ReadAt for Vec<u8> {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        self.as_slice().read_at(buf, offset)
    }
}

impl<T: ReadAt + ?Sized> ReadAt for Arc<T> {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        (**self).read_at(buf, offset)
    }
}

impl<T: ReadAt + ?Sized> ReadAt for &T {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        (**self).read_at(buf, offset)
    }
}

/// Read from `offset` until `buf` is full or the file ends, retrying short
/// reads and `Interrupted` (a `read_at` may return fewer bytes than asked
/// long before the end). Returns the bytes read.
///
/// # Errors
///
/// The first I/O error other than `Interrupted`.
pub fn read_full_at(file: &dyn ReadAt, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match file.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

//! Byte ranges of a file, and how record boundaries are found in them.
//!
//! A file of known length is cut into nominal ranges of a fixed size. A
//! record belongs to the range that holds its first byte, so each worker
//! snaps its range's start forward to the first record start at or after
//! it: for lines, the byte after the first `\n` found from `start - 1`.
//! Two neighbours snap the shared boundary the same way, so every record is
//! processed exactly once.

use std::io::{self, Read};
use std::ops::Range;
use std::sync::Arc;

use crate::error::{Error, ErrorKind, Position, Result};
pub use crate::open::open_ranged;
pub use crate::read_at::{read_full_at, ReadAt};

/// The nominal ranges of `chunk` bytes (the last one shorter) covering `0..len`.
///
/// Nominal: their edges fall anywhere, mid-record included. The callers
/// move each edge to a record start, by [`snap`] with a [`Framing`] for
/// lines, or by the CSV quote-parity chain in swath-csv's split plans.
///
/// ```
/// let ranges: Vec<_> = swath::range::split(10, 4).collect();
/// assert_eq!(ranges, [0..4, 4..8, 8..10]);
/// ```
pub fn split(len: u64, chunk: u64) -> impl ExactSizeIterator<Item = Range<u64>> {
    let chunk = chunk.max(1);
    (0..range_count(len, chunk)).map(move |i| nth_range(len, chunk, i))
}

/// How many nominal ranges of `chunk` bytes cover `len` bytes.
pub fn range_count(len: u64, chunk: u64) -> usize {
    len.div_ceil(chunk.max(1)) as usize
}

/// The `i`-th nominal range of `chunk` bytes in `0..len`.
pub fn nth_range(len: u64, chunk: u64, i: usize) -> Range<u64> {
    let chunk = chunk.max(1);
    let start = (i as u64).saturating_mul(chunk).min(len);
    start..start.saturating_add(chunk).min(len)
}

/// Reads a file from an offset with `pread`, so many threads can share one
/// `File` without a shared cursor. Stops at `end`.
pub struct RangeReader<'f> {
    file: &'f dyn ReadAt,
    pos: u64,
    end: u64,
}

impl<'f> RangeReader<'f> {
    /// Read `range` of `file`.
    pub fn new(file: &'f dyn ReadAt, range: Range<u64>) -> RangeReader<'f> {
        RangeReader { file, pos: range.start, end: range.end.max(range.start) }
    }

    /// The offset of the next byte to read.
    pub fn position(&self) -> u64 {
        self.pos
    }
}

impl std::fmt::Debug for RangeReader<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RangeReader").field("pos", &self.pos).field("end", &self.end).finish()
    }
}

impl Read for RangeReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_bounded(self.file, &mut self.pos, self.end, buf)
    }
}

/// One read of `src` at `*pos` into `buf`, stopping at `end`; moves `*pos`
/// on by the bytes read. What every cursor over a [`ReadAt`] does.
///
/// # Errors
///
/// The source's read error.
pub fn read_bounded(
    src: &dyn ReadAt,
    pos: &mut u64,
    end: u64,
    buf: &mut [u8],
) -> io::Result<usize> {
    let want = buf.len().min(end.saturating_sub(*pos).min(usize::MAX as u64) as usize);
    if want == 0 {
        return Ok(0);
    }
    let n = src.read_at(&mut buf[..want], *pos)?;
    *pos += n as u64;
    Ok(n)
}

/// An owned reader of a ranged source from one byte to an end: what a
/// reader on another thread runs over (a split, a byte range).
#[derive(Clone)]
pub struct OwnedRange {
    src: Arc<dyn ReadAt>,
    pos: u64,
    end: u64,
}

impl OwnedRange {
    /// Read `src` from `start` up to `end`.
    pub fn new(src: Arc<dyn ReadAt>, start: u64, end: u64) -> OwnedRange {
        OwnedRange { src, pos: start, end: end.max(start) }
    }

    /// The offset of the next byte to read.
    pub fn position(&self) -> u64 {
        self.pos
    }
}

impl std::fmt::Debug for OwnedRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OwnedRange").field("pos", &self.pos).field("end", &self.end).finish()
    }
}

impl Read for OwnedRange {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_bounded(&*self.src, &mut self.pos, self.end, buf)
    }
}

/// Read exactly `range` of `file` into `buf`, or fail with
/// [`ErrorKind::Truncated`] when the file ends first (it shrank after open).
///
/// # Errors
///
/// I/O errors, and `Truncated` with `expected = range.end`.
pub fn read_range_exact(file: &dyn ReadAt, range: Range<u64>, buf: &mut [u8]) -> Result<()> {
    let mut done = 0usize;
    let want = (range.end - range.start) as usize;
    while done < want {
        match file.read_at(&mut buf[done..want], range.start + done as u64) {
            Ok(0) => {
                let got = range.start + done as u64;
                let err = Error::new(ErrorKind::Truncated { expected: range.end, got });
                return Err(err.at(Position::new(got, 0, 0)));
            }
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => {
                return Err(Error::from(e).at(Position::new(range.start + done as u64, 0, 0)))
            }
        }
    }
    Ok(())
}

/// How record boundaries are found, so the parallel driver can snap ranges
/// to them. The CSV layer has its own quote-aware framing.
pub trait Framing: Sync {
    /// The first record start at or after `pos` in `file` of length `len`.
    /// Must return `0` for `pos == 0` and `len` when no record starts in
    /// `pos..len`.
    ///
    /// # Errors
    ///
    /// I/O errors reading the file.
    fn record_start(&self, file: &dyn ReadAt, pos: u64, len: u64) -> Result<u64>;
}

/// Lines: a record starts at 0 and after every `\n`.
#[derive(Clone, Copy, Debug, Default)]
pub struct LineFraming;

impl Framing for LineFraming {
    fn record_start(&self, file: &dyn ReadAt, pos: u64, len: u64) -> Result<u64> {
        if pos == 0 || pos >= len {
            return Ok(pos.min(len));
        }
        // The line that holds byte `pos - 1` ends at the first `\n` from there.
        let mut block = [0u8; 16 * 1024];
        let mut at = pos - 1;
        while at < len {
            let n = ((len - at) as usize).min(block.len());
            read_range_exact(file, at..at + n as u64, &mut block[..n])?;
            if let Some(i) = memchr::memchr(b'\n', &block[..n]) {
                return Ok(at + i as u64 + 1);
            }
            at += n as u64;
        }
        Ok(len)
    }
}

/// Snap the nominal range `nominal` to whole records: from the first record
/// start at or after its start to the first at or after its end.
///
/// # Errors
///
/// As [`Framing::record_start`].
pub fn snap<F: Framing + ?Sized>(
    framing: &F,
    file: &dyn ReadAt,
    nominal: Range<u64>,
    len: u64,
) -> Result<Range<u64>> {
    let start = framing.record_start(file, nominal.start, len)?;
    let end = framing.record_start(file, nominal.end, len)?;
    Ok(start..end.max(start))
}

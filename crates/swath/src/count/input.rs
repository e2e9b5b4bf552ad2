//! Counting the lines of a whole input: a regular file in parallel over
//! byte ranges (with `pread`, or a memory map on request), a stream
//! sequentially.
//!
//! Counting needs no record framing: every `\n` lies in exactly one nominal
//! range, so the per-range counts simply add up, and the last byte of the
//! file decides whether an unterminated final line adds one.

use crate::buffer::{Buffer, DEFAULT_CAPACITY};
use crate::count::LineCount;
use crate::error::{Error, ErrorKind, Position, Result};
use crate::fills::FillReader;
use crate::parallel::Parallel;
use crate::range::RangeReader;
use crate::source::Source;

/// How to count an input.
#[derive(Clone, Copy, Debug)]
pub struct CountOptions {
    /// Threads and range size for regular files.
    pub parallel: Parallel,
    /// Read a regular file through a memory map instead of `pread`. A file
    /// that shrinks while mapped is a [`ErrorKind::Truncated`] error, not a
    /// crash (see [`crate::mmap`]); the file must not be written in place.
    pub mmap: bool,
    /// Read buffer size per thread.
    pub buffer_size: usize,
}

impl Default for CountOptions {
    fn default() -> Self {
        CountOptions { parallel: Parallel::new(), mmap: false, buffer_size: DEFAULT_CAPACITY }
    }
}

impl LineCount {
    /// Combine the counts of two consecutive pieces (`self` first).
    pub fn then(self, next: LineCount) -> LineCount {
        LineCount {
            newlines: self.newlines + next.newlines,
            bytes: self.bytes + next.bytes,
            last: next.last.or(self.last),
        }
    }
}

/// Count the lines of `src`.
///
/// # Errors
///
/// I/O errors with the path and byte offset, and [`ErrorKind::Truncated`]
/// when a file shrank while being counted.
pub fn count_source(src: &mut Source, opts: &CountOptions) -> Result<LineCount> {
    let with_path = |e: Error| match src.path() {
        Some(p) => e.with_path(p),
        None => e,
    };
    let (Some(ranged), Some(len)) = (src.ranged_source(), src.len()) else {
        return count_stream(src, opts.buffer_size);
    };
    if let (true, Some(file)) = (opts.mmap, src.file()) {
        // SAFETY: documented on `CountOptions::mmap`: the caller opted in to
        // a map of a file nobody writes in place; a shrinking file is a
        // `Truncated` error through `SafeMap::check`, not a SIGBUS crash.
        let map = unsafe { crate::mmap::SafeMap::new(file, len) }.map_err(with_path)?;
        let parts = opts.parallel.try_map::<_, Error, _>(len, |_, r| {
            let mut c = LineCount::default();
            c.add(&map[r.start as usize..r.end as usize]);
            Ok(c)
        })?;
        map.check(file).map_err(with_path)?;
        return Ok(parts.into_iter().fold(LineCount::default(), LineCount::then));
    }
    let parts = opts.parallel.try_map_with(
        len,
        || Buffer::with_capacity(opts.buffer_size),
        |buf, _, range| count_range(ranged, range, buf),
    );
    let parts = parts.map_err(with_path)?;
    Ok(parts.into_iter().fold(LineCount::default(), LineCount::then))
}

/// Count one byte range of a file with `pread` into `buf`.
fn count_range(
    file: &dyn crate::range::ReadAt,
    range: std::ops::Range<u64>,
    buf: &mut Buffer,
) -> Result<LineCount> {
    let mut rdr = RangeReader::new(file, range.clone());
    let mut c = LineCount::default();
    buf.clear();
    loop {
        let at = rdr.position();
        let n = buf.fill(&mut rdr).map_err(|e| Error::from(e).at(Position::new(at, 0, 0)))?;
        if n == 0 {
            break;
        }
        c.add(buf.data());
        buf.clear();
    }
    if rdr.position() < range.end {
        let got = rdr.position();
        let err = Error::new(ErrorKind::Truncated { expected: range.end, got });
        return Err(err.at(Position::new(got, 0, 0)));
    }
    Ok(c)
}

fn count_stream(src: &mut Source, buffer_size: usize) -> Result<LineCount> {
    let path = src.path().map(|p| p.to_path_buf());
    let mut rdr = FillReader::new(src, buffer_size);
    let mut c = LineCount::default();
    while let Some(fill) = rdr.next_fill().map_err(|e| match &path {
        Some(p) => e.with_path(p),
        None => e,
    })? {
        c.add(fill);
    }
    Ok(c)
}

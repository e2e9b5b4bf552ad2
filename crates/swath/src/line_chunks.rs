//! Whole lines in chunks from any [`Source`]: the driver of every format
//! whose records are lines (JSON lines; any line-framed format).
//!
//! A regular file (or a remote object) is cut into byte ranges read on
//! many threads, each owning the lines that start in it (when a record
//! holds no raw newline, every line start is a record start, so any cut is
//! exact); a stream (a pipe, a decoded gzip or zstd) is read front to back
//! through the page-aligned [`Buffer`] in chunks cut after their last
//! newline. Either way the work sees whole lines ([`Lines`]) and the
//! consumer gets its results in file order with the lines before them
//! counted, so every position is exact.
//!
//! Memory: a chunk is at most the chunk size plus one line, and a line is
//! at most the limit; a longer line is an error where it starts, found
//! without reading more than the limit past it. A UTF-8 BOM at the start
//! of the input is skipped.

use std::ops::Range;
use std::sync::Mutex;

use crate::error::{Error, ErrorKind, Position, Result};
use crate::range::{nth_range, range_count, read_full_at, read_range_exact, ReadAt};
use crate::{Buffer, Source, UTF8_BOM};

/// How to cut the input.
#[derive(Clone, Copy, Debug)]
pub struct Cutting {
    /// Threads for a ranged input (files, remote objects); streams use one.
    pub threads: usize,
    /// Bytes per chunk.
    pub chunk: u64,
    /// The longest line allowed, newline included.
    pub max_line: usize,
}

/// The lines of one chunk, for the work: [`Lines::next_line`] until
/// `None`.
#[derive(Debug)]
pub struct Lines<'a> {
    bytes: &'a [u8],
    /// Absolute offset of `bytes[0]`.
    offset: u64,
    at: usize,
    /// Lines handed out.
    count: u64,
    max_line: usize,
    /// A line over the limit starts here (relative): the lines stop at it.
    too_long: Option<usize>,
    /// Records a format framed itself (a JSON document's elements), handed
    /// out in place of the lines, and the chunk's lines.
    framed: Option<(&'a [Span], u64)>,
}

/// A record a format framed itself in a chunk's bytes: where it starts and
/// ends (relative), and the lines before its start in the chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// Newlines in the chunk before `start`.
    pub line: u64,
}

/// One line: its bytes (without the newline), where it starts, and its
/// index in the chunk (0-based, blank lines counted; of a framed record,
/// the lines before its start in the chunk).
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    /// The bytes, without `\n` (a `\r` before it is the format's to judge).
    pub bytes: &'a [u8],
    /// The bytes with the `\n` that ends the line, when one does (a framed
    /// record: its bytes): what a quarantine keeps of a broken record.
    pub raw: &'a [u8],
    /// Absolute byte offset of the line's first byte.
    pub offset: u64,
    /// Index of the line in its chunk.
    pub index: u64,
}

impl<'a> Lines<'a> {
    fn new(bytes: &'a [u8], offset: u64, max_line: usize) -> Lines<'a> {
        let at = if offset == 0 && bytes.starts_with(UTF8_BOM) { UTF8_BOM.len() } else { 0 };
        Lines { bytes, offset, at, count: 0, max_line, too_long: None, framed: None }
    }

    /// The records `spans` of `bytes` (whose first byte is at `offset`),
    /// handed out as lines are: for a format whose records are not lines
    /// (JSON documents). Each record's `index` is the newlines before it in
    /// `bytes`, to add to the caller's lines before the chunk; `lines` is
    /// the chunk's count of lines, for [`Lines::handed_out`].
    pub fn framed(bytes: &'a [u8], offset: u64, spans: &'a [Span], lines: u64) -> Lines<'a> {
        Lines {
            bytes,
            offset,
            at: 0,
            count: 0,
            max_line: usize::MAX,
            too_long: None,
            framed: Some((spans, lines)),
        }
    }

    /// Lines handed out so far (of framed records: the chunk's lines).
    pub fn handed_out(&self) -> u64 {
        match self.framed {
            Some((_, lines)) => lines,
            None => self.count,
        }
    }

    /// The next line, or `None` at the chunk's end (or at a line over the
    /// limit, which the driver reports after the work's own result).
    #[inline]
    pub fn next_line(&mut self) -> Option<Line<'a>> {
        if let Some((spans, _)) = self.framed {
            let s = spans.get(self.count as usize)?;
            self.count += 1;
            return Some(Line {
                bytes: &self.bytes[s.start..s.end],
                raw: &self.bytes[s.start..s.end],
                offset: self.offset + s.start as u64,
                index: s.line,
            });
        }
        if self.at >= self.bytes.len() || self.too_long.is_some() {
            return None;
        }
        let rest = &self.bytes[self.at..];
        let (len, next) = match memchr::memchr(b'\n', rest) {
            Some(i) => (i, i + 1),
            None => (rest.len(), rest.len()),
        };
        if next > self.max_line {
            self.too_long = Some(self.at);
            return None;
        }
        let line = Line {
            bytes: &rest[..len],
            raw: &rest[..next],
            offset: self.offset + self.at as u64,
            index: self.count,
        };
        self.at += next;
        self.count += 1;
        Some(line)
    }
}

/// Run `work` over the chunks of `src` and hand each result, in file
/// order, to `consume` with the number of lines before the chunk; stop
/// when `consume` says so (`Ok(false)`) or fails.
///
/// # Errors
///
/// Reading errors and lines over the limit (as `E`, which a core error
/// converts into), each after the results of the lines before it were
/// consumed; `consume`'s errors.
pub fn for_each_chunk<T, E, W, C>(
    src: &mut Source,
    cut: Cutting,
    work: W,
    consume: C,
) -> std::result::Result<(), E>
where
    T: Send,
    E: From<Error>,
    W: Fn(&mut Lines<'_>) -> T + Sync,
    C: FnMut(T, u64) -> std::result::Result<bool, E>,
{
    drive(src, None, cut, work, consume)
}

/// [`for_each_chunk`] for a stream whose first bytes were read already
/// into `head` (by a format that looked at them to decide how to read):
/// they are its first lines.
///
/// # Errors
///
/// As [`for_each_chunk`].
pub fn for_each_chunk_after<T, E, W, C>(
    src: &mut Source,
    head: Buffer,
    cut: Cutting,
    work: W,
    consume: C,
) -> std::result::Result<(), E>
where
    T: Send,
    E: From<Error>,
    W: Fn(&mut Lines<'_>) -> T + Sync,
    C: FnMut(T, u64) -> std::result::Result<bool, E>,
{
    drive(src, Some(head), cut, work, consume)
}

fn drive<T, E, W, C>(
    src: &mut Source,
    head: Option<Buffer>,
    cut: Cutting,
    work: W,
    consume: C,
) -> std::result::Result<(), E>
where
    T: Send,
    E: From<Error>,
    W: Fn(&mut Lines<'_>) -> T + Sync,
    C: FnMut(T, u64) -> std::result::Result<bool, E>,
{
    let path = src.path().map(|p| p.to_path_buf());
    let named = |e: Error| match &path {
        Some(p) if e.path().is_none() => E::from(e.with_path(p)),
        _ => E::from(e),
    };
    // A ranged input is read by ranges even on one thread: its cursor
    // never moves, so the next pass (inference, then decoding) reads it
    // from the start again. (Read through its cursor, JSON's `--infer full
    // -t 1` decoded nothing: the inference had left the cursor at the end.)
    // A stream's bytes already read go first.
    match (src.ranged_source(), src.len(), head) {
        (Some(file), Some(len), None) => ranged(file, len, cut, &work, consume, named),
        (_, _, head) => streamed(src, head, cut, &work, consume, named),
    }
}

fn too_long(max_line: usize, byte: u64, line: u64) -> Error {
    Error::new(ErrorKind::LineTooLong { limit: max_line }).at(Position::new(byte, line, 0))
}

/// Front to back on this thread: a buffer of a chunk and one line.
fn streamed<T, E, W, C>(
    src: &mut Source,
    head: Option<Buffer>,
    cut: Cutting,
    work: &W,
    mut consume: C,
    named: impl Fn(Error) -> E,
) -> std::result::Result<(), E>
where
    W: Fn(&mut Lines<'_>) -> T,
    C: FnMut(T, u64) -> std::result::Result<bool, E>,
{
    let chunk = usize::try_from(cut.chunk).unwrap_or(usize::MAX).clamp(1, 1 << 30);
    // Room for a chunk and the longest line after it; it grows only while a
    // chunk has no newline yet.
    let mut buf = head.unwrap_or_else(|| Buffer::with_capacity(chunk));
    buf.set_max_capacity(chunk.saturating_add(cut.max_line).saturating_add(64 * 1024));
    // Lines before buf.offset().
    let mut lines_before = 0u64;
    let mut eof = false;
    loop {
        // Fill to a chunk, then on to the next newline.
        while !eof && (buf.len() < chunk || memchr::memrchr(b'\n', buf.data()).is_none()) {
            let n = fill(src, &mut buf).map_err(&named)?;
            eof = n == 0;
            let data = buf.data();
            let tail_start = memchr::memrchr(b'\n', data).map_or(0, |i| i + 1);
            if data.len() - tail_start > cut.max_line {
                // The line at tail_start is over the limit: hand out the
                // lines before it, then fail there.
                let mut lines = Lines::new(&data[..tail_start], buf.offset(), usize::MAX);
                let out = work(&mut lines);
                if !consume(out, lines_before)? {
                    return Ok(());
                }
                let (byte, line) =
                    (buf.offset() + tail_start as u64, lines_before + lines.count + 1);
                return Err(named(too_long(cut.max_line, byte, line)));
            }
        }
        let data = buf.data();
        let whole =
            if eof { data.len() } else { memchr::memrchr(b'\n', data).map_or(0, |i| i + 1) };
        if whole == 0 && eof {
            return Ok(());
        }
        let mut lines = Lines::new(&data[..whole], buf.offset(), cut.max_line);
        let out = work(&mut lines);
        let (count, too) = (lines.count, lines.too_long);
        if !consume(out, lines_before)? {
            return Ok(());
        }
        if let Some(j) = too {
            let (byte, line) = (buf.offset() + j as u64, lines_before + count + 1);
            return Err(named(too_long(cut.max_line, byte, line)));
        }
        lines_before += count;
        buf.consume(whole);
        if eof && buf.is_empty() {
            return Ok(());
        }
    }
}

/// One read of `src` into `buf`'s free room (it makes room first): the
/// bytes read, 0 at the end. A decompressor's error comes back as its own
/// (with its position); any other names the offset the read started at.
///
/// # Errors
///
/// The source's; a full buffer at its maximum.
pub fn fill(src: &mut Source, buf: &mut Buffer) -> Result<usize> {
    let at = buf.offset() + buf.len() as u64;
    match buf.fill(src) {
        Ok(n) => Ok(n),
        Err(e) => {
            // A decompressor's error arrives as io::Error wrapping ours.
            let err = match e.get_ref().is_some_and(|inner| inner.is::<Error>()) {
                true => match e.into_inner().map(|b| b.downcast::<Error>()) {
                    Some(Ok(ours)) => *ours,
                    _ => Error::from(std::io::Error::other("read failed")),
                },
                false => Error::from(e),
            };
            Err(if err.position().is_none() { err.at(Position::new(at, 0, 0)) } else { err })
        }
    }
}

/// A chunk read from a ranged input: its bytes (whole lines) and where
/// they start.
#[derive(Debug)]
pub struct Piece {
    /// The bytes read, from the byte before the chunk's range on.
    pub buf: Vec<u8>,
    /// Offset of the first owned line in `buf`.
    pub start: usize,
    /// Absolute offset of `buf[0]`.
    pub offset: u64,
    /// The line that crosses the chunk's end is over the limit: it starts
    /// here in `buf` (which ends before it).
    pub too_long: Option<usize>,
}

impl Piece {
    /// The lines the chunk owns.
    pub fn lines(&self, max_line: usize) -> Lines<'_> {
        Lines::new(&self.buf[self.start..], self.offset + self.start as u64, max_line)
    }

    /// Where the lines stopped at a line over the limit (absolute byte),
    /// once `lines` (of this piece) were walked.
    pub fn stopped_at(&self, lines: &Lines<'_>) -> Option<u64> {
        let j = lines.too_long.map(|j| self.start + j).or(self.too_long);
        j.map(|j| self.offset + j as u64)
    }
}

/// Read the chunk of `file` (of length `len`) whose nominal range is
/// `nominal`: the byte before it (to know whether a line starts at its
/// start), the range, and on to the end of its last line, at most
/// `max_line` past that line's start. `buf` is reused.
///
/// # Errors
///
/// Reading errors; `Truncated` when the file ends before `len`.
pub fn read_chunk(
    file: &dyn ReadAt,
    len: u64,
    nominal: Range<u64>,
    max_line: usize,
    mut buf: Vec<u8>,
) -> Result<Piece> {
    let from = nominal.start.saturating_sub(1);
    buf.clear();
    buf.resize((nominal.end - from) as usize, 0);
    read_range_exact(file, from..nominal.end, &mut buf)?;
    let start = if nominal.start == 0 {
        0
    } else {
        match memchr::memchr(b'\n', &buf) {
            Some(i) => i + 1,
            // No line starts in this chunk.
            None => buf.len(),
        }
    };
    let mut too_long = None;
    if start < buf.len() && nominal.end < len && buf.last() != Some(&b'\n') {
        // The last line crosses the end: read on to its newline, at most
        // the limit past its start.
        let last = memchr::memrchr(b'\n', &buf[start..]).map_or(start, |j| start + j + 1);
        let mut at = nominal.end;
        loop {
            let limit = last + max_line;
            if buf.len() >= limit || at >= len {
                if buf.len() - last >= max_line && at < len {
                    too_long = Some(last);
                    buf.truncate(last);
                }
                break;
            }
            let want = (64 * 1024).min(limit - buf.len()).min((len - at) as usize);
            let old = buf.len();
            buf.resize(old + want, 0);
            read_range_exact(file, at..at + want as u64, &mut buf[old..])?;
            at += want as u64;
            if let Some(j) = memchr::memchr(b'\n', &buf[old..]) {
                buf.truncate(old + j + 1);
                break;
            }
        }
    }
    Ok(Piece { buf, start, offset: from, too_long })
}

/// On many threads: each chunk of the file is read by [`read_chunk`] and
/// worked on by one thread; the results are consumed in file order.
fn ranged<T, E, W, C>(
    file: &dyn ReadAt,
    len: u64,
    cut: Cutting,
    work: &W,
    mut consume: C,
    named: impl Fn(Error) -> E,
) -> std::result::Result<(), E>
where
    T: Send,
    W: Fn(&mut Lines<'_>) -> T + Sync,
    C: FnMut(T, u64) -> std::result::Result<bool, E>,
{
    let tasks = range_count(len, cut.chunk);
    let spares: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
    let mut lines_before = 0u64;
    let mut failed: Option<E> = None;
    crate::parallel::run_ordered(
        tasks,
        cut.threads,
        2 * cut.threads,
        |i| {
            let spare = spares.lock().ok().and_then(|mut s| s.pop()).unwrap_or_default();
            let piece = read_chunk(file, len, nth_range(len, cut.chunk, i), cut.max_line, spare)?;
            let mut lines = piece.lines(cut.max_line);
            let out = work(&mut lines);
            let (count, at) = (lines.count, piece.stopped_at(&lines));
            if let Ok(mut s) = spares.lock() {
                s.push(piece.buf);
            }
            Ok::<_, Error>((out, count, at))
        },
        |_, res| {
            let step = res.map_err(&named).and_then(|(out, count, too)| {
                if !consume(out, lines_before)? {
                    return Ok(false);
                }
                if let Some(byte) = too {
                    return Err(named(too_long(cut.max_line, byte, lines_before + count + 1)));
                }
                lines_before += count;
                Ok(true)
            });
            match step {
                Ok(go) => go,
                Err(e) => {
                    failed = Some(e);
                    false
                }
            }
        },
    );
    failed.map_or(Ok(()), Err)
}

/// The line number (1-based) of the line that starts at `line_start`, and
/// the records (lines with a byte other than space, tab or `\r`) before
/// it: for an error met by a reader of a range, which knows only bytes.
/// Reads the file up to there once.
///
/// # Errors
///
/// Reading errors.
pub fn locate(file: &dyn ReadAt, line_start: u64) -> Result<(u64, u64)> {
    let mut buf = vec![0u8; 1 << 20];
    let (mut lines, mut records) = (0u64, 0u64);
    // A BOM is not a byte of the first line: a line of a BOM alone is
    // blank, as the readers see it.
    let mut head = [0u8; 3];
    let bom = read_full_at(file, &mut head, 0)? == 3 && head == *UTF8_BOM && line_start >= 3;
    let mut at = if bom { 3 } else { 0 };
    // Whether the current line has had a byte other than whitespace.
    let mut filled = false;
    while at < line_start {
        let want = ((line_start - at) as usize).min(buf.len());
        read_range_exact(file, at..at + want as u64, &mut buf[..want])?;
        for &b in &buf[..want] {
            match b {
                b'\n' => {
                    lines += 1;
                    records += u64::from(filled);
                    filled = false;
                }
                b' ' | b'\t' | b'\r' => {}
                _ => filled = true,
            }
        }
        at += want as u64;
    }
    Ok((lines + 1, records))
}

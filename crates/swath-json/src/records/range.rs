//! One range of a document read a piece at a time: the records that start
//! in it (its start is a record start, or the input's start: see
//! [`super::record_ranges`]), framed as the whole-file drivers frame them,
//! pulled by an engine's partition on its own thread.

use std::sync::Arc;

use swath::line_chunks::Span;
use swath::range::read_range_exact;
use swath::{Position, ReadAt};

use super::drive::{mode_of, over_limit};
use super::frame::{Expect, Framer, Stop};
use super::shape::{check_after, Shape};
use crate::error::Error;

/// The records of one range of a document, a piece at a time.
pub struct DocRange {
    file: Arc<dyn ReadAt>,
    len: u64,
    shape: Shape,
    /// Records that start before this byte are the range's.
    end: u64,
    /// The absolute offset of `buf[0]`, and the next byte to read.
    base: u64,
    next: u64,
    buf: Vec<u8>,
    framer: Framer,
    chunk: usize,
    max_line: usize,
    done: bool,
    /// An error to give once the records before it were handed out.
    pending: Option<Problem>,
}

impl std::fmt::Debug for DocRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocRange").field("next", &self.next).field("end", &self.end).finish()
    }
}

/// A range's problem: its byte, why, and whether it is in a record's
/// place (else it is after the records: text after the document).
pub type Problem = (u64, String, bool);

/// One piece's records: the bytes, their first byte's offset, the spans.
pub struct Piece<'a> {
    /// The bytes the spans are in.
    pub bytes: &'a [u8],
    /// Absolute offset of `bytes[0]`.
    pub offset: u64,
    /// The records.
    pub spans: &'a [Span],
}

impl DocRange {
    /// The records of `file` (of `len` bytes, records as `shape` says) that
    /// start in `range`, whose start is a record start or at most the
    /// records' start.
    pub fn new(
        file: Arc<dyn ReadAt>,
        len: u64,
        shape: Shape,
        range: std::ops::Range<u64>,
        chunk: usize,
        max_line: usize,
    ) -> DocRange {
        let region = shape.start();
        let (mode, _) = mode_of(&shape);
        // The first range starts before the first record; any other at a
        // record, after the `,` before it.
        let (from, framer) = if range.start <= region {
            (region, Framer::at_start(mode))
        } else {
            (range.start, Framer::new(mode, Expect::Record))
        };
        let from = from.min(len);
        DocRange {
            file,
            len,
            shape,
            end: range.end.min(len).max(from),
            base: from,
            next: from,
            buf: Vec::new(),
            framer,
            chunk: chunk.max(1),
            max_line,
            done: from >= range.end.min(len) && range.start > region,
            pending: None,
        }
    }

    /// The next piece's records (`None` once the range's records are all
    /// handed out), `spans` filled; an error after the records before it
    /// were handed out by an earlier call.
    ///
    /// # Errors
    ///
    /// Reading; bytes between records that are not what the shape wants; a
    /// record over the limit; text after the document. Positions are
    /// bytes: [`locate`] gives their record and line.
    pub fn next_piece<'a>(
        &'a mut self,
        spans: &'a mut Vec<Span>,
    ) -> Result<Option<Piece<'a>>, Problem> {
        spans.clear();
        if let Some(e) = self.pending.take() {
            self.done = true;
            return Err(e);
        }
        if self.done {
            return Ok(None);
        }
        // Drop what was handed out: up to the open record, or all.
        let cut = self.framer.open_record().map_or(self.framer.pos, |(s, _)| s);
        let nl = self.framer.open_record().map_or(self.framer.nl, |(_, n)| n);
        self.buf.drain(..cut);
        self.base += cut as u64;
        self.framer.rebase(cut, nl);
        loop {
            if self.next >= self.len {
                let mut bad = None;
                if let Some(Stop::Bad { at, reason }) = self.framer.finish(self.buf.len(), spans) {
                    bad = Some((self.base + at as u64, reason.to_string(), true));
                }
                self.done = true;
                return self.hand_out(spans, bad);
            }
            let n = ((self.len - self.next) as usize).min(self.chunk);
            let old = self.buf.len();
            self.buf.resize(old + n, 0);
            let at = self.next;
            read_range_exact(&*self.file, at..at + n as u64, &mut self.buf[old..])
                .map_err(|e| (at, e.to_string(), true))?;
            self.next += n as u64;
            let owned = (self.end - self.base) as usize;
            match self.framer.run(&self.buf, owned, spans) {
                Stop::More => {
                    if let Some((s, _)) = self.framer.open_record() {
                        if self.buf.len() - s > self.max_line {
                            self.done = true;
                            let bad = (self.base + s as u64, over_limit(self.max_line), true);
                            return self.hand_out(spans, Some(bad));
                        }
                    }
                    if !spans.is_empty() {
                        return self.hand_out(spans, None);
                    }
                    if self.framer.open_record().is_none() && self.framer.pos >= owned {
                        // Past our end and between records: keep reading only to
                        // check the bytes after our last record, bounded.
                        if self.buf.len() > self.max_line {
                            self.done = true;
                            return Ok(None);
                        }
                    }
                }
                Stop::NextOwner(_) => {
                    self.done = true;
                    return self.hand_out(spans, None);
                }
                Stop::Closed(p) => {
                    self.done = true;
                    let bad = self.after_close(p);
                    return self.hand_out(spans, bad);
                }
                Stop::Bad { at, reason } => {
                    self.done = true;
                    let bad = (self.base + at as u64, reason.to_string(), true);
                    return self.hand_out(spans, Some(bad));
                }
            }
        }
    }

    /// The records framed, or the error once none are left before it.
    fn hand_out<'a>(
        &'a mut self,
        spans: &'a mut Vec<Span>,
        bad: Option<Problem>,
    ) -> Result<Option<Piece<'a>>, Problem> {
        if let Some(k) = spans.iter().position(|s| s.end - s.start > self.max_line) {
            let at = self.base + spans[k].start as u64;
            spans.truncate(k);
            let problem = (at, over_limit(self.max_line), true);
            if spans.is_empty() {
                return Err(problem);
            }
            self.pending = Some(problem);
        } else if let Some(problem) = bad {
            if spans.is_empty() {
                return Err(problem);
            }
            self.pending = Some(problem);
        }
        if spans.is_empty() {
            return Ok(None);
        }
        Ok(Some(Piece { bytes: &self.buf, offset: self.base, spans }))
    }

    /// The array closed at `p`: the rest of the input must close the
    /// objects around it.
    fn after_close(&mut self, p: usize) -> Option<Problem> {
        let rest = self.base + p as u64 + 1;
        let n = ((self.len - rest) as usize).min(self.max_line);
        let mut tail = vec![0u8; n];
        if let Err(e) = read_range_exact(&*self.file, rest..rest + n as u64, &mut tail) {
            return Some((rest, e.to_string(), false));
        }
        let (_, levels) = mode_of(&self.shape);
        match check_after(&tail, levels) {
            Ok(()) if rest + n as u64 == self.len => None,
            Ok(()) => Some((
                rest + n as u64,
                "more text after the document than --max-line-size".into(),
                false,
            )),
            Err(e) => Some((rest + e.at as u64, e.reason.to_string(), false)),
        }
    }
}

/// The line of byte `at` (1-based) and the records that start before
/// `record_start` (`<= at`), found by framing the document from its start
/// (for an error met by a reader of a range, which knows only bytes).
///
/// # Errors
///
/// Reading.
pub fn locate(
    file: &dyn ReadAt,
    len: u64,
    shape: &Shape,
    record_start: u64,
    at: u64,
) -> Result<(u64, u64), Error> {
    let region = shape.start().min(len);
    let (mode, _) = mode_of(shape);
    let mut head = vec![0u8; region as usize];
    read_range_exact(file, 0..region, &mut head).map_err(Error::from)?;
    let mut lines = memchr::memchr_iter(b'\n', &head[..(at.min(region)) as usize]).count() as u64;
    let mut framer = Framer::at_start(mode);
    let mut buf = Vec::new();
    let mut spans = Vec::new();
    let mut records = 0u64;
    let mut base = region;
    let mut next = region;
    while next < at.max(record_start) && next < len {
        let n = ((at.max(record_start) - next) as usize).min(1 << 20);
        let old = buf.len();
        buf.resize(old + n, 0);
        read_range_exact(file, next..next + n as u64, &mut buf[old..]).map_err(Error::from)?;
        lines += memchr::memchr_iter(
            b'\n',
            &buf[old..old + ((at.saturating_sub(next)) as usize).min(n)],
        )
        .count() as u64;
        next += n as u64;
        let owned = record_start.saturating_sub(base) as usize;
        let stop = framer.run(&buf, owned, &mut spans);
        records += spans.iter().filter(|s| base + (s.start as u64) < record_start).count() as u64;
        spans.clear();
        if !matches!(stop, Stop::More) {
            // A record at or past `record_start`, or the end.
            let open = framer
                .open_record()
                .map_or(0, |(s, _)| u64::from(base + (s as u64) < record_start));
            return Ok((lines + 1, records + open));
        }
        let cut = framer.open_record().map_or(framer.pos, |(s, _)| s);
        let nl = framer.open_record().map_or(framer.nl, |(_, n)| n);
        buf.drain(..cut);
        base += cut as u64;
        framer.rebase(cut, nl);
    }
    let open = framer.open_record().map_or(0, |(s, _)| u64::from(base + (s as u64) < record_start));
    Ok((lines + 1, records + open))
}

/// The position of a problem at byte `at` in the record starting at
/// `record_start`, for a range's error.
pub(crate) fn position(
    file: &dyn ReadAt,
    len: u64,
    shape: &Shape,
    record_start: u64,
    at: u64,
) -> Result<Position, Error> {
    let (line, before) = locate(file, len, shape, record_start, at)?;
    Ok(Position::new(at, line, before + 1))
}

/// The position of a problem after the records (no record's place).
pub(crate) fn position_after(
    file: &dyn ReadAt,
    len: u64,
    shape: &Shape,
    at: u64,
) -> Result<Position, Error> {
    let (line, _) = locate(file, len, shape, at, at)?;
    Ok(Position::new(at, line, 0))
}

//! The chunks of a JSON document handed to the work in file order, as
//! [`swath::line_chunks`] hands lines: the work sees [`Lines`] whose lines
//! are the records the framer found, each with its line in the chunk.
//!
//! A ranged input (a regular file, a remote object) is read twice: once
//! by every thread for the chain's summaries, once to frame and work. A
//! stream is framed front to back through one buffer of a chunk and one
//! record.

use std::sync::Mutex;

use swath::line_chunks::{for_each_chunk_after, Cutting, Lines};
use swath::range::{nth_range, read_full_at, read_range_exact};
use swath::{Buffer, Position, ReadAt, Source};

use super::chain::{chain, summarize, Summary};
use super::frame::{Framer, Mode, Stop};
use super::shape::{big, check_after, find, NotYet, Records, Shape};
use crate::error::Error;

/// Bytes looked at to decide where the records are ([`Records::Auto`]).
pub const DETECT_WINDOW: usize = 1 << 20;

/// Where the records of a ranged input are: from its first bytes, read
/// again later (the read does not move a cursor).
///
/// # Errors
///
/// Reading; the records asked for are not there.
pub fn shape_of(
    file: &dyn ReadAt,
    len: u64,
    want: &Records,
    max_line: usize,
) -> Result<Shape, Error> {
    let mut head = Vec::new();
    let mut size = (64 * 1024).min(len as usize);
    loop {
        head.resize(size, 0);
        let n = read_full_at(file, &mut head, 0).map_err(swath::Error::from)?;
        head.truncate(n);
        let eof = n as u64 >= len;
        match find(want, &head, eof) {
            Ok(shape) => return Ok(shape),
            Err(NotYet::More) => {
                let window = window(want, max_line);
                if head.len() >= window {
                    return too_far(want, &head, window);
                }
                size = (size * 4).min(window).min(len as usize).max(size + 1);
            }
            Err(e) => return Err(not_found(e, &head)),
        }
    }
}

/// Where the records are, from a stream's first bytes as read (`eof`: all
/// of it): lines when they do not say (the reader then reports what is
/// wrong, with its place).
pub(crate) fn shape_in_head(want: &Records, head: &[u8], eof: bool) -> Shape {
    match find(want, head, eof) {
        Ok(shape) => shape,
        Err(NotYet::More) if *want == Records::Auto && head.len() >= DETECT_WINDOW => {
            big(&head[..DETECT_WINDOW])
        }
        Err(_) => Shape::Lines,
    }
}

fn window(want: &Records, max_line: usize) -> usize {
    match want {
        Records::Auto => DETECT_WINDOW,
        _ => max_line,
    }
}

/// The window was read and the answer lies past it. A stream's buffer
/// can hold more than the window (the whole document, but not yet its
/// end): the answer is the window's, as a file's is.
fn too_far(want: &Records, head: &[u8], window: usize) -> Result<Shape, Error> {
    match want {
        Records::Auto => Ok(big(&head[..window.min(head.len())])),
        _ => Err(Error::Line {
            path: None,
            pos: Position::new(
                head.len() as u64,
                1 + memchr::memchr_iter(b'\n', head).count() as u64,
                0,
            ),
            field: None,
            reason: format!(
                "the records' array ({want}) is not within the first {window} bytes \
                 (--max-line-size)"
            ),
        }),
    }
}

fn not_found(e: NotYet, head: &[u8]) -> Error {
    let (at, reason) = match e {
        NotYet::Bad(s) => (s.at, s.reason.to_string()),
        NotYet::Missing(at, m) => (at, format!("no records' array: {m}")),
        NotYet::More => (head.len(), "the input ends early".into()),
    };
    let line = 1 + memchr::memchr_iter(b'\n', &head[..at.min(head.len())]).count() as u64;
    Error::Line { path: None, pos: Position::new(at as u64, line, 0), field: None, reason }
}

/// `e` with the input's name, when it has none yet.
pub(crate) fn named(path: Option<&std::path::Path>, e: Error) -> Error {
    match e {
        Error::Line { path: None, pos, field, reason } => {
            Error::Line { path: path.map(|p| p.to_path_buf()), pos, field, reason }
        }
        Error::Read(r) if r.path().is_none() => match path {
            Some(p) => Error::Read(r.with_path(p)),
            None => Error::Read(r),
        },
        e => e,
    }
}

/// Run `work` over the records of `src` (where `want` says they are), in
/// chunks, and hand each result in file order to `consume` with the
/// lines before the chunk, as [`swath::line_chunks::for_each_chunk`]
/// does for lines; returns where the records were found.
///
/// # Errors
///
/// Reading; records not where asked; bytes between records that are not
/// `,`, `]` or whitespace as the shape wants (a trailing comma, a missing
/// `]`, text after the document); a record over the limit; each after the
/// results of the records before it were consumed; `consume`'s errors.
pub fn for_each_chunk<T, E, W, C>(
    src: &mut Source,
    cut: Cutting,
    want: &Records,
    work: W,
    consume: C,
) -> Result<Shape, E>
where
    T: Send,
    E: From<Error> + From<swath::Error>,
    W: Fn(&mut Lines<'_>) -> T + Sync,
    C: FnMut(T, u64) -> Result<bool, E>,
{
    let path = src.path().map(|p| p.to_path_buf());
    match (src.ranged_source(), src.len()) {
        (Some(file), Some(len)) => {
            let shape =
                shape_of(file, len, want, cut.max_line).map_err(|e| named(path.as_deref(), e))?;
            match &shape {
                Shape::Lines => {
                    swath::line_chunks::for_each_chunk::<T, E, W, C>(src, cut, work, consume)?
                }
                _ => ranged(file, len, &shape, cut, &work, consume, &path)?,
            }
            Ok(shape)
        }
        _ => streamed(src, cut, want, work, consume, &path),
    }
}

/// Levels of objects around the records, and how they are separated.
pub(crate) fn mode_of(shape: &Shape) -> (Mode, usize) {
    match shape {
        Shape::Array { path, .. } => (Mode::Array, path.len()),
        _ => (Mode::Values, 0),
    }
}

/// Whether byte `pos` of `file` follows an odd run of backslashes, and
/// the last byte before it that is not whitespace (with whether it is
/// right before `pos`), looking back no further than `floor`.
pub(crate) fn look_back(
    file: &dyn ReadAt,
    floor: u64,
    pos: u64,
) -> swath::Result<(bool, Option<(u8, bool)>)> {
    let mut block = [0u8; 4096];
    let mut end = pos;
    let (mut run, mut run_open) = (0u64, true);
    let mut prev = None;
    while end > floor && (run_open || prev.is_none()) {
        let from = end.saturating_sub(block.len() as u64).max(floor);
        let n = (end - from) as usize;
        read_range_exact(file, from..end, &mut block[..n])?;
        for (k, &b) in block[..n].iter().enumerate().rev() {
            if run_open {
                if b == b'\\' {
                    run += 1;
                } else {
                    run_open = false;
                }
            }
            if prev.is_none() && !matches!(b, b' ' | b'\t' | b'\r' | b'\n') {
                prev = Some((b, from + k as u64 + 1 == pos));
            }
            if !run_open && prev.is_some() {
                break;
            }
        }
        end = from;
    }
    Ok((run % 2 == 1, prev))
}

/// What one range of a document gave: the work's result, its records, and
/// how it stopped.
struct Framed<T> {
    out: T,
    records: u64,
    /// A framing error: absolute byte, newlines before it in the range,
    /// reason.
    bad: Option<(u64, u64, String)>,
    /// The array's `]`: absolute byte, newlines before it in the range.
    closed: Option<(u64, u64)>,
}

fn ranged<T, E, W, C>(
    file: &dyn ReadAt,
    len: u64,
    shape: &Shape,
    cut: Cutting,
    work: &W,
    mut consume: C,
    path: &Option<std::path::PathBuf>,
) -> Result<(), E>
where
    T: Send,
    E: From<Error> + From<swath::Error>,
    W: Fn(&mut Lines<'_>) -> T + Sync,
    C: FnMut(T, u64) -> Result<bool, E>,
{
    let (mode, levels) = mode_of(shape);
    let start = shape.start();
    let span = len - start;
    let nominal = |i: usize| {
        let r = nth_range(span, cut.chunk, i);
        start + r.start..start + r.end
    };
    let fail = |e: Error| E::from(named(path.as_deref(), e));
    // The lines before the records.
    let mut head = vec![0u8; start as usize];
    read_range_exact(file, 0..start, &mut head).map_err(|e| fail(e.into()))?;
    let head_lines = memchr::memchr_iter(b'\n', &head).count() as u64;
    let last_is_newline = {
        let mut b = [0u8; 1];
        len > 0
            && read_full_at(file, &mut b, len - 1)
                .map_err(|e| fail(swath::Error::from(e).into()))?
                == 1
            && b[0] == b'\n'
    };
    // Pass 1: every range's summary, on every core.
    let sums: Vec<Summary> = swath::Parallel::new()
        .threads(cut.threads)
        .chunk_size(cut.chunk)
        .try_map_with(span, Vec::new, |buf: &mut Vec<u8>, i, _| {
            let r = nominal(i);
            buf.resize((r.end - r.start) as usize, 0);
            read_range_exact(file, r.clone(), buf)?;
            let (esc, _) = look_back(file, start, r.start)?;
            Ok::<_, swath::Error>(summarize(buf, esc))
        })
        .map_err(|e| fail(e.into()))?;
    // At least one range, empty when nothing follows the records' start
    // (`[` and the end: it frames nothing and finds the array not closed).
    let sums = if sums.is_empty() { vec![Summary::default()] } else { sums };
    let (starts, _) = chain(&sums);
    let tasks = starts.len();
    // Newlines from each range's start to the input's end, for the last.
    let mut after = vec![0u64; sums.len() + 1];
    for i in (0..sums.len()).rev() {
        after[i] = after[i + 1] + sums[i].newlines;
    }
    let spares: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
    let mut lines_before = head_lines;
    let mut records_before = 0u64;
    let mut failed: Option<E> = None;
    swath::parallel::run_ordered(
        tasks,
        cut.threads,
        2 * cut.threads,
        |i| -> Result<Framed<T>, Error> {
            let r = nominal(i);
            let st = starts[i];
            let (esc, prev) = look_back(file, start, r.start)?;
            let mut framer = Framer::at_range(mode, st.in_str, esc, st.depth, prev);
            let mut buf = spares.lock().ok().and_then(|mut s| s.pop()).unwrap_or_default();
            let owned = (r.end - r.start) as usize;
            buf.resize(owned, 0);
            read_range_exact(file, r.clone(), &mut buf)?;
            let mut spans = Vec::new();
            let mut at = r.end;
            let (mut bad, mut closed) = (None, None);
            loop {
                match framer.run(&buf, owned, &mut spans) {
                    Stop::More => {}
                    Stop::NextOwner(_) => break,
                    Stop::Closed(p) => {
                        closed = Some((r.start + p as u64, framer.nl));
                        break;
                    }
                    Stop::Bad { at: p, reason } => {
                        bad = Some((r.start + p as u64, framer.nl, reason.to_string()));
                        break;
                    }
                }
                // Out of bytes: read on while a record of ours is open, or
                // the bytes after our last record are not checked yet.
                let ours = framer.open_record().is_some()
                    || (!framer.in_record() && (i == 0 || !spans.is_empty()));
                if !ours && framer.pos >= owned {
                    break;
                }
                if at >= len {
                    if let Some(Stop::Bad { at: p, reason }) = framer.finish(buf.len(), &mut spans)
                    {
                        bad = Some((r.start + p as u64, framer.nl, reason.to_string()));
                    }
                    break;
                }
                // A record of ours, or the bytes after our last record, held
                // up to the limit and one byte past it.
                let from = framer.open_record().map_or(gap_from(&spans, i, owned), |(s, _)| s);
                if buf.len() - from.min(buf.len()) > cut.max_line {
                    let (p, nl) = framer.open_record().unwrap_or((from, framer.nl));
                    bad = Some((r.start + p as u64, nl, over_limit(cut.max_line)));
                    break;
                }
                let room = (from + cut.max_line + 1).saturating_sub(buf.len()).max(1);
                let want = room.min(64 * 1024).min((len - at) as usize);
                let old = buf.len();
                buf.resize(old + want, 0);
                read_range_exact(file, at..at + want as u64, &mut buf[old..])?;
                at += want as u64;
            }
            if let Some(k) = first_too_long(&spans, cut.max_line) {
                let sp = spans[k];
                if bad.as_ref().is_none_or(|&(b, _, _)| b >= r.start + sp.start as u64) {
                    bad = Some((r.start + sp.start as u64, sp.line, over_limit(cut.max_line)));
                    closed = None;
                }
                spans.truncate(k);
            }
            let lines = if closed.is_some() || i + 1 == sums.len() {
                after[i] + u64::from(!last_is_newline && len > 0)
            } else {
                sums[i].newlines
            };
            let out = work(&mut Lines::framed(&buf, r.start, &spans, lines));
            let records = spans.len() as u64;
            if let Ok(mut s) = spares.lock() {
                s.push(buf);
            }
            Ok(Framed { out, records, bad, closed })
        },
        |i, res| {
            let step = (|| -> Result<bool, E> {
                let f = res.map_err(fail)?;
                if !consume(f.out, lines_before)? {
                    return Ok(false);
                }
                if let Some((at, nl, reason)) = f.bad {
                    let pos =
                        Position::new(at, lines_before + nl + 1, records_before + f.records + 1);
                    return Err(fail(Error::Line { path: None, pos, field: None, reason }));
                }
                if let Some((at, nl)) = f.closed {
                    let rest = at + 1;
                    let n = ((len - rest) as usize).min(cut.max_line);
                    let mut tail = vec![0u8; n];
                    read_range_exact(file, rest..rest + n as u64, &mut tail)
                        .map_err(|e| fail(e.into()))?;
                    let end_ok = rest + (n as u64) == len;
                    after_records(&tail, end_ok, levels, rest, lines_before + nl).map_err(fail)?;
                    return Ok(false);
                }
                lines_before += sums[i].newlines;
                records_before += f.records;
                Ok(true)
            })();
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

/// Where the bytes after a range's last record start (its checked gap).
fn gap_from(spans: &[swath::line_chunks::Span], i: usize, owned: usize) -> usize {
    match spans.last() {
        Some(s) => s.end,
        None if i == 0 => 0,
        None => owned,
    }
}

/// The first record longer than the limit.
fn first_too_long(spans: &[swath::line_chunks::Span], max_line: usize) -> Option<usize> {
    spans.iter().position(|s| s.end - s.start > max_line)
}

pub(crate) fn over_limit(max_line: usize) -> String {
    format!("a record longer than the limit of {max_line} bytes (--max-line-size)")
}

/// The bytes after the records array's `]` (from byte `rest`, on line
/// `line_before + 1`): the rest of the objects around it, then only
/// whitespace; `whole`: they are all the input's bytes left.
fn after_records(
    tail: &[u8],
    whole: bool,
    levels: usize,
    rest: u64,
    lines_before: u64,
) -> Result<(), Error> {
    let bad = |at: usize, reason: String| {
        let line = lines_before + 1 + memchr::memchr_iter(b'\n', &tail[..at]).count() as u64;
        Error::Line {
            path: None,
            pos: Position::new(rest + at as u64, line, 0),
            field: None,
            reason,
        }
    };
    match check_after(tail, levels) {
        Ok(()) if whole => Ok(()),
        Ok(()) => Err(bad(tail.len(), "more text after the document than --max-line-size".into())),
        Err(e) => Err(bad(e.at, e.reason.to_string())),
    }
}

/// A stream: framed front to back through one buffer.
fn streamed<T, E, W, C>(
    src: &mut Source,
    cut: Cutting,
    want: &Records,
    work: W,
    mut consume: C,
    path: &Option<std::path::PathBuf>,
) -> Result<Shape, E>
where
    T: Send,
    E: From<Error> + From<swath::Error>,
    W: Fn(&mut Lines<'_>) -> T + Sync,
    C: FnMut(T, u64) -> Result<bool, E>,
{
    let fail = |e: Error| E::from(named(path.as_deref(), e));
    let chunk = usize::try_from(cut.chunk).unwrap_or(usize::MAX).clamp(1, 1 << 30);
    let mut buf = Buffer::with_capacity(chunk);
    buf.set_max_capacity(chunk.saturating_add(cut.max_line).saturating_add(64 * 1024));
    let mut eof = false;
    // Where the records are, from the first bytes.
    let window = window(want, cut.max_line);
    let shape = loop {
        match find(want, buf.data(), eof) {
            Ok(shape) => break shape,
            Err(NotYet::More) if !eof && buf.len() < window => {
                eof = fill(src, &mut buf).map_err(fail)? == 0;
            }
            Err(NotYet::More) if !eof => break too_far(want, buf.data(), window).map_err(fail)?,
            Err(e) => return Err(fail(not_found(e, buf.data()))),
        }
    };
    if shape == Shape::Lines {
        for_each_chunk_after::<T, E, W, C>(src, buf, cut, work, consume)?;
        return Ok(shape);
    }
    let (mode, levels) = mode_of(&shape);
    let start = shape.start() as usize;
    let mut lines_before = memchr::memchr_iter(b'\n', &buf.data()[..start]).count() as u64;
    buf.consume(start);
    let mut framer = Framer::at_start(mode);
    let mut records_before = 0u64;
    let mut spans = Vec::new();
    // The last byte read is not a newline: the input's last line is open.
    let mut open_line = false;
    loop {
        let stop = framer.run(buf.data(), usize::MAX, &mut spans);
        let (mut bad, mut closed) = (None, None);
        match stop {
            Stop::More | Stop::NextOwner(_) => {
                if eof {
                    if let Some(Stop::Bad { at, reason }) = framer.finish(buf.len(), &mut spans) {
                        bad = Some((at, reason.to_string()));
                    }
                }
            }
            Stop::Closed(p) => closed = Some(p),
            Stop::Bad { at, reason } => bad = Some((at, reason.to_string())),
        }
        if let Some(k) = first_too_long(&spans, cut.max_line) {
            let sp = spans[k];
            if bad.as_ref().is_none_or(|&(b, _)| b >= sp.start) {
                bad = Some((sp.start, over_limit(cut.max_line)));
                closed = None;
            }
            spans.truncate(k);
        }
        if let Some(p) = closed {
            // The rest of the input, up to the limit past the `]` (the
            // buffer's bytes keep their places).
            while !eof && buf.len() - (p + 1) <= cut.max_line {
                eof = fill(src, &mut buf).map_err(fail)? == 0;
            }
        }
        let done = eof || bad.is_some() || closed.is_some();
        // Hand out what is framed: up to the open record, or all.
        let (cut_at, nl_cut) = match framer.open_record() {
            Some((s, nl)) if !done => (s, nl),
            _ => (framer.pos, framer.nl),
        };
        let data = buf.data();
        if let Some(&b) = data.last() {
            open_line = b != b'\n';
        }
        let lines = if closed.is_some() {
            nl_before(data, data.len()) + u64::from(open_line)
        } else if eof {
            framer.nl + u64::from(open_line)
        } else {
            nl_cut
        };
        let out = work(&mut Lines::framed(data, buf.offset(), &spans, lines));
        if !consume(out, lines_before)? {
            return Ok(shape);
        }
        let offset = buf.offset();
        if let Some((at, reason)) = bad {
            let pos = Position::new(
                offset + at as u64,
                lines_before + nl_before(data, at) + 1,
                records_before + spans.len() as u64 + 1,
            );
            return Err(fail(Error::Line { path: None, pos, field: None, reason }));
        }
        if let Some(p) = closed {
            let nl = nl_before(data, p);
            let rest = &data[p + 1..];
            let whole = eof && rest.len() <= cut.max_line;
            let tail = &rest[..rest.len().min(cut.max_line)];
            after_records(tail, whole, levels, offset + p as u64 + 1, lines_before + nl)
                .map_err(fail)?;
            return Ok(shape);
        }
        if eof {
            return Ok(shape);
        }
        records_before += spans.len() as u64;
        spans.clear();
        lines_before += nl_cut;
        buf.consume(cut_at);
        framer.rebase(cut_at, nl_cut);
        if let Some((s, _)) = framer.open_record() {
            if framer.pos - s >= cut.max_line {
                let pos = Position::new(buf.offset(), lines_before + 1, records_before + 1);
                return Err(fail(Error::Line {
                    path: None,
                    pos,
                    field: None,
                    reason: over_limit(cut.max_line),
                }));
            }
        }
        // Read on: to a chunk past what is held.
        let target = buf.len() + chunk;
        while !eof && buf.len() < target {
            let n = fill(src, &mut buf).map_err(fail)?;
            eof = n == 0;
        }
    }
}

/// The records of `shape` that end within `bytes` (the input's first
/// bytes; `eof`: all of it), as spans of `bytes`; none past an error.
pub(crate) fn spans_in(shape: &Shape, bytes: &[u8], eof: bool) -> Vec<swath::line_chunks::Span> {
    let (mode, _) = mode_of(shape);
    let start = (shape.start() as usize).min(bytes.len());
    let mut framer = Framer::at_start(mode);
    let mut spans = Vec::new();
    let stop = framer.run(&bytes[start..], usize::MAX, &mut spans);
    if eof && stop == Stop::More {
        framer.finish(bytes.len() - start, &mut spans);
    }
    for s in &mut spans {
        s.start += start;
        s.end += start;
    }
    spans
}

fn nl_before(data: &[u8], at: usize) -> u64 {
    memchr::memchr_iter(b'\n', &data[..at.min(data.len())]).count() as u64
}

/// One read into the buffer's free room ([`swath::line_chunks::fill`]).
fn fill(src: &mut Source, buf: &mut Buffer) -> Result<usize, Error> {
    swath::line_chunks::fill(src, buf).map_err(Error::Read)
}

//! [`JsonReaderBuilder`]: JSON lines from any [`Source`] into Arrow
//! batches, in file order, on every core for a regular file or a remote
//! object ([`JsonReaderBuilder::for_each_batch`], [`RangeBatches`] for a
//! byte range); and the passes that need no batches: schema inference,
//! `count`, `check`.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use swath::range::read_full_at;
use swath::{Position, Source};
pub use swath_arrow::Infer;

use crate::bad::{BadRecord, ChunkAside, OnBad};
use crate::decode::{Bad, Decoder};
use crate::error::{Error, Result};
use crate::infer::{schema_of, Inference, Obj};
use crate::records::{Records, Shape};
use swath::line_chunks::{locate, read_chunk, Cutting, Lines};

/// The batch size: 16Ki rows, as the CSV side.
pub const DEFAULT_BATCH_SIZE: usize = 16 * 1024;
/// The longest line, as the CSV side's record limit: 64 MiB.
pub const DEFAULT_MAX_LINE: usize = 64 << 20;
/// Bytes per chunk of parallel work.
pub const DEFAULT_CHUNK: u64 = 4 << 20;

/// How to read: threads, chunk, line limit, batch size, how to infer.
#[derive(Clone, Debug)]
pub struct JsonReaderBuilder {
    pub(crate) cut: Cutting,
    batch_size: usize,
    infer: Infer,
    records: Records,
    on_bad: OnBad,
}

impl Default for JsonReaderBuilder {
    fn default() -> Self {
        JsonReaderBuilder::new()
    }
}

/// A problem in one line, as `check` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Record (n-th object; the bad line counts as one), line and byte.
    pub pos: Position,
    /// The field, for a value that does not fit.
    pub field: Option<String>,
    /// Why.
    pub reason: String,
}

/// What `count` found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counted {
    /// Objects (non-blank lines).
    pub records: u64,
    /// Lines, blank ones included.
    pub lines: u64,
}

/// An inferred schema and what it came from.
#[derive(Clone, Debug)]
pub struct Inferred {
    /// The Arrow schema (every field nullable).
    pub schema: SchemaRef,
    /// The joined types, with the reasons of their notes
    /// ([`crate::infer::Ty::note`]).
    pub root: Obj,
    /// Objects read to infer it.
    pub lines: u64,
    /// Whether every line was read ([`Infer::Full`]).
    pub full: bool,
    /// Where the records were found.
    pub shape: Shape,
}

/// One chunk's decoding: its batches, objects, records put aside, and
/// where it stopped.
struct Decoded {
    batches: Vec<RecordBatch>,
    /// Objects decoded.
    records: u64,
    aside: ChunkAside,
    bad: Option<(u64, u64, u64, Bad)>,
}

impl JsonReaderBuilder {
    /// All cores, 4 MiB chunks, 64 MiB lines, 16Ki rows a batch, the
    /// CSV side's sampling.
    pub fn new() -> JsonReaderBuilder {
        JsonReaderBuilder {
            cut: Cutting {
                threads: swath::parallel::available_cores(),
                chunk: DEFAULT_CHUNK,
                max_line: DEFAULT_MAX_LINE,
            },
            batch_size: DEFAULT_BATCH_SIZE,
            infer: Infer::default(),
            records: Records::Auto,
            on_bad: OnBad::Fail,
        }
    }

    /// What to do with a record that is not one JSON object or whose value
    /// does not fit its field: fail there ([`OnBad::Fail`], the default),
    /// or put it aside and read on ([`OnBad::PutAside`]; the records go to
    /// [`for_each_batch_with_bad`](Self::for_each_batch_with_bad)'s
    /// `aside`). Errors of the input itself (reading, a line over the
    /// limit, a document's framing) still stop the read.
    pub fn on_bad(&mut self, on_bad: OnBad) -> &mut Self {
        self.on_bad = on_bad;
        self
    }

    /// Whether broken records are put aside.
    pub fn puts_aside(&self) -> bool {
        self.on_bad == OnBad::PutAside
    }

    /// Where the records are ([`Records::Auto`] by default: decided from
    /// the first bytes).
    pub fn records(&mut self, records: Records) -> &mut Self {
        self.records = records;
        self
    }

    /// Where the records are asked to be.
    pub fn records_asked(&self) -> &Records {
        &self.records
    }

    /// Where the records of a ranged input are (`None` for a stream: its
    /// first bytes decide when it is read).
    ///
    /// # Errors
    ///
    /// Reading; the records asked for are not there.
    pub fn shape(&self, src: &Source) -> Result<Option<Shape>> {
        match (src.ranged_source(), src.len()) {
            (Some(file), Some(len)) => {
                crate::records::shape_of(file, len, &self.records, self.cut.max_line)
                    .map(Some)
                    .map_err(|e| crate::records::named(src.path(), e))
            }
            _ => Ok(None),
        }
    }

    /// Run `work` over the records of `src` in chunks, and hand each result
    /// in file order to `consume` with the lines before the chunk
    /// ([`crate::records::for_each_chunk`] with this builder's cutting and
    /// records).
    ///
    /// # Errors
    ///
    /// As [`crate::records::for_each_chunk`].
    pub fn for_each_chunk<T, W, C>(&self, src: &mut Source, work: W, consume: C) -> Result<Shape>
    where
        T: Send,
        W: Fn(&mut Lines<'_>) -> T + Sync,
        C: FnMut(T, u64) -> Result<bool>,
    {
        crate::records::for_each_chunk::<T, Error, W, C>(
            src,
            self.cut,
            &self.records,
            work,
            consume,
        )
    }

    /// Threads (0: every core; 1: sequential).
    pub fn threads(&mut self, n: usize) -> &mut Self {
        self.cut.threads = if n == 0 { swath::parallel::available_cores() } else { n };
        self
    }

    /// Bytes per chunk (at least 1).
    pub fn chunk_size(&mut self, bytes: u64) -> &mut Self {
        self.cut.chunk = bytes.max(1);
        self
    }

    /// The longest line allowed, newline included.
    pub fn max_line_len(&mut self, bytes: usize) -> &mut Self {
        self.cut.max_line = bytes.max(1);
        self
    }

    /// Rows per batch at most (batches also end with each chunk).
    pub fn batch_size(&mut self, rows: usize) -> &mut Self {
        self.batch_size = rows.max(1);
        self
    }

    /// How [`JsonReaderBuilder::infer_schema`] samples.
    pub fn infer(&mut self, infer: Infer) -> &mut Self {
        self.infer = infer;
        self
    }

    /// How the input is cut (for [`swath::line_chunks::for_each_chunk`]).
    pub fn cutting(&self) -> Cutting {
        self.cut
    }

    /// The threads for a ranged input.
    pub fn thread_count(&self) -> usize {
        self.cut.threads
    }

    /// The reading mode for `src`: parallel on a ranged input, else one
    /// thread.
    pub fn mode(&self, src: &Source) -> &'static str {
        if src.ranged_source().is_some() && self.cut.threads > 1 {
            "parallel"
        } else {
            "sequential"
        }
    }

    /// Infer the schema of `path`'s lines: the head and lines spread over
    /// the file, or every line ([`Infer::Full`]). A stream gives its head;
    /// reading it again then needs the bytes replayed
    /// ([`JsonReaderBuilder::infer_and_replay`]).
    ///
    /// # Errors
    ///
    /// Opening or reading the input; with [`Infer::Full`], the first line
    /// that is not one JSON object.
    pub fn infer_schema(&self, path: impl AsRef<std::path::Path>) -> Result<Inferred> {
        let mut src = Source::open(path.as_ref())?;
        let (inferred, _) = self.infer_source(&mut src, false)?;
        Ok(inferred)
    }

    /// Infer the schema from `src` and give back a source that reads it
    /// from its start: the same for a ranged input, the head replayed in
    /// front of the rest for a stream.
    ///
    /// # Errors
    ///
    /// As [`JsonReaderBuilder::infer_schema`].
    pub fn infer_and_replay(&self, mut src: Source) -> Result<(Inferred, Source)> {
        let (inferred, head) = self.infer_source(&mut src, true)?;
        if matches!(self.infer, Infer::Full) && src.ranged_source().is_none() {
            // A compressed file, read to its end: opened again.
            let path = src.path().map(|p| p.to_path_buf()).unwrap_or_default();
            return Ok((inferred, Source::open(path)?));
        }
        match head {
            Some(head) => {
                let name = src.path().map(|p| p.to_path_buf());
                let chained = std::io::Cursor::new(head).chain(src);
                Ok((inferred, Source::from_reader(chained, name)))
            }
            None => Ok((inferred, src)),
        }
    }

    fn infer_source(
        &self,
        src: &mut Source,
        keep_head: bool,
    ) -> Result<(Inferred, Option<Vec<u8>>)> {
        let path = src.path().map(|p| p.to_path_buf());
        match self.infer {
            Infer::Full if src.ranged_source().is_none() && keep_head && !reopenable(src) => {
                // Every line read first, then every line again: a stream
                // cannot be read twice, and keeping it whole would not be
                // flat memory.
                Err(Error::Schema(format!(
                    "{}: inferring from every line reads the input twice; a stream (a pipe, \
                     gzip, zstd) cannot be: give the schema, or infer from its head",
                    src.name()
                )))
            }
            Infer::Full => {
                let mut all = Inference::default();
                let mut fail = None;
                let shape = self.for_each_chunk(
                    src,
                    |lines| {
                        let mut inf = Inference::default();
                        while let Some(line) = lines.next_line() {
                            if let Err(e) = inf.see(line.bytes) {
                                let rec = inf.lines + 1;
                                let bad = Bad::of(line.bytes, e);
                                return (inf, Some((line_at(&line, &bad), rec, line.offset, bad)));
                            }
                        }
                        (inf, None)
                    },
                    |(inf, bad), lines_before| {
                        let records_before = all.lines;
                        all.join(inf);
                        if let Some((i, rec, off, bad)) = bad {
                            fail = Some(line_error(
                                &path,
                                lines_before + i + 1,
                                records_before + rec,
                                off,
                                &bad,
                            ));
                            return Ok(false);
                        }
                        Ok(true)
                    },
                )?;
                if let Some(e) = fail {
                    return Err(e);
                }
                Ok((inferred(all, true, shape), None))
            }
            Infer::Sample { head, points, per_point } => {
                let mut inf = Inference::default();
                let mut head_bytes = Vec::new();
                if let (Some(file), Some(len)) = (src.ranged_source(), src.len()) {
                    let shape =
                        crate::records::shape_of(file, len, &self.records, self.cut.max_line)
                            .map_err(|e| crate::records::named(path.as_deref(), e))?;
                    if shape == Shape::Lines {
                        sample_ranged(
                            file,
                            len,
                            head,
                            points,
                            per_point,
                            self.cut.max_line,
                            self.thread_count(),
                            &mut inf,
                        )?;
                    } else {
                        sample_document(file, len, &shape, head, self.cut.max_line, &mut inf)?;
                    }
                    Ok((inferred(inf, false, shape), None))
                } else {
                    // A stream: its head (at least the window that decides
                    // where the records are), kept to be replayed.
                    let mut buf = [0u8; 64 * 1024];
                    let mut seen = 0usize;
                    let mut eof = false;
                    let cap = self.cut.max_line.max(crate::records::DETECT_WINDOW);
                    while (seen < head || head_bytes.len() < crate::records::DETECT_WINDOW)
                        && head_bytes.len() < cap
                    {
                        if !read_more(src, &mut buf, &mut head_bytes)? {
                            eof = true;
                            break;
                        }
                        seen = head_bytes.iter().filter(|&&b| b == b'\n').count();
                    }
                    let shape = crate::records::shape_in_head(&self.records, &head_bytes, eof);
                    // A document: on until `head` records are whole in the
                    // head (a first record longer than the window too), up
                    // to the record limit; framed again each time the head
                    // doubles.
                    while shape != Shape::Lines && !eof && head_bytes.len() < cap {
                        let spans = crate::records::spans_in(&shape, &head_bytes, eof);
                        if spans.len() >= head {
                            break;
                        }
                        let target = (head_bytes.len() * 2).min(cap);
                        while head_bytes.len() < target {
                            if !read_more(src, &mut buf, &mut head_bytes)? {
                                eof = true;
                                break;
                            }
                        }
                    }
                    if shape == Shape::Lines {
                        let body = head_bytes.strip_prefix(swath::UTF8_BOM).unwrap_or(&head_bytes);
                        for (i, line) in body.split(|&b| b == b'\n').enumerate() {
                            if i >= head {
                                break;
                            }
                            // A bad line is the reader's to report, with its place.
                            let _ = inf.see(line);
                        }
                    } else {
                        for span in
                            crate::records::spans_in(&shape, &head_bytes, eof).iter().take(head)
                        {
                            let _ = inf.see(&head_bytes[span.start..span.end]);
                        }
                    }
                    Ok((inferred(inf, false, shape), keep_head.then_some(head_bytes)))
                }
            }
            _ => Err(Error::Schema("this way of inferring is not supported for JSON".into())),
        }
    }

    /// Decode every line of `src` into batches of `schema` and hand them to
    /// `f` in file order. Returns the objects read. Records put aside
    /// ([`on_bad`](Self::on_bad)) are dropped: see
    /// [`for_each_batch_with_bad`](Self::for_each_batch_with_bad).
    ///
    /// # Errors
    ///
    /// The first problem a sequential read meets (a line that is not one
    /// object, a value that does not fit, a line over the limit, a read
    /// error), after the batches before it went to `f`; or `f`'s error.
    pub fn for_each_batch(
        &self,
        src: &mut Source,
        schema: SchemaRef,
        f: impl FnMut(RecordBatch) -> Result<()>,
    ) -> Result<u64> {
        self.for_each_batch_with_bad(src, schema, f, |_| Ok(()))
    }

    /// [`for_each_batch`](Self::for_each_batch), handing the records put
    /// aside to `aside` in file order, each chunk's after its batches.
    /// Returns the objects read (those put aside not among them).
    ///
    /// # Errors
    ///
    /// As [`for_each_batch`](Self::for_each_batch); `aside`'s errors.
    pub fn for_each_batch_with_bad(
        &self,
        src: &mut Source,
        schema: SchemaRef,
        mut f: impl FnMut(RecordBatch) -> Result<()>,
        mut aside: impl FnMut(Vec<BadRecord>) -> Result<()>,
    ) -> Result<u64> {
        // The schema's types are checked once, here.
        Decoder::new(schema.clone())?;
        let path = src.path().map(|p| p.to_path_buf());
        let batch_size = self.batch_size;
        let puts_aside = self.puts_aside();
        // Objects read, and records put aside.
        let (mut records, mut set_aside) = (0u64, 0u64);
        let mut fail = None;
        self.for_each_chunk(
            src,
            |lines| decode_chunk(lines, &schema, batch_size, puts_aside),
            |out, lines_before| {
                for b in out.batches {
                    f(b)?;
                }
                let before = records + set_aside;
                if let Some((i, rec, off, bad)) = out.bad {
                    fail = Some(line_error(&path, lines_before + i + 1, before + rec, off, &bad));
                    return Ok(false);
                }
                if !out.aside.is_empty() {
                    set_aside += out.aside.len() as u64;
                    aside(out.aside.place(lines_before, before))?;
                }
                records += out.records;
                Ok(true)
            },
        )?;
        fail.map_or(Ok(records), Err)
    }

    /// The batches of the lines that start in `range` of a ranged input
    /// (`file`, of length `len`), read on the calling thread a chunk at a
    /// time: for an engine that splits files into byte ranges (any cut is
    /// exact, every line start being a record start). `name` is the input's
    /// name in errors.
    ///
    /// # Errors
    ///
    /// A schema the decoder cannot build.
    pub fn range_batches(
        &self,
        file: Arc<dyn swath::ReadAt>,
        len: u64,
        range: std::ops::Range<u64>,
        schema: SchemaRef,
        name: Option<PathBuf>,
    ) -> Result<RangeBatches> {
        Decoder::new(schema.clone())?;
        let end = range.end.min(len);
        let shape = crate::records::shape_of(&*file, len, &self.records, self.cut.max_line)
            .map_err(|e| crate::records::named(name.as_deref(), e))?;
        let doc = (shape != Shape::Lines).then(|| {
            let chunk = usize::try_from(self.cut.chunk).unwrap_or(usize::MAX).min(1 << 30);
            let rdr = crate::records::DocRange::new(
                file.clone(),
                len,
                shape.clone(),
                range.clone(),
                chunk,
                self.cut.max_line,
            );
            (rdr, shape)
        });
        Ok(RangeBatches {
            file,
            len,
            next: range.start.min(end),
            end,
            cut: self.cut,
            schema,
            batch_size: self.batch_size,
            queue: std::collections::VecDeque::new(),
            pending: None,
            spare: Vec::new(),
            name,
            doc,
            spans: Vec::new(),
        })
    }

    /// Cut a ranged input into at most `share` byte ranges for
    /// [`JsonReaderBuilder::range_batches`], each starting where its first
    /// record starts: even cuts for lines (any cut is exact), cuts moved to
    /// the next record by the parity-and-depth chain for a document.
    ///
    /// # Errors
    ///
    /// Reading; the records asked for are not there.
    pub fn record_ranges(
        &self,
        file: &dyn swath::ReadAt,
        len: u64,
        share: usize,
    ) -> Result<Vec<std::ops::Range<u64>>> {
        let share = (share as u64).clamp(1, len.max(1));
        let shape = crate::records::shape_of(file, len, &self.records, self.cut.max_line)?;
        match shape {
            Shape::Lines => {
                Ok((0..share).map(|i| len * i / share..len * (i + 1) / share).collect())
            }
            shape => crate::records::record_ranges(
                file,
                len,
                &shape,
                share as usize,
                self.cut.threads,
                self.cut.max_line,
            ),
        }
    }

    /// Count the objects of `src`, checking that every line is one.
    ///
    /// # Errors
    ///
    /// The first line that is not one JSON object, reading errors.
    pub fn count(&self, src: &mut Source) -> Result<Counted> {
        let path = src.path().map(|p| p.to_path_buf());
        let mut total = Counted::default();
        let mut fail = None;
        self.for_each_chunk(
            src,
            |lines| {
                let mut records = 0u64;
                while let Some(line) = lines.next_line() {
                    if is_blank(line.bytes) {
                        continue;
                    }
                    match crate::scan::validate_object(line.bytes) {
                        Ok(()) => records += 1,
                        Err(e) => {
                            let bad = Bad::of(line.bytes, e);
                            return (records, 0, Some((line_at(&line, &bad), line.offset, bad)));
                        }
                    }
                }
                (records, lines.handed_out(), None)
            },
            |(records, lines, bad), lines_before| {
                if let Some((i, off, bad)) = bad {
                    let rec = total.records + records + 1;
                    fail = Some(line_error(&path, lines_before + i + 1, rec, off, &bad));
                    return Ok(false);
                }
                total.records += records;
                total.lines = lines_before + lines;
                Ok(true)
            },
        )?;
        fail.map_or(Ok(total), Err)
    }

    /// Every record of `src` in file order, each checked as
    /// [`count`](Self::count) checks it, handed to `each` with its number
    /// (1-based) and its bytes; `each` returns false to stop reading. For
    /// input read front to back (a compressed file, a stream), where the
    /// commands that start at a record in the middle cannot.
    ///
    /// # Errors
    ///
    /// As [`count`](Self::count), for the records up to where `each`
    /// stopped: the records before a bad one were handed out.
    pub fn for_each_record(
        &self,
        src: &mut Source,
        mut each: impl FnMut(u64, &[u8]) -> bool,
    ) -> Result<Shape> {
        let path = src.path().map(|p| p.to_path_buf());
        let mut records = 0u64;
        let mut fail = None;
        let shape = self.for_each_chunk(
            src,
            |lines| {
                // The chunk's records end to end, and where each ends.
                let (mut bytes, mut ends) = (Vec::new(), Vec::new());
                while let Some(line) = lines.next_line() {
                    if is_blank(line.bytes) {
                        continue;
                    }
                    match crate::scan::validate_object(line.bytes) {
                        Ok(()) => {
                            bytes.extend_from_slice(line.bytes);
                            ends.push(bytes.len());
                        }
                        Err(e) => {
                            let bad = Bad::of(line.bytes, e);
                            let at = Some((line_at(&line, &bad), line.offset, bad));
                            return (bytes, ends, at);
                        }
                    }
                }
                (bytes, ends, None)
            },
            |(bytes, ends, bad), lines_before| {
                let mut start = 0;
                for end in ends {
                    records += 1;
                    if !each(records, &bytes[start..end]) {
                        return Ok(false);
                    }
                    start = end;
                }
                if let Some((i, off, bad)) = bad {
                    fail = Some(line_error(&path, lines_before + i + 1, records + 1, off, &bad));
                    return Ok(false);
                }
                Ok(true)
            },
        )?;
        fail.map_or(Ok(shape), Err)
    }

    /// Check every line of `src`: one JSON object, and with `schema`, values
    /// that fit it. Every problem goes to `problem` in file order (it
    /// returns false to stop).
    ///
    /// # Errors
    ///
    /// Reading errors, a line over the limit, a schema the decoder cannot
    /// build.
    pub fn check(
        &self,
        src: &mut Source,
        schema: Option<SchemaRef>,
        mut problem: impl FnMut(Problem) -> bool,
    ) -> Result<Counted> {
        if let Some(s) = &schema {
            Decoder::new(s.clone())?;
        }
        let mut total = Counted::default();
        self.for_each_chunk(
            src,
            |lines| {
                let mut found = Vec::new();
                let mut records = 0u64;
                let mut dec = schema.as_ref().and_then(|s| Decoder::new(s.clone()).ok());
                while let Some(line) = lines.next_line() {
                    let res = match &mut dec {
                        Some(d) => {
                            let r = d.line(line.bytes);
                            // Nothing is kept: drop the rows now and then
                            // (a bad line leaves none of itself).
                            if d.rows() >= 4096 {
                                d.reset();
                            }
                            r
                        }
                        None if is_blank(line.bytes) => Ok(false),
                        None => crate::scan::validate_object(line.bytes)
                            .map(|()| true)
                            .map_err(|e| Bad::of(line.bytes, e)),
                    };
                    match res {
                        Ok(false) => {}
                        Ok(true) => records += 1,
                        Err(bad) => {
                            records += 1;
                            found.push((line_at(&line, &bad), records, line.offset, bad));
                        }
                    }
                }
                (found, records, lines.handed_out())
            },
            |(found, records, lines), lines_before| {
                for (i, rec, off, bad) in found {
                    let pos = Position::new(
                        off + bad.at() as u64,
                        lines_before + i + 1,
                        total.records + rec,
                    );
                    if !problem(Problem {
                        pos,
                        field: bad.field(),
                        reason: bad.reason().to_string(),
                    }) {
                        return Ok(false);
                    }
                }
                total.records += records;
                total.lines = lines_before + lines;
                Ok(true)
            },
        )?;
        Ok(total)
    }
}

/// Append one read of `src` (through `piece`) to `head`; false at its end.
fn read_more(src: &mut Source, piece: &mut [u8], head: &mut Vec<u8>) -> Result<bool> {
    loop {
        match src.read(piece) {
            Ok(0) => return Ok(false),
            Ok(n) => {
                head.extend_from_slice(&piece[..n]);
                return Ok(true);
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::Read(swath::Error::from(e))),
        }
    }
}

/// A compressed regular file: read by a stream, but it can be opened again.
fn reopenable(src: &Source) -> bool {
    src.path().is_some_and(|p| p != std::path::Path::new("-") && p.is_file())
}

/// A line of whitespace only: no record. (Stops at the first other byte,
/// the `{` of every real line.)
pub(crate) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}

fn decode_chunk(
    lines: &mut Lines<'_>,
    schema: &SchemaRef,
    batch_size: usize,
    puts_aside: bool,
) -> Decoded {
    let mut out =
        Decoded { batches: Vec::new(), records: 0, aside: ChunkAside::default(), bad: None };
    let mut dec = match Decoder::new(schema.clone()) {
        Ok(d) => d,
        Err(_) => return out,
    };
    while let Some(line) = lines.next_line() {
        // The chunk's records so far, those put aside counted.
        let seen = out.records + out.aside.len() as u64;
        match dec.line(line.bytes) {
            Ok(true) => {
                out.records += 1;
                if dec.rows() == batch_size {
                    match dec.finish() {
                        Ok(b) => out.batches.push(b),
                        Err(e) => {
                            out.bad = Some((line.index, seen + 1, line.offset, arrow_bad(e)));
                            return out;
                        }
                    }
                }
            }
            Ok(false) => {}
            // The decoder dropped what it had of the line.
            Err(bad) if puts_aside => out.aside.push(&line, seen + 1, bad),
            Err(bad) => {
                out.bad = Some((line_at(&line, &bad), seen + 1, line.offset, bad));
                return out;
            }
        }
    }
    if dec.rows() > 0 {
        let seen = out.records + out.aside.len() as u64;
        match dec.finish() {
            Ok(b) => out.batches.push(b),
            Err(e) => out.bad = Some((0, seen, 0, arrow_bad(e))),
        }
    }
    out
}

/// The line (in its chunk) of `bad`'s byte in `line`, a record that may
/// span lines (a pretty-printed one).
pub fn line_at(line: &swath::line_chunks::Line<'_>, bad: &Bad) -> u64 {
    let upto = bad.at().min(line.bytes.len());
    line.index + memchr::memchr_iter(b'\n', &line.bytes[..upto]).count() as u64
}

fn arrow_bad(e: arrow_schema::ArrowError) -> Bad {
    Bad::Value { at: 0, reason: e.to_string(), path: Vec::new() }
}

fn line_error(path: &Option<PathBuf>, line: u64, record: u64, offset: u64, bad: &Bad) -> Error {
    Error::Line {
        path: path.clone(),
        pos: Position::new(offset + bad.at() as u64, line, record),
        field: bad.field(),
        reason: bad.reason().to_string(),
    }
}

fn inferred(inf: Inference, full: bool, shape: Shape) -> Inferred {
    Inferred {
        schema: Arc::new(schema_of(&inf.root)),
        root: inf.root,
        lines: inf.lines,
        full,
        shape,
    }
}

/// The head and `points` places spread over the rest of a ranged input
/// ([`swath::sample::Spread`], on up to `threads` threads), each read in a
/// window of its own: up to `per_point` lines that start in the place's
/// gap, so no line is seen twice; a place's first (partial) line and any
/// line the window cuts are not seen. A line longer than the window in the
/// head is read whole (up to the line limit): a field that only a long
/// first line has must not be missed.
#[allow(clippy::too_many_arguments)]
fn sample_ranged(
    file: &dyn swath::ReadAt,
    len: u64,
    head: usize,
    points: usize,
    per_point: usize,
    max_line: usize,
    threads: usize,
    inf: &mut Inference,
) -> Result<()> {
    let window = (1usize << 20).min(max_line.max(64 * 1024));
    let mut buf = vec![0u8; window];
    // The head: windows from the start until `head` objects.
    let mut at = 0u64;
    let mut seen = 0usize;
    while seen < head && at < len {
        let n = read_full_at(file, &mut buf, at).map_err(|e| Error::Read(e.into()))?;
        let bytes = &buf[..n];
        let body =
            if at == 0 { bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes) } else { bytes };
        let skipped = bytes.len() - body.len();
        let whole = if at + (n as u64) < len {
            memchr::memrchr(b'\n', body).map_or(0, |i| i + 1)
        } else {
            body.len()
        };
        if whole == 0 {
            // A line longer than the window: read it whole, or leave it
            // to the reader, which reports a line over the limit.
            let from = at + skipped as u64;
            match long_line(file, len, from, max_line)? {
                Some(line) => {
                    if inf.see(&line).is_ok() && !is_blank(&line) {
                        seen += 1;
                    }
                    at = from + line.len() as u64 + 1;
                    continue;
                }
                None => break,
            }
        }
        // Up to the head's last line: the places spread over what follows.
        let mut used = 0;
        for line in body[..whole].split_inclusive(|&b| b == b'\n') {
            if seen >= head {
                break;
            }
            used += line.len();
            let line = line.strip_suffix(b"\n").unwrap_or(line);
            if inf.see(line).is_ok() && !is_blank(line) {
                seen += 1;
            }
        }
        at += (skipped + used) as u64;
    }
    // The places, spread over the bytes after the head's lines.
    let spread = swath::sample::Spread::new(at, len, points);
    let found = spread.visit(
        threads,
        || vec![0u8; window],
        |buf, gap| -> Result<_> {
            // From the byte before the place: a line that starts right at it
            // is seen whole.
            let from = gap.start.saturating_sub(1);
            let n = read_full_at(file, buf, from).map_err(|e| Error::Read(e.into()))?;
            let bytes = &buf[..n];
            let first = if gap.start == 0 {
                bytes.strip_prefix(swath::UTF8_BOM).map_or(0, |_| swath::UTF8_BOM.len())
            } else {
                match memchr::memchr(b'\n', bytes) {
                    Some(i) => i + 1,
                    None => return Ok(None),
                }
            };
            let rest = &bytes[first..];
            let whole = if from + (n as u64) < len {
                memchr::memrchr(b'\n', rest).map_or(0, |i| i + 1)
            } else {
                rest.len()
            };
            let mut start = from + first as u64;
            let mut mine = Inference::default();
            for line in rest[..whole].split_inclusive(|&b| b == b'\n').take(per_point) {
                // A line that starts in the next gap is the next place's.
                if start >= gap.end {
                    break;
                }
                start += line.len() as u64;
                // A bad line is the reader's to report, with its place.
                let _ = mine.see(line.strip_suffix(b"\n").unwrap_or(line));
            }
            Ok(Some(mine))
        },
    )?;
    for mine in found {
        inf.join(mine);
    }
    Ok(())
}

/// The first `head` records of a document (its records framed from the
/// start, in a window that grows up to the record limit). Places spread
/// over a document would need the chain's state at each: a later pass.
fn sample_document(
    file: &dyn swath::ReadAt,
    len: u64,
    shape: &Shape,
    head: usize,
    max_line: usize,
    inf: &mut Inference,
) -> Result<()> {
    let mut size = (1usize << 20).min(len as usize);
    loop {
        let mut buf = vec![0u8; size];
        let n = read_full_at(file, &mut buf, 0).map_err(|e| Error::Read(e.into()))?;
        buf.truncate(n);
        let eof = n as u64 >= len;
        let spans = crate::records::spans_in(shape, &buf, eof);
        if spans.len() >= head || eof || size >= max_line {
            for span in spans.iter().take(head) {
                // A bad record is the reader's to report, with its place.
                let _ = inf.see(&buf[span.start..span.end]);
            }
            return Ok(());
        }
        size = (size * 4).min(max_line.max(size + 1));
    }
}

/// The line that starts at `from` and is longer than a sampling window:
/// read whole when it ends within `max_line` bytes (newline excluded from
/// what is returned; the input's end ends it too), else `None`.
fn long_line(
    file: &dyn swath::ReadAt,
    len: u64,
    from: u64,
    max_line: usize,
) -> Result<Option<Vec<u8>>> {
    let mut line = Vec::new();
    let mut piece = vec![0u8; 1 << 20];
    let mut at = from;
    while at < len && line.len() < max_line {
        let want = piece.len().min(max_line - line.len());
        let n = read_full_at(file, &mut piece[..want], at).map_err(|e| Error::Read(e.into()))?;
        if n == 0 {
            break;
        }
        if let Some(i) = memchr::memchr(b'\n', &piece[..n]) {
            line.extend_from_slice(&piece[..i]);
            return Ok(Some(line));
        }
        line.extend_from_slice(&piece[..n]);
        at += n as u64;
    }
    Ok((at >= len).then_some(line))
}

/// [`JsonReaderBuilder::range_batches`]: batches in file order, pulled one
/// at a time; an error comes after the batches before it.
pub struct RangeBatches {
    file: Arc<dyn swath::ReadAt>,
    len: u64,
    /// The next chunk's nominal start, and the range's end.
    next: u64,
    end: u64,
    cut: Cutting,
    schema: SchemaRef,
    batch_size: usize,
    queue: std::collections::VecDeque<RecordBatch>,
    /// The error to give once the queue is empty.
    pending: Option<Error>,
    spare: Vec<u8>,
    name: Option<PathBuf>,
    /// A document's range: its reader and where the records are.
    doc: Option<(crate::records::DocRange, Shape)>,
    spans: Vec<swath::line_chunks::Span>,
}

impl std::fmt::Debug for RangeBatches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RangeBatches").field("next", &self.next).field("end", &self.end).finish()
    }
}

impl RangeBatches {
    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// The next batch, or `None` at the range's end.
    ///
    /// # Errors
    ///
    /// A line that is not one object or does not fit the schema, a line
    /// over the limit, a read error; with the record and line found by
    /// reading the file up to it ([`swath::line_chunks::locate`]).
    pub fn next_batch(&mut self) -> Result<Option<RecordBatch>> {
        if self.doc.is_some() {
            return self.next_doc_batch();
        }
        loop {
            if let Some(b) = self.queue.pop_front() {
                return Ok(Some(b));
            }
            if let Some(e) = self.pending.take() {
                self.next = self.end;
                return Err(e);
            }
            if self.next >= self.end {
                return Ok(None);
            }
            let stop = (self.next + self.cut.chunk).min(self.end);
            let spare = std::mem::take(&mut self.spare);
            let piece =
                read_chunk(&*self.file, self.len, self.next..stop, self.cut.max_line, spare)
                    .map_err(|e| self.named(e.into()))?;
            self.next = stop;
            let mut lines = piece.lines(self.cut.max_line);
            let out = decode_chunk(&mut lines, &self.schema, self.batch_size, false);
            let stopped = piece.stopped_at(&lines);
            self.spare = piece.buf;
            self.queue.extend(out.batches);
            if let Some((_, _, off, bad)) = out.bad {
                let (line, before) = locate(&*self.file, off).map_err(|e| self.named(e.into()))?;
                self.pending = Some(line_error(&self.name, line, before + 1, off, &bad));
            } else if let Some(byte) = stopped {
                let (line, _) = locate(&*self.file, byte).map_err(|e| self.named(e.into()))?;
                let e =
                    swath::Error::new(swath::ErrorKind::LineTooLong { limit: self.cut.max_line });
                self.pending = Some(self.named(Error::Read(e.at(Position::new(byte, line, 0)))));
            }
        }
    }

    /// [`RangeBatches::next_batch`] for a document's range.
    fn next_doc_batch(&mut self) -> Result<Option<RecordBatch>> {
        loop {
            if let Some(b) = self.queue.pop_front() {
                return Ok(Some(b));
            }
            if let Some(e) = self.pending.take() {
                self.doc = None;
                self.next = self.end;
                return Err(e);
            }
            let Some((doc, shape)) = &mut self.doc else { return Ok(None) };
            let mut spans = std::mem::take(&mut self.spans);
            let (file, len) = (&*self.file, self.len);
            let mut fail = None;
            match doc.next_piece(&mut spans) {
                Ok(None) => {
                    self.spans = spans;
                    return Ok(None);
                }
                Ok(Some(piece)) => {
                    let mut lines = Lines::framed(piece.bytes, piece.offset, piece.spans, 0);
                    let out = decode_chunk(&mut lines, &self.schema, self.batch_size, false);
                    self.queue.extend(out.batches);
                    if let Some((_, _, off, bad)) = out.bad {
                        let at = off + bad.at() as u64;
                        fail = Some(match crate::records::position(file, len, shape, off, at) {
                            Ok(pos) => Error::Line {
                                path: self.name.clone(),
                                pos,
                                field: bad.field(),
                                reason: bad.reason().to_string(),
                            },
                            Err(e) => e,
                        });
                    }
                }
                Err((at, reason, in_record)) => {
                    let pos = if in_record {
                        crate::records::position(file, len, shape, at, at)
                    } else {
                        crate::records::position_after(file, len, shape, at)
                    };
                    fail = Some(match pos {
                        Ok(pos) => {
                            Error::Line { path: self.name.clone(), pos, field: None, reason }
                        }
                        Err(e) => e,
                    });
                }
            }
            self.spans = spans;
            if let Some(e) = fail {
                self.pending = Some(self.named(e));
            }
        }
    }

    fn named(&self, e: Error) -> Error {
        match (e, &self.name) {
            (Error::Read(r), Some(p)) if r.path().is_none() => Error::Read(r.with_path(p)),
            (e, _) => e,
        }
    }
}

impl Iterator for RangeBatches {
    type Item = std::result::Result<RecordBatch, arrow_schema::ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch().map_err(Into::into).transpose()
    }
}

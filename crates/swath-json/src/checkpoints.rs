//! Record starts with their numbers (checkpoints), made by one checking
//! pass on every core, and the records read again from any one of them:
//! what `json index`, `slice`, `tail`, `sample` and `split` start from.
//! JSON lines and a document's records alike: a checkpoint of a document
//! is the first byte of one of its records, so reading from it needs no
//! scan of what comes before (the framer starts there at the records'
//! depth, outside a string).

use std::path::Path;
use std::sync::Arc;

use swath::index::{Checkpoint, FileIdentity, Index, IndexKind};
use swath::{Position, ReadAt, Source};

use crate::decode::Bad;
use crate::error::{Error, Result};
use crate::records::{DocRange, Shape};
use crate::JsonReaderBuilder;

/// Where the records of one input are: its shape, its record and line
/// counts, and a record start every chunk (the first is the top of the
/// input, `0 1 1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordPlan {
    /// Where the records are.
    pub shape: Shape,
    /// Records (objects; blank lines of JSON lines are none).
    pub records: u64,
    /// Record starts in file order, strictly increasing in byte and
    /// record; the first is `0 1 1`.
    pub checkpoints: Vec<Checkpoint>,
}

/// A record read from a checkpoint: its 1-based number, its first byte
/// and its text (a JSON-lines record without its newline).
#[derive(Clone, Copy, Debug)]
pub struct Found<'a> {
    /// The record's number.
    pub record: u64,
    /// Its first byte's offset.
    pub byte: u64,
    /// Its bytes.
    pub bytes: &'a [u8],
}

/// The index's `dialect` for records found as `shape`: an index is used
/// only where the same records are found again.
pub fn dialect(shape: &Shape) -> String {
    match shape {
        Shape::Lines => "records=lines".into(),
        Shape::Values { start } => format!("records=values start={start}"),
        Shape::Array { path, start } => {
            let path = if path.is_empty() { "$".to_string() } else { path.join(".") };
            format!("records=array start={start} path={path}")
        }
    }
}

impl RecordPlan {
    /// The last checkpoint at or before record `record`.
    pub fn before(&self, record: u64) -> Checkpoint {
        let i = self.checkpoints.partition_point(|c| c.record <= record);
        self.checkpoints[i.saturating_sub(1)]
    }

    /// The checkpoint index of this plan, for the file `identity` names.
    pub fn to_index(&self, identity: FileIdentity) -> Index {
        Index {
            kind: IndexKind::Json,
            identity,
            dialect: dialect(&self.shape),
            records: self.records,
            checkpoints: self.checkpoints.clone(),
            gzip: None,
        }
    }

    /// The plan an index holds, for records found as `shape` (the caller
    /// checked the index against the file and [`dialect`]).
    pub fn from_index(index: Index, shape: Shape) -> RecordPlan {
        RecordPlan { shape, records: index.records, checkpoints: index.checkpoints }
    }
}

impl JsonReaderBuilder {
    /// One pass over `src` that checks every record (one JSON object) and
    /// notes the first record start of every chunk (the builder's chunk
    /// size) with its record and line numbers.
    ///
    /// # Errors
    ///
    /// The first record that is not one JSON object, with its place;
    /// reading.
    pub fn plan(&self, src: &mut Source) -> Result<RecordPlan> {
        let path = src.path().map(|p| p.to_path_buf());
        let mut records = 0u64;
        let mut checkpoints = vec![Checkpoint { byte: 0, record: 1, line: 1 }];
        let mut fail = None;
        let shape = self.for_each_chunk(
            src,
            |lines| {
                let (mut n, mut first) = (0u64, None);
                while let Some(line) = lines.next_line() {
                    if crate::reader::is_blank(line.bytes) {
                        continue;
                    }
                    if let Err(e) = crate::scan::validate_object(line.bytes) {
                        let bad = Bad::of(line.bytes, e);
                        let at = crate::line_at(&line, &bad);
                        return (n, first, Some((at, line.offset, bad)));
                    }
                    first.get_or_insert((line.offset, line.index));
                    n += 1;
                }
                (n, first, None)
            },
            |(n, first, bad), lines_before| {
                if let Some((i, offset, bad)) = bad {
                    fail = Some(Error::Line {
                        path: path.clone(),
                        pos: Position::new(
                            offset + bad.at() as u64,
                            lines_before + i + 1,
                            records + n + 1,
                        ),
                        field: bad.field(),
                        reason: bad.reason().to_string(),
                    });
                    return Ok(false);
                }
                if let Some((byte, index)) = first {
                    // The first record's checkpoint is the top of the input.
                    if records > 0 {
                        let line = lines_before + index + 1;
                        checkpoints.push(Checkpoint { byte, record: records + 1, line });
                    }
                }
                records += n;
                Ok(true)
            },
        )?;
        match fail {
            Some(e) => Err(e),
            None => Ok(RecordPlan { shape, records, checkpoints }),
        }
    }

    /// The records of `file` (of `len` bytes, records as `shape` says)
    /// from checkpoint `from` on, in file order, to `each` until it
    /// returns false. Each is checked (one JSON object) before it is
    /// handed out; `name` names the input in errors.
    ///
    /// # Errors
    ///
    /// Reading; a record that is not one object, or bytes between records
    /// that are not what the shape wants, with the record's number and
    /// byte (and its line, found by reading from the top, only then).
    pub fn records_from(
        &self,
        file: Arc<dyn ReadAt>,
        len: u64,
        shape: &Shape,
        from: Checkpoint,
        name: Option<&Path>,
        mut each: impl FnMut(Found<'_>) -> Result<bool>,
    ) -> Result<()> {
        let chunk = usize::try_from(self.cut.chunk).unwrap_or(usize::MAX).clamp(1, 1 << 30);
        let max_line = self.cut.max_line;
        let named = |e: Error| crate::records::named(name, e);
        let mut record = from.record;
        let check = |bytes: &[u8], byte: u64, record: u64| -> Result<()> {
            crate::scan::validate_object(bytes).map_err(|e| {
                let bad = Bad::of(bytes, e);
                let at = byte + bad.at() as u64;
                self.error_at(&*file, len, shape, name, at, byte, record, bad.reason())
            })
        };
        if *shape == Shape::Lines {
            let mut lines = LinesFrom::new(&*file, len, from.byte, chunk, max_line);
            loop {
                let (byte, bytes) = match lines.next_line() {
                    Ok(Some(line)) => line,
                    Ok(None) => return Ok(()),
                    Err(Stop::Read(e)) => return Err(named(e)),
                    Err(Stop::TooLong(at)) => {
                        let why = crate::records::over_limit(max_line);
                        return Err(self.error_at(&*file, len, shape, name, at, at, record, &why));
                    }
                };
                if crate::reader::is_blank(bytes) {
                    continue;
                }
                check(bytes, byte, record)?;
                if !each(Found { record, byte, bytes })? {
                    return Ok(());
                }
                record += 1;
            }
        }
        let mut doc =
            DocRange::new(file.clone(), len, shape.clone(), from.byte..len, chunk, max_line);
        let mut spans = Vec::new();
        loop {
            let piece = match doc.next_piece(&mut spans) {
                Ok(Some(p)) => p,
                Ok(None) => return Ok(()),
                Err((at, reason, _)) => {
                    return Err(self.error_at(&*file, len, shape, name, at, at, record, &reason));
                }
            };
            for s in piece.spans {
                let bytes = &piece.bytes[s.start..s.end];
                let byte = piece.offset + s.start as u64;
                check(bytes, byte, record)?;
                if !each(Found { record, byte, bytes })? {
                    return Ok(());
                }
                record += 1;
            }
        }
    }

    /// The error at byte `at` met while reading from a checkpoint: its line
    /// found by reading the input from the top (an error is rare, and its
    /// place must be exact). `record` is the number of the record that
    /// starts at `record_byte`.
    #[allow(clippy::too_many_arguments)]
    fn error_at(
        &self,
        file: &dyn ReadAt,
        len: u64,
        shape: &Shape,
        name: Option<&Path>,
        at: u64,
        record_byte: u64,
        record: u64,
        reason: &str,
    ) -> Error {
        let line = match shape {
            Shape::Lines => newlines_before(file, at).map(|n| n + 1),
            _ => crate::records::locate(file, len, shape, record_byte, at).map(|(line, _)| line),
        };
        match line {
            Ok(line) => Error::Line {
                path: name.map(Path::to_path_buf),
                pos: Position::new(at, line, record),
                field: None,
                reason: reason.to_string(),
            },
            Err(e) => crate::records::named(name, e),
        }
    }
}

/// The lines of a ranged input from a line start on, a chunk at a time.
struct LinesFrom<'f> {
    file: &'f dyn ReadAt,
    len: u64,
    /// The absolute offset of `buf[0]`, and the next byte to read.
    base: u64,
    next: u64,
    buf: Vec<u8>,
    /// The next line's start in `buf`.
    at: usize,
    chunk: usize,
    max_line: usize,
}

impl<'f> LinesFrom<'f> {
    fn new(file: &'f dyn ReadAt, len: u64, from: u64, chunk: usize, max_line: usize) -> Self {
        let from = from.min(len);
        LinesFrom { file, len, base: from, next: from, buf: Vec::new(), at: 0, chunk, max_line }
    }

    /// The next line (its first byte's offset, its bytes without `\n`), or
    /// `None` at the end. A BOM at the top of the input is not the line's.
    fn next_line(&mut self) -> std::result::Result<Option<(u64, &[u8])>, Stop> {
        loop {
            let rest = &self.buf[self.at..];
            let end = memchr::memchr(b'\n', rest).map(|i| (i, i + 1));
            let end = end.or(if self.next >= self.len && !rest.is_empty() {
                Some((rest.len(), rest.len()))
            } else {
                None
            });
            if let Some((len, next)) = end {
                if next > self.max_line {
                    return Err(Stop::TooLong(self.base + self.at as u64));
                }
                let start = self.at;
                self.at += next;
                let mut bytes = &self.buf[start..start + len];
                let byte = self.base + start as u64;
                if byte == 0 && bytes.starts_with(swath::UTF8_BOM) {
                    bytes = &bytes[swath::UTF8_BOM.len()..];
                    return Ok(Some((swath::UTF8_BOM.len() as u64, bytes)));
                }
                return Ok(Some((byte, bytes)));
            }
            if self.next >= self.len {
                return Ok(None);
            }
            if rest.len() > self.max_line {
                return Err(Stop::TooLong(self.base + self.at as u64));
            }
            self.buf.drain(..self.at);
            self.base += self.at as u64;
            self.at = 0;
            let n = ((self.len - self.next) as usize).min(self.chunk);
            let old = self.buf.len();
            self.buf.resize(old + n, 0);
            swath::range::read_range_exact(
                self.file,
                self.next..self.next + n as u64,
                &mut self.buf[old..],
            )
            .map_err(|e| Stop::Read(e.into()))?;
            self.next += n as u64;
        }
    }
}

/// Why the lines stopped: a read error, or a line over the limit (at its
/// first byte).
enum Stop {
    Read(Error),
    TooLong(u64),
}

/// The newlines in the input's first `at` bytes (for an error's line).
fn newlines_before(file: &dyn ReadAt, at: u64) -> Result<u64> {
    let mut buf = vec![0u8; 1 << 20];
    let (mut pos, mut n) = (0u64, 0u64);
    while pos < at {
        let k = ((at - pos) as usize).min(buf.len());
        swath::range::read_range_exact(file, pos..pos + k as u64, &mut buf[..k])
            .map_err(Error::from)?;
        n += memchr::memchr_iter(b'\n', &buf[..k]).count() as u64;
        pos += k as u64;
    }
    Ok(n)
}

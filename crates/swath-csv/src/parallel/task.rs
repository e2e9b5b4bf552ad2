//! Phase 2: the real sequential reader over one task's records, reporting
//! what the serial check needs (where it found its first record and the
//! first record past its end, and how many it read).

use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::Mutex;

use swath::{Buffer, RangeReader};

use super::plan::Task;
use crate::builder::ReaderBuilder;
use crate::error::{Error, Result};
use crate::reader::Reader;
use crate::record::{OwnedRecord, Record};

/// A record start: byte offset and line.
pub(crate) type Start = Option<(u64, u64)>;

/// What phase 2 needs to read a task: the file and what the first records
/// taught (headers, field count).
pub(crate) struct Ctx<'a> {
    pub(crate) file: &'a File,
    pub(crate) len: u64,
    pub(crate) path: Option<&'a Path>,
    pub(crate) builder: &'a ReaderBuilder,
    pub(crate) headers: Option<OwnedRecord>,
    pub(crate) expected: Option<usize>,
    /// Buffers of finished tasks' readers, for the next ones.
    pub(crate) spare: Mutex<Vec<Buffer>>,
}

/// One task's result.
pub(crate) struct TaskOut<A> {
    pub(crate) acc: A,
    /// The first record start the reader found (`None`: end of input).
    pub(crate) first: Start,
    /// The first record start at or past the task's end (`None`: end of input).
    pub(crate) last: Start,
    /// Records read, the header row included.
    pub(crate) count: u64,
    pub(crate) error: Option<Error>,
}

impl<'a> Ctx<'a> {
    /// A reader over `byte..len` that continues a read at `byte` (line
    /// `line`, `records` behind); at 0, a reader from the top.
    pub(crate) fn reader_at(
        &self,
        byte: u64,
        line: u64,
        records: u64,
    ) -> Result<Reader<RangeReader<'a>>> {
        let src = RangeReader::new(self.file, byte..self.len);
        let spare = self.spare.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut rdr = match spare {
            Some(buf) => {
                self.builder.validate()?;
                Reader::with_buffer(src, self.builder.config().clone(), buf)
            }
            None => self.builder.from_reader(src)?,
        };
        rdr.set_source_info(Some(self.len), self.path.map(Path::to_path_buf));
        if byte > 0 {
            rdr.resume_at(byte, line, records, self.headers.clone(), self.expected);
        }
        Ok(rdr)
    }

    /// Read `task`'s records into `acc` with `fold`.
    pub(crate) fn run<A, F>(&self, task: &Task, mut acc: A, fold: &F) -> TaskOut<A>
    where
        F: Fn(&mut A, Record<'_>) -> Result<()>,
    {
        let mut out = TaskOut { acc: (), first: None, last: None, count: 0, error: None };
        match self.reader_at(task.start, task.line, task.records_before) {
            Ok(mut rdr) => {
                let before = rdr.records_read();
                let res = rdr.next_record_start().and_then(|first| {
                    out.first = first;
                    match first {
                        Some((byte, _)) if byte < task.end => {
                            read_past(&mut rdr, task.end, &mut acc, fold)
                        }
                        _ => Ok((first, false)),
                    }
                });
                out.count = rdr.records_read() - before;
                match res {
                    Ok((last, parsed)) => {
                        out.last = last;
                        // The record past the end was read, not ours.
                        out.count -= u64::from(parsed);
                    }
                    Err(e) => out.error = Some(e),
                }
                self.spare.lock().unwrap_or_else(|e| e.into_inner()).push(rdr.into_buffer());
            }
            Err(e) => out.error = Some(e),
        }
        TaskOut { acc, first: out.first, last: out.last, count: out.count, error: out.error }
    }
}

/// Fold the records of `rdr` into `acc` until one starts at or past `end`;
/// return where that one starts (`None` at end of input) and whether it was
/// read (true unless at end of input). The hot loop of phase 2: one call
/// per record; the record past the end is read and dropped, and an error
/// of a record past the end is not ours (the next task meets it first).
///
/// # Errors
///
/// The reader's first error in a record that starts before `end`, or
/// `fold`'s.
fn read_past<R, A, F>(rdr: &mut Reader<R>, end: u64, acc: &mut A, fold: &F) -> Result<(Start, bool)>
where
    R: Read,
    F: Fn(&mut A, Record<'_>) -> Result<()>,
{
    loop {
        match rdr.next_record() {
            Ok(Some(rec)) => {
                let p = rec.position();
                if p.byte >= end {
                    return Ok((Some((p.byte, p.line)), true));
                }
                fold(acc, rec)?;
            }
            Ok(None) => return Ok((None, false)),
            Err(e) => match e.record_position() {
                Some(p) if p.byte >= end => return Ok((Some((p.byte, p.line)), true)),
                _ => return Err(e),
            },
        }
    }
}

/// Fold the records of `rdr` that start before `end` into `acc`; return the
/// first record start at or past `end` (`None` at end of input), without
/// reading that record.
///
/// # Errors
///
/// The reader's first error, or `fold`'s.
pub(crate) fn read_until<R, A, F>(
    rdr: &mut Reader<R>,
    end: u64,
    acc: &mut A,
    fold: &F,
) -> Result<Start>
where
    R: Read,
    F: Fn(&mut A, Record<'_>) -> Result<()>,
{
    loop {
        let start = rdr.next_record_start()?;
        match start {
            Some((byte, _)) if byte < end => {}
            _ => return Ok(start),
        }
        match rdr.next_record()? {
            Some(rec) => fold(acc, rec)?,
            None => return Ok(None),
        }
    }
}

//! Phase 2: the real sequential reader over one task's records, reporting
//! what the serial check needs (where it found its first record and the
//! first record past its end, and how many it read).

use std::path::Path;
use swath::ReadAt;

use swath::RangeReader;

use super::plan::Task;
use super::records::{ChunkRecords, Input};
use super::spares::Spares;
use crate::error::{Error, Result};
use crate::reader::RecordStart;
use crate::OwnedRecord;
use crate::Reader;
use crate::ReaderBuilder;

/// What phase 2 needs to read a task: the file and what the first records
/// taught (headers, field count).
pub(crate) struct Ctx<'a> {
    pub(crate) file: &'a dyn ReadAt,
    pub(crate) len: u64,
    pub(crate) path: Option<&'a Path>,
    pub(crate) builder: &'a ReaderBuilder,
    pub(crate) headers: Option<OwnedRecord>,
    pub(crate) expected: Option<usize>,
    /// Buffers of finished tasks' readers, for the next ones.
    pub(crate) spare: Spares,
}

/// One task's result.
pub(crate) struct TaskOut<A, E> {
    pub(crate) acc: A,
    /// The first record start the reader found (`None`: end of input).
    pub(crate) first: Option<RecordStart>,
    /// The first record start at or past the task's end (`None`: end of input).
    pub(crate) last: Option<RecordStart>,
    /// Records read, the header row included.
    pub(crate) count: u64,
    /// The records it put aside (`crate::bad`), numbered as `first`.
    pub(crate) bad: Vec<crate::BadRecord>,
    pub(crate) error: Option<E>,
}

impl<'a> Ctx<'a> {
    /// A reader over `byte..len` that continues a read at `byte` (line
    /// `line`, `records` behind); at 0, a reader from the top.
    pub(crate) fn reader_at(
        &self,
        byte: u64,
        line: u64,
        records: u64,
    ) -> Result<Reader<Input<'a>>> {
        let src = Input::Range(RangeReader::new(self.file, byte..self.len));
        let spare = self.spare.take();
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

    /// Have `work` read `task`'s records into `acc`.
    pub(crate) fn run<A, W, E>(&self, task: &Task, mut acc: A, work: &W) -> TaskOut<A, E>
    where
        W: Fn(&mut A, &mut ChunkRecords<'_>) -> std::result::Result<(), E>,
        E: From<Error>,
    {
        let rdr = match self.reader_at(task.start, task.line, task.records_before) {
            Ok(rdr) => rdr,
            Err(e) => {
                return TaskOut {
                    acc,
                    first: None,
                    last: None,
                    count: 0,
                    bad: Vec::new(),
                    error: Some(e.into()),
                }
            }
        };
        let before = rdr.records_read();
        let mut recs = ChunkRecords::new(rdr, task.end, false);
        let mut first = None;
        let res = recs.rdr.next_record_start().map_err(E::from).and_then(|start| {
            first = start;
            work(&mut acc, &mut recs)?;
            Ok(recs.finish()?)
        });
        let mut out = TaskOut {
            acc,
            first,
            last: None,
            count: recs.rdr.records_read() - before,
            bad: recs.rdr.take_bad_records(),
            error: None,
        };
        match res {
            Ok(end) => {
                out.last = end.next;
                // The record past the end was read, not ours.
                out.count -= u64::from(end.next_was_read);
            }
            Err(e) => out.error = Some(e),
        }
        self.spare.give(recs.rdr.into_buffer());
        out
    }
}

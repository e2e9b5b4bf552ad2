//! The records of one chunk, for work that runs its own loop over them.
//!
//! A closure called once per record is not inlined into the reader's loop
//! when it is large (a writer's is): that is a call per record, with the
//! record passed by value, about 40 instructions. It made `csv select` on
//! 2 threads execute 6% more instructions than on 1 (callgrind, 500k
//! rows); with the loop in the work and `next_record` inlined into it, the
//! two differ by the few checks of `next_record` below.

use std::io::{self, Read};
use std::path::Path;

use swath::{RangeReader, Source};

use crate::error::Result;
use crate::reader::RecordStart;
use crate::Reader;
use crate::ReaderBuilder;
use crate::{Record, RecordBlock};

/// What a parallel run reads: a byte range of the file (a task, or the
/// sequential read after the verified part), or a whole source (stdin,
/// pipes, compressed input, one thread). One type for both, so that work
/// on a chunk's records has one type to take.
pub(crate) enum Input<'f> {
    Range(RangeReader<'f>),
    Whole(Source),
}

impl Input<'_> {
    /// A reader over the whole of `src`, which names it in errors.
    pub(crate) fn whole(builder: &ReaderBuilder, src: Source) -> Result<Reader<Input<'static>>> {
        let (len, path) = (src.len(), src.path().map(Path::to_path_buf));
        let mut rdr = builder.from_reader(Input::Whole(src))?;
        rdr.set_source_info(len, path);
        Ok(rdr)
    }
}

impl Read for Input<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Input::Range(r) => r.read(buf),
            Input::Whole(s) => s.read(buf),
        }
    }
}

/// The records of one chunk of the input, in file order: what
/// [`ParallelReader::for_each_chunk_ordered`] hands its work.
///
/// [`next_record`](Self::next_record) returns them, then `None` at the end
/// of the chunk. Records the work leaves unread are read and dropped after
/// it returns (their errors are still errors).
///
/// [`ParallelReader::for_each_chunk_ordered`]: super::ParallelReader::for_each_chunk_ordered
pub struct ChunkRecords<'f> {
    pub(crate) rdr: Reader<Input<'f>>,
    /// Records starting at or past this byte are not the chunk's.
    end: u64,
    /// How to find the first record past the end: false, read each record
    /// and check where it started (a task: the record past its end belongs
    /// to the next task, which reads it again); true, look at where the
    /// next record starts before reading it (the sequential read, which
    /// goes on with that record in the next chunk).
    peek: bool,
    /// Set at the end of the chunk.
    past: Option<ChunkEnd>,
}

/// How a chunk's records ended.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChunkEnd {
    /// Where the first record at or past the chunk's end starts (`None`:
    /// end of input).
    pub(crate) next: Option<RecordStart>,
    /// Whether that record was read (and so counted by the reader).
    pub(crate) next_was_read: bool,
}

impl<'f> ChunkRecords<'f> {
    /// The records of `rdr` that start before `end`; `peek` as the field.
    pub(crate) fn new(rdr: Reader<Input<'f>>, end: u64, peek: bool) -> ChunkRecords<'f> {
        ChunkRecords { rdr, end, peek, past: None }
    }

    /// Go on with the records that start before `end` (after
    /// [`finish`](Self::finish), in peek mode).
    pub(crate) fn next_chunk(&mut self, end: u64) {
        self.end = end;
        self.past = None;
    }

    /// The chunk's next record, or `None` at the end of the chunk.
    ///
    /// # Errors
    ///
    /// As [`Reader::next_record`], for a record of this chunk. After a
    /// recoverable error, reading may go on, as with a [`Reader`].
    // Inlined into the work's loop, as `Reader::next_record` is into a
    // sequential loop: a call per record costs 16 instructions (callgrind).
    #[inline(always)]
    pub fn next_record(&mut self) -> Result<Option<Record<'_>>> {
        loop {
            if self.past.is_some() {
                return Ok(None);
            }
            if self.peek {
                match self.rdr.next_record_start()? {
                    Some(start) if start.byte < self.end => {}
                    next => {
                        self.past = Some(ChunkEnd { next, next_was_read: false });
                        return Ok(None);
                    }
                }
            }
            match self.rdr.advance() {
                Ok(true) => {
                    let p = self.rdr.position();
                    if p.byte < self.end {
                        return Ok(Some(self.rdr.current()));
                    }
                    let next = Some(RecordStart { byte: p.byte, line: p.line });
                    self.past = Some(ChunkEnd { next, next_was_read: true });
                    return Ok(None);
                }
                Ok(false) => {
                    self.past = Some(ChunkEnd { next: None, next_was_read: false });
                    return Ok(None);
                }
                // An error of a record past the end is the next task's.
                Err(e) => match e.record_position() {
                    Some(p) if p.byte >= self.end => {
                        let next = Some(RecordStart { byte: p.byte, line: p.line });
                        self.past = Some(ChunkEnd { next, next_was_read: true });
                        return Ok(None);
                    }
                    _ if self.rdr.may_put_aside(&e) => self.rdr.put_aside(e),
                    _ => return Err(e),
                },
            }
        }
    }

    /// Keep the record [`next_record`](Self::next_record) returned last
    /// aside for `error`, as [`Reader::put_aside`] does (the work found a
    /// field of it that does not fit).
    ///
    /// # Panics
    ///
    /// When there is no such record.
    pub fn put_aside(&mut self, error: crate::Error) {
        self.rdr.put_aside(error);
    }

    /// Keep `bad` (a record of a block) aside, as [`Reader::keep_bad`].
    pub fn keep_bad(&mut self, bad: crate::BadRecord) {
        self.rdr.keep_bad(bad);
    }

    /// The chunk's next records as one block, at most `max`, or `None`
    /// when the next record is not one a block takes: read it with
    /// [`next_record`](Self::next_record) (which also says when the chunk
    /// ends), then ask again. As [`Reader::next_block`].
    ///
    /// # Errors
    ///
    /// None of its own, as [`Reader::next_block`].
    #[inline]
    pub fn next_block(&mut self, max: usize) -> Result<Option<RecordBlock<'_>>> {
        if self.past.is_some() {
            return Ok(None);
        }
        Ok(self.rdr.block_before(max, self.end))
    }

    /// Read what the work left of the chunk; return how it ended.
    pub(crate) fn finish(&mut self) -> Result<ChunkEnd> {
        while self.next_record()?.is_some() {}
        Ok(self.past.expect("next_record returned None, so the end is known"))
    }
}

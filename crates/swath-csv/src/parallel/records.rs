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

use super::task::Start;
use crate::error::Result;
use crate::Reader;
use crate::ReaderBuilder;
use crate::Record;

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
    /// Set at the end of the chunk: where the first record at or past
    /// `end` starts (`None`: end of input), and whether it was read.
    past: Option<(Start, bool)>,
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
        if self.past.is_some() {
            return Ok(None);
        }
        if self.peek {
            match self.rdr.next_record_start()? {
                Some((byte, _)) if byte < self.end => {}
                start => {
                    self.past = Some((start, false));
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
                self.past = Some((Some((p.byte, p.line)), true));
                Ok(None)
            }
            Ok(false) => {
                self.past = Some((None, false));
                Ok(None)
            }
            // An error of a record past the end is the next task's.
            Err(e) => match e.record_position() {
                Some(p) if p.byte >= self.end => {
                    self.past = Some((Some((p.byte, p.line)), true));
                    Ok(None)
                }
                _ => Err(e),
            },
        }
    }

    /// Read what the work left of the chunk; return where the first record
    /// past it starts (`None`: end of input) and whether it was read.
    pub(crate) fn finish(&mut self) -> Result<(Start, bool)> {
        while self.next_record()?.is_some() {}
        Ok(self.past.expect("next_record returned None, so the end is known"))
    }
}

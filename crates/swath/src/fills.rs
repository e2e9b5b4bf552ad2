//! Raw buffer fills of an input, for hashing, counting or copying.
//!
//! A "fill" is what one `read` put in the buffer; a "chunk" is a byte range
//! of the parallel split ([`Parallel`](crate::Parallel)).

use std::io::Read;
use std::path::Path;

use crate::buffer::Buffer;
use crate::error::Result;
use crate::feed::Feed;
use crate::source::Source;

/// Hands out the input as consecutive borrowed fills of up to the buffer's
/// capacity, each the result of one `read`.
pub struct FillReader<R> {
    feed: Feed<R>,
}

impl<R: Read> FillReader<R> {
    /// Fills of up to `capacity` bytes from `rdr`.
    pub fn new(rdr: R, capacity: usize) -> FillReader<R> {
        FillReader { feed: Feed::new(rdr, Buffer::with_capacity(capacity)) }
    }

    /// The next fill, or `None` at end of input. Valid until the next call.
    ///
    /// # Errors
    ///
    /// An I/O error, or [`crate::ErrorKind::Truncated`] for a file that shrank
    /// while being read (sticky).
    pub fn next_fill(&mut self) -> Result<Option<&[u8]>> {
        self.feed.buffer_mut().clear();
        if self.feed.refill(0)? {
            Ok(Some(self.feed.buffer().data()))
        } else {
            Ok(None)
        }
    }

    /// Bytes handed out so far.
    pub fn bytes_read(&self) -> u64 {
        self.feed.buffer().offset() + self.feed.buffer().len() as u64
    }
}

impl FillReader<Source> {
    /// Chunks of an opened source, checking a file's size at the end.
    pub fn from_source(src: Source, capacity: usize) -> FillReader<Source> {
        let len = src.len();
        let path = src.path().map(Path::to_path_buf);
        let mut rdr = FillReader::new(src, capacity);
        rdr.feed.expect_len(len);
        rdr.feed.set_path(path);
        rdr
    }
}

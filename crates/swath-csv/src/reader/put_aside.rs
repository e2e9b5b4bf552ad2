//! Records put aside (`crate::bad`): the reader keeps a record with a
//! recoverable error and reads on, under [`OnBad::PutAside`].

use std::io::Read;

use super::Reader;
use crate::bad::{BadRecord, OnBad};
use crate::error::{Error, Result};

impl<R: Read> Reader<R> {
    /// [`advance`](Self::advance), putting aside the records it may: the
    /// form every record-at-a-time read of a `Reader` goes through. Inlined
    /// as `advance` is; the rare path is a call.
    #[inline(always)]
    pub(crate) fn advance_keeping(&mut self) -> Result<bool> {
        match self.advance() {
            Err(e) => self.after_error(e),
            ok => ok,
        }
    }

    /// Put aside the records that failed, one after another, until one
    /// reads or an error must be returned.
    #[cold]
    #[inline(never)]
    fn after_error(&mut self, mut e: Error) -> Result<bool> {
        loop {
            if !self.may_put_aside(&e) {
                return Err(e);
            }
            self.put_aside(e);
            match self.advance() {
                Err(next) => e = next,
                ok => return ok,
            }
        }
    }

    /// Whether the record `e` is about may be put aside: putting aside is
    /// on, `e` is recoverable and about the record just read, and that is
    /// not the input's first record.
    pub(crate) fn may_put_aside(&self, e: &Error) -> bool {
        self.cfg.on_bad == OnBad::PutAside
            && self.has_record
            && e.is_recoverable()
            && e.record_position().is_some_and(|p| p.byte == self.rec_pos.byte)
            && (self.resumed || self.rec_pos.record > 1)
    }

    /// Keep the record just read aside for `error` (a field of it that
    /// does not fit, found by the work on it): its bytes, terminator
    /// included, as the input has them. The next read goes on after it.
    ///
    /// # Panics
    ///
    /// When no record has been read (as [`record`](Self::record)).
    pub fn put_aside(&mut self, error: Error) {
        assert!(self.has_record, "no current record to put aside");
        let bytes = self.feed.buffer().data()[..self.pending].to_vec();
        self.bad.push(BadRecord::new(self.rec_pos, bytes, error));
        self.has_record = false;
        // A `\r` last in the fill: a `\n` may follow in the next one.
        self.lf_owed = self.skip_lf;
    }

    /// Keep `bad` aside, after the ones kept before (a record of a block,
    /// put aside by the work on the block: [`BadRecord::of_block`]).
    pub fn keep_bad(&mut self, bad: BadRecord) {
        self.lf_owed = false;
        self.bad.push(bad);
    }

    /// Whether records put aside wait to be taken.
    #[inline]
    pub fn has_bad_records(&self) -> bool {
        !self.bad.is_empty()
    }

    /// The records put aside since the last call, in file order.
    pub fn take_bad_records(&mut self) -> Vec<BadRecord> {
        std::mem::take(&mut self.bad)
    }
}

/// The `\r` that ended the last record put aside was followed by a `\n`
/// (`lf`) or not: settle what `lf_owed` says is owed to `bad`'s last.
/// Fields rather than the reader: its caller holds the buffer borrowed.
#[cold]
pub(super) fn pay_lf(lf_owed: &mut bool, bad: &mut [BadRecord], lf: bool) {
    *lf_owed = false;
    if let (true, Some(last)) = (lf, bad.last_mut()) {
        last.push_lf();
    }
}

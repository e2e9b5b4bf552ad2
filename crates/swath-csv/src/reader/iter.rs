//! Owned records as iterators: the easy form, one allocation a record.

use std::io::Read;

use super::record::OwnedRecord;
use super::Reader;
use crate::error::Result;

impl<R: Read> Reader<R> {
    /// An iterator of owned records (one allocation per record: the easy
    /// form; use [`next_record`](Self::next_record) on hot paths).
    pub fn records(&mut self) -> Records<'_, R> {
        Records { rdr: self, done: false }
    }

    /// Like [`records`](Self::records), consuming the reader.
    pub fn into_records(self) -> IntoRecords<R> {
        IntoRecords { rdr: self, done: false }
    }
}

/// Owned records from a borrowed reader; see [`Reader::records`].
/// It ends after a fatal error.
pub struct Records<'a, R> {
    rdr: &'a mut Reader<R>,
    done: bool,
}

fn next_owned<R: Read>(rdr: &mut Reader<R>, done: &mut bool) -> Option<Result<OwnedRecord>> {
    if *done {
        return None;
    }
    let mut out = OwnedRecord::new();
    match rdr.read_into(&mut out) {
        Ok(true) => Some(Ok(out)),
        Ok(false) => {
            *done = true;
            None
        }
        Err(e) => {
            *done = !e.is_recoverable();
            Some(Err(e))
        }
    }
}

impl<R: Read> Iterator for Records<'_, R> {
    type Item = Result<OwnedRecord>;
    fn next(&mut self) -> Option<Result<OwnedRecord>> {
        next_owned(self.rdr, &mut self.done)
    }
}

/// Owned records from an owned reader; see [`Reader::into_records`].
/// It ends after a fatal error.
pub struct IntoRecords<R> {
    rdr: Reader<R>,
    done: bool,
}

impl<R: Read> Iterator for IntoRecords<R> {
    type Item = Result<OwnedRecord>;
    fn next(&mut self) -> Option<Result<OwnedRecord>> {
        next_owned(&mut self.rdr, &mut self.done)
    }
}

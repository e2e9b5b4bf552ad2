//! Broken records put aside instead of stopping the read.
//!
//! With [`OnBad::PutAside`] (see [`ReaderBuilder::on_bad`]), a record with
//! a recoverable error (a field count that differs, a quoting error in
//! strict mode) is not handed out: the reader keeps it as a [`BadRecord`]
//! (its exact bytes, terminator included, its position and its error) and
//! reads on. The records handed out and the records put aside are then the
//! input's records, in file order, each exactly once; the parallel reader
//! puts aside the same records as the sequential one at every thread
//! count, with the same numbers.
//!
//! Work on the records can put a record aside too (a field that does not
//! fit its column: [`Reader::put_aside`], [`ChunkRecords::put_aside`]).
//!
//! The first record of the input (the header row, or the record that
//! teaches the field count) is never put aside: an error there is still an
//! error, since what follows it would be read against the wrong shape.
//! Fatal errors (I/O, a record over the size limit) stay errors.
//!
//! [`ReaderBuilder::on_bad`]: crate::ReaderBuilder::on_bad
//! [`Reader::put_aside`]: crate::Reader::put_aside
//! [`ChunkRecords::put_aside`]: crate::ChunkRecords::put_aside

mod quarantine;

pub use quarantine::{describe, MaxBad, Quarantine, Sidecar, Stop};

use crate::error::{Error, Position};
use crate::RecordBlock;

/// What a reader does with a record that has a recoverable error.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum OnBad {
    /// Return the error (the default): the caller decides.
    #[default]
    Fail,
    /// Keep the record aside as a [`BadRecord`] and read on; the caller
    /// takes them with [`Reader::take_bad_records`](crate::Reader::take_bad_records)
    /// (or receives them with
    /// [`ParallelReader::for_each_chunk_ordered_with_bad`](crate::ParallelReader::for_each_chunk_ordered_with_bad)).
    PutAside,
}

/// A record put aside: its bytes as they are in the input, where it
/// starts, and why.
#[derive(Debug)]
pub struct BadRecord {
    position: Position,
    bytes: Vec<u8>,
    error: Error,
}

impl BadRecord {
    /// A record at `position` whose bytes (terminator included) are
    /// `bytes`, put aside for `error`.
    pub fn new(position: Position, bytes: Vec<u8>, error: Error) -> BadRecord {
        BadRecord { position, bytes, error }
    }

    /// Record `r` of `block`, put aside for `error` by the work on the
    /// block (hand it to [`Reader::keep_bad`](crate::Reader::keep_bad) or
    /// [`ChunkRecords::keep_bad`](crate::ChunkRecords::keep_bad)).
    pub fn of_block(block: &RecordBlock<'_>, r: usize, error: Error) -> BadRecord {
        BadRecord::new(block.position(r), block.raw(r).to_vec(), error)
    }

    /// Where the record starts: byte (0-based), line and record number
    /// (1-based; the header row is record 1), as
    /// [`Record::position`](crate::Record::position).
    pub fn position(&self) -> Position {
        self.position
    }

    /// The record's bytes, as in the input, terminator included (none for
    /// a last record without one).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The byte just past the record's terminator.
    pub fn end(&self) -> u64 {
        self.position.byte + self.bytes.len() as u64
    }

    /// Why it was put aside, with the position of the offending byte.
    pub fn error(&self) -> &Error {
        &self.error
    }

    /// A `\n` that completes the record's `\r\n` terminator, found in the
    /// next read.
    pub(crate) fn push_lf(&mut self) {
        self.bytes.push(b'\n');
    }

    /// Make numbers counted from a chunk's start the input's: add
    /// `records` to the record numbers and `lines` to the lines.
    pub(crate) fn shift(&mut self, records: u64, lines: u64) {
        self.position = shifted(self.position, records, lines);
        self.error.shift(records, lines);
    }
}

/// `p` with `records` and `lines` added.
/// A record put aside, as the quarantine writes it: a CSV record
/// ([`BadRecord`]) or any other format's (a JSON line).
pub trait Aside {
    /// Where the record starts.
    fn position(&self) -> Position;
    /// Its bytes, terminator included: what the quarantine file holds.
    fn bytes(&self) -> &[u8];
    /// Why, without the position (the sidecar's reason).
    fn reason(&self) -> String;
    /// The byte found wrong (the record's first when nothing narrower is
    /// known).
    fn at_byte(&self) -> u64;
}

impl Aside for BadRecord {
    fn position(&self) -> Position {
        self.position
    }

    fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    fn reason(&self) -> String {
        self.error.kind().to_string()
    }

    fn at_byte(&self) -> u64 {
        self.error.position().map_or(self.position.byte, |a| a.byte)
    }
}

pub(crate) fn shifted(p: Position, records: u64, lines: u64) -> Position {
    Position::new(p.byte, p.line + lines, p.record + records)
}

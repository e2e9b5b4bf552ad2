//! Broken records put aside ([`OnBad::PutAside`]): a record that is not
//! one JSON object, or whose value does not fit its field, is kept with its
//! bytes, where it starts and why, and the read goes on. The quarantine
//! that writes them is CSV's (`swath_csv::bad::Quarantine`, through
//! [`Aside`]), so both formats' files look alike.
//!
//! A chunk's work does not know how many lines and records come before
//! it: it notes its records put aside with their places in the chunk
//! ([`ChunkAside`]), and the consumer, which does, places them in the file.

use swath::line_chunks::Line;
use swath::Position;
pub use swath_csv::bad::Aside;
pub use swath_csv::OnBad;

use crate::decode::Bad;

/// A record put aside: its bytes (the line's newline included), where it
/// starts, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadRecord {
    position: Position,
    bytes: Vec<u8>,
    /// The byte found wrong.
    at: u64,
    field: Option<String>,
    reason: String,
}

impl BadRecord {
    /// Where the record starts: record (the n-th, records put aside
    /// counted), line, byte.
    pub fn position(&self) -> Position {
        self.position
    }

    /// The record's bytes, as in the input.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The field whose value did not fit, by dotted path.
    pub fn field(&self) -> Option<&str> {
        self.field.as_deref()
    }

    /// Why, without the field.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl Aside for BadRecord {
    fn position(&self) -> Position {
        self.position
    }

    fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    fn reason(&self) -> String {
        match &self.field {
            Some(f) => format!("field {f:?}: {}", self.reason),
            None => self.reason.clone(),
        }
    }

    fn at_byte(&self) -> u64 {
        self.at
    }
}

/// The records one chunk put aside, placed in the chunk.
#[derive(Debug, Default)]
pub struct ChunkAside {
    found: Vec<Found>,
}

#[derive(Debug)]
struct Found {
    /// The record's first line in the chunk (0-based).
    line: u64,
    /// The record's number in the chunk (1-based, every record counted).
    record: u64,
    offset: u64,
    bytes: Vec<u8>,
    bad: Bad,
}

impl ChunkAside {
    /// Put aside `line`, the chunk's `record`-th record (1-based, records
    /// put aside counted), for `bad`.
    pub fn push(&mut self, line: &Line<'_>, record: u64, bad: Bad) {
        self.found.push(Found {
            line: line.index,
            record,
            offset: line.offset,
            bytes: line.raw.to_vec(),
            bad,
        });
    }

    /// Records put aside.
    pub fn len(&self) -> usize {
        self.found.len()
    }

    /// Whether none were.
    pub fn is_empty(&self) -> bool {
        self.found.is_empty()
    }

    /// The records, placed in the file: the chunk follows `lines` lines
    /// and `records` records.
    pub fn place(self, lines: u64, records: u64) -> Vec<BadRecord> {
        self.found
            .into_iter()
            .map(|f| BadRecord {
                position: Position::new(f.offset, lines + f.line + 1, records + f.record),
                at: f.offset + f.bad.at().min(f.bytes.len()) as u64,
                field: f.bad.field(),
                reason: f.bad.reason().to_string(),
                bytes: f.bytes,
            })
            .collect()
    }
}

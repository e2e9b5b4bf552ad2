//! Records: a borrowed view valid until the next read, and an owned form
//! for callers that keep records.

use crate::error::{Error, ErrorKind, Position, Result};

/// Marks a span whose bytes live in the reader's unescape scratch buffer
/// rather than in the input buffer.
pub(crate) const SCRATCH: usize = 1 << (usize::BITS - 1);

/// Where one field's bytes are: `start..end` of the record's bytes, or of
/// the scratch buffer when `start` has the [`SCRATCH`] bit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) start: usize,
    pub(crate) end: usize,
}

/// A record borrowed from the reader's buffer, valid until the next read.
///
/// Fields that needed no unescaping point straight into the input buffer;
/// the others into one reused scratch buffer. Nothing is allocated per
/// record.
#[derive(Clone, Copy)]
pub struct Record<'r> {
    pub(crate) data: &'r [u8],
    pub(crate) scratch: &'r [u8],
    pub(crate) spans: &'r [Span],
    pub(crate) pos: Position,
    pub(crate) headers: Option<&'r OwnedRecord>,
}

impl<'r> Record<'r> {
    /// The number of fields.
    #[inline]
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// True for a record without fields (never returned by the reader).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Field `i`, unescaped, or `None` past the last field.
    #[inline]
    pub fn get(&self, i: usize) -> Option<&'r [u8]> {
        let s = *self.spans.get(i)?;
        Some(if s.start & SCRATCH != 0 {
            &self.scratch[s.start & !SCRATCH..s.end]
        } else {
            &self.data[s.start..s.end]
        })
    }

    /// Field `i` as `&str`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::MissingField`] past the last field;
    /// [`ErrorKind::InvalidUtf8`] (with the field's position) when the
    /// field is not UTF-8.
    pub fn get_str(&self, i: usize) -> Result<&'r str> {
        let bytes = self.get(i).ok_or_else(|| self.missing(i))?;
        std::str::from_utf8(bytes).map_err(|e| {
            let pos = self.field_position(i);
            let pos = Position::new(pos.byte + e.valid_up_to() as u64, pos.line, pos.record);
            Error::new(ErrorKind::InvalidUtf8 { field: i, valid_up_to: e.valid_up_to() })
                .at(pos)
                .in_record(self.pos)
        })
    }

    /// The field under header `name` (the first such column), when the
    /// reader has headers and the record has that field.
    pub fn get_by_name(&self, name: &str) -> Option<&'r [u8]> {
        let i = self.headers?.iter().position(|h| h == name.as_bytes())?;
        self.get(i)
    }

    /// The headers this record is read under, when the reader has them.
    pub fn headers(&self) -> Option<&'r OwnedRecord> {
        self.headers
    }

    /// The header of column `i`, when there is one.
    pub fn header(&self, i: usize) -> Option<&'r [u8]> {
        self.headers?.get(i)
    }

    /// The fields, in order.
    pub fn iter(&self) -> Fields<'r> {
        Fields { rec: *self, i: 0 }
    }

    /// Where the record starts: its first byte (0-based), line and record
    /// number (1-based; the header row is record 1).
    pub fn position(&self) -> Position {
        self.pos
    }

    /// The position of field `i`'s first content byte, when it is known
    /// (fields that needed unescaping report the record's start).
    pub fn field_position(&self, i: usize) -> Position {
        match self.spans.get(i) {
            Some(s) if s.start & SCRATCH == 0 => {
                Position::new(self.pos.byte + s.start as u64, self.pos.line, self.pos.record)
            }
            _ => self.pos,
        }
    }

    /// Copy into an owned record.
    pub fn to_owned_record(&self) -> OwnedRecord {
        let mut out = OwnedRecord::new();
        self.copy_into(&mut out);
        out
    }

    /// Copy into `out`, reusing its allocations.
    pub fn copy_into(&self, out: &mut OwnedRecord) {
        out.bytes.clear();
        out.spans.clear();
        for f in self.iter() {
            out.push_field(f);
        }
        out.pos = self.pos;
    }

    pub(crate) fn missing(&self, i: usize) -> Error {
        Error::new(ErrorKind::MissingField { field: i }).at(self.pos).in_record(self.pos)
    }
}

impl std::fmt::Debug for Record<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter().map(|b| String::from_utf8_lossy(b))).finish()
    }
}

impl<'r> IntoIterator for Record<'r> {
    type Item = &'r [u8];
    type IntoIter = Fields<'r>;
    fn into_iter(self) -> Fields<'r> {
        self.iter()
    }
}

/// The fields of a [`Record`].
#[derive(Clone)]
pub struct Fields<'r> {
    rec: Record<'r>,
    i: usize,
}

impl<'r> Iterator for Fields<'r> {
    type Item = &'r [u8];
    #[inline]
    fn next(&mut self) -> Option<&'r [u8]> {
        let f = self.rec.get(self.i)?;
        self.i += 1;
        Some(f)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.rec.len() - self.i;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Fields<'_> {}

/// A record that owns its bytes: every field's bytes back to back, plus
/// where each field starts and ends. Reuse one with `Reader::read_into` to read without
/// allocating per record.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct OwnedRecord {
    bytes: Vec<u8>,
    spans: Vec<Span>,
    pos: Position,
}

impl OwnedRecord {
    /// An empty record.
    pub fn new() -> OwnedRecord {
        OwnedRecord::default()
    }

    /// A record of the given fields (handy in tests).
    pub fn from_fields<I, T>(fields: I) -> OwnedRecord
    where
        I: IntoIterator<Item = T>,
        T: AsRef<[u8]>,
    {
        let mut out = OwnedRecord::new();
        for f in fields {
            out.push_field(f.as_ref());
        }
        out
    }

    /// Append a field.
    pub fn push_field(&mut self, field: &[u8]) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(field);
        self.spans.push(Span { start, end: self.bytes.len() });
    }

    /// The number of fields.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// True without fields.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Field `i`, or `None` past the last field.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        let s = self.spans.get(i)?;
        Some(&self.bytes[s.start..s.end])
    }

    /// Remove every field, keeping the allocations.
    pub fn clear(&mut self) {
        self.bytes.clear();
        self.spans.clear();
    }

    /// Field `i` as `&str`.
    ///
    /// # Errors
    ///
    /// As [`Record::get_str`].
    pub fn get_str(&self, i: usize) -> Result<&str> {
        self.as_record().get_str(i)
    }

    /// The fields, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        (0..self.len()).map(move |i| self.get(i).unwrap_or_default())
    }

    /// Where the record started in its input.
    pub fn position(&self) -> Position {
        self.pos
    }

    /// A borrowed view of this record (for typed scanning).
    pub fn as_record(&self) -> Record<'_> {
        Record { data: &self.bytes, scratch: &[], spans: &self.spans, pos: self.pos, headers: None }
    }

    /// The fields as `Vec<String>`, lossily decoded (handy in tests).
    pub fn to_strings(&self) -> Vec<String> {
        self.iter().map(|f| String::from_utf8_lossy(f).into_owned()).collect()
    }
}

impl std::fmt::Debug for OwnedRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter().map(String::from_utf8_lossy)).finish()
    }
}

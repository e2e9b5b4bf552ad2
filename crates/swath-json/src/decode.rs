//! JSON lines straight into Arrow builders: one pass over each line's
//! bytes, driven by the schema, no intermediate value and no allocation
//! per line.
//!
//! The decoder walks the grammar of [`crate::scan`] and, at each value,
//! writes into the builder of the field it belongs to: numbers parsed from
//! their text in place (`swath_csv::typed`), strings copied (escapes
//! resolved only when there are any), dates and timestamps parsed from the
//! string's bytes (`swath_arrow::text`). Keys are matched as bytes against
//! the key that followed the previous one on the last line first (lines of
//! one log share their key order; `crate::key_order`), then looked up.
//! Keys the schema does not have are validated and skipped; fields missing
//! from an object are null.
//!
//! # Changing this file safely
//!
//! What is clever, and what breaks if you touch it:
//!
//! - **Guessed keys are not read.** When the key order of the previous
//!   line predicts the next key, the decoder only checks that the bytes
//!   there are that key, quotes and all (`c.eat`), and never parses it.
//!   Anything that needs a key's text (a hash for the duplicate check, an
//!   error message) must get it from `KeyOrder` (`skipped_hash`), not
//!   from the line; and a guess must match the key's raw bytes exactly,
//!   escapes included, or `"a"` and `"\u0061"` would be told apart.
//! - **Every key once.** A field seen twice in one object is an error,
//!   found by the `seen` generation stamps for the schema's fields and by
//!   `Keys` for the skipped ones. Every reader of JSON in swath (this
//!   decoder, inference, `select`, `check`) refuses the same lines with
//!   the same error at the same byte; a change here that accepts or
//!   refuses a different line breaks that.
//! - **Columns stay aligned.** A line either adds exactly one value (or a
//!   null) to every column of every struct, or fails; after a failure the
//!   builders are in an unknown state and the caller must `reset`. Any new
//!   branch that returns early from `StructCol::object` must leave the
//!   columns no worse than that.
//! - **Depth is bounded.** `MAX_DEPTH` is checked on entry to each object
//!   and array, so a hostile line cannot overflow the stack; skipped
//!   values (`skip_value`) carry the depth too.
//!
//! Which tests tell you: `tests/read.rs` (values against arrow-json,
//! errors with positions, key orders learned and broken, repeated keys
//! also when guessed, parallel against sequential); the JSON readers'
//! agreement test in swath-cli (`json_readers_agree.rs`); and the fuzz
//! target `json_lines` (`fuzz/json_checks.rs`), which checks the decoder
//! against `serde_json` on the same bytes.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{ArrayRef, ListArray, RecordBatch, RecordBatchOptions, StructArray};
use arrow_buffer::{NullBufferBuilder, OffsetBuffer, ScalarBuffer};
use arrow_schema::{ArrowError, DataType, FieldRef, Fields, SchemaRef, TimeUnit};
use swath_arrow::column::{Leaf, Values};
use swath_arrow::text::{parse_date, parse_timestamp};
use swath_csv::typed::{parse_f64, parse_i64};

use crate::key_order::{KeyOrder, START};
use crate::scan::{
    duplicate_key_reason, key_hash, unescape, Cursor, Keys, Num, Str, Syntax, DUPLICATE_KEY,
    MAX_DEPTH,
};

/// Why a line did not decode: a syntax error, or a value that does not fit
/// its field (with the field's path, innermost name first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Bad {
    /// Not JSON, or not one object.
    Syntax(Syntax),
    /// A value that the schema's type cannot hold.
    Value {
        /// Byte offset of the value in the line.
        at: usize,
        /// Why, with the value's text.
        reason: String,
        /// The field's path, innermost first (`["status", "req"]`).
        path: Vec<String>,
    },
}

impl From<Syntax> for Bad {
    fn from(s: Syntax) -> Bad {
        Bad::Syntax(s)
    }
}

impl Bad {
    /// The problem `s` of `line`, said in full: a key given twice is named.
    pub fn of(line: &[u8], s: Syntax) -> Bad {
        Bad::Syntax(s).named_in(line)
    }

    /// A key given twice named from `line` (a syntax error knows only
    /// where it is); anything else as it is.
    fn named_in(self, line: &[u8]) -> Bad {
        match self {
            Bad::Syntax(s) if s.reason == DUPLICATE_KEY => {
                Bad::Value { at: s.at, reason: duplicate_key_reason(line, s.at), path: Vec::new() }
            }
            bad => bad,
        }
    }

    /// Byte offset in the line.
    pub fn at(&self) -> usize {
        match self {
            Bad::Syntax(s) => s.at,
            Bad::Value { at, .. } => *at,
        }
    }

    /// The field's dotted path (`req.status`), or `None` for a syntax error
    /// or a problem of the line's object itself.
    pub fn field(&self) -> Option<String> {
        match self {
            Bad::Syntax(_) => None,
            Bad::Value { path, .. } if path.is_empty() => None,
            Bad::Value { path, .. } => {
                Some(path.iter().rev().map(String::as_str).collect::<Vec<_>>().join("."))
            }
        }
    }

    /// The reason alone.
    pub fn reason(&self) -> &str {
        match self {
            Bad::Syntax(s) => s.reason,
            Bad::Value { reason, .. } => reason,
        }
    }

    fn in_field(mut self, name: &str) -> Bad {
        if let Bad::Value { path, .. } = &mut self {
            path.push(name.to_string());
        }
        self
    }
}

type R<T> = Result<T, Bad>;

/// The types a decoder can build, for the error that names the others.
pub const SUPPORTED: &str =
    "boolean, int64, float64, utf8, date32, timestamp(µs), struct and list of these";

/// Objects with at most this many fields find a key by a scan of the
/// names, not by hash.
const LINEAR_LOOKUP: usize = 16;

/// One column's builder: a leaf of the column module every format shares
/// (`swath_arrow::column`), or a struct or list of columns.
#[derive(Debug)]
enum Col {
    /// Boolean, Int64, Float64, Date32, Timestamp(µs) or Utf8 (strings as
    /// their value, any other value as its JSON text).
    Leaf(Leaf),
    Struct(Box<StructCol>),
    List {
        field: FieldRef,
        offsets: Vec<i32>,
        child: Box<Col>,
        nulls: NullBufferBuilder,
    },
}

/// An object's fields: builders, names, and which were seen in the
/// object being decoded (`seen[i] == generation`).
#[derive(Debug)]
struct StructCol {
    fields: Fields,
    /// The keys' order on the last line: the next key is checked as bytes
    /// against the one that came there last time.
    order: KeyOrder,
    cols: Vec<Col>,
    /// The names, for a scan when there are few (cheaper than hashing).
    names: Vec<Box<[u8]>>,
    /// The names by hash, when there are many.
    index: HashMap<Box<[u8]>, usize>,
    seen: Vec<u32>,
    generation: u32,
    nulls: NullBufferBuilder,
}

impl StructCol {
    fn new(fields: &Fields) -> Result<StructCol, ArrowError> {
        let cols = fields.iter().map(|f| Col::new(f.data_type())).collect::<Result<Vec<_>, _>>()?;
        let names: Vec<Box<[u8]>> = fields.iter().map(|f| f.name().as_bytes().into()).collect();
        let index = names.iter().enumerate().map(|(i, n)| (n.clone(), i)).collect();
        Ok(StructCol {
            fields: fields.clone(),
            order: KeyOrder::new(&names),
            seen: vec![0; names.len()],
            names,
            cols,
            index,
            generation: 0,
            nulls: NullBufferBuilder::new(0),
        })
    }

    /// After `{`: the members, into the fields' builders; nulls for the
    /// fields the object lacks.
    fn object(&mut self, c: &mut Cursor<'_>, depth: usize, scratch: &mut Vec<u8>) -> R<()> {
        if depth > MAX_DEPTH {
            return Err(c.fail::<()>("nested deeper than 256 levels").unwrap_err().into());
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.seen.fill(0);
            self.generation = 1;
        }
        let generation = self.generation;
        let n = self.cols.len();
        let mut found = 0;
        let mut prev = START;
        if c.peek() == Some(b'}') {
            c.bump();
        } else {
            // Keys the schema lacks, to refuse one given twice as every
            // reader does (the fields have `seen`).
            let mut skipped = Keys::new(c.at());
            loop {
                c.ws();
                let key_at = c.at();
                let (slot, hash) = match self.order.guess(prev) {
                    Some((slot, quoted)) if c.eat(quoted) => {
                        c.expect(b':', "expected ':' after a key")?;
                        (slot, None)
                    }
                    _ => {
                        let k = c.key()?;
                        let slot = match self.lookup(k, scratch) {
                            Some(i) => KeyOrder::of_field(i),
                            None => self.order.skipped(k.raw),
                        };
                        self.order.learn(prev, slot);
                        (slot, Some(key_hash(k)))
                    }
                };
                prev = slot;
                match self.order.field(slot) {
                    Some(i) => {
                        if self.seen[i] == generation {
                            return Err(Syntax { at: key_at, reason: DUPLICATE_KEY }.into());
                        }
                        self.seen[i] = generation;
                        found += 1;
                        self.cols[i]
                            .value(c, depth, scratch)
                            .map_err(|e| e.in_field(self.fields[i].name()))?;
                    }
                    None => {
                        let h = hash.unwrap_or_else(|| self.order.skipped_hash(slot));
                        skipped.add(h, c.line(), key_at)?;
                        c.skip_value(depth)?
                    }
                }
                if !c.next_member()? {
                    break;
                }
            }
        }
        if found < n {
            for i in 0..n {
                if self.seen[i] != generation {
                    if !self.fields[i].is_nullable() {
                        return Err(Bad::Value {
                            at: c.at().saturating_sub(1),
                            reason: "missing, and the schema says it is not nullable".into(),
                            path: vec![self.fields[i].name().clone()],
                        });
                    }
                    self.cols[i].push_null();
                }
            }
        }
        Ok(())
    }

    #[cold]
    fn lookup(&self, k: Str<'_>, scratch: &mut Vec<u8>) -> Option<usize> {
        let key = if k.escaped {
            scratch.clear();
            unescape(k.raw, scratch);
            &scratch[..]
        } else {
            k.raw
        };
        // Every key the schema lacks comes here (a query's projection
        // leaves most of them out): with few fields a scan beats SipHash,
        // which was 15% of `swath sql` reading two of nine fields.
        if self.names.len() <= LINEAR_LOOKUP {
            self.names.iter().position(|n| **n == *key)
        } else {
            self.index.get(key).copied()
        }
    }

    fn push_null(&mut self) {
        self.nulls.append_null();
        for col in &mut self.cols {
            col.push_null();
        }
    }

    fn finish_columns(&mut self) -> Result<Vec<ArrayRef>, ArrowError> {
        self.cols.iter_mut().map(Col::finish).collect()
    }

    /// Keep the first `rows` objects: what a line that failed half way
    /// appended is dropped (its fields may hold one value more than others).
    fn truncate(&mut self, rows: usize) {
        self.nulls.truncate(rows);
        for col in &mut self.cols {
            col.truncate(rows);
        }
    }
}

impl Col {
    fn new(ty: &DataType) -> Result<Col, ArrowError> {
        Ok(match ty {
            DataType::Boolean
            | DataType::Int64
            | DataType::Float64
            | DataType::Date32
            | DataType::Timestamp(TimeUnit::Microsecond, _)
            | DataType::Utf8 => Col::Leaf(Leaf::new(ty, 0).expect("a leaf type")),
            DataType::Struct(fields) => Col::Struct(Box::new(StructCol::new(fields)?)),
            DataType::List(field) => Col::List {
                child: Box::new(Col::new(field.data_type())?),
                field: field.clone(),
                offsets: vec![0],
                nulls: NullBufferBuilder::new(0),
            },
            other => {
                return Err(ArrowError::SchemaError(format!(
                    "JSON lines cannot be read as {other} (the types are {SUPPORTED})"
                )))
            }
        })
    }

    fn push_null(&mut self) {
        match self {
            Col::Leaf(leaf) => leaf.push_null(),
            Col::Struct(s) => s.push_null(),
            Col::List { offsets, nulls, .. } => {
                offsets.push(*offsets.last().unwrap_or(&0));
                nulls.append_null();
            }
        }
    }

    /// Keep the first `rows` values (and their lists' items).
    fn truncate(&mut self, rows: usize) {
        match self {
            Col::Leaf(leaf) => leaf.truncate(rows),
            Col::Struct(s) => s.truncate(rows),
            Col::List { offsets, child, nulls, .. } => {
                offsets.truncate(rows + 1);
                nulls.truncate(rows);
                child.truncate(offsets.last().map_or(0, |&n| n as usize));
            }
        }
    }

    /// One value (after whitespace) into this column.
    fn value(&mut self, c: &mut Cursor<'_>, depth: usize, scratch: &mut Vec<u8>) -> R<()> {
        let first = match c.peek() {
            Some(b'n') => {
                c.literal(b"null")?;
                self.push_null();
                return Ok(());
            }
            Some(b) => b,
            None => return Err(c.fail::<()>("a value is missing").unwrap_err().into()),
        };
        let start = c.at();
        match self {
            Col::Leaf(Leaf { values, nulls }) => {
                match values {
                    Values::Int64(vals) => {
                        if matches!(first, b'-' | b'0'..=b'9') && c.number()? == Num::Int {
                            if let Some(v) = parse_i64(&c.line()[start..c.at()]) {
                                vals.push(v);
                                nulls.append_non_null();
                                return Ok(());
                            }
                        }
                        mismatch(c, start, depth, "int64")
                    }
                    Values::Float64(vals) => {
                        if matches!(first, b'-' | b'0'..=b'9') {
                            c.number()?;
                            if let Some(v) = parse_f64(&c.line()[start..c.at()]) {
                                vals.push(v);
                                nulls.append_non_null();
                                return Ok(());
                            }
                        }
                        mismatch(c, start, depth, "float64")
                    }
                    Values::Boolean(vals) => {
                        let v = match first {
                            b't' => c.literal(b"true").map(|()| true)?,
                            b'f' => c.literal(b"false").map(|()| false)?,
                            _ => return mismatch(c, start, depth, "boolean"),
                        };
                        vals.append(v);
                        nulls.append_non_null();
                        Ok(())
                    }
                    Values::Date32(vals) => {
                        if first == b'"' {
                            c.bump();
                            let s = c.string()?;
                            if let Some(v) = parse_date(text_of(s, scratch)) {
                                vals.push(v);
                                nulls.append_non_null();
                                return Ok(());
                            }
                        }
                        mismatch(c, start, depth, "date32")
                    }
                    Values::Timestamp { micros, .. } => {
                        if first == b'"' {
                            c.bump();
                            let s = c.string()?;
                            if let Some((v, _)) = parse_timestamp(text_of(s, scratch)) {
                                micros.push(v);
                                nulls.append_non_null();
                                return Ok(());
                            }
                        }
                        mismatch(c, start, depth, "timestamp")
                    }
                    Values::Text(text) => {
                        if first == b'"' {
                            c.bump();
                            let s = c.string()?;
                            // SAFETY: the scanner checked the string's
                            // bytes are UTF-8 and its escapes are whole
                            // (surrogates paired); `unescape` writes chars.
                            let data = unsafe { text.data_mut() };
                            if s.escaped {
                                unescape(s.raw, data);
                            } else {
                                data.extend_from_slice(s.raw);
                            }
                        } else {
                            c.skip_value(depth)?;
                            // SAFETY: a value's JSON text outside strings
                            // is ASCII (the scanner refuses any other byte
                            // there), and its strings are checked as above.
                            let data = unsafe { text.data_mut() };
                            crate::scan::push_compact(data, &c.line()[start..c.at()]);
                        }
                        text.end_value().map_err(|why| Bad::Value {
                            at: start,
                            reason: why.into(),
                            path: Vec::new(),
                        })?;
                        nulls.append_non_null();
                        Ok(())
                    }
                }
            }
            Col::Struct(s) => {
                if first != b'{' {
                    return mismatch(c, start, depth, "an object");
                }
                c.bump();
                s.object(c, depth + 1, scratch)?;
                s.nulls.append_non_null();
                Ok(())
            }
            Col::List { offsets, child, nulls, .. } => {
                if first != b'[' {
                    return mismatch(c, start, depth, "an array");
                }
                c.bump();
                if depth + 1 > MAX_DEPTH {
                    return Err(c.fail::<()>("nested deeper than 256 levels").unwrap_err().into());
                }
                let mut n = 0i32;
                if c.peek() == Some(b']') {
                    c.bump();
                } else {
                    loop {
                        child.value(c, depth + 1, scratch).map_err(|e| e.in_field("[]"))?;
                        n += 1;
                        if !c.next_element()? {
                            break;
                        }
                    }
                }
                offsets.push(offsets.last().unwrap_or(&0) + n);
                nulls.append_non_null();
                Ok(())
            }
        }
    }

    fn finish(&mut self) -> Result<ArrayRef, ArrowError> {
        Ok(match self {
            // Room for as many values as this batch had: batches are
            // alike, no regrowing, no new pages.
            Col::Leaf(leaf) => leaf.finish(0),
            Col::Struct(s) => {
                let cols = s.finish_columns()?;
                Arc::new(StructArray::try_new(s.fields.clone(), cols, s.nulls.finish())?)
            }
            Col::List { field, offsets, child, nulls } => {
                let offsets = OffsetBuffer::new(ScalarBuffer::from(restart(offsets)));
                Arc::new(ListArray::try_new(
                    field.clone(),
                    offsets,
                    child.finish()?,
                    nulls.finish(),
                )?)
            }
        })
    }
}

/// The offsets built so far, leaving an empty vector of the same capacity
/// for the next batch (batches are alike: no regrowing, no new pages),
/// starting at 0.
fn restart(v: &mut Vec<i32>) -> Vec<i32> {
    let mut next = Vec::with_capacity(v.len());
    next.push(0);
    std::mem::replace(v, next)
}

/// A string's value: its raw bytes, or (with escapes) its value in
/// `scratch`.
fn text_of<'a>(s: Str<'a>, scratch: &'a mut Vec<u8>) -> &'a [u8] {
    if s.escaped {
        scratch.clear();
        unescape(s.raw, scratch);
        scratch
    } else {
        s.raw
    }
}

/// The value at `start` does not fit `ty`: the error, with the value's
/// text (a syntax error in it comes first: the line is not JSON).
#[cold]
fn mismatch(c: &mut Cursor<'_>, start: usize, depth: usize, ty: &str) -> R<()> {
    let mut whole = Cursor::new(c.line());
    whole.seek(start);
    whole.skip_value(depth)?;
    let text = String::from_utf8_lossy(&c.line()[start..whole.at()]);
    let shown: String = text.chars().take(60).collect();
    let more = if shown.len() < text.len() { "..." } else { "" };
    Err(Bad::Value {
        at: start,
        reason: format!("{shown}{more} does not fit {ty}"),
        path: Vec::new(),
    })
}

/// Lines into batches: [`Decoder::line`] each line, [`Decoder::finish`]
/// a batch when [`Decoder::rows`] says so.
#[derive(Debug)]
pub struct Decoder {
    schema: SchemaRef,
    root: StructCol,
    rows: usize,
    scratch: Vec<u8>,
}

impl Decoder {
    /// A decoder of lines into batches of `schema`.
    ///
    /// # Errors
    ///
    /// A type the decoder cannot build ([`SUPPORTED`]).
    pub fn new(schema: SchemaRef) -> Result<Decoder, ArrowError> {
        let root = StructCol::new(schema.fields())?;
        Ok(Decoder { schema, root, rows: 0, scratch: Vec::new() })
    }

    /// The schema of the batches.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Rows decoded since the last batch.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Decode one line (without its newline). A blank line is no record:
    /// `Ok(false)`.
    ///
    /// # Errors
    ///
    /// The line is not one JSON object, or a value does not fit its field.
    /// Nothing of the line is kept: the decoder reads on from the rows
    /// before it.
    pub fn line(&mut self, line: &[u8]) -> Result<bool, Bad> {
        let res = self.line_or_half(line);
        if res.is_err() {
            self.root.truncate(self.rows);
        }
        res
    }

    /// [`Decoder::line`], leaving half a line in the builders on an error.
    fn line_or_half(&mut self, line: &[u8]) -> Result<bool, Bad> {
        let mut c = Cursor::new(line);
        match c.peek() {
            None => return Ok(false),
            Some(b'{') => c.bump(),
            Some(_) => {
                crate::scan::validate_object(line).map_err(|s| Bad::of(line, s))?;
                unreachable!("validate_object accepts only objects");
            }
        }
        self.root.object(&mut c, 1, &mut self.scratch).map_err(|bad| bad.named_in(line))?;
        c.end()?;
        self.rows += 1;
        Ok(true)
    }

    /// The rows decoded since the last batch, as a batch.
    ///
    /// # Errors
    ///
    /// Arrow's, building the arrays (not expected: the builders are
    /// consistent after every successful line).
    pub fn finish(&mut self) -> Result<RecordBatch, ArrowError> {
        let cols = self.root.finish_columns()?;
        let opts = RecordBatchOptions::new().with_row_count(Some(self.rows));
        self.rows = 0;
        RecordBatch::try_new_with_options(self.schema.clone(), cols, &opts)
    }

    /// Drop whatever was decoded since the last batch (after an error).
    pub fn reset(&mut self) {
        if let Ok(root) = StructCol::new(self.schema.fields()) {
            self.root = root;
        }
        self.rows = 0;
    }
}

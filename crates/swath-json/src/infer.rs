//! Schema inference: the type that holds every value seen, per field, at
//! every depth.
//!
//! Each value is one of a few kinds; a field's [`Ty`] is the join of the
//! kinds of its values, on this lattice:
//!
//! - null joins to anything (a field only ever null is Utf8 of nulls);
//! - Int64 and Float64 join to Float64 (an integer beyond the 64-bit
//!   range is Float64 from the start);
//! - strings stay strings; a string column whose every value is a date
//!   (`YYYY-MM-DD`) is Date32, whose every value is a timestamp without
//!   offset or every one with an offset is a Timestamp (µs; `UTC` with an
//!   offset), exactly as the CSV side reads text (`swath_arrow::text`);
//! - objects join field by field (a key missing from one object is null
//!   there), arrays join their elements;
//! - anything else is Utf8, mixed: a string keeps its text, any other
//!   value its JSON text (`{"a":1}`, `12`, `true`).
//!
//! The join is associative and keeps fields in the order first seen, so
//! chunks inferred on many threads and joined in file order give the
//! sequential answer.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema};
use swath_arrow::Fits;

use crate::scan::{Cursor, Num, Syntax, MAX_DEPTH};

/// Kinds of value seen in a mixed field (for [`Ty::Mixed`]'s report).
pub(crate) mod kind {
    pub const BOOL: u16 = 1;
    pub const INT: u16 = 2;
    pub const FLOAT: u16 = 4;
    pub const STRING: u16 = 8;
    pub const OBJECT: u16 = 16;
    pub const ARRAY: u16 = 32;
}

/// What the values of one field seen so far allow.
#[derive(Clone, Debug, PartialEq)]
pub enum Ty {
    /// Only nulls (or nothing) seen.
    Null,
    /// `true` and `false`.
    Bool,
    /// Integers within the 64-bit range.
    Int,
    /// Numbers, some not integers (or beyond the 64-bit range).
    Float,
    /// Strings; `fits` is which of date, timestamp, timestamp with offset
    /// every one of them parses as ([`Fits::TEXT`]: plain text), on the
    /// lattice CSV columns are inferred on.
    Str {
        /// What every string seen parses as.
        fits: Fits,
    },
    /// Objects: their fields in the order first seen.
    Object(Obj),
    /// Arrays: the join of their elements.
    List(Box<Ty>),
    /// Values of kinds that do not join: Utf8, strings as text and the
    /// rest as JSON text. `kinds` says which were seen.
    Mixed {
        /// Bits of the kinds seen (boolean, int64, float64, string, object, array).
        kinds: u16,
    },
}

/// An object's fields: names in the order first seen, and their types.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Obj {
    /// (name, type) in the order first seen.
    pub fields: Vec<(String, Ty)>,
    index: HashMap<String, usize>,
}

impl Obj {
    fn slot(&mut self, name: &str) -> &mut Ty {
        let i = match self.index.get(name) {
            Some(&i) => i,
            None => {
                self.index.insert(name.to_string(), self.fields.len());
                self.fields.push((name.to_string(), Ty::Null));
                self.fields.len() - 1
            }
        };
        &mut self.fields[i].1
    }

    /// Join `other` into this object, field by field.
    pub fn join(&mut self, other: Obj) {
        for (name, ty) in other.fields {
            let slot = self.slot(&name);
            let old = std::mem::replace(slot, Ty::Null);
            *slot = old.join(ty);
        }
    }
}

impl Ty {
    fn kinds(&self) -> u16 {
        match self {
            Ty::Null => 0,
            Ty::Bool => kind::BOOL,
            Ty::Int => kind::INT,
            Ty::Float => kind::FLOAT,
            Ty::Str { .. } => kind::STRING,
            Ty::Object(_) => kind::OBJECT,
            Ty::List(_) => kind::ARRAY,
            Ty::Mixed { kinds } => *kinds,
        }
    }

    /// The type that holds the values of both.
    pub fn join(self, other: Ty) -> Ty {
        match (self, other) {
            (Ty::Null, t) | (t, Ty::Null) => t,
            (Ty::Bool, Ty::Bool) => Ty::Bool,
            (Ty::Int, Ty::Int) => Ty::Int,
            (Ty::Int | Ty::Float, Ty::Int | Ty::Float) => Ty::Float,
            (Ty::Str { fits: a }, Ty::Str { fits: b }) => Ty::Str { fits: a.join(b) },
            (Ty::Object(mut a), Ty::Object(b)) => {
                a.join(b);
                Ty::Object(a)
            }
            (Ty::List(a), Ty::List(b)) => Ty::List(Box::new(a.join(*b))),
            (a, b) => Ty::Mixed { kinds: mixed(a.kinds() | b.kinds()) },
        }
    }

    /// The Arrow type of a field of this type.
    pub fn data_type(&self) -> DataType {
        match self {
            Ty::Bool => DataType::Boolean,
            Ty::Int => DataType::Int64,
            Ty::Float => DataType::Float64,
            // Date32, a timestamp (µs; UTC with an offset), or Utf8.
            Ty::Str { fits } => fits.column_type().data_type(),
            // An object without fields has no Parquet form: its JSON text.
            Ty::Object(o) if !o.fields.is_empty() => DataType::Struct(fields_of(o)),
            Ty::List(t) => DataType::List(Arc::new(Field::new("item", t.data_type(), true))),
            _ => DataType::Utf8,
        }
    }

    /// How `json schema` says this type: the Arrow type, and for a field
    /// that is Utf8 for another reason than holding strings, why.
    pub fn note(&self) -> Option<String> {
        match self {
            Ty::Null => Some("only nulls seen".into()),
            Ty::Object(o) if o.fields.is_empty() => {
                Some("only empty objects seen: JSON text".into())
            }
            Ty::Mixed { kinds } => {
                let names: Vec<&str> = [
                    (kind::BOOL, "boolean"),
                    (kind::INT, "int64"),
                    (kind::FLOAT, "float64"),
                    (kind::STRING, "string"),
                    (kind::OBJECT, "object"),
                    (kind::ARRAY, "array"),
                ]
                .iter()
                .filter(|(k, _)| kinds & k != 0)
                .map(|(_, n)| *n)
                .collect();
                let rest = if kinds & kind::STRING != 0 {
                    "strings as text, the rest as JSON text"
                } else {
                    "each value as JSON text"
                };
                Some(format!("mixed {}: {rest}", names.join(", ")))
            }
            _ => None,
        }
    }
}

/// The kinds of a mixed field, as a function of its values alone: an
/// integer and a float join to a float before they meet a string or not,
/// depending on how the lines were cut into chunks, so a float absorbs the
/// integers here too (the note said "int64, float64, string" on some
/// thread counts and "float64, string" on others).
fn mixed(kinds: u16) -> u16 {
    if kinds & kind::FLOAT != 0 {
        kinds & !kind::INT
    } else {
        kinds
    }
}

/// The Arrow fields of an object's fields (all nullable: a key can be
/// missing from the next line).
pub fn fields_of(o: &Obj) -> Fields {
    o.fields.iter().map(|(n, t)| Field::new(n.as_str(), t.data_type(), true)).collect()
}

/// The Arrow schema of a line type.
pub fn schema_of(o: &Obj) -> Schema {
    Schema::new(fields_of(o))
}

/// Types seen in lines, joined: feed it lines with [`Inference::see`].
#[derive(Clone, Debug, Default)]
pub struct Inference {
    /// The join of every line seen.
    pub root: Obj,
    /// Lines seen (blank ones not counted).
    pub lines: u64,
    scratch: Vec<u8>,
}

impl Inference {
    /// Join the types of one line's object (blank lines are skipped).
    ///
    /// # Errors
    ///
    /// The line is not one JSON object.
    pub fn see(&mut self, line: &[u8]) -> Result<(), Syntax> {
        let mut c = Cursor::new(line);
        if c.peek().is_none() {
            return Ok(());
        }
        // Only a line every reader accepts is joined: a bad one (its tail
        // broken, a key twice) must leave none of its types behind, so the
        // schema is a function of the valid lines alone.
        crate::scan::validate_object(line)?;
        c.bump();
        let mut root = std::mem::take(&mut self.root);
        let res = self.object_into(&mut c, &mut root, 1).and_then(|()| c.end());
        self.root = root;
        self.lines += u64::from(res.is_ok());
        res
    }

    /// Join another inference (of the lines after this one's).
    pub fn join(&mut self, other: Inference) {
        self.root.join(other.root);
        self.lines += other.lines;
    }

    fn object_into(
        &mut self,
        c: &mut Cursor<'_>,
        obj: &mut Obj,
        depth: usize,
    ) -> Result<(), Syntax> {
        if depth > MAX_DEPTH {
            return c.fail("nested deeper than 256 levels");
        }
        if c.peek() == Some(b'}') {
            c.bump();
            return Ok(());
        }
        loop {
            let k = c.key()?;
            let name = if k.escaped {
                self.scratch.clear();
                crate::scan::unescape(k.raw, &mut self.scratch);
                String::from_utf8_lossy(&self.scratch).into_owned()
            } else {
                // Checked UTF-8 by the scanner.
                String::from_utf8_lossy(k.raw).into_owned()
            };
            let seen = self.value(c, depth)?;
            let slot = obj.slot(&name);
            let old = std::mem::replace(slot, Ty::Null);
            *slot = old.join(seen);
            if !c.next_member()? {
                return Ok(());
            }
        }
    }

    /// The type of one value.
    fn value(&mut self, c: &mut Cursor<'_>, depth: usize) -> Result<Ty, Syntax> {
        Ok(match c.peek() {
            Some(b'{') => {
                c.bump();
                let mut o = Obj::default();
                self.object_into(c, &mut o, depth + 1)?;
                Ty::Object(o)
            }
            Some(b'[') => {
                c.bump();
                if depth + 1 > MAX_DEPTH {
                    return c.fail("nested deeper than 256 levels");
                }
                let mut t = Ty::Null;
                if c.peek() == Some(b']') {
                    c.bump();
                } else {
                    loop {
                        t = t.join(self.value(c, depth + 1)?);
                        if !c.next_element()? {
                            break;
                        }
                    }
                }
                Ty::List(Box::new(t))
            }
            Some(b'"') => {
                c.bump();
                let s = c.string()?;
                Ty::Str { fits: if s.escaped { Fits::TEXT } else { text_fits(s.raw) } }
            }
            Some(b't') => {
                c.literal(b"true")?;
                Ty::Bool
            }
            Some(b'f') => {
                c.literal(b"false")?;
                Ty::Bool
            }
            Some(b'n') => {
                c.literal(b"null")?;
                Ty::Null
            }
            Some(b'-' | b'0'..=b'9') => {
                let start = c.at();
                match c.number()? {
                    Num::Int if swath_csv::typed::parse_i64(&c.line()[start..c.at()]).is_some() => {
                        Ty::Int
                    }
                    _ => Ty::Float,
                }
            }
            Some(_) => return c.fail("not a JSON value"),
            None => return c.fail("a value is missing"),
        })
    }
}

/// Which of date, timestamp and timestamp with offset a string is.
fn text_fits(s: &[u8]) -> Fits {
    let mut fits = Fits::TEMPORAL;
    fits.see(s);
    fits
}

#[cfg(test)]
mod tests {
    use arrow_schema::TimeUnit;

    use super::*;

    fn infer(lines: &[&str]) -> Schema {
        let mut inf = Inference::default();
        for l in lines {
            inf.see(l.as_bytes()).unwrap();
        }
        schema_of(&inf.root)
    }

    fn ty(lines: &[&str], field: &str) -> DataType {
        infer(lines).field_with_name(field).unwrap().data_type().clone()
    }

    #[test]
    fn the_lattice() {
        assert_eq!(ty(&[r#"{"a":1}"#, r#"{"a":2}"#], "a"), DataType::Int64);
        assert_eq!(ty(&[r#"{"a":1}"#, r#"{"a":2.5}"#], "a"), DataType::Float64);
        assert_eq!(ty(&[r#"{"a":99999999999999999999}"#], "a"), DataType::Float64);
        assert_eq!(ty(&[r#"{"a":null}"#, r#"{"a":true}"#], "a"), DataType::Boolean);
        assert_eq!(ty(&[r#"{"a":"2024-01-02"}"#], "a"), DataType::Date32);
        assert_eq!(
            ty(&[r#"{"a":"2024-01-02T03:04:05Z"}"#, r#"{"a":"2024-01-02 03:04:05+02:00"}"#], "a"),
            DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
        );
        assert_eq!(
            ty(&[r#"{"a":"2024-01-02T03:04:05"}"#], "a"),
            DataType::Timestamp(TimeUnit::Microsecond, None)
        );
        assert_eq!(
            ty(&[r#"{"a":"2024-01-02"}"#, r#"{"a":"2024-01-02T03:04:05"}"#], "a"),
            DataType::Utf8
        );
        assert_eq!(ty(&[r#"{"a":"x"}"#, r#"{"a":1}"#], "a"), DataType::Utf8);
        assert_eq!(ty(&[r#"{"a":1}"#, r#"{"a":true}"#], "a"), DataType::Utf8);
        assert_eq!(ty(&[r#"{"a":null}"#], "a"), DataType::Utf8);
        assert_eq!(ty(&[r#"{"a":{}}"#], "a"), DataType::Utf8);
        assert_eq!(
            ty(&[r#"{"a":[]}"#], "a"),
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
        );
        assert_eq!(
            ty(&[r#"{"a":[1,null]}"#, r#"{"a":[2.5]}"#], "a"),
            DataType::List(Arc::new(Field::new("item", DataType::Float64, true)))
        );
        assert_eq!(ty(&[r#"{"a":[1]}"#, r#"{"a":{"b":1}}"#], "a"), DataType::Utf8);
    }

    #[test]
    fn objects_join_field_by_field_in_first_seen_order() {
        let s = infer(&[r#"{"b":1,"o":{"x":1}}"#, r#"{"a":"s","o":{"y":"2024-01-02","x":2.5}}"#]);
        let names: Vec<_> = s.fields().iter().map(|f| f.name().as_str()).collect();
        assert_eq!(names, ["b", "o", "a"]);
        let DataType::Struct(o) = s.field(1).data_type() else { panic!() };
        assert_eq!(o[0].name(), "x");
        assert_eq!(o[0].data_type(), &DataType::Float64);
        assert_eq!(o[1].data_type(), &DataType::Date32);
    }

    #[test]
    fn notes_say_why_a_field_is_text() {
        let mut inf = Inference::default();
        inf.see(br#"{"a":"x","b":1,"c":null}"#).unwrap();
        inf.see(br#"{"a":2,"b":{"k":1}}"#).unwrap();
        let f = |i: usize| inf.root.fields[i].1.note();
        assert_eq!(f(0).unwrap(), "mixed int64, string: strings as text, the rest as JSON text");
        assert_eq!(f(1).unwrap(), "mixed int64, object: each value as JSON text");
        assert_eq!(f(2).unwrap(), "only nulls seen");
    }

    #[test]
    fn chunks_joined_in_order_equal_one_pass() {
        let lines =
            [r#"{"a":1}"#, r#"{"b":[1]}"#, r#"{"a":2.5,"c":"x"}"#, r#"{"b":[null,"q"],"a":null}"#];
        let mut one = Inference::default();
        for l in lines {
            one.see(l.as_bytes()).unwrap();
        }
        for cut in 0..=lines.len() {
            let (mut x, mut y) = (Inference::default(), Inference::default());
            lines[..cut].iter().for_each(|l| x.see(l.as_bytes()).unwrap());
            lines[cut..].iter().for_each(|l| y.see(l.as_bytes()).unwrap());
            x.join(y);
            assert_eq!(schema_of(&x.root), schema_of(&one.root));
            assert_eq!(x.lines, 4);
        }
    }

    /// Types and notes are a function of the values, not of where the
    /// lines were cut: every sequence of up to five values from a set of
    /// every kind, cut into up to three chunks at every place, joins to the
    /// one-pass answer. (`1`, `2.5`, `"x"` gave "mixed float64, string" in
    /// one pass and "mixed int64, float64, string" cut as `1 | 2.5 "x"`.)
    #[test]
    fn the_join_is_associative_notes_included() {
        let values = ["1", "2.5", "\"x\"", "true", "null", "{\"k\":1}", "[1]", "\"2024-01-02\""];
        let mut seqs: Vec<Vec<usize>> = vec![vec![]];
        for _ in 0..4 {
            let longer: Vec<Vec<usize>> = seqs
                .iter()
                .filter(|s| s.len() < 4)
                .flat_map(|s| (0..values.len()).map(move |v| [s.clone(), vec![v]].concat()))
                .collect();
            seqs.extend(longer);
            seqs.sort();
            seqs.dedup();
        }
        let line = |v: usize| format!("{{\"f\":{}}}", values[v]);
        let infer_of = |vs: &[usize]| {
            let mut inf = Inference::default();
            vs.iter().for_each(|&v| inf.see(line(v).as_bytes()).unwrap());
            inf
        };
        let said =
            |inf: &Inference| inf.root.fields.first().map(|(_, t)| (t.data_type(), t.note()));
        for seq in &seqs {
            let one = said(&infer_of(seq));
            for a in 0..=seq.len() {
                for b in a..=seq.len() {
                    let mut x = infer_of(&seq[..a]);
                    let mut y = infer_of(&seq[a..b]);
                    y.join(infer_of(&seq[b..]));
                    x.join(y);
                    assert_eq!(said(&x), one, "{seq:?} cut at {a}, {b}");
                }
            }
        }
    }
}

//! The schema file: one JSON form of an Arrow schema for every format.
//! `swath csv schema --json` and `swath json schema --json` write it; the
//! `--schema FILE` of both formats' commands and Python's `schema=` read
//! it back.
//!
//! ```text
//! {"fields": [
//!   {"name": "ts", "type": "timestamptz", "nullable": true},
//!   {"name": "req", "type": "struct", "nullable": true, "fields": [...]},
//!   {"name": "tags", "type": "list", "nullable": true, "item": {"type": "utf8", "nullable": true}}
//! ]}
//! ```
//!
//! A type is a [`ColumnType`] name, `struct` (with its `fields`) or `list`
//! (with its `item`); `nullable` defaults to true. Any other key (a
//! field's `note`, CSV's `sampled` counts, the file's `method`) says how
//! the schema was inferred and is ignored when reading.
//!
//! The form `swath csv schema --json` wrote before, `{"columns": [...]}`
//! (flat), or that list alone, is still read, and said to be old
//! ([`SchemaFile::old_form`]) so that a caller can ask for the new one.

use std::path::Path;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::error::{Error, Result};
use crate::types::{ColumnSpec, ColumnType};

/// The deepest a schema file may nest its JSON. A struct is two levels (its
/// object and its `fields` list) and a list one (its `item`), so this
/// reads the schema of data nested 508 deep, past the 256 levels swath's
/// JSON reader takes; deeper is refused before parsing, never a stack
/// overflow.
pub const MAX_DEPTH: usize = 1024;

/// What the note on an old-form file says (the CLI prints it).
pub const OLD_FORM_NOTE: &str = "this schema file has the old form {\"columns\": [...]}, which \
     a later swath will not read; write it anew with `swath csv schema --json`, which gives \
     {\"fields\": [...]}";

/// Whether a `--schema` (or Python `schema=`) text names a schema file
/// rather than giving types (`id:int64,...`): it ends in `.json` or is
/// the path of a file. One rule for the CLI and Python.
pub fn names_a_file(spec: &str) -> bool {
    spec.ends_with(".json") || Path::new(spec).is_file()
}

/// A schema file, read.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaFile {
    /// The schema it gives.
    pub schema: Schema,
    /// It had the old form (`{"columns": [...]}`, or a bare list).
    pub old_form: bool,
}

impl SchemaFile {
    /// Its fields as CSV column types, for a format whose columns are flat.
    ///
    /// # Errors
    ///
    /// [`Error::Schema`] for a struct, a list or a type CSV does not decode.
    pub fn column_specs(&self) -> Result<Vec<ColumnSpec>> {
        self.schema
            .fields()
            .iter()
            .map(|f| {
                let ty = ColumnType::from_data_type(f.data_type()).ok_or_else(|| {
                    Error::Schema(format!(
                        "schema file: field {:?} is a {}; CSV columns are flat ({})",
                        f.name(),
                        f.data_type(),
                        ColumnType::ALL.map(ColumnType::name).join(", ")
                    ))
                })?;
                Ok(ColumnSpec { name: f.name().clone(), ty, nullable: f.is_nullable() })
            })
            .collect()
    }
}

/// What a format adds to a field's JSON object: called with the field's
/// path (names from the top; a list's item is `[]`) and the object.
pub type Annotate<'a> = dyn FnMut(&[&str], &mut Map<String, Value>) + 'a;

/// The schema file of `fields`: `{"fields": [...]}`, each field's object
/// passed through `annotate` to add what the format knows of it (a note,
/// counts); the caller adds the file's own keys to the result.
pub fn to_json(fields: &Fields, annotate: &mut Annotate<'_>) -> Value {
    let mut path = Vec::new();
    json!({ "fields": fields_json(fields, &mut path, annotate) })
}

fn fields_json<'a>(
    fields: &'a Fields,
    path: &mut Vec<&'a str>,
    annotate: &mut Annotate<'_>,
) -> Vec<Value> {
    fields
        .iter()
        .map(|f| {
            path.push(f.name());
            let mut v = Map::new();
            v.insert("name".into(), json!(f.name()));
            type_json(f.data_type(), &mut v, path, annotate);
            v.insert("nullable".into(), json!(f.is_nullable()));
            annotate(path, &mut v);
            path.pop();
            Value::Object(v)
        })
        .collect()
}

fn type_json<'a>(
    dt: &'a DataType,
    v: &mut Map<String, Value>,
    path: &mut Vec<&'a str>,
    annotate: &mut Annotate<'_>,
) {
    match dt {
        DataType::Struct(fs) => {
            v.insert("type".into(), json!("struct"));
            v.insert("fields".into(), json!(fields_json(fs, path, annotate)));
        }
        DataType::List(item) => {
            v.insert("type".into(), json!("list"));
            path.push("[]");
            let mut i = Map::new();
            type_json(item.data_type(), &mut i, path, annotate);
            i.insert("nullable".into(), json!(item.is_nullable()));
            annotate(path, &mut i);
            path.pop();
            v.insert("item".into(), Value::Object(i));
        }
        other => {
            let name = ColumnType::from_data_type(other).map_or("unsupported", ColumnType::name);
            v.insert("type".into(), json!(name));
        }
    }
}

/// Read a schema file.
///
/// # Errors
///
/// [`Error::Schema`]: not JSON (with its line and column), nested deeper
/// than [`MAX_DEPTH`], no `fields` list, or a field without a name or
/// with an unknown type (named with the field's path).
pub fn parse(text: &str) -> Result<SchemaFile> {
    let bad = |m: String| Error::Schema(m);
    if let Some(at) = too_deep(text.as_bytes()) {
        return Err(bad(format!(
            "schema file: byte {at}: nested deeper than {MAX_DEPTH} levels, deeper than a schema \
             of any data swath reads"
        )));
    }
    // Deep enough for any schema swath writes (serde_json's own limit of
    // 128 levels stopped structs at 64); `too_deep` bounds the recursion.
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let v = Value::deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| bad(format!("schema file: not JSON: {e}")))?;
    let (list, old_form) = match &v {
        Value::Object(o) => match (o.get("fields"), o.get("columns")) {
            (Some(Value::Array(a)), _) => (a, false),
            (None, Some(Value::Array(a))) => (a, true),
            _ => return Err(bad("schema file: no \"fields\" list".into())),
        },
        Value::Array(a) => (a, true),
        _ => return Err(bad("schema file: not an object with a \"fields\" list".into())),
    };
    let schema = Schema::new(parse_fields(list, "")?);
    Ok(SchemaFile { schema, old_form })
}

/// Where `text` first nests deeper than [`MAX_DEPTH`], counting the
/// brackets outside strings; `None` when it does not.
fn too_deep(text: &[u8]) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (at, &b) in text.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(at);
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

fn parse_fields(list: &[Value], parent: &str) -> Result<Fields> {
    list.iter()
        .enumerate()
        .map(|(i, f)| {
            let Some(name) = f.get("name").and_then(Value::as_str) else {
                return Err(Error::Schema(format!(
                    "schema file: field {} of {} has no \"name\"",
                    i + 1,
                    if parent.is_empty() { "the schema" } else { parent }
                )));
            };
            let path =
                if parent.is_empty() { name.to_string() } else { format!("{parent}.{name}") };
            let nullable = f.get("nullable").and_then(Value::as_bool).unwrap_or(true);
            let dt = parse_type(f, &path)?;
            Ok(Arc::new(Field::new(name, dt, nullable)))
        })
        .collect()
}

fn parse_type(f: &Value, path: &str) -> Result<DataType> {
    let bad = |m: &str| Error::Schema(format!("schema file: field {path:?}: {m}"));
    let ty = f.get("type").and_then(Value::as_str).ok_or_else(|| bad("no \"type\""))?;
    Ok(match ty {
        "struct" => {
            let fs = f.get("fields").and_then(Value::as_array);
            DataType::Struct(parse_fields(
                fs.ok_or_else(|| bad("a struct without \"fields\""))?,
                path,
            )?)
        }
        "list" => {
            let item = f.get("item").ok_or_else(|| bad("a list without an \"item\""))?;
            let nullable = item.get("nullable").and_then(Value::as_bool).unwrap_or(true);
            let dt = parse_type(item, &format!("{path}[]"))?;
            DataType::List(Arc::new(Field::new("item", dt, nullable)))
        }
        name => ColumnType::parse(name).map_err(|e| bad(&e.to_string()))?.data_type(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested() -> Schema {
        let tags = DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
        let req = DataType::Struct(
            vec![Field::new("ms", DataType::Float64, true), Field::new("tags", tags, true)].into(),
        );
        Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new("req", req, true),
            Field::new("ts", ColumnType::TimestampTz.data_type(), true),
        ])
    }

    fn text_of(schema: &Schema) -> String {
        serde_json::to_string(&to_json(schema.fields(), &mut |_, _| {})).unwrap()
    }

    #[test]
    fn nested_schemas_read_back() {
        let schema = nested();
        let back = parse(&text_of(&schema)).unwrap();
        assert_eq!(back, SchemaFile { schema, old_form: false });
        let err = parse(
            r#"{"fields":[{"name":"r","type":"struct","fields":[{"name":"a","type":"decimal"}]}]}"#,
        );
        assert!(err.unwrap_err().to_string().contains("field \"r.a\""));
        assert!(parse(r#"{"fields":[{"name":"a","type":"decimal"}]}"#).is_err());
        assert!(parse(r#"{"fields":[{"type":"int64"}]}"#).is_err());
        assert!(parse(r#"{"fields":[{"name":"l","type":"list"}]}"#).is_err());
        assert!(parse(r#"{"nothing":[]}"#).is_err());
        assert!(parse("{}").is_err());
        assert!(parse("7").is_err());
    }

    #[test]
    fn annotations_see_every_path() {
        let mut seen = Vec::new();
        let v = to_json(nested().fields(), &mut |path, obj| {
            seen.push(path.join("/"));
            obj.insert("note".into(), json!(path.len()));
        });
        assert_eq!(seen, ["id", "req/ms", "req/tags/[]", "req/tags", "req", "ts"]);
        assert_eq!(v["fields"][1]["fields"][1]["item"]["note"], 3);
        // Annotations are ignored when read back.
        assert_eq!(parse(&v.to_string()).unwrap().schema, nested());
    }

    #[test]
    fn the_old_csv_form_is_read_and_said_to_be_old() {
        let old = r#"{"columns":[{"name":"a","type":"int64","nullable":false,"sampled":3},{"name":"b","type":"utf8"}],"records":3}"#;
        let want = Schema::new(vec![
            Field::new("a", DataType::Int64, false),
            Field::new("b", DataType::Utf8, true),
        ]);
        assert_eq!(parse(old).unwrap(), SchemaFile { schema: want.clone(), old_form: true });
        let bare = r#"[{"name":"a","type":"int64","nullable":false},{"name":"b","type":"utf8"}]"#;
        let file = parse(bare).unwrap();
        assert_eq!(file, SchemaFile { schema: want, old_form: true });
        let specs = file.column_specs().unwrap();
        assert_eq!(
            specs[0],
            ColumnSpec { name: "a".into(), ty: ColumnType::Int64, nullable: false }
        );
        assert!(specs[1].nullable);
        // CSV columns are flat.
        let nested = SchemaFile { schema: nested(), old_form: false };
        assert!(nested.column_specs().unwrap_err().to_string().contains("\"req\" is a Struct"));
    }

    /// Structs and lists as deep as swath reads data (256 levels) read
    /// back; serde_json's own limit (128) stopped structs at 64 and lists
    /// at about 126. Deeper than any data is refused, not a stack overflow.
    #[test]
    fn the_deepest_schemas_read_back() {
        for depth in [1, 63, 64, 65, 127, 255, 256] {
            let mut st = DataType::Int64;
            let mut li = DataType::Int64;
            for _ in 0..depth {
                st = DataType::Struct(vec![Field::new("o", st, true)].into());
                li = DataType::List(Arc::new(Field::new("item", li, true)));
            }
            for dt in [st, li] {
                let schema = Schema::new(vec![Field::new("o", dt, true)]);
                assert_eq!(parse(&text_of(&schema)).unwrap().schema, schema, "{depth} deep");
            }
        }
        let bomb = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse(&bomb).unwrap_err().to_string().contains("nested deeper"));
        // Brackets in strings are text, and escapes are resolved.
        let name = format!("{}{{\\u0041\\\"", "[".repeat(2000));
        let text =
            format!(r#"{{"fields":[{{"name":"{name}","type":"int64","nullable":false}}]}} "#);
        let one = Schema::new(vec![Field::new(
            format!("{}{{A\"", "[".repeat(2000)),
            DataType::Int64,
            false,
        )]);
        assert_eq!(parse(&text).unwrap().schema, one);
        let text = r#"{"fields":[{"name":"[[{\u0041","type":"int64","nullable":false}]} "#;
        let one = Schema::new(vec![Field::new("[[{A", DataType::Int64, false)]);
        assert_eq!(parse(text).unwrap().schema, one);
        assert!(parse(r#"{"fields":[]} x"#).is_err());
    }
}

//! The JSON form of a schema, nested fields included: what `swath json
//! schema --json` prints and `--schema FILE` reads back.
//!
//! ```text
//! {"fields": [
//!   {"name": "ts", "type": "timestamptz", "nullable": true},
//!   {"name": "req", "type": "struct", "nullable": true, "fields": [...]},
//!   {"name": "tags", "type": "list", "nullable": true, "item": {"type": "utf8", "nullable": true}}
//! ]}
//! ```

use std::sync::Arc;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use swath_arrow::ColumnType;
use swath_json::arrow_schema::{DataType, Field, Fields, Schema};
use swath_json::infer::{Obj, Ty};
use swath_json::scan::{unescape, Cursor, Str, Syntax};

/// The JSON of `schema`'s fields, with each inferred field's note (why it
/// is text) from `root` when there is one.
pub fn to_json(schema: &Schema, root: Option<&Obj>) -> Value {
    json!({ "fields": fields_json(schema.fields(), root) })
}

fn fields_json(fields: &Fields, root: Option<&Obj>) -> Vec<Value> {
    fields
        .iter()
        .map(|f| {
            let ty =
                root.and_then(|o| o.fields.iter().find(|(n, _)| n == f.name())).map(|(_, t)| t);
            let mut v = type_json(f.data_type(), ty);
            v["name"] = json!(f.name());
            v["nullable"] = json!(f.is_nullable());
            v
        })
        .collect()
}

fn type_json(dt: &DataType, ty: Option<&Ty>) -> Value {
    let mut v = match dt {
        DataType::Struct(fs) => {
            let inner = match ty {
                Some(Ty::Object(o)) => Some(o),
                _ => None,
            };
            json!({ "type": "struct", "fields": fields_json(fs, inner) })
        }
        DataType::List(item) => {
            let inner = match ty {
                Some(Ty::List(t)) => Some(&**t),
                _ => None,
            };
            let mut i = type_json(item.data_type(), inner);
            i["nullable"] = json!(item.is_nullable());
            json!({ "type": "list", "item": i })
        }
        other => {
            json!({ "type": ColumnType::from_data_type(other).map_or("unsupported", ColumnType::name) })
        }
    };
    if let Some(note) = ty.and_then(Ty::note) {
        v["note"] = json!(note);
    }
    v
}

/// A schema from its JSON form.
///
/// # Errors
///
/// Not JSON, or a field without a name or with an unknown type.
pub fn parse(text: &str) -> Result<Schema> {
    let v = read_json(text)?;
    let fields = v.get("fields").and_then(Value::as_array).context("no \"fields\" list")?;
    Ok(Schema::new(parse_fields(fields)?))
}

/// The deepest a schema file may nest: a struct is two levels (its
/// object and its `fields` list), a list one (`item`), and the data nests
/// at most `swath_json::scan::MAX_DEPTH` levels.
const MAX_SCHEMA_DEPTH: usize = 2 * swath_json::scan::MAX_DEPTH + 8;

/// A JSON text as a value, read with swath's own grammar
/// (`swath_json::scan`): a schema as deep as the data swath reads (256
/// levels) nests its JSON about twice as deep, past serde_json's limit of
/// 128 levels. Ours is [`MAX_SCHEMA_DEPTH`].
fn read_json(text: &str) -> Result<Value> {
    let mut c = Cursor::new(text.as_bytes());
    let v = value(&mut c, 0).and_then(|v| c.end().map(|()| v));
    v.map_err(|e| anyhow::anyhow!("not JSON: byte {}: {}", e.at, e.reason))
}

fn value(c: &mut Cursor<'_>, depth: usize) -> Result<Value, Syntax> {
    if depth > MAX_SCHEMA_DEPTH {
        return c.fail("nested deeper than a schema of any data swath reads");
    }
    let text = |s: Str<'_>| {
        let mut v = Vec::new();
        unescape(s.raw, &mut v);
        String::from_utf8_lossy(&v).into_owned()
    };
    Ok(match c.peek() {
        Some(b'{') => {
            c.bump();
            let mut map = serde_json::Map::new();
            if c.peek() == Some(b'}') {
                c.bump();
            } else {
                loop {
                    let k = text(c.key()?);
                    map.insert(k, value(c, depth + 1)?);
                    if !c.next_member()? {
                        break;
                    }
                }
            }
            Value::Object(map)
        }
        Some(b'[') => {
            c.bump();
            let mut items = Vec::new();
            if c.peek() == Some(b']') {
                c.bump();
            } else {
                loop {
                    items.push(value(c, depth + 1)?);
                    if !c.next_element()? {
                        break;
                    }
                }
            }
            Value::Array(items)
        }
        Some(b'"') => {
            c.bump();
            Value::String(text(c.string()?))
        }
        Some(b't') => c.literal(b"true").map(|()| Value::Bool(true))?,
        Some(b'f') => c.literal(b"false").map(|()| Value::Bool(false))?,
        Some(b'n') => c.literal(b"null").map(|()| Value::Null)?,
        Some(b'-' | b'0'..=b'9') => {
            let start = c.at();
            c.number()?;
            let digits = std::str::from_utf8(&c.line()[start..c.at()]).unwrap_or("0");
            serde_json::from_str(digits).unwrap_or(Value::Null)
        }
        _ => return c.fail("not a JSON value"),
    })
}

fn parse_fields(fields: &[Value]) -> Result<Fields> {
    fields
        .iter()
        .map(|f| {
            let name =
                f.get("name").and_then(Value::as_str).context("a field without a \"name\"")?;
            let nullable = f.get("nullable").and_then(Value::as_bool).unwrap_or(true);
            let dt = parse_type(f).with_context(|| format!("field {name:?}"))?;
            Ok(Arc::new(Field::new(name, dt, nullable)))
        })
        .collect()
}

fn parse_type(f: &Value) -> Result<DataType> {
    let ty = f.get("type").and_then(Value::as_str).context("no \"type\"")?;
    Ok(match ty {
        "struct" => {
            let fs =
                f.get("fields").and_then(Value::as_array).context("a struct without \"fields\"")?;
            DataType::Struct(parse_fields(fs)?)
        }
        "list" => {
            let item = f.get("item").context("a list without an \"item\"")?;
            let nullable = item.get("nullable").and_then(Value::as_bool).unwrap_or(true);
            DataType::List(Arc::new(Field::new("item", parse_type(item)?, nullable)))
        }
        "utf8view" => bail!("utf8view is not a JSON lines type (utf8 is)"),
        name => ColumnType::parse(name)?.data_type(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_schemas_read_back() {
        let schema = Schema::new(vec![
            Field::new("id", DataType::Int64, false),
            Field::new(
                "req",
                DataType::Struct(
                    vec![
                        Field::new("ms", DataType::Float64, true),
                        Field::new(
                            "tags",
                            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
                            true,
                        ),
                    ]
                    .into(),
                ),
                true,
            ),
            Field::new("ts", ColumnType::TimestampTz.data_type(), true),
        ]);
        let text = serde_json::to_string(&to_json(&schema, None)).unwrap();
        assert_eq!(parse(&text).unwrap(), schema);
        assert!(parse(r#"{"fields":[{"name":"a","type":"decimal"}]}"#).is_err());
    }

    /// Structs and lists as deep as swath reads data (256 levels) read
    /// back; serde_json's own limit (128) stopped structs at 64 and lists
    /// at about 126. Deeper than any data is refused, not a stack overflow.
    #[test]
    fn the_deepest_schemas_read_back() {
        let deepest = swath_json::scan::MAX_DEPTH;
        for depth in [1, 63, 64, 65, 127, deepest - 1] {
            let mut st = DataType::Int64;
            let mut li = DataType::Int64;
            for _ in 0..depth {
                st = DataType::Struct(vec![Field::new("o", st, true)].into());
                li = DataType::List(Arc::new(Field::new("item", li, true)));
            }
            for dt in [st, li] {
                let schema = Schema::new(vec![Field::new("o", dt, true)]);
                let text = serde_json::to_string(&to_json(&schema, None)).unwrap();
                assert_eq!(parse(&text).unwrap(), schema, "{depth} deep");
            }
        }
        let bomb = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse(&bomb).unwrap_err().to_string().contains("nested deeper"));
        // Brackets in strings are text, and escapes are resolved.
        let text = r#"{"fields":[{"name":"[[{\u0041","type":"int64","nullable":false}]} "#;
        let one = Schema::new(vec![Field::new("[[{A", DataType::Int64, false)]);
        assert_eq!(parse(text).unwrap(), one);
        assert!(parse(r#"{"fields":[]} x"#).is_err());
    }
}

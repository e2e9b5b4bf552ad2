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
    let v: Value = serde_json::from_str(text).context("not JSON")?;
    let fields = v.get("fields").and_then(Value::as_array).context("no \"fields\" list")?;
    Ok(Schema::new(parse_fields(fields)?))
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
}

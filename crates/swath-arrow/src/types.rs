//! The column types swath decodes, their names in schema text, and the
//! schema text (`id:int64,ts:timestamptz`); the JSON form is
//! [`schema_file`](crate::schema_file)'s.

use std::sync::Arc;

use arrow_schema::{DataType, Field, TimeUnit};

use crate::error::{Error, Result};

/// The time zone of timestamps whose text had `Z` or an offset: values
/// are stored in UTC.
pub const UTC: &str = "UTC";

/// A column type swath decodes CSV text into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ColumnType {
    /// `Int64`, from what `i64`'s [`swath_csv::FromField`] parses.
    Int64,
    /// `Float64`, from what `f64`'s [`swath_csv::FromField`] parses.
    Float64,
    /// `Boolean`: `true` or `false`.
    Boolean,
    /// `Date32`: `YYYY-MM-DD`.
    Date32,
    /// `Timestamp(Microsecond, None)`: a timestamp without offset, as
    /// written.
    Timestamp,
    /// `Timestamp(Microsecond, "UTC")`: a timestamp with `Z` or an offset,
    /// converted to UTC.
    TimestampTz,
    /// `Utf8`: any valid UTF-8.
    Utf8,
    /// `Utf8View`: the same text as views (16 bytes a value: a value of
    /// up to 12 bytes inline, a longer one as its length, first 4 bytes
    /// and place in the batch's text, which is one buffer). Never
    /// inferred: asked for by [`ArrowReaderBuilder::string_view`](crate::ArrowReaderBuilder::string_view)
    /// or a given schema.
    Utf8View,
}

impl ColumnType {
    /// All of them, most specific first (the order inference prefers;
    /// `Utf8View`, never inferred, last).
    pub const ALL: [ColumnType; 8] = [
        ColumnType::Int64,
        ColumnType::Float64,
        ColumnType::Boolean,
        ColumnType::Date32,
        ColumnType::Timestamp,
        ColumnType::TimestampTz,
        ColumnType::Utf8,
        ColumnType::Utf8View,
    ];

    /// The Arrow type.
    pub fn data_type(self) -> DataType {
        match self {
            ColumnType::Int64 => DataType::Int64,
            ColumnType::Float64 => DataType::Float64,
            ColumnType::Boolean => DataType::Boolean,
            ColumnType::Date32 => DataType::Date32,
            ColumnType::Timestamp => DataType::Timestamp(TimeUnit::Microsecond, None),
            ColumnType::TimestampTz => {
                DataType::Timestamp(TimeUnit::Microsecond, Some(Arc::from(UTC)))
            }
            ColumnType::Utf8 => DataType::Utf8,
            ColumnType::Utf8View => DataType::Utf8View,
        }
    }

    /// The type of an Arrow type, when swath decodes it.
    pub fn from_data_type(dt: &DataType) -> Option<ColumnType> {
        Some(match dt {
            DataType::Int64 => ColumnType::Int64,
            DataType::Float64 => ColumnType::Float64,
            DataType::Boolean => ColumnType::Boolean,
            DataType::Date32 => ColumnType::Date32,
            DataType::Timestamp(TimeUnit::Microsecond, None) => ColumnType::Timestamp,
            DataType::Timestamp(TimeUnit::Microsecond, Some(_)) => ColumnType::TimestampTz,
            DataType::Utf8 => ColumnType::Utf8,
            DataType::Utf8View => ColumnType::Utf8View,
            _ => return None,
        })
    }

    /// The name in schema text (`int64`, `float64`, `boolean`, `date32`,
    /// `timestamp`, `timestamptz`, `utf8`, `utf8view`).
    pub fn name(self) -> &'static str {
        match self {
            ColumnType::Int64 => "int64",
            ColumnType::Float64 => "float64",
            ColumnType::Boolean => "boolean",
            ColumnType::Date32 => "date32",
            ColumnType::Timestamp => "timestamp",
            ColumnType::TimestampTz => "timestamptz",
            ColumnType::Utf8 => "utf8",
            ColumnType::Utf8View => "utf8view",
        }
    }

    /// Parse a type name: the names of [`name`](Self::name) and the usual
    /// synonyms (`int`, `bigint`, `double`, `bool`, `date`, `string`, ...),
    /// case-insensitive.
    ///
    /// # Errors
    ///
    /// [`Error::Schema`] naming the accepted names.
    pub fn parse(name: &str) -> Result<ColumnType> {
        Ok(match name.trim().to_ascii_lowercase().as_str() {
            "int64" | "int" | "integer" | "bigint" | "i64" | "long" => ColumnType::Int64,
            "float64" | "double" | "float" | "f64" | "real" => ColumnType::Float64,
            "boolean" | "bool" => ColumnType::Boolean,
            "date32" | "date" => ColumnType::Date32,
            "timestamp" | "datetime" => ColumnType::Timestamp,
            "timestamptz" | "timestamp_tz" | "timestamp with time zone" => {
                ColumnType::TimestampTz
            }
            "utf8" | "string" | "str" | "text" | "varchar" => ColumnType::Utf8,
            "utf8view" | "string_view" | "stringview" => ColumnType::Utf8View,
            other => {
                return Err(Error::Schema(format!(
                    "unknown type {other:?} (int64, float64, boolean, date32, timestamp, timestamptz, utf8, utf8view)"
                )))
            }
        })
    }
}

/// One column of a schema given by the user: a name and a type, nullable
/// unless said otherwise.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnSpec {
    /// The column's name (its header).
    pub name: String,
    /// Its type.
    pub ty: ColumnType,
    /// Whether an empty field (the null text) is allowed.
    pub nullable: bool,
}

impl ColumnSpec {
    /// The Arrow field.
    pub fn field(&self) -> Field {
        Field::new(&self.name, self.ty.data_type(), self.nullable)
    }
}

/// Parse schema text: `name:type` pairs separated by commas, a `!` after
/// the type for not null (`id:int64!,ts:timestamptz`).
///
/// # Errors
///
/// [`Error::Schema`] for a pair without `:` or an unknown type.
pub fn parse_schema_text(text: &str) -> Result<Vec<ColumnSpec>> {
    let mut out = Vec::new();
    for pair in text.split(',').filter(|p| !p.trim().is_empty()) {
        let (name, ty) = pair
            .rsplit_once(':')
            .ok_or_else(|| Error::Schema(format!("{pair:?} is not name:type")))?;
        let (ty, nullable) = match ty.trim().strip_suffix('!') {
            Some(t) => (t, false),
            None => (ty, true),
        };
        out.push(ColumnSpec {
            name: name.trim().to_string(),
            ty: ColumnType::parse(ty)?,
            nullable,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schema_text() {
        let s = parse_schema_text("id:int64!, ts:timestamp,name:string").unwrap();
        assert_eq!(s[0], ColumnSpec { name: "id".into(), ty: ColumnType::Int64, nullable: false });
        assert_eq!(s[1].ty, ColumnType::Timestamp);
        assert_eq!(s[2].ty, ColumnType::Utf8);
        assert!(parse_schema_text("id").is_err());
        assert!(parse_schema_text("id:int128").is_err());
    }

    #[test]
    fn names_round_trip() {
        for t in ColumnType::ALL {
            assert_eq!(ColumnType::parse(t.name()).unwrap(), t);
            assert_eq!(ColumnType::from_data_type(&t.data_type()), Some(t));
        }
    }
}

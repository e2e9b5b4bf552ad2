//! `--schema` and `--infer`: how the Arrow commands (`schema`, `check`,
//! `to-csv`, `to-parquet`, `to-arrow`) type the fields.

use std::sync::Arc;

use anyhow::{Context, Result};
use swath::Source;
use swath_json::arrow_schema::{DataType, Field, Schema, SchemaRef};
use swath_json::{Infer, Inferred, JsonReaderBuilder};

/// How to type the fields.
#[derive(Debug, Clone, clap::Args)]
pub struct TypeOpts {
    /// Field types: a JSON file as `swath json schema --json` prints (the
    /// whole schema, nested fields too; nothing is inferred), or top-level
    /// overrides of the inferred types, `id:int64,ts:utf8`. Types: int64,
    /// float64, boolean, date32, timestamp, timestamptz, utf8.
    #[arg(long, value_name = "SPEC|FILE")]
    schema: Option<String>,
    /// How to infer: `sample` (the head and lines spread over the file) or
    /// `full` (every line first; the types are then sure to fit).
    #[arg(long, default_value = "sample", value_parser = ["sample", "full"])]
    infer: String,
    /// Rows per Arrow batch.
    #[arg(long, default_value_t = swath_json::DEFAULT_BATCH_SIZE, hide = true)]
    batch_size: usize,
}

/// The schema the command uses, and the inference behind it (none when a
/// schema file was given).
pub struct Typed {
    pub schema: SchemaRef,
    pub inferred: Option<Inferred>,
    /// Top-level fields whose type was given.
    pub given: Vec<String>,
}

impl TypeOpts {
    /// Types as `--schema` gives them, the rest sampled.
    pub fn given(spec: String) -> TypeOpts {
        TypeOpts {
            schema: Some(spec),
            infer: "sample".into(),
            batch_size: swath_json::DEFAULT_BATCH_SIZE,
        }
    }

    /// Set the batch size and the way of inferring on `b`.
    pub fn configure(&self, b: &mut JsonReaderBuilder) {
        b.batch_size(self.batch_size);
        if self.infer == "full" {
            b.infer(Infer::Full);
        }
    }

    /// The schema for `src`, and the source to read it with from the
    /// start (a stream's head replayed).
    pub fn resolve(&self, b: &JsonReaderBuilder, src: Source) -> Result<(Typed, Source)> {
        let name = src.name();
        if let Some(spec) = &self.schema {
            if let Some(file) = crate::args::schema_file::read_if_file(spec)? {
                let schema = file.schema;
                if let Some(field) = schema.fields().iter().find(|f| has_utf8view(f.data_type())) {
                    anyhow::bail!(
                        "the schema file {spec}: field {:?}: utf8view is not a JSON lines type \
                         (utf8 is)",
                        field.name()
                    );
                }
                let given = schema.fields().iter().map(|f| f.name().clone()).collect();
                return Ok((Typed { schema: Arc::new(schema), inferred: None, given }, src));
            }
        }
        let (inferred, src) = b
            .infer_and_replay(src)
            .with_context(|| format!("cannot infer the schema of {name}"))?;
        let mut fields: Vec<Field> =
            inferred.schema.fields().iter().map(|f| f.as_ref().clone()).collect();
        let mut given = Vec::new();
        if let Some(spec) = &self.schema {
            for col in swath_arrow::parse_schema_text(spec)? {
                let field = Field::new(&col.name, col.ty.data_type(), col.nullable);
                match fields.iter_mut().find(|f| *f.name() == col.name) {
                    Some(f) => *f = field,
                    None => fields.push(field),
                }
                given.push(col.name);
            }
        }
        let schema = Arc::new(Schema::new(fields));
        Ok((Typed { schema, inferred: Some(inferred), given }, src))
    }
}

/// Whether `dt` is, or holds, `Utf8View`: a CSV column type, which the
/// JSON decoder does not build.
fn has_utf8view(dt: &DataType) -> bool {
    match dt {
        DataType::Utf8View => true,
        DataType::Struct(fs) => fs.iter().any(|f| has_utf8view(f.data_type())),
        DataType::List(item) => has_utf8view(item.data_type()),
        _ => false,
    }
}

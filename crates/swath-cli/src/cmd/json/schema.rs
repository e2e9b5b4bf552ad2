//! `swath json schema`: the types the Arrow commands would use.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use swath_arrow::schema_file;
use swath_json::arrow_schema::{DataType, Fields};
use swath_json::infer::{Obj, Ty};

use super::types::TypeOpts;
use super::JsonOpts;

/// Print the schema: every field at every depth, its type, and why a field
/// is text when it holds other kinds of values (mixed: strings as their
/// text, the rest as JSON text).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath json schema events.jsonl                 from the head and lines spread over the file
  swath json schema events.jsonl --infer full    every line: the types are sure to fit
  swath json schema events.jsonl --json > s.json; swath json to-parquet events.jsonl --schema s.json -o e.parquet")]
pub struct Args {
    #[command(flatten)]
    opts: JsonOpts,
    #[command(flatten)]
    types: TypeOpts,
    /// Print JSON (the form `--schema FILE` reads back).
    #[arg(long)]
    json: bool,
}

/// Run `swath json schema`.
pub fn run(args: Args, quiet: bool) -> Result<ExitCode> {
    let watch = args.opts.watch(quiet, None);
    let mut b = args.opts.builder();
    args.types.configure(&mut b);
    let src = args.opts.open()?;
    let (typed, _) = args.types.resolve(&b, src)?;
    watch.finish();
    let root = typed.inferred.as_ref().map(|i| &i.root);
    let mut out = std::io::stdout().lock();
    let (lines, method) = match &typed.inferred {
        Some(i) if i.full => (Some(i.lines), "every line"),
        Some(i) if i.shape == swath_json::Shape::Lines => {
            (Some(i.lines), "sampled: the head and lines spread over the file")
        }
        Some(i) => (Some(i.lines), "sampled: the first records"),
        None => (None, "given"),
    };
    // Where the records were found, when they are not lines.
    let records = typed
        .inferred
        .as_ref()
        .filter(|i| i.shape != swath_json::Shape::Lines)
        .map(|i| i.shape.describe());
    if args.json {
        // Each field's note (why it is text), from the inference.
        let mut v = schema_file::to_json(typed.schema.fields(), &mut |path, field| {
            if let Some(note) = root.and_then(|root| note_at(root, path)) {
                field.insert("note".into(), note.into());
            }
        });
        v["lines"] = serde_json::json!(lines);
        v["method"] = serde_json::json!(method);
        if let Some(r) = &records {
            v["records"] = serde_json::json!(r);
        }
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut rows = Vec::new();
    walk(typed.schema.fields(), root, "", &typed.given, &mut rows);
    if rows.is_empty() {
        anyhow::bail!("{}: no fields (an empty input, or only empty objects)", args.opts.name());
    }
    let w = rows.iter().map(|r| r.0.len()).max().unwrap_or(5).max(5);
    let tw = rows.iter().map(|r| r.1.len()).max().unwrap_or(4).max(4);
    writeln!(out, "{:<w$}  {:<tw$}  note", "field", "type")?;
    for (name, ty, note) in rows {
        writeln!(out, "{name:<w$}  {ty:<tw$}  {note}")?;
    }
    match (lines, &records) {
        (Some(n), Some(r)) => writeln!(out, "({n} records, {r}: {method})")?,
        (Some(n), None) => writeln!(out, "({n} lines: {method})")?,
        (None, _) => writeln!(out, "({method})")?,
    }
    Ok(ExitCode::SUCCESS)
}

/// One row per field at every depth: dotted path, type, note.
fn walk(
    fields: &Fields,
    root: Option<&Obj>,
    prefix: &str,
    given: &[String],
    rows: &mut Vec<(String, String, String)>,
) {
    for f in fields {
        let path = format!("{prefix}{}", f.name());
        let ty = root.and_then(|o| o.fields.iter().find(|(n, _)| n == f.name())).map(|(_, t)| t);
        let mut note = ty.and_then(Ty::note).unwrap_or_default();
        if prefix.is_empty() && given.contains(f.name()) {
            note = "given".into();
        }
        rows.push((path.clone(), type_name(f.data_type()), note));
        if let DataType::Struct(inner) = f.data_type() {
            let obj = match ty {
                Some(Ty::Object(o)) => Some(o),
                _ => None,
            };
            walk(inner, obj, &format!("{path}."), &[], rows);
        }
    }
}

fn type_name(dt: &DataType) -> String {
    match dt {
        DataType::Struct(_) => "struct".into(),
        DataType::List(item) => format!("list<{}>", type_name(item.data_type())),
        other => swath_arrow::ColumnType::from_data_type(other)
            .map_or_else(|| other.to_string(), |t| t.name().to_string()),
    }
}

/// The inference's note on the field at `path` (names from the top; `[]`
/// is a list's item).
fn note_at(root: &Obj, path: &[&str]) -> Option<String> {
    let (first, rest) = path.split_first()?;
    let mut ty = &root.fields.iter().find(|(n, _)| n == first)?.1;
    for step in rest {
        ty = match ty {
            Ty::Object(o) => &o.fields.iter().find(|(n, _)| n == step)?.1,
            Ty::List(item) => item,
            _ => return None,
        };
    }
    ty.note()
}

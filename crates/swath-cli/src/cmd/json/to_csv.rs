//! `swath json to-csv`: every top-level field as a CSV column.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;

use super::select::{write_selected, Format, Selected};
use super::types::TypeOpts;
use super::JsonOpts;

/// Convert to CSV: one column per top-level field (the fields the schema
/// finds, in the order first seen), strings as their text, numbers and
/// booleans as written, objects and arrays as their JSON text, null or
/// missing as an empty field.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath json to-csv events.jsonl -o events.csv
  swath json to-csv events.jsonl --infer full -o events.csv   every line read for the field names")]
pub struct Args {
    #[command(flatten)]
    opts: JsonOpts,
    #[command(flatten)]
    types: TypeOpts,
    /// Where to write (`-`: standard output). A file appears only when
    /// complete.
    #[arg(short, long, default_value = "-")]
    output: PathBuf,
    #[command(flatten)]
    bad: crate::args::on_bad::BadArgs,
}

/// Run `swath json to-csv`.
pub fn run(args: Args, quiet: bool) -> Result<ExitCode> {
    let mut b = args.opts.builder();
    args.types.configure(&mut b);
    let src = args.opts.open()?;
    // The field names from the schema (a stream's head is replayed).
    let (typed, src) = args.types.resolve(&b, src)?;
    let names: Vec<String> = typed.schema.fields().iter().map(|f| f.name().clone()).collect();
    let paths: Vec<Vec<String>> = names.iter().map(|n| vec![n.clone()]).collect();
    let sel = Selected {
        names: &names,
        paths: &paths,
        format: Format::Csv,
        output: &args.output,
        bad: &args.bad,
    };
    write_selected(&args.opts, &b, src, quiet, &sel)
}

//! `swath json check`: every problem of a JSON-lines input, with its
//! record, line and byte.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use anyhow::Result;

use super::types::TypeOpts;
use super::{problem_line, JsonOpts};

/// Check every line: one JSON object, and with --schema, values that fit
/// it. Prints every problem with its record, line, byte (and field), up
/// to --limit; exits 1 if there is any.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath json check events.jsonl
  swath json check events.jsonl --schema schema.json     values must fit the schema too
  swath json check events.jsonl --schema 'status:int64'  (top-level types; the rest inferred)")]
pub struct Args {
    #[command(flatten)]
    opts: JsonOpts,
    /// Field types the values must fit (as for `to-parquet`); without it
    /// only the syntax is checked.
    #[arg(long, value_name = "SPEC|FILE")]
    schema: Option<String>,
    /// Print at most this many problems (all are counted).
    #[arg(long, default_value_t = 20)]
    limit: u64,
}

/// Run `swath json check`.
pub fn run(args: Args, quiet: bool) -> Result<ExitCode> {
    let name = args.opts.name();
    let watch = args.opts.watch(quiet, None);
    let b = args.opts.builder();
    let mut src = args.opts.open()?;
    let schema = match &args.schema {
        Some(spec) => {
            let types = TypeOpts::given(spec.clone());
            let (typed, replayed) = types.resolve(&b, src)?;
            src = replayed;
            Some(typed.schema)
        }
        None => None,
    };
    args.opts.note(&b, &src);
    let mut out = BufWriter::new(io::stdout().lock());
    let mut problems = 0u64;
    let mut write_err = None;
    let counted = b.check(&mut src, schema, |p| {
        problems += 1;
        if problems == 1 {
            watch.finish();
        }
        if problems <= args.limit {
            if let Err(e) = writeln!(out, "{}", problem_line(&name, &p)) {
                write_err = Some(e);
                return false;
            }
        }
        true
    })?;
    if let Some(e) = write_err {
        return Err(e.into());
    }
    watch.finish();
    if problems > args.limit {
        writeln!(out, "{name}: ... {} more problems not shown", problems - args.limit)?;
    }
    if problems == 0 {
        writeln!(out, "{name}: ok, {} records", counted.records)?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(out, "{name}: {problems} problems in {} records", counted.records)?;
    out.flush()?;
    Ok(crate::exit::problems())
}

//! `swath csv schema`, and the options every Arrow command shares
//! (`--schema`, `--infer`, `--null`, `--on-error`, `--columns`).

use std::io::Write;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use swath::Source;
use swath_arrow::arrow_array::RecordBatch;
use swath_arrow::arrow_schema::{Field, Fields, SchemaRef};
use swath_arrow::schema_file;
use swath_arrow::{
    ArrowReader, ArrowReaderBuilder, Infer, OnError, ParallelArrowReader, StreamInput,
};

use super::{CsvOpts, ParOpts};
use crate::quarantine::Quarantine;

/// Print the schema the Arrow commands would use: per column its type,
/// whether it may be null, and how many values decided it (how many were
/// empty).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath csv schema big.csv                 the inferred types, from samples over the whole file
  swath csv schema big.csv --infer full    read every record first: the types are sure to fit
  swath csv schema big.csv --json")]
pub struct Args {
    #[command(flatten)]
    opts: CsvOpts,
    #[command(flatten)]
    par: ParOpts,
    #[command(flatten)]
    arrow: ArrowOpts,
    /// Print JSON (the form `--schema FILE` reads back).
    #[arg(long)]
    json: bool,
}

/// How to type the columns, for `to-parquet`, `to-arrow` and `schema`.
#[derive(Debug, Clone, clap::Args)]
pub struct ArrowOpts {
    /// Column types, overriding inference per column: `id:int64,ts:timestamptz`
    /// (a `!` after the type: not null), or a schema file as `swath csv
    /// schema --json` prints (`{"fields": [...]}`). Types: int64, float64,
    /// boolean, date32, timestamp, timestamptz, utf8, utf8view.
    #[arg(long, value_name = "SPEC|FILE")]
    schema: Option<String>,
    /// How to infer the other columns: `sample` (the head and records at
    /// exact record starts spread over the file) or `full` (every record
    /// first; the types are then guaranteed to fit).
    #[arg(long, default_value = "sample", value_parser = ["sample", "full"])]
    infer: String,
    /// The text of a null field (default: the empty field), or a list
    /// (`NA,NULL,\N,-`; an empty item is the empty field: `NA,`), or
    /// `common`: the empty field, NA, N/A, n/a, na, NULL, null, Null,
    /// None, none, nil, \N, -, #N/A and <NA>. Exactly as written.
    #[arg(long, default_value = "", value_name = "TEXT|LIST|common")]
    null: String,
    /// A field that does not fit its column's type: `fail` (an error naming
    /// its record, line, byte and column), `null` (a null, counted on
    /// stderr at the end) or `quarantine` (the whole record put aside with
    /// the broken ones: needs --on-bad skip or quarantine=FILE).
    #[arg(long, default_value = "fail", value_parser = ["fail", "null", "quarantine"])]
    on_error: String,
    /// Numbers with a decimal comma (`3,5`; with `--thousands .`,
    /// `1.299,99`): read as 3.5 and 1299.99 by inference and decoding. A
    /// point that is not the thousands separator then makes a field no
    /// number. Text columns keep what was written.
    #[arg(long)]
    decimal_comma: bool,
    /// The thousands separator of numbers (`,` in `1,299.99`, `.` in
    /// `1.299,99`, a space, `'`): groups after the first are of three
    /// digits, or the field is no number.
    #[arg(long, value_name = "SEP")]
    thousands: Option<char>,
    /// The form of dates (strftime: `%d/%m/%Y`, `%d-%b-%Y`, `%Y%m%d`):
    /// inference tries it instead of its own forms, and date32 columns
    /// are read by it. Without it, day-first and month-first dates
    /// (`31/10/2023`, `10/31/2023`; told apart by a value over 12),
    /// `31-OCT-2023`, `31.10.2023` and `2023/10/31` are found by
    /// themselves. Codes: %Y %y %m %b %B %d %e %H %I %M %S %f %p.
    #[arg(long, value_name = "FORM", value_parser = parse_date_form)]
    date_format: Option<swath_arrow::DateFormat>,
    /// The form of timestamps (`%d/%m/%Y %H:%M`, `%m/%d/%Y %I:%M:%S %p`),
    /// as --date-format for timestamp columns (read as written, no time
    /// zone). Without it, `2023-10-31 14:03` and the date forms above
    /// with `%H:%M` or `%H:%M:%S` are found by themselves.
    #[arg(long, value_name = "FORM", value_parser = parse_timestamp_form)]
    timestamp_format: Option<swath_arrow::DateFormat>,
    /// Only these columns, by name, in this order (comma-separated).
    #[arg(long, value_delimiter = ',')]
    columns: Option<Vec<String>>,
    /// Rows per Arrow batch.
    #[arg(long, default_value_t = swath_arrow::DEFAULT_BATCH_SIZE, hide = true)]
    batch_size: usize,
    /// Text columns as Arrow `Utf8View` (string views) instead of `Utf8`.
    /// In a Parquet file the values are the same strings; the Arrow schema
    /// kept in it says Utf8View.
    #[arg(long)]
    string_view: bool,
}

impl ArrowOpts {
    /// The Arrow reader builder for these options.
    pub fn builder(&self, opts: &CsvOpts, par: &ParOpts) -> Result<ArrowReaderBuilder> {
        let mut b = ArrowReaderBuilder::new();
        b.csv(opts.builder())
            .threads(par.threads)
            .chunk_size(par.chunk_len())
            .batch_size(self.batch_size)
            .string_view(self.string_view)
            .nulls(swath_arrow::Nulls::parse(&self.null))
            .numbers(
                swath_arrow::Numbers::new(self.decimal_comma, self.thousands)
                    .map_err(|e| anyhow::anyhow!("--thousands: {e}"))?,
            )
            .date_formats(self.date_format.clone(), self.timestamp_format.clone());
        if self.infer == "full" {
            b.infer(Infer::Full);
        }
        match self.on_error.as_str() {
            "null" => {
                b.on_error(OnError::Null);
            }
            "quarantine" => {
                b.on_error(OnError::PutAside);
            }
            _ => {}
        }
        if let Some(cols) = &self.columns {
            b.project_names(cols.clone());
        }
        if let Some(spec) = &self.schema {
            let specs = match crate::args::schema_file::read_if_file(spec)? {
                Some(file) => {
                    file.column_specs().with_context(|| format!("the schema file {spec}"))?
                }
                None => swath_arrow::parse_schema_text(spec)?,
            };
            b.column_types(specs);
        }
        Ok(b)
    }
}

/// The batches of the input: in parallel from a regular file, else
/// sequentially (stdin, pipes, compressed input, one thread).
pub enum Batches {
    /// Every core.
    Parallel(Box<ParallelArrowReader>),
    /// One thread.
    Sequential(Box<ArrowReader<StreamInput<Source>>>),
}

impl Batches {
    /// Open the input as these options say; `aside`: records are put
    /// aside (broken ones, and with `--on-error quarantine` ones that do
    /// not fit), for [`run`](Self::run)'s quarantine.
    pub fn open(opts: &CsvOpts, par: &ParOpts, arrow: &ArrowOpts, aside: bool) -> Result<Batches> {
        if arrow.on_error == "quarantine" && !aside {
            bail!("--on-error quarantine needs --on-bad quarantine=FILE (or --on-bad skip)");
        }
        let mut b = arrow.builder(opts, par)?;
        if aside {
            b.csv_mut().on_bad(swath_csv::OnBad::PutAside);
        }
        // swath-arrow's errors name the path already.
        Ok(if par.parallel_input(opts) {
            Batches::Parallel(Box::new(b.build_parallel(opts.path())?))
        } else {
            Batches::Sequential(Box::new(b.from_path(opts.path())?))
        })
    }

    /// The batches' schema.
    pub fn schema(&self) -> SchemaRef {
        match self {
            Batches::Parallel(p) => p.schema(),
            Batches::Sequential(s) => s.schema(),
        }
    }

    /// Hand every batch to `f` in file order, and the records put aside
    /// to `quarantine`; the number of fields made null (`--on-error
    /// null`) and of rows.
    pub fn run(
        &mut self,
        opts: &CsvOpts,
        par: &ParOpts,
        mut f: impl FnMut(RecordBatch) -> Result<()>,
        mut quarantine: Option<&mut Quarantine>,
    ) -> Result<(u64, u64)> {
        let name = opts.name();
        // `f`'s own error (a write error) and the quarantine's come back
        // as they were.
        let mut own: Option<anyhow::Error> = None;
        let mut rows = 0u64;
        let stopped = |own: &mut Option<anyhow::Error>, e| {
            *own = Some(e);
            swath_arrow::Error::Schema("stopped".into())
        };
        let mut call = |b: RecordBatch| -> swath_arrow::Result<()> {
            rows += b.num_rows() as u64;
            f(b).map_err(|e| stopped(&mut own, e))
        };
        let mut own_bad: Option<anyhow::Error> = None;
        let mut aside = |bad: Vec<swath_csv::BadRecord>| -> swath_arrow::Result<()> {
            match quarantine.as_deref_mut() {
                Some(q) => q.take(bad).map_err(|e| stopped(&mut own_bad, e)),
                None => Ok(()),
            }
        };
        let res = match self {
            Batches::Parallel(p) => {
                let r = p.for_each_batch_with_bad(&mut call, &mut aside);
                if par.verbose {
                    eprintln!("swath: {name}: {}", p.mode());
                }
                r.map(|()| p.nulled())
            }
            Batches::Sequential(s) => {
                let mut r = Ok(());
                loop {
                    let next = s.next_batch();
                    if let Err(e) = aside(s.take_bad_records()) {
                        r = Err(e);
                        break;
                    }
                    match next {
                        Ok(Some(b)) => {
                            if let Err(e) = call(b) {
                                r = Err(e);
                                break;
                            }
                        }
                        Ok(None) => break,
                        Err(e) => {
                            r = Err(e);
                            break;
                        }
                    }
                }
                r.map(|()| s.nulled())
            }
        };
        if let Some(e) = own.or(own_bad) {
            return Err(e);
        }
        let nulled = res.with_context(|| name.clone())?;
        if nulled > 0 {
            eprintln!(
                "swath: {name}: {nulled} fields did not fit their column's type and were made null"
            );
        }
        Ok((nulled, rows))
    }
}

/// Run `swath csv schema`.
pub fn run(args: Args) -> Result<ExitCode> {
    let b = args.arrow.builder(&args.opts, &args.par)?;
    let s = b.infer_schema(args.opts.path())?;
    args.opts.finish_progress();
    let mut out = std::io::stdout().lock();
    if args.json {
        // The schema file (`--schema FILE` reads it back), each column
        // with what decided its type.
        let fields: Fields =
            s.columns.iter().map(|c| Field::new(&c.name, c.ty.data_type(), c.nullable)).collect();
        let mut v = schema_file::to_json(&fields, &mut |path, field| {
            let Some(c) = s.columns.iter().find(|c| [c.name.as_str()] == path) else { return };
            field.insert("given".into(), c.given.into());
            field.insert("sampled".into(), c.values.into());
            field.insert("empty".into(), c.empty.into());
            field.insert("note".into(), c.note.clone().into());
            if let Some(form) = &c.format {
                field.insert("format".into(), form.clone().into());
            }
        });
        v["records"] = s.records.into();
        v["method"] = s.method.into();
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if s.columns.is_empty() {
        bail!("{}: no columns (an empty file)", args.opts.name());
    }
    let w = s.columns.iter().map(|c| c.name.len()).max().unwrap_or(4).max(6);
    writeln!(
        out,
        "{:<w$}  {:<11}  {:<8}  {:>10}  {:>10}  from",
        "column", "type", "nullable", "sampled", "empty"
    )?;
    for c in &s.columns {
        let from = if c.given { "given" } else { "inferred" };
        let nullable = if c.nullable { "yes" } else { "no" };
        let note = c.note.as_deref().map(|n| format!(": {n}")).unwrap_or_default();
        writeln!(
            out,
            "{:<w$}  {:<11}  {:<8}  {:>10}  {:>10}  {from}{note}",
            c.name,
            c.ty.name(),
            nullable,
            c.values,
            c.empty
        )?;
    }
    writeln!(out, "({} records: {})", s.records, s.method)?;
    Ok(ExitCode::SUCCESS)
}

/// `--date-format`: a strftime form without a time of day.
fn parse_date_form(s: &str) -> Result<swath_arrow::DateFormat, String> {
    let f = swath_arrow::DateFormat::parse(s)?;
    if f.has_time() {
        return Err(format!("{s:?} has a time of day: give it as --timestamp-format"));
    }
    Ok(f)
}

/// `--timestamp-format`: a strftime form with a time of day.
fn parse_timestamp_form(s: &str) -> Result<swath_arrow::DateFormat, String> {
    let f = swath_arrow::DateFormat::parse(s)?;
    if !f.has_time() {
        return Err(format!("{s:?} has no time of day (%H or %I): give it as --date-format"));
    }
    Ok(f)
}

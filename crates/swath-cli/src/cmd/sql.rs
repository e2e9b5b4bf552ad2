//! `swath sql`: SQL over CSV and JSON-lines files (DataFusion), each file
//! read by swath on every core: CSV through its exact split plan, quoted
//! newlines and all; JSON lines in byte ranges (every line a record).

use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{anyhow, bail, Context, Result};
use futures::StreamExt;
use swath_datafusion::datafusion::arrow::array::RecordBatch;
use swath_datafusion::datafusion::arrow::util::pretty::pretty_format_batches;
use swath_datafusion::datafusion::common::TableReference;
use swath_datafusion::datafusion::error::DataFusionError;
use swath_datafusion::datafusion::prelude::{SessionConfig, SessionContext};
use swath_datafusion::{PutAside, SwathCsvExt, SwathCsvOptions, SwathJsonExt, SwathJsonOptions};

use crate::args::on_bad::MaxBad;
use crate::args::DialectArgs;
use crate::quarantine::{InFile, Quarantine};

/// Run SQL over CSV and JSON files: a file path in quotes in FROM is that
/// file as a table (or name tables with --table); `.jsonl`, `.ndjson` and
/// `.json` files are JSON (lines, or a document's records: a top-level
/// array, CloudTrail's Records, pretty objects), others CSV (--format says
/// otherwise).
/// Each file is split at exact record starts and read on every core;
/// errors in a file name its record, line and byte.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath sql \"SELECT city, avg(score) FROM 'data.csv' GROUP BY city\"
  swath sql --table t=data.csv \"SELECT count(*) FROM t WHERE score > 50\"
  swath sql --table a=a.csv --table b=dir/ \"SELECT * FROM a JOIN b USING (id)\" --csv
  swath sql -d tab \"SELECT * FROM 'x.tsv' LIMIT 5\" --json
  swath sql \"SELECT level, count(*) FROM 'events.jsonl' GROUP BY level\"
  swath sql --table e=logs/ --format json \"SELECT req['status'], count(*) FROM e GROUP BY 1\"
  swath sql --memory 256M \"SELECT * FROM 'big.csv' ORDER BY ts\" --csv
  swath sql --on-bad quarantine=bad.csv \"SELECT count(*) FROM 'export.csv'\"")]
pub struct Args {
    /// The query (DataFusion's SQL).
    query: String,
    /// A table: NAME=PATH, a file or a directory of .csv (or with
    /// --format json, .jsonl) files (repeatable).
    #[arg(long = "table", value_name = "NAME=PATH")]
    tables: Vec<String>,
    /// How tables are read: `auto` (by each path's ending: `.jsonl`,
    /// `.ndjson`, `.json`, also with `.gz` or `.zst`, are JSON, the rest
    /// CSV),
    /// `csv` or `json` (every table).
    #[arg(long, default_value = "auto", value_parser = ["auto", "csv", "json"])]
    format: String,
    /// Where a JSON table's records are: `auto` (decided from each file's
    /// first bytes: lines, a top-level array, CloudTrail's `Records`,
    /// pretty objects), `lines`, `values`, `$`, or a path of keys to an
    /// array (`features`, `data.items`), as `swath json --records`.
    #[arg(long, default_value = "auto", value_name = "auto|lines|values|$|PATH")]
    records: swath_json::Records,
    #[command(flatten)]
    dialect: DialectArgs,
    /// A CSV table's null texts: one, a list (`NA,NULL,\N,-`), or
    /// `common`, as `csv to-parquet --null` (default: the empty field).
    #[arg(long, default_value = "", value_name = "TEXT|LIST|common")]
    null: String,
    /// A CSV table's numbers have a decimal comma (`3,5`), as `csv
    /// to-parquet --decimal-comma`.
    #[arg(long)]
    decimal_comma: bool,
    /// A CSV table's thousands separator (`1.299,99`, `1,299.99`).
    #[arg(long, value_name = "SEP")]
    thousands: Option<char>,
    /// Write the result as CSV (a header row, then the rows).
    #[arg(long, conflicts_with = "json")]
    csv: bool,
    /// Write the result as JSON lines (one object per row).
    #[arg(long)]
    json: bool,
    /// Threads, and partitions per query (0 = all cores).
    #[arg(short = 't', long, default_value_t = 0, value_parser = crate::args::parse_threads)]
    threads: usize,
    /// Bytes per split of a file's plan (tests use small ones to split
    /// small files into many partitions).
    #[arg(long, hide = true)]
    split_size: Option<u64>,
    /// Text columns as Arrow string views (Utf8View) in the query; the
    /// answers are the same.
    #[arg(long)]
    string_view: bool,
    /// Hold the query's operators (sort, GROUP BY, joins) to SIZE bytes
    /// (like 64M or 2G), spilling to temporary files past it; the readers
    /// add a constant per thread (docs/memory.md). Default: no limit.
    #[arg(long, value_name = "SIZE", value_parser = crate::args::parse_size)]
    memory: Option<usize>,
    /// Where spills go with --memory (default: $TMPDIR or /tmp). A
    /// directory of swath's own is made inside it and removed at the end,
    /// on errors and on Ctrl-C too.
    #[arg(long, value_name = "DIR", requires = "memory")]
    spill_dir: Option<std::path::PathBuf>,
    /// Broken records in every table, as the csv and json commands'
    /// `--on-bad`. A file read this way is read whole on one thread (a
    /// stray quote misleads a parallel plan), and a record is put aside
    /// when the columns the query reads of it do not read. The quarantine
    /// is written when the query's result is; with several files each
    /// reason names its file. `--max-bad` takes a number of records.
    #[command(flatten)]
    bad: crate::args::on_bad::BadArgs,
}

/// Run `swath sql`.
pub fn run(args: Args) -> Result<ExitCode> {
    let threads = match args.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
        .context("cannot start the query runtime")?;
    rt.block_on(query(&args, threads))
}

async fn query(args: &Args, threads: usize) -> Result<ExitCode> {
    if let Some(limit) = args.memory {
        let _ = MEMORY_LIMIT.set(limit);
    }
    let mut cfg = SessionConfig::new().with_target_partitions(threads);
    if args.split_size.is_some() {
        cfg = cfg.with_repartition_file_min_size(0);
    }
    // Declared before the session, so it is removed after the session's
    // spill files are.
    let spill;
    let ctx = match args.memory {
        Some(limit) => {
            let base = args.spill_dir.clone().unwrap_or_else(std::env::temp_dir);
            spill = SpillDir::new(&base)?;
            swath_datafusion::memory_limited_session(cfg, limit, spill.path()).map_err(df_error)?
        }
        None => SessionContext::new_with_config(cfg),
    };
    if args.dialect.is_auto() {
        bail!("swath sql: -d auto is not supported; give the delimiter (swath csv sniff FILE finds it)");
    }
    if let Some(MaxBad::Percent(_)) = args.bad.max_bad {
        bail!(
            "--max-bad N% needs the count of records the query reads, which it does \
             not keep; give a number of records"
        );
    }
    let quarantine = Quarantine::open(&args.bad, "the query's tables")?;
    let put_aside = quarantine.is_some().then(|| {
        let max = match args.bad.max_bad {
            Some(MaxBad::Records(n)) => Some(n),
            _ => None,
        };
        Arc::new(PutAside::new(max))
    });
    let mut opts = SwathCsvOptions::new().csv(args.dialect.builder(true));
    if let Some(s) = args.split_size {
        opts = opts.split_bytes(s);
    }
    let mut arrow = opts.arrow_builder().clone();
    arrow.string_view(args.string_view).nulls(swath_arrow::Nulls::parse(&args.null)).numbers(
        swath_arrow::Numbers::new(args.decimal_comma, args.thousands)
            .map_err(|e| anyhow!("--thousands: {e}"))?,
    );
    opts = opts.arrow(arrow);
    let mut reader = swath_json::JsonReaderBuilder::new();
    reader.max_line_len(args.dialect.max_record_size).records(args.records.clone());
    if let Some(s) = args.split_size {
        reader.chunk_size(s);
    }
    let mut json = SwathJsonOptions::new().reader(reader);
    if let Some(sink) = &put_aside {
        opts = opts.put_aside(sink.clone());
        json = json.put_aside(sink.clone());
    }
    let opts = Formats { csv: opts, json, format: args.format.clone() };
    for t in &args.tables {
        let (name, path) =
            t.split_once('=').ok_or_else(|| anyhow!("--table {t:?}: expected NAME=PATH"))?;
        register(&ctx, TableReference::bare(name), path, &opts).await?;
    }
    // Quoted paths in FROM: tables named by the path itself.
    let state = ctx.state();
    let dialect = state.config().options().sql_parser.dialect;
    let stmt = state.sql_to_statement(&args.query, &dialect).map_err(df_error)?;
    for r in state.resolve_table_references(&stmt).map_err(df_error)? {
        let TableReference::Bare { table } = &r else { continue };
        if ctx.table_exist(r.clone()).map_err(df_error)? {
            continue;
        }
        if Path::new(table.as_ref()).exists() || swath::remote::is_url(table.as_ref()) {
            register(&ctx, r.clone(), table, &opts).await?;
        } else if table.contains('/') || table.contains('.') {
            bail!("cannot read {table}: no such file (a table in FROM that is a path)");
        }
    }
    let df = ctx.sql(&args.query).await.map_err(df_error)?;
    let out = io::stdout().lock();
    if args.csv || args.json {
        let schema = df.schema().as_arrow().clone();
        let mut stream = df.execute_stream().await.map_err(df_error)?;
        let mut w = Sink::new(out, args.json);
        let mut any = false;
        while let Some(batch) = stream.next().await {
            w.write(&batch.map_err(df_error)?)?;
            any = true;
        }
        if !any {
            // The header row of an empty result.
            w.write(&RecordBatch::new_empty(std::sync::Arc::new(schema)))?;
        }
        w.finish()?;
    } else {
        let batches = df.collect().await.map_err(df_error)?;
        let table = pretty_format_batches(&batches)?;
        let mut out = BufWriter::new(out);
        writeln!(out, "{table}")?;
        out.flush()?;
    }
    match (quarantine, put_aside) {
        (Some(q), Some(sink)) => put_away(q, &sink),
        _ => Ok(ExitCode::SUCCESS),
    }
}

/// The records the tables put aside, into the quarantine (in file order,
/// files by path; each reason naming its file when there are several).
fn put_away(mut q: Quarantine, sink: &PutAside) -> Result<ExitCode> {
    let records = sink.take();
    let several = records.windows(2).any(|w| w[0].0 != w[1].0);
    q.take(
        records.into_iter().map(|(path, record)| InFile { path: several.then_some(path), record }),
    )?;
    q.finish_uncounted()
}

/// How the tables of a query are read.
struct Formats {
    csv: SwathCsvOptions,
    json: SwathJsonOptions,
    /// auto, csv or json.
    format: String,
}

impl Formats {
    /// Whether the table at `path` is JSON lines.
    fn is_json(&self, path: &str) -> bool {
        match self.format.as_str() {
            "json" => true,
            "csv" => false,
            _ => is_json_path(path),
        }
    }
}

/// A path whose ending says JSON: `.jsonl`, `.ndjson` or `.json`, maybe
/// compressed (`.gz`, `.zst`, `.bz2`, `.xz`, `.lz4`, `.zip`).
fn is_json_path(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let base = [".gz", ".zst", ".bz2", ".xz", ".lz4", ".zip"]
        .iter()
        .find_map(|ext| lower.strip_suffix(ext))
        .unwrap_or(&lower);
    base.ends_with(".jsonl") || base.ends_with(".ndjson") || base.ends_with(".json")
}

async fn register(
    ctx: &SessionContext,
    name: TableReference,
    path: &str,
    opts: &Formats,
) -> Result<()> {
    if swath::remote::is_url(path) {
        return register_remote(ctx, name, path, opts).await;
    }
    let meta = std::fs::metadata(path).with_context(|| format!("cannot read {path}"))?;
    // DataFusion takes a directory by its trailing slash.
    let path =
        if meta.is_dir() && !path.ends_with('/') { format!("{path}/") } else { path.to_string() };
    if opts.is_json(&path) {
        return ctx.register_swath_json(name, &path, opts.json.clone()).await.map_err(df_error);
    }
    ctx.register_swath_csv(name, &path, opts.csv.clone()).await.map_err(df_error)
}

/// A table on an object store: its store registered with the session
/// (DataFusion lists and sizes objects through it), swath reading each
/// object by its URL.
#[cfg(feature = "remote")]
async fn register_remote(
    ctx: &SessionContext,
    name: TableReference,
    url: &str,
    opts: &Formats,
) -> Result<()> {
    let remote = swath_remote::RemoteOptions::from_env().map_err(|e| anyhow!("{e}"))?;
    let (store, base) = swath_remote::store_for(url, &remote)?;
    ctx.register_object_store(&base, store);
    if opts.is_json(url) {
        return ctx.register_swath_json(name, url, opts.json.clone()).await.map_err(df_error);
    }
    ctx.register_swath_csv(name, url, opts.csv.clone()).await.map_err(df_error)
}

#[cfg(not(feature = "remote"))]
async fn register_remote(
    _: &SessionContext,
    _: TableReference,
    url: &str,
    _: &Formats,
) -> Result<()> {
    bail!("cannot read {url}: this swath was built without remote input (feature `remote`)")
}

/// A DataFusion error as ours: a CSV error by its own message (the file,
/// record, line and byte), a query over the memory limit by the limit,
/// others as DataFusion says them.
fn df_error(e: DataFusionError) -> anyhow::Error {
    if let Some(t) = swath_datafusion::bad::too_many(&e) {
        return anyhow!("{t} (--max-bad)");
    }
    if let Some(c) = swath_datafusion::csv_error(&e) {
        return anyhow!("{c}");
    }
    if let Some(j) = swath_datafusion::json_error(&e) {
        return anyhow!("{j}");
    }
    if swath_datafusion::is_out_of_memory(&e) {
        let limit = MEMORY_LIMIT.get().map_or(String::new(), |l| format!(" of {l} bytes"));
        return anyhow!(
            "the query does not fit in the memory limit{limit} (--memory), even spilling to \
             disk: {}",
            e.strip_backtrace()
        );
    }
    anyhow!("{}", e.strip_backtrace())
}

/// The --memory limit, for the error that names it.
static MEMORY_LIMIT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

/// The directory a query spills into: made for this run under the
/// base directory, removed when dropped, and on Ctrl-C (registered with
/// the output module's interrupt handler).
struct SpillDir(std::path::PathBuf);

impl SpillDir {
    fn new(base: &Path) -> Result<SpillDir> {
        crate::output::remove_on_interrupt();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = base.join(format!("swath-sql-spill-{}-{nanos:08x}", std::process::id()));
        std::fs::create_dir(&dir)
            .with_context(|| format!("cannot make the spill directory {}", dir.display()))?;
        crate::output::register_temp(&dir);
        Ok(SpillDir(dir))
    }

    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
        crate::output::unregister_temp(&self.0);
    }
}

/// CSV or JSON lines to standard output, batch by batch.
enum Sink<W: Write> {
    Csv(Box<swath_datafusion::datafusion::arrow::csv::Writer<BufWriter<W>>>),
    Json(swath_datafusion::datafusion::arrow::json::LineDelimitedWriter<BufWriter<W>>),
}

impl<W: Write> Sink<W> {
    fn new(out: W, json: bool) -> Sink<W> {
        let out = BufWriter::with_capacity(1 << 20, out);
        if json {
            Sink::Json(swath_datafusion::datafusion::arrow::json::LineDelimitedWriter::new(out))
        } else {
            Sink::Csv(Box::new(
                swath_datafusion::datafusion::arrow::csv::WriterBuilder::new()
                    .with_header(true)
                    .build(out),
            ))
        }
    }

    fn write(&mut self, b: &RecordBatch) -> Result<()> {
        match self {
            Sink::Csv(w) => w.write(b)?,
            Sink::Json(w) => w.write(b)?,
        }
        Ok(())
    }

    fn finish(self) -> Result<()> {
        match self {
            Sink::Csv(w) => (*w).into_inner().flush()?,
            Sink::Json(mut w) => {
                w.finish()?;
                w.into_inner().flush()?;
            }
        }
        Ok(())
    }
}

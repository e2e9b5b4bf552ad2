//! `swath-cluster`: a Ballista scheduler, an executor, or a client, all
//! with swath's codecs, so that swath's CSV tables run on the cluster.
//!
//! A binary of its own rather than `swath sql --cluster`: the client needs
//! Ballista's gRPC and Arrow Flight stack, which the `swath` CLI does not
//! carry.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use clap::{Parser, Subcommand};
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::common::TableReference;
use datafusion::prelude::SessionConfig;
use swath_ballista::{ExecutorOptions, SchedulerOptions};
use swath_datafusion::{SwathCsvExt, SwathCsvOptions};

/// swath on a Ballista cluster: run a scheduler, an executor, or a query.
#[derive(Debug, Parser)]
#[command(
    name = "swath-cluster",
    version,
    after_help = "Examples (docs/cluster.md):
  swath-cluster scheduler --bind 0.0.0.0:50050 --external-host sched.example
  swath-cluster executor --scheduler sched.example:50050 --bind 0.0.0.0 --external-host w1.example
  swath-cluster sql --cluster df://sched.example:50050 --table t=/shared/data.csv \\
      \"SELECT city, count(*) FROM t GROUP BY city\""
)]
struct Cli {
    #[command(subcommand)]
    role: Role,
}

#[derive(Debug, Subcommand)]
enum Role {
    /// Run a scheduler: it plans queries (and each file's exact splits).
    Scheduler(SchedulerArgs),
    /// Run an executor: it runs tasks, each reading its own splits.
    Executor(ExecutorArgs),
    /// Run a query on a cluster and print its result.
    Sql(SqlArgs),
}

#[derive(Debug, clap::Args)]
struct SchedulerArgs {
    /// Address to listen on (port 0: any free port; the line
    /// `listening on ADDR` on standard output says which).
    #[arg(long, default_value = "127.0.0.1:50050")]
    bind: String,
    /// The host name executors and clients reach this scheduler by
    /// (default: the bound address).
    #[arg(long)]
    external_host: Option<String>,
    /// Seconds without a heartbeat before an executor is taken for dead
    /// (its tasks then run elsewhere).
    #[arg(long, default_value_t = 180)]
    executor_timeout: u64,
    /// Seconds between looks for dead executors.
    #[arg(long, default_value_t = 15)]
    expire_interval: u64,
    /// Failures of one task before its query fails.
    #[arg(long, default_value_t = 4)]
    task_max_failures: usize,
}

#[derive(Debug, clap::Args)]
struct ExecutorArgs {
    /// The scheduler, HOST:PORT.
    #[arg(long, default_value = "127.0.0.1:50050")]
    scheduler: String,
    /// Address to bind.
    #[arg(long, default_value = "127.0.0.1")]
    bind: String,
    /// The host name the scheduler and other executors reach this one by
    /// (default: the bind address).
    #[arg(long)]
    external_host: Option<String>,
    /// Arrow Flight port (shuffle data); 0: a free one.
    #[arg(long, default_value_t = 50051)]
    port: u16,
    /// gRPC port (tasks); 0: a free one.
    #[arg(long, default_value_t = 50052)]
    grpc_port: u16,
    /// Tasks at once (0: one per core).
    #[arg(long, default_value_t = 0)]
    concurrent_tasks: usize,
    /// Seconds between heartbeats.
    #[arg(long, default_value_t = 60)]
    heartbeat: u64,
    /// Directory for shuffle files (default: a new temporary one).
    #[arg(long)]
    work_dir: Option<String>,
}

#[derive(Debug, clap::Args)]
struct SqlArgs {
    /// The query (DataFusion's SQL).
    query: String,
    /// The scheduler: df://HOST:PORT.
    #[arg(long, value_name = "URL")]
    cluster: String,
    /// A table: NAME=PATH, a CSV file or a directory of .csv files that
    /// every executor and the scheduler can read at that path (repeatable).
    #[arg(long = "table", value_name = "NAME=PATH", required = true)]
    tables: Vec<String>,
    /// Field delimiter (one byte; `tab` for a tab).
    #[arg(short = 'd', long, default_value = ",")]
    delimiter: String,
    /// The files have no header row (columns are named column_1, ...).
    #[arg(long)]
    no_header: bool,
    /// Partitions per query (the most tasks a scan stage runs at once).
    #[arg(long, default_value_t = 8)]
    partitions: usize,
    /// Bytes per split of a file's plan (default: 1/256 of the file, at
    /// least 1 MiB); small ones split small files into many partitions.
    #[arg(long)]
    split_size: Option<u64>,
    /// Write the result as CSV (a header row, then the rows).
    #[arg(long)]
    csv: bool,
}

fn main() -> ExitCode {
    swath_ballista::init_logging();
    let cli = Cli::parse();
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Deep plans recurse (DataFusion's own binaries use 32 MiB too).
        .thread_stack_size(32 << 20)
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("swath-cluster: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    match rt.block_on(run(cli.role)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("swath-cluster: {e:#}");
            ExitCode::from(2)
        }
    }
}

async fn run(role: Role) -> Result<()> {
    // Every role opens URLs: the client and the scheduler to infer the
    // schema and plan the splits, the executors to read them.
    swath_remote::install();
    match role {
        Role::Scheduler(a) => scheduler(a).await,
        Role::Executor(a) => executor(a).await,
        Role::Sql(a) => sql(a).await,
    }
}

async fn scheduler(a: SchedulerArgs) -> Result<()> {
    let listener = tokio::net::TcpListener::bind(&a.bind)
        .await
        .with_context(|| format!("cannot listen on {}", a.bind))?;
    let addr = listener.local_addr()?;
    let host = a.external_host.unwrap_or_else(|| addr.ip().to_string());
    println!("listening on {addr}");
    std::io::stdout().flush()?;
    let opts = SchedulerOptions {
        executor_timeout_seconds: a.executor_timeout,
        expire_dead_executor_interval_seconds: a.expire_interval,
        task_max_failures: a.task_max_failures,
    };
    swath_ballista::run_scheduler(listener, &host, &opts).await?;
    Ok(())
}

/// A free port on `host` (0 asked): bound, read, released. Another process
/// could take it in between; the executor then fails to bind, loudly.
fn free_port(host: &str, port: u16) -> Result<u16> {
    if port != 0 {
        return Ok(port);
    }
    let l =
        std::net::TcpListener::bind((host, 0)).with_context(|| format!("cannot bind {host}"))?;
    Ok(l.local_addr()?.port())
}

async fn executor(a: ExecutorArgs) -> Result<()> {
    let (host, port) = a
        .scheduler
        .rsplit_once(':')
        .ok_or_else(|| anyhow!("--scheduler {:?}: expected HOST:PORT", a.scheduler))?;
    let port: u16 =
        port.parse().with_context(|| format!("--scheduler {:?}: bad port", a.scheduler))?;
    let opts = ExecutorOptions {
        external_host: a.external_host.clone().unwrap_or_else(|| a.bind.clone()),
        port: free_port(&a.bind, a.port)?,
        grpc_port: free_port(&a.bind, a.grpc_port)?,
        bind_host: a.bind,
        scheduler: (host.to_string(), port),
        concurrent_tasks: a.concurrent_tasks,
        heartbeat_seconds: a.heartbeat.max(1),
        work_dir: a.work_dir,
    };
    println!(
        "executor on {}:{} (tasks on {}), scheduler {}:{}",
        opts.external_host, opts.port, opts.grpc_port, opts.scheduler.0, opts.scheduler.1
    );
    std::io::stdout().flush()?;
    swath_ballista::run_executor(&opts).await?;
    Ok(())
}

fn delimiter(d: &str) -> Result<u8> {
    match d {
        "tab" | "\\t" => Ok(b'\t'),
        d if d.len() == 1 => Ok(d.as_bytes()[0]),
        d => bail!("-d {d:?}: the delimiter is one byte (or `tab`)"),
    }
}

async fn sql(a: SqlArgs) -> Result<()> {
    let mut config = SessionConfig::new().with_target_partitions(a.partitions.max(1));
    if a.split_size.is_some() {
        // Small files split too (DataFusion does not split files under
        // 10 MiB by default).
        config = config.with_repartition_file_min_size(0);
    }
    let ctx = swath_ballista::connect(&a.cluster, config).await?;
    let mut csv = swath_csv::ReaderBuilder::new();
    csv.delimiter(delimiter(&a.delimiter)?).has_headers(!a.no_header);
    let mut opts = SwathCsvOptions::new().csv(csv);
    if let Some(s) = a.split_size {
        opts = opts.split_bytes(s);
    }
    for t in &a.tables {
        let (name, path) =
            t.split_once('=').ok_or_else(|| anyhow!("--table {t:?}: expected NAME=PATH"))?;
        // The scheduler and the executors open the path as given: make a
        // local one absolute (they do not share this process's directory).
        let path = if swath::remote::is_url(path) {
            path.to_string()
        } else {
            let abs = std::fs::canonicalize(path).with_context(|| format!("cannot read {path}"))?;
            let mut s = abs.to_string_lossy().into_owned();
            if Path::new(&s).is_dir() {
                s.push('/');
            }
            s
        };
        ctx.register_swath_csv(TableReference::bare(name), &path, opts.clone())
            .await
            .map_err(|e| anyhow!("{}", e.strip_backtrace()))?;
    }
    let df = ctx.sql(&a.query).await.map_err(|e| anyhow!("{}", e.strip_backtrace()))?;
    let batches = df.collect().await.map_err(|e| anyhow!("{}", e.strip_backtrace()))?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if a.csv {
        let mut w = datafusion::arrow::csv::WriterBuilder::new().with_header(true).build(&mut out);
        for b in &batches {
            w.write(b)?;
        }
    } else {
        writeln!(out, "{}", pretty_format_batches(&batches)?)?;
    }
    out.flush()?;
    Ok(())
}

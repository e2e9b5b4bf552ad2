//! `swath lab`: measure every way of reading a file on this machine.

use std::fs::{self, File};
use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use swath::{count_source, CountOptions, Source};
use swath_lab::gen::{csv, log};
use swath_lab::go::GoError;
use swath_lab::measure::Failure;
use swath_lab::methods::{self, packed, Ctx, Group, Kind, Method, Packed};
use swath_lab::report::{self, CompressedInput, CsvInput, Report};
use swath_lab::runner::{Plan, Series, NOT_APPLICABLE_TAG};
use swath_lab::units::{format_bytes, parse_size};
use swath_lab::{measure, os};

use crate::output::{self, AtomicFile};

/// Measure every way of reading a file: buffer sizes, line readers, mmap,
/// threads, 1-byte reads, writes, CSV readers; time, GB/s, allocations,
/// peak memory.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
With no arguments the lab writes a 512 MiB log file (the seed's 86-byte
line) and a 5,000,000-row CSV (id,name,score,active,city,ts, about 250 MiB)
in a temporary directory, runs every method 3 times, each run in a fresh
child process, prints a table and what it means, and removes the files.

The csv-* methods read a CSV, never the --file: they read --csv-file when
given, a generated CSV of --csv-rows rows otherwise; with --file and no
--csv-file they are left out. csv-typed needs the lab's 6 columns, so it
is not applicable to a --csv-file with another header. A file a method cannot read at all
(lines() on bytes that are not UTF-8) makes that method 'n/a', not a
failure; a wrong count is a failure (exit 1).

The gz-* and zst-* methods read gzip -6 and zstd -3 copies of the
generated log (made in the same directory, so with --file they are left
out). --direct adds O_DIRECT reads (direct-*), which bypass the page cache;
a file system that refuses O_DIRECT makes them 'n/a'. --larger-than-ram
evicts the file before each run and behind the readers as they go (the
table's 'out of cache' says how each method was kept out). --go builds the
Go programs of the texts the lab comes from (go-*) with the Go toolchain on
PATH and runs them in the same series. --compare adds a table of the texts'
published figures beside this machine's.

Examples:
  swath lab                                   the full lab, warm cache
  swath lab --compare --go                    beside the article, and Go here
  swath lab --direct --dir /data              what the disk under /data delivers
  swath lab --larger-than-ram --size 1G       as if the file did not fit in memory
  swath lab --cold --runs 5                   evict the file before each run
  swath lab --file big.log --only 'read-*'    your file, the buffer sizes only
  swath lab --size 64M --json > lab.json      smaller, machine-readable
  swath lab --chart lab.svg                   plus a chart
  swath lab --only 'csv*' --csv-rows 1000000  the CSV readers only
  swath lab --csv-file data.csv --only 'csv*' your CSV (with a header row)
  swath lab --list                            the methods and what they do")]
pub struct Args {
    /// Measure this file instead of a generated one. Its lines are counted
    /// first by `swath count`'s engine, the reference every method must
    /// match. It must not change while the lab runs (mmap would crash).
    #[arg(long, value_name = "PATH")]
    file: Option<PathBuf>,
    /// Measure the csv-* methods on this CSV file (with a header row)
    /// instead of a generated one. Its records are counted first by
    /// swath's sequential CSV reader, the reference every method must match.
    #[arg(long, value_name = "PATH")]
    csv_file: Option<PathBuf>,
    /// Data rows of the generated CSV (about 53 bytes each).
    #[arg(long, default_value_t = 5_000_000)]
    csv_rows: u64,
    /// Size of the generated file and of the large write run.
    #[arg(long, default_value = "512M", value_parser = parse_size)]
    size: u64,
    /// Runs per method (the table shows the median, min and max).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u64).range(1..))]
    runs: u64,
    /// Evict the file from the page cache before each run and report how
    /// much of it stayed (default: warm, the file read once before each run).
    #[arg(long)]
    cold: bool,
    /// Only these methods (comma-separated; a trailing * matches a prefix).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    only: Vec<String>,
    /// Skip these methods (comma-separated; a trailing * matches a prefix).
    #[arg(long, value_delimiter = ',', value_name = "NAMES")]
    skip: Vec<String>,
    /// Keep the generated file (its path is printed on stderr).
    #[arg(long)]
    keep: bool,
    /// Print one JSON document instead of the table.
    #[arg(long)]
    json: bool,
    /// Also write a chart (SVG) to this file.
    #[arg(long, value_name = "FILE.svg")]
    chart: Option<PathBuf>,
    /// Directory for the generated file and the write runs (default: the
    /// system's temporary directory).
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Bytes read by the 1-byte methods, from the start of the file.
    #[arg(long, default_value = "10M", value_parser = parse_size)]
    prefix: u64,
    /// Lines written by the small write methods.
    #[arg(long, default_value_t = 100_000)]
    write_lines: u64,
    /// List the methods and exit.
    #[arg(long)]
    list: bool,
    /// Also print the texts' published figures beside this machine's (the
    /// main table always has the ratio, 'vs text').
    #[arg(long)]
    compare: bool,
    /// Add the direct-* methods: O_DIRECT reads (no page cache) at 4 KiB
    /// to 8 MiB, what the device itself delivers.
    #[arg(long)]
    direct: bool,
    /// Keep the file out of the page cache while the methods read it:
    /// evicted before each run, and behind the reader as it goes.
    #[arg(long)]
    larger_than_ram: bool,
    /// Add the go-* methods: the texts' Go programs, built with the Go
    /// toolchain on PATH and run beside the Rust methods.
    #[arg(long)]
    go: bool,

    // The child side: `swath lab --run-method NAME ...` runs one method once
    // and prints one sample line. Boxed: the parent never needs these.
    #[command(flatten)]
    child: Box<ChildArgs>,
}

/// The hidden arguments of the child that runs one method once.
#[derive(Debug, clap::Args)]
struct ChildArgs {
    #[arg(long, hide = true)]
    run_method: Option<String>,
    #[arg(long, hide = true)]
    scratch: Option<PathBuf>,
    #[arg(long, hide = true)]
    large_write: Option<u64>,
    #[arg(long, hide = true)]
    expect: Option<u64>,
    #[arg(long, hide = true)]
    csv_records: Option<u64>,
    #[arg(long, hide = true)]
    csv_id_sum: Option<u64>,
    #[arg(long, hide = true)]
    gz_file: Option<PathBuf>,
    #[arg(long, hide = true)]
    zst_file: Option<PathBuf>,
}

/// Upper bound of a generated CSV row's bytes, for the disk-space check
/// (rows average about 56).
const CSV_ROW_MAX: u64 = 100;

/// Run `swath lab`.
pub fn run(args: Args) -> Result<ExitCode> {
    if let Some(name) = args.child.run_method.clone() {
        return run_child(&args, &name);
    }
    let mut chosen = select(&args.only, &args.skip)?;
    if args.list {
        let mut out = io::stdout().lock();
        for m in &chosen {
            let when = match m.group() {
                Group::Direct => " (with --direct)",
                Group::Go => " (with --go)",
                Group::Compressed => " (on the generated log)",
                Group::Standard => "",
            };
            writeln!(out, "{:<22} {}{when}", m.name, m.about)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    // The groups run only when asked: by their flag, or by naming them.
    let named = |prefix: &str| args.only.iter().any(|p| p.starts_with(prefix));
    let direct = args.direct || named("direct-");
    let go = args.go || named("go-");
    chosen.retain(|m| match m.group() {
        Group::Direct => direct,
        Group::Go => go,
        Group::Compressed => args.file.is_none(),
        Group::Standard => true,
    });
    if args.file.is_some() && args.csv_file.is_none() && args.child.run_method.is_none() {
        // The user's file is not CSV as far as we know: no generated CSV
        // stands in for it.
        let before = chosen.len();
        chosen.retain(|m| m.kind != Kind::Csv);
        if chosen.is_empty() && before > 0 {
            bail!("the csv-* methods read --csv-file PATH (or a generated CSV without --file)");
        }
    }
    if chosen.is_empty() {
        bail!("no method left after --only/--skip (see swath lab --list)");
    }
    let needs_log = chosen.iter().any(|m| m.kind != Kind::Csv);
    let needs_csv = chosen.iter().any(|m| m.kind == Kind::Csv);
    let formats: Vec<Packed> = Packed::ALL
        .into_iter()
        .filter(|&f| {
            chosen.iter().any(|m| m.kind == Kind::Compressed && m.input_format() == Some(f))
        })
        .collect();
    let gen_log = needs_log && args.file.is_none();
    let gen_csv = needs_csv && args.csv_file.is_none();
    output::remove_on_interrupt();
    let base = match &args.dir {
        Some(d) => d.clone(),
        None => std::env::temp_dir(),
    };
    let work = TempDir::create(&base, args.keep)?;
    // Disk space: the generated file plus the biggest write run (each
    // removes its file), checked before writing anything.
    let sizes = Ctx {
        prefix: args.prefix,
        write_lines: args.write_lines,
        large_write: args.size,
        ..Ctx::default()
    };
    let biggest_write = chosen.iter().map(|m| m.write_bytes(&sizes)).max().unwrap_or(0);
    // A compressed copy is at most a little larger than the file.
    let copies = formats.len() as u64 * (args.size + args.size / 100 + (1 << 20));
    let need = if gen_log { args.size + copies } else { 0 }
        + if gen_csv { args.csv_rows.saturating_mul(CSV_ROW_MAX) } else { 0 }
        + biggest_write;
    let free = os::free_space(work.path())
        .with_context(|| format!("cannot tell the free space in {}", work.path().display()))?;
    if need > free {
        bail!(
            "not enough disk space in {}: the lab needs {} and {} is free \
             (use a smaller --size, or --dir elsewhere)",
            base.display(),
            format_bytes(need),
            format_bytes(free)
        );
    }

    let csv_input = if !needs_csv {
        None
    } else if let Some(path) = &args.csv_file {
        let size = regular_file(path)?;
        let (records, id_sum) = methods::csv::reference(path)
            .with_context(|| format!("{}: cannot read it as CSV", path.display()))?;
        Some((path.clone(), size, records, id_sum, false))
    } else {
        let path = work.path().join("lab.csv");
        let progress = Progress::new(1, io::stderr().is_terminal());
        progress.message(&format!("writing a {}-row CSV", args.csv_rows));
        let mut out = File::create(&path).with_context(|| format!("{}", path.display()))?;
        let opts = csv::CsvOptions { rows: args.csv_rows, ..csv::CsvOptions::default() };
        let sum = csv::write(&mut out, &opts)
            .and_then(|sum| out.flush().map(|()| sum))
            .with_context(|| format!("writing {}", path.display()))?;
        progress.finish();
        let id_sum = methods::csv::generated_id_sum(sum.rows);
        Some((path, sum.bytes, sum.rows, id_sum, true))
    };
    let (file, size, generated) = match (&args.file, &csv_input) {
        (Some(path), _) => (path.clone(), regular_file(path)?, false),
        // Only CSV methods: the report's file is the CSV.
        (None, Some((path, size, _, _, generated))) if !needs_log => {
            (path.clone(), *size, *generated)
        }
        (None, _) => {
            let path = work.path().join("lab.log");
            let progress = Progress::new(1, io::stderr().is_terminal());
            progress.message(&format!("writing {} test file", format_bytes(args.size)));
            let mut out = File::create(&path).with_context(|| format!("{}", path.display()))?;
            log::write(&mut out, args.size)
                .and_then(|_| out.flush())
                .with_context(|| format!("writing {}", path.display()))?;
            progress.finish();
            (path, args.size, true)
        }
    };
    let mut compressed = Vec::new();
    let mut copy_paths = [PathBuf::new(), PathBuf::new()];
    if generated && needs_log {
        for &format in &formats {
            let path = work.path().join(format!("lab.log.{}", format.ext()));
            let progress = Progress::new(1, io::stderr().is_terminal());
            progress.message(&format!("writing the {} -{} copy", format.name(), format.level()));
            let size = packed::write_copy(&file, &path, format)
                .with_context(|| format!("writing {}", path.display()))?;
            progress.finish();
            compressed.push(CompressedInput { format, size });
            copy_paths[usize::from(format == Packed::Zstd)] = path;
        }
    }
    let [gz, zst] = copy_paths;
    let ctx = Ctx {
        file: file.clone(),
        scratch: work.path().to_path_buf(),
        prefix: args.prefix.min(size),
        write_lines: args.write_lines,
        large_write: args.size,
        csv: csv_input.as_ref().map(|c| c.0.clone()).unwrap_or_default(),
        csv_records: csv_input.as_ref().map_or(0, |c| c.2),
        csv_id_sum: csv_input.as_ref().map_or(0, |c| c.3),
        gz,
        zst,
        behind: args.larger_than_ram,
    };
    let mut notes = Vec::new();
    let storage = os::storage(&file).ok();
    // Refusals found once, up front: each method of the group is then
    // 'n/a' with the reason, and the lab goes on.
    let mut refused: Vec<(Group, String)> = Vec::new();
    if chosen.iter().any(|m| m.group() == Group::Direct) {
        match methods::direct::probe(&file) {
            Err(why) => {
                notes.push(format!("--direct: {why}; the direct-* methods are skipped."));
                refused.push((Group::Direct, why));
            }
            Ok(()) if storage.as_ref().is_some_and(|s| s.in_memory()) => notes.push(format!(
                "--direct: the file is on {}, which keeps files in memory: direct-* measure \
                 memory copies, not a device (use --dir on a disk).",
                storage.as_ref().map_or("", |s| s.fs_type.as_str())
            )),
            Ok(()) => {}
        }
    }
    if args.larger_than_ram && storage.as_ref().is_some_and(|s| s.in_memory()) {
        notes.push(format!(
            "--larger-than-ram: the file is on {}, whose files are memory: nothing can keep \
             them out of it (use --dir on a disk).",
            storage.as_ref().map_or("", |s| s.fs_type.as_str())
        ));
    }
    let mut go_program = None;
    if chosen.iter().any(|m| m.group() == Group::Go) {
        let progress = Progress::new(1, io::stderr().is_terminal());
        progress.message("building the Go methods");
        match swath_lab::go::build(work.path()) {
            Ok(p) => go_program = Some(p),
            Err(GoError::Absent(why)) => {
                eprintln!("swath: --go: {why}");
                notes.push(format!("--go: {why}."));
                refused.push((Group::Go, why));
            }
            Err(GoError::Failed(why)) => bail!("--go: {why}"),
        }
        progress.finish();
    }
    let (file_lines, prefix_lines) = if generated && needs_log {
        (log::line_count(size), log::line_count(ctx.prefix))
    } else {
        reference_counts(&file, ctx.prefix)?
    };
    let plan = Plan {
        exe: std::env::current_exe().context("cannot find the swath binary to re-run")?,
        exe_args: vec!["lab".into()],
        ctx,
        runs: args.runs as usize,
        cold: args.cold || args.larger_than_ram,
        file_lines,
        prefix_lines,
        go: go_program.as_ref().map(|p| p.exe.clone()),
    };

    let progress = Progress::new(chosen.len() as u64 * args.runs, io::stderr().is_terminal());
    let mut series = Vec::new();
    for m in &chosen {
        if m.way == methods::Way::CsvTyped && args.csv_file.is_some() && !lab_columns(&plan.ctx.csv)
        {
            let why = "the typed scan reads the lab's 6 columns \
                       (id,name,score,active,city,ts), and --csv-file's header is not those";
            series.push(Series::not_applicable(m.clone(), why.to_string()));
            progress.tick();
            continue;
        }
        if let Some((_, why)) = refused.iter().find(|(g, _)| *g == m.group()) {
            series.push(Series::not_applicable(m.clone(), why.clone()));
            progress.tick();
            continue;
        }
        series.push(plan.run_series(m, |run| {
            progress.message(&format!("{} (run {}/{})", m.name, run + 1, args.runs));
            progress.tick();
        }));
    }
    progress.finish();

    let report = Report {
        file: match file.file_name() {
            Some(name) if generated => name.to_string_lossy().into_owned(),
            _ => file.display().to_string(),
        },
        size,
        lines: file_lines,
        generated,
        cold: args.cold || args.larger_than_ram,
        runs: args.runs as usize,
        prefix: plan.ctx.prefix,
        unix_time: SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()),
        machine: report::machine(),
        cores: swath::parallel::available_cores(),
        csv: csv_input.as_ref().map(|(path, size, records, _, generated)| CsvInput {
            file: if *generated { "lab.csv".to_string() } else { path.display().to_string() },
            size: *size,
            records: *records,
            generated: *generated,
        }),
        series,
        compare: args.compare,
        larger_than_ram: args.larger_than_ram,
        storage: storage.map(|s| s.describe()),
        compressed,
        go: go_program.map(|p| p.version),
        notes,
    };
    let mut out = io::stdout().lock();
    if args.json {
        out.write_all(report::to_json(&report).as_bytes())?;
    } else {
        out.write_all(report::to_table(&report).as_bytes())?;
    }
    out.flush()?;
    if let Some(path) = &args.chart {
        let mut svg = AtomicFile::create(path)?;
        svg.write_all(report::to_svg(&report).as_bytes())
            .with_context(|| format!("writing {}", path.display()))?;
        svg.commit()?;
    }
    if args.keep && generated {
        eprintln!("swath: kept {}", file.display());
    }
    if let Some((path, ..)) = csv_input.as_ref().filter(|c| args.keep && c.4 && c.0 != file) {
        eprintln!("swath: kept {}", path.display());
    }
    drop(work);
    let failed = report.series.iter().filter(|s| s.failed()).count();
    if failed > 0 {
        eprintln!("swath: {failed} method(s) failed; see the table");
        return Ok(crate::exit::error());
    }
    Ok(ExitCode::SUCCESS)
}

/// The methods `--only` and `--skip` leave, in report order.
fn select(only: &[String], skip: &[String]) -> Result<Vec<Method>> {
    let all = methods::all();
    let matches = |pat: &str, m: &Method| match pat.strip_suffix('*') {
        Some(prefix) => m.name.starts_with(prefix),
        None => m.name == pat,
    };
    for pat in only.iter().chain(skip) {
        if !all.iter().any(|m| matches(pat, m)) {
            let names: Vec<&str> = all.iter().map(|m| m.name.as_str()).collect();
            bail!("no method matches {pat:?}; the methods are: {}", names.join(", "));
        }
    }
    Ok(all
        .into_iter()
        .filter(|m| only.is_empty() || only.iter().any(|p| matches(p, m)))
        .filter(|m| !skip.iter().any(|p| matches(p, m)))
        .collect())
}

/// True when the CSV at `path` has the lab's header (`swath gen csv`'s
/// file), so the typed scan applies to it.
fn lab_columns(path: &Path) -> bool {
    let Ok(mut rdr) = swath_csv::Reader::from_path(path) else {
        return false;
    };
    let want = csv::HEADER.trim_ascii_end().split(|&b| b == b',');
    matches!(rdr.headers(), Ok(Some(h)) if h.iter().eq(want))
}

/// The size of `path`, which must be a plain regular file: every method
/// reads its bytes and counts their lines, and a compressed file's bytes
/// are not its lines (the gz-* and zst-* methods measure decoding, on
/// compressed copies of the generated log).
fn regular_file(path: &Path) -> Result<u64> {
    let meta = fs::metadata(path).with_context(|| format!("{}", path.display()))?;
    if !meta.is_file() {
        bail!("{}: the lab needs a regular file", path.display());
    }
    let mut head = Vec::new();
    File::open(path)
        .and_then(|f| f.take(swath::decompress::MAGIC_LEN as u64).read_to_end(&mut head))
        .with_context(|| format!("{}", path.display()))?;
    let format = swath::Compression::detect(&head);
    if format != swath::Compression::None {
        bail!(
            "{}: {} input: the lab measures reading a plain file; decompress it first, \
             or run the lab without --file to measure decoding (its gz-* and zst-* methods)",
            path.display(),
            format.name()
        );
    }
    Ok(meta.len())
}

/// Lines of the user's file by the fastest method (swath's engine on all
/// cores), and of its prefix by the slow, obvious scalar count.
fn reference_counts(path: &Path, prefix: u64) -> Result<(u64, u64)> {
    let mut src = Source::open(path)?;
    let lines = count_source(&mut src, &CountOptions::default())?.lines();
    let mut head = Vec::new();
    File::open(path)?.take(prefix).read_to_end(&mut head)?;
    let newlines = swath::count::Kernel::scalar().count(&head, b'\n');
    let tail = u64::from(head.last().is_some_and(|&b| b != b'\n'));
    Ok((lines, newlines + tail))
}

/// The child: run one method once, print its sample line.
fn run_child(args: &Args, name: &str) -> Result<ExitCode> {
    let method = methods::find(name).with_context(|| format!("no method called {name:?}"))?;
    let (Some(file), Some(scratch), Some(expect)) =
        (&args.file, &args.child.scratch, args.child.expect)
    else {
        bail!("--run-method needs --file, --scratch and --expect");
    };
    let ctx = Ctx {
        file: file.clone(),
        scratch: scratch.clone(),
        prefix: args.prefix,
        write_lines: args.write_lines,
        large_write: args.child.large_write.unwrap_or(args.size),
        csv: args.csv_file.clone().unwrap_or_default(),
        csv_records: args.child.csv_records.unwrap_or(0),
        csv_id_sum: args.child.csv_id_sum.unwrap_or(0),
        gz: args.child.gz_file.clone().unwrap_or_default(),
        zst: args.child.zst_file.clone().unwrap_or_default(),
        behind: args.larger_than_ram,
    };
    match measure::measure(&method, &ctx, expect, args.cold || args.larger_than_ram) {
        Ok(sample) => println!("{}", sample.to_line()),
        Err(Failure::NotApplicable(why)) => println!("{NOT_APPLICABLE_TAG} {why}"),
        Err(e @ Failure::Failed(_)) => return Err(e.into()),
    }
    Ok(ExitCode::SUCCESS)
}

/// The lab's working directory, removed at the end (and on Ctrl-C) unless
/// the generated file is to be kept.
struct TempDir {
    path: PathBuf,
    keep: bool,
}

impl TempDir {
    fn create(base: &Path, keep: bool) -> Result<TempDir> {
        for n in 0..1000u32 {
            let path = base.join(format!("swath-lab-{}-{n}", std::process::id()));
            match fs::create_dir(&path) {
                Ok(()) => {
                    if !keep {
                        output::register_temp(&path);
                    }
                    return Ok(TempDir { path, keep });
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(e).with_context(|| {
                        format!("cannot create a directory in {}", base.display())
                    })
                }
            }
        }
        bail!("cannot create a working directory in {}", base.display())
    }

    fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if self.keep {
            // Only the generated file is kept; write runs clean up after
            // themselves (Method::check removes what they wrote).
            return;
        }
        let _ = fs::remove_dir_all(&self.path);
        output::unregister_temp(&self.path);
    }
}

/// Progress on stderr, only when stderr is a terminal.
struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    fn new(total: u64, terminal: bool) -> Progress {
        if !terminal {
            return Progress(None);
        }
        let bar = indicatif::ProgressBar::new(total);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{spinner} [{bar:30}] {pos}/{len} {msg}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        Progress(Some(bar))
    }

    fn message(&self, msg: &str) {
        if let Some(bar) = &self.0 {
            bar.set_message(msg.to_string());
        }
    }

    fn tick(&self) {
        if let Some(bar) = &self.0 {
            bar.inc(1);
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

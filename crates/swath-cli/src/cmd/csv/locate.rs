//! Finding records in a CSV file for `split`, `slice`, `tail` and
//! `sample`: from a valid checkpoint index when there is one (a stale one
//! is ignored with a note on stderr), else from the exact split plan made
//! by one parallel pass.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use swath::index::{default_index_path, format::read_index};
use swath_csv::index::{plan_from_index, IndexCheck};
use swath_csv::{plan_splits, plan_splits_checked, ReaderBuilder, SplitPlan, SplitSize};

use super::CsvOpts;

/// Bytes between checkpoints of the plan made without an index: what
/// finding one record may read at most.
pub const PLAN_INTERVAL: u64 = 4 << 20;

/// Where the index is.
#[derive(Debug, Clone, clap::Args)]
pub struct IndexOpts {
    /// The checkpoint index to use (default FILE.swathidx, when present).
    #[arg(long, value_name = "PATH")]
    pub index_file: Option<PathBuf>,
    /// Do not use an index even when one is present.
    #[arg(long)]
    pub no_index: bool,
}

impl IndexOpts {
    /// The sidecar's path for `file`.
    pub fn path_for(&self, file: &Path) -> PathBuf {
        self.index_file.clone().unwrap_or_else(|| default_index_path(file))
    }
}

/// The input must be a regular file or a remote object: these commands
/// read it from several places.
pub fn regular_file(opts: &CsvOpts) -> Result<()> {
    let p = opts.path();
    if p == Path::new("-") {
        bail!("this command needs a regular file, not standard input");
    }
    if swath::remote::is_url(p) {
        return Ok(());
    }
    let meta = std::fs::metadata(p).with_context(|| format!("cannot read {}", opts.name()))?;
    if !meta.is_file() {
        bail!("{}: this command needs a regular file", opts.name());
    }
    Ok(())
}

/// The plan from a valid index, if there is one: `None` when there is
/// none or it is stale (said on stderr).
pub fn plan_from_sidecar(
    opts: &CsvOpts,
    idx: &IndexOpts,
    b: &ReaderBuilder,
) -> Result<Option<SplitPlan>> {
    if idx.no_index {
        return Ok(None);
    }
    let sidecar = idx.path_for(opts.path());
    let file = match std::fs::File::open(&sidecar) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && idx.index_file.is_none() => {
            return Ok(None)
        }
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", sidecar.display())),
    };
    let index = match read_index(std::io::BufReader::new(file)) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("swath: note: ignoring the index {}: {e}", sidecar.display());
            return Ok(None);
        }
    };
    match plan_from_index(b, opts.path(), &index)
        .with_context(|| format!("cannot read {}", opts.name()))?
    {
        IndexCheck::Fresh(plan) => Ok(Some(*plan)),
        IndexCheck::Stale(why) => {
            eprintln!(
                "swath: note: ignoring the stale index {}: {why} (run `swath csv index` again)",
                sidecar.display()
            );
            Ok(None)
        }
    }
}

/// The plan to find records with: the index's, else a new one cut into
/// `size` pieces, checked against a validating count of the file unless
/// the caller reads every record of the plan itself (`split` does).
pub fn plan(
    opts: &CsvOpts,
    idx: &IndexOpts,
    size: SplitSize,
    reads_all: bool,
) -> Result<SplitPlan> {
    regular_file(opts)?;
    let b = opts.builder();
    if let Some(plan) = plan_from_sidecar(opts, idx, &b)? {
        return Ok(plan);
    }
    let plan = if reads_all {
        plan_splits(&b, opts.path(), size)
    } else {
        plan_splits_checked(&b, opts.path(), size)
    };
    plan.with_context(|| format!("cannot read {}", opts.name()))
}

/// Records in the plan that are data (the header row not counted when
/// headers are on), and the number of the first data record.
pub fn data_records(plan: &SplitPlan, opts: &CsvOpts) -> (u64, u64) {
    let first = if opts.has_headers() { 2 } else { 1 };
    (plan.records().saturating_sub(first - 1), first)
}

/// Write the header row (when headers are on) and the records of `split`
/// to standard output in the input's dialect, as `head` does.
pub fn write_records(opts: &CsvOpts, plan: &SplitPlan, split: &swath_csv::Split) -> Result<()> {
    let mut rdr = plan.reader_of(split)?;
    let mut wtr = opts.writer().from_writer(std::io::BufWriter::new(std::io::stdout().lock()));
    if let Some(h) = rdr.headers()? {
        wtr.write_record(h.iter())?;
    }
    while let Some(rec) = rdr.next_record()? {
        wtr.write_record(rec.iter())?;
    }
    let mut out = wtr.finish().map_err(|e| e.into_error())?;
    std::io::Write::flush(&mut out)?;
    Ok(())
}

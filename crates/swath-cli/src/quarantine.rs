//! Broken records put aside (`--on-bad skip|quarantine=FILE`,
//! `--max-bad`): the reader hands them over in file order
//! (`swath_csv::BadRecord`, `swath_json::BadRecord`);
//! `swath_csv::bad::Quarantine` copies each one's bytes to the quarantine
//! file and its record, line, byte and reason to the sidecar (`FILE.errors.csv`, or `FILE.errors.jsonl`),
//! counts them and stops the run past `--max-bad`; this opens the files
//! and says on stderr what was left out.
//!
//! Both files are written as every output is (`crate::output::Output`):
//! beside their names and renamed into place at the end, so that a run
//! that fails leaves neither looking complete.

use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use swath_csv::bad::{self, Aside, Sidecar, Stop};

use crate::args::on_bad::{BadArgs, OnBad};
use crate::output::Output;

type File = BufWriter<Output>;

/// What becomes of the records a run puts aside.
pub struct Quarantine {
    /// The input's name, for messages.
    input: String,
    inner: bad::Quarantine<File>,
    /// The quarantine's and the sidecar's paths.
    paths: Option<(PathBuf, PathBuf)>,
}

impl Quarantine {
    /// What `args` ask for reading `input`; `None` for `--on-bad fail`.
    ///
    /// # Errors
    ///
    /// `--max-bad` without a way to put records aside, a quarantine file
    /// that cannot be created.
    pub fn open(args: &BadArgs, input: &str) -> Result<Option<Quarantine>> {
        let needs = |what: &str, how: &str| format!("{what} needs --on-bad {how}");
        let (inner, paths) = match &args.on_bad {
            OnBad::Fail => {
                if args.max_bad.is_some() {
                    bail!(needs("--max-bad", "skip or --on-bad quarantine=FILE"));
                }
                if args.errors_json {
                    bail!(needs("--errors-json", "quarantine=FILE"));
                }
                return Ok(None);
            }
            OnBad::Skip => {
                if args.errors_json {
                    bail!(needs("--errors-json", "quarantine=FILE"));
                }
                (bad::Quarantine::counting(args.max_bad), None)
            }
            OnBad::Quarantine(path) => {
                let sidecar = Sidecar::json_if(args.errors_json);
                let errors_path = sidecar.path_beside(path);
                let inner = bad::Quarantine::writing(
                    create(path)?,
                    create(&errors_path)?,
                    sidecar,
                    args.max_bad,
                )
                .with_context(|| cannot_write(&errors_path))?;
                (inner, Some((path.clone(), errors_path)))
            }
        };
        Ok(Some(Quarantine { input: input.to_string(), inner, paths }))
    }

    /// Take the records a chunk put aside, in file order.
    ///
    /// # Errors
    ///
    /// A write error, or more records than `--max-bad N`.
    pub fn take<B: Aside>(&mut self, bad: impl IntoIterator<Item = B>) -> Result<()> {
        self.inner.take(bad).map_err(|e| self.stopped(e))
    }

    /// After the run, in which `good` records were read and kept (the
    /// header row not among them): check `--max-bad N%`, put the files in
    /// place, say what was left out. The exit status: 1 when any record
    /// was.
    ///
    /// # Errors
    ///
    /// Too many records put aside; a write error.
    pub fn finish(self, good: u64) -> Result<ExitCode> {
        self.end(Some(good))
    }

    /// [`finish`](Self::finish) for a run that does not know how many
    /// records it read (a query): `--max-bad N%` cannot be checked (the
    /// caller refuses it), and stderr says the count alone.
    ///
    /// # Errors
    ///
    /// A write error.
    #[cfg(feature = "sql")]
    pub fn finish_uncounted(self) -> Result<ExitCode> {
        self.end(None)
    }

    fn end(self, good: Option<u64>) -> Result<ExitCode> {
        let (count, first) = (self.inner.count(), self.inner.first().map(str::to_string));
        let files = match self.inner.finish(good.unwrap_or(0)) {
            Ok(files) => files,
            Err(e) => {
                return Err(anyhow::anyhow!("{}: {e} (--max-bad)", self.input));
            }
        };
        let what = match &self.paths {
            Some((records, errors)) => {
                format!("put aside in {} (why: {})", records.display(), errors.display())
            }
            None => "skipped (--on-bad skip)".to_string(),
        };
        if let (Some((records, errors)), Some((records_path, errors_path))) = (files, &self.paths) {
            for (w, path) in [(records, records_path), (errors, errors_path)] {
                let out = w
                    .into_inner()
                    .map_err(|e| e.into_error())
                    .with_context(|| cannot_write(path))?;
                out.finish().with_context(|| cannot_write(path))?;
            }
        }
        if count == 0 {
            return Ok(crate::exit::success());
        }
        let s = if count == 1 { "" } else { "s" };
        match good {
            Some(good) => {
                eprintln!("swath: {}: {count} record{s} of {} {what}", self.input, good + count)
            }
            None => eprintln!("swath: {}: {count} record{s} {what}", self.input),
        }
        if let Some(first) = first {
            eprintln!("swath: the first: {first}");
        }
        Ok(crate::exit::problems())
    }

    /// The error that stopped the run, named.
    fn stopped(&self, e: Stop) -> anyhow::Error {
        match (&e, &self.paths) {
            (Stop::Write { records, .. }, Some((r, w))) => {
                let path = if *records { r } else { w };
                anyhow::Error::new(e).context(cannot_write(path))
            }
            _ => anyhow::anyhow!("{}: {e} (--max-bad)", self.input),
        }
    }
}

/// Take what `rdr` put aside, if anything: after each record of a
/// sequential loop, and at its end.
///
/// # Errors
///
/// As [`Quarantine::take`].
pub fn drain<R: std::io::Read>(
    q: Option<&mut Quarantine>,
    rdr: &mut swath_csv::Reader<R>,
) -> Result<()> {
    match q {
        Some(q) if rdr.has_bad_records() => q.take(rdr.take_bad_records()),
        _ => Ok(()),
    }
}

/// A record put aside with the file it came from named in its reason:
/// for a run over several files (a query's tables), whose quarantine and
/// sidecar hold them all.
#[cfg(feature = "sql")]
pub struct InFile<R> {
    /// The file, when the reason names it.
    pub path: Option<PathBuf>,
    pub record: R,
}

#[cfg(feature = "sql")]
impl<R: std::ops::Deref<Target = dyn Aside + Send>> Aside for InFile<R> {
    fn position(&self) -> swath_csv::Position {
        self.record.position()
    }

    fn bytes(&self) -> &[u8] {
        self.record.bytes()
    }

    fn reason(&self) -> String {
        match &self.path {
            Some(p) => format!("{}: {}", p.display(), self.record.reason()),
            None => self.record.reason(),
        }
    }

    fn at_byte(&self) -> u64 {
        self.record.at_byte()
    }
}

fn cannot_write(p: &Path) -> String {
    format!("cannot write {}", p.display())
}

fn create(p: &Path) -> Result<File> {
    let out = Output::create(p).with_context(|| cannot_write(p))?;
    Ok(BufWriter::with_capacity(64 << 10, out))
}

//! Broken records put aside (`--on-bad skip|quarantine=FILE`,
//! `--max-bad`): the reader hands them over in file order
//! (`swath_csv::BadRecord`); this copies each one's bytes to the
//! quarantine file and its record, line, byte and reason to the sidecar
//! (`FILE.errors.csv`, or `FILE.errors.jsonl`), counts them, stops the run
//! past `--max-bad`, and says on stderr what was left out.
//!
//! Both files are written as every output is (`crate::output::Output`):
//! beside their names and renamed into place at the end, so that a run
//! that fails leaves neither looking complete.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use swath_csv::BadRecord;

use crate::args::on_bad::{BadArgs, MaxBad, OnBad};
use crate::output::json_escape::push_string;
use crate::output::Output;

/// What becomes of the records a run puts aside.
pub struct Quarantine {
    /// The input's name, for messages.
    input: String,
    /// The quarantine file and the sidecar (`--on-bad quarantine=FILE`).
    files: Option<Files>,
    max: Option<MaxBad>,
    /// Records put aside so far.
    count: u64,
    /// The first one, for the message at the end.
    first: Option<String>,
    /// One sidecar line, reused.
    line: Vec<u8>,
}

struct Files {
    records: BufWriter<Output>,
    records_path: PathBuf,
    errors: BufWriter<Output>,
    errors_path: PathBuf,
    json: bool,
}

impl Quarantine {
    /// What `args` ask for reading `input`; `None` for `--on-bad fail`.
    ///
    /// # Errors
    ///
    /// `--max-bad` without a way to put records aside, a quarantine file
    /// that cannot be created.
    pub fn open(args: &BadArgs, input: &str) -> Result<Option<Quarantine>> {
        let files = match &args.on_bad {
            OnBad::Fail => {
                if args.max_bad.is_some() {
                    bail!("--max-bad needs --on-bad skip or --on-bad quarantine=FILE");
                }
                if args.errors_json {
                    bail!("--errors-json needs --on-bad quarantine=FILE");
                }
                return Ok(None);
            }
            OnBad::Skip => {
                if args.errors_json {
                    bail!("--errors-json needs --on-bad quarantine=FILE");
                }
                None
            }
            OnBad::Quarantine(path) => Some(Files::create(path, args.errors_json)?),
        };
        Ok(Some(Quarantine {
            input: input.to_string(),
            files,
            max: args.max_bad,
            count: 0,
            first: None,
            line: Vec::new(),
        }))
    }

    /// Take the records a chunk put aside, in file order.
    ///
    /// # Errors
    ///
    /// A write error, or more records than `--max-bad N`.
    pub fn take(&mut self, bad: Vec<BadRecord>) -> Result<()> {
        for b in bad {
            self.count += 1;
            if self.first.is_none() {
                self.first = Some(describe(&b));
            }
            if let Some(MaxBad::Records(max)) = self.max {
                if self.count > max {
                    bail!(
                        "{}: more than {max} records put aside (--max-bad {max}); stopped at {}",
                        self.input,
                        describe(&b)
                    );
                }
            }
            if let Some(f) = &mut self.files {
                f.write(&b, &mut self.line)?;
            }
        }
        Ok(())
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
        let records = good + self.count;
        if let Some(MaxBad::Percent(p)) = self.max {
            let share = if records == 0 { 0.0 } else { self.count as f64 * 100.0 / records as f64 };
            if share > p {
                bail!(
                    "{}: {} of {records} records put aside ({share:.2}%), more than --max-bad {p}%",
                    self.input,
                    self.count
                );
            }
        }
        let what = match &self.files {
            Some(f) => format!(
                "put aside in {} (why: {})",
                f.records_path.display(),
                f.errors_path.display()
            ),
            None => "skipped (--on-bad skip)".to_string(),
        };
        if let Some(f) = self.files {
            f.finish()?;
        }
        if self.count == 0 {
            return Ok(crate::exit::success());
        }
        let n = self.count;
        let s = if n == 1 { "" } else { "s" };
        eprintln!("swath: {}: {n} record{s} of {records} {what}", self.input);
        if let Some(first) = self.first {
            eprintln!("swath: the first: {first}");
        }
        Ok(crate::exit::problems())
    }
}

/// Where `b` is and why, without the input's name (said before it).
fn describe(b: &BadRecord) -> String {
    let p = b.position();
    format!("record {} (line {}, byte {}): {}", p.record, p.line, p.byte, b.error().kind())
}

impl Files {
    fn create(path: &Path, json: bool) -> Result<Files> {
        let mut errors_path = path.as_os_str().to_owned();
        errors_path.push(if json { ".errors.jsonl" } else { ".errors.csv" });
        let errors_path = PathBuf::from(errors_path);
        let open = |p: &Path| -> Result<BufWriter<Output>> {
            let out = Output::create(p).with_context(|| format!("cannot write {}", p.display()))?;
            Ok(BufWriter::with_capacity(64 << 10, out))
        };
        let mut files = Files {
            records: open(path)?,
            records_path: path.to_path_buf(),
            errors: open(&errors_path)?,
            errors_path,
            json,
        };
        if !json {
            files.errors.write_all(b"record,line,byte,reason\n").context("the sidecar")?;
        }
        Ok(files)
    }

    fn write(&mut self, b: &BadRecord, line: &mut Vec<u8>) -> Result<()> {
        let p = b.position();
        let reason = b.error().kind().to_string();
        line.clear();
        if self.json {
            line.extend_from_slice(
                format!(
                    "{{\"record\":{},\"line\":{},\"byte\":{},\"reason\":",
                    p.record, p.line, p.byte
                )
                .as_bytes(),
            );
            push_string(line, &reason);
            if let Some(at) = b.error().position() {
                line.extend_from_slice(format!(",\"at_byte\":{}", at.byte).as_bytes());
            }
            line.extend_from_slice(b"}\n");
        } else {
            line.extend_from_slice(format!("{},{},{},\"", p.record, p.line, p.byte).as_bytes());
            line.extend_from_slice(reason.replace('"', "\"\"").as_bytes());
            line.extend_from_slice(b"\"\n");
        }
        let name = |p: &Path| format!("cannot write {}", p.display());
        self.records.write_all(b.bytes()).with_context(|| name(&self.records_path))?;
        self.errors.write_all(line).with_context(|| name(&self.errors_path))?;
        Ok(())
    }

    fn finish(self) -> Result<()> {
        for (w, path) in [(self.records, self.records_path), (self.errors, self.errors_path)] {
            let name = || format!("cannot write {}", path.display());
            w.into_inner()
                .map_err(|e| e.into_error())
                .with_context(name)?
                .finish()
                .with_context(name)?;
        }
        Ok(())
    }
}

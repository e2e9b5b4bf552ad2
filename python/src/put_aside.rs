//! `on_bad=`, `max_bad=`, `errors_json=`: broken records kept aside by
//! `read_csv`, `csv_to_parquet` and `read_json`, as the CLI's `--on-bad`, `--max-bad`
//! and `--errors-json` (the files are `swath_csv::bad::Quarantine`'s, so
//! they are the CLI's). The quarantine and its sidecar are written under
//! temporary names beside them and renamed into place when the read
//! succeeded; what was left out is said with a `UserWarning`.

use std::ffi::CString;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use pyo3::exceptions::{PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use swath_csv::bad::{Aside, MaxBad, Quarantine, Sidecar};

use crate::errors::Failure;

/// The options, read from the keyword arguments while the GIL is held.
#[derive(Clone, Debug, Default)]
pub struct PutAside {
    /// `None`: `on_bad="fail"`.
    how: Option<How>,
    max: Option<MaxBad>,
    json: bool,
}

#[derive(Clone, Debug)]
enum How {
    Skip,
    Quarantine(PathBuf),
}

impl PutAside {
    /// Take `on_bad`, `max_bad` and `errors_json` out of `kwargs` (the rest
    /// are the dialect's).
    pub fn from_kwargs(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<PutAside> {
        let Some(kwargs) = kwargs else { return Ok(PutAside::default()) };
        let take = |key: &str| crate::options::pop_kwarg(kwargs, key);
        let (on_bad, max_bad, json) = (take("on_bad")?, take("max_bad")?, take("errors_json")?);
        let json = json.map(|v| v.extract()).transpose()?.unwrap_or(false);
        PutAside::new(on_bad.as_ref(), max_bad.as_ref(), json)
    }

    /// The options as given (`None`: not given).
    pub fn new(
        on_bad: Option<&Bound<'_, PyAny>>,
        max_bad: Option<&Bound<'_, PyAny>>,
        errors_json: bool,
    ) -> PyResult<PutAside> {
        let mut p = PutAside { json: errors_json, ..PutAside::default() };
        if let Some(v) = on_bad.filter(|v| !v.is_none()) {
            let s: String = v.extract()?;
            p.how = match s.as_str() {
                "fail" => None,
                "skip" => Some(How::Skip),
                _ => match s.strip_prefix("quarantine=") {
                    Some(path) if !path.is_empty() => Some(How::Quarantine(path.into())),
                    _ => {
                        return Err(PyValueError::new_err(format!(
                            "on_bad must be \"fail\", \"skip\" or \"quarantine=PATH\", not {s:?}"
                        )))
                    }
                },
            };
        }
        if let Some(v) = max_bad.filter(|v| !v.is_none()) {
            let text = match v.extract::<u64>() {
                Ok(n) => n.to_string(),
                Err(_) => v.extract::<String>()?,
            };
            p.max = Some(
                text.parse().map_err(|e: String| PyValueError::new_err(format!("max_bad: {e}")))?,
            );
        }
        if p.how.is_none() && (p.max.is_some() || p.json) {
            return Err(PyValueError::new_err(
                "max_bad and errors_json need on_bad=\"skip\" or on_bad=\"quarantine=PATH\"",
            ));
        }
        if p.json && matches!(p.how, Some(How::Skip)) {
            return Err(PyValueError::new_err("errors_json needs on_bad=\"quarantine=PATH\""));
        }
        Ok(p)
    }

    /// Whether records are put aside.
    pub fn is_on(&self) -> bool {
        self.how.is_some()
    }

    /// Open the quarantine (its files under temporary names), on the
    /// worker thread.
    pub fn open(&self) -> Result<Option<Taking>, Failure> {
        let Some(how) = &self.how else { return Ok(None) };
        let (inner, paths) = match how {
            How::Skip => (Quarantine::counting(self.max), None),
            How::Quarantine(path) => {
                let sidecar = Sidecar::json_if(self.json);
                let paths = [path.clone(), sidecar.path_beside(path)];
                let tmps = paths.clone().map(|p| crate::read::temporary_beside(&p));
                let open = |p: &Path| {
                    File::create(p)
                        .map(|f| BufWriter::with_capacity(64 << 10, f))
                        .map_err(|e| Failure::Other(format!("cannot write {}: {e}", p.display())))
                };
                let inner =
                    Quarantine::writing(open(&tmps[0])?, open(&tmps[1])?, sidecar, self.max)
                        .map_err(|e| {
                            Failure::Other(format!("cannot write {}: {e}", tmps[1].display()))
                        })?;
                (inner, Some((paths, tmps)))
            }
        };
        Ok(Some(Taking { inner, paths }))
    }
}

/// The quarantine of one read.
pub struct Taking {
    inner: Quarantine<BufWriter<File>>,
    /// The files' names and their temporary names.
    paths: Option<([PathBuf; 2], [PathBuf; 2])>,
}

impl Taking {
    /// Take records put aside.
    pub fn take<B: Aside>(&mut self, bad: impl IntoIterator<Item = B>) -> Result<(), Failure> {
        self.inner.take(bad).map_err(|e| Failure::Value(format!("on_bad: {e}")))
    }

    /// After a read that kept `good` records: check the share, put the
    /// files in place; what to warn about, if anything was left out.
    pub fn finish(self, good: u64) -> Result<Option<String>, Failure> {
        let (count, first) = (self.inner.count(), self.inner.first().map(str::to_string));
        let files = match self.inner.finish(good) {
            Ok(files) => files,
            Err(e) => {
                remove_temporaries(&self.paths);
                return Err(Failure::Value(format!("on_bad: {e}")));
            }
        };
        let mut what = "skipped (on_bad=\"skip\")".to_string();
        if let (Some((records, errors)), Some((paths, tmps))) = (files, &self.paths) {
            for (w, (tmp, path)) in [records, errors].into_iter().zip(tmps.iter().zip(paths)) {
                let fail = |e: std::io::Error| {
                    Failure::Other(format!("cannot write {}: {e}", path.display()))
                };
                w.into_inner().map_err(|e| fail(e.into_error()))?;
                std::fs::rename(tmp, path).map_err(fail)?;
            }
            what = format!("put aside in {} (why: {})", paths[0].display(), paths[1].display());
        }
        Ok((count > 0).then(|| {
            let s = if count == 1 { "" } else { "s" };
            format!(
                "{count} record{s} of {} {what}; the first: {}",
                good + count,
                first.unwrap_or_default()
            )
        }))
    }

    /// A read that failed: its files are removed.
    pub fn abandon(self) {
        remove_temporaries(&self.paths);
    }
}

/// Remove the files written under temporary names (the read failed).
fn remove_temporaries(paths: &Option<([PathBuf; 2], [PathBuf; 2])>) {
    if let Some((_, tmps)) = paths {
        for t in tmps {
            let _ = std::fs::remove_file(t);
        }
    }
}

/// Say `note` (what was left out) as a `UserWarning`.
pub fn warn(py: Python<'_>, note: Option<String>) -> PyResult<()> {
    if let Some(note) = note {
        let note = CString::new(note).unwrap_or_else(|_| c"records were put aside".into());
        PyErr::warn(py, &py.get_type::<PyUserWarning>(), &note, 1)?;
    }
    Ok(())
}

//! The parent side: run every chosen method `runs` times, each run in a
//! fresh child process (`swath lab --run-method ...`), and collect the
//! samples into [`Series`].

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::aligned::AlignedBuf;
use crate::measure::Failure;
use crate::methods::{Ctx, Kind, Method, Way};
use crate::os;
use crate::sample::Sample;

/// Everything the runs need.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The program to re-execute (the `swath` binary).
    pub exe: PathBuf,
    /// Arguments before the child's own (`["lab"]` for `swath lab`).
    pub exe_args: Vec<OsString>,
    /// File, scratch directory and sizes.
    pub ctx: Ctx,
    /// Runs per method.
    pub runs: usize,
    /// Evict the file before each run.
    pub cold: bool,
    /// Lines of the whole file.
    pub file_lines: u64,
    /// Lines of the first `ctx.prefix` bytes.
    pub prefix_lines: u64,
    /// The built Go program that runs the Go methods (`--go`), if any.
    pub go: Option<PathBuf>,
}

/// The runs of one method.
#[derive(Clone, Debug)]
pub struct Series {
    /// The method.
    pub method: Method,
    /// One sample per successful run.
    pub samples: Vec<Sample>,
    /// Why the method failed (wrong answer, I/O error), if it did.
    pub error: Option<String>,
    /// Why the method does not apply to this file, if it does not (not a
    /// failure: the lab still exits 0).
    pub not_applicable: Option<String>,
}

impl Plan {
    /// The arguments of the child that runs `method` once.
    pub fn child_args(&self, method: &Method) -> Vec<OsString> {
        let c = &self.ctx;
        let expected = method.expected(c, self.file_lines, self.prefix_lines);
        let mut args = self.exe_args.clone();
        for (k, v) in [
            ("--run-method", OsString::from(&method.name)),
            ("--file", c.file.clone().into_os_string()),
            ("--scratch", c.scratch.clone().into_os_string()),
            ("--prefix", c.prefix.to_string().into()),
            ("--write-lines", c.write_lines.to_string().into()),
            ("--large-write", c.large_write.to_string().into()),
            ("--expect", expected.to_string().into()),
        ] {
            args.push(k.into());
            args.push(v);
        }
        if method.kind == Kind::Compressed {
            for (k, v) in [
                ("--gz-file", c.gz.clone().into_os_string()),
                ("--zst-file", c.zst.clone().into_os_string()),
            ] {
                args.push(k.into());
                args.push(v);
            }
        }
        if c.behind {
            args.push("--larger-than-ram".into());
        }
        if method.kind == Kind::Csv {
            for (k, v) in [
                ("--csv-file", c.csv.clone().into_os_string()),
                ("--csv-records", c.csv_records.to_string().into()),
                ("--csv-id-sum", c.csv_id_sum.to_string().into()),
            ] {
                args.push(k.into());
                args.push(v);
            }
        }
        if self.cold {
            args.push("--cold".into());
        }
        args
    }

    /// The arguments of the Go program for a Go method's run.
    pub fn go_args(&self, method: &Method) -> Vec<OsString> {
        let c = &self.ctx;
        let expected = method.expected(c, self.file_lines, self.prefix_lines);
        let mut args = Vec::new();
        for (k, v) in [
            ("-method", OsString::from(&method.name)),
            ("-file", c.file.clone().into_os_string()),
            ("-scratch", c.scratch.clone().into_os_string()),
            ("-expect", expected.to_string().into()),
            ("-write-lines", c.write_lines.to_string().into()),
        ] {
            args.push(k.into());
            args.push(v);
        }
        args
    }

    /// Run `method` `self.runs` times; `progress(run)` is called before each.
    /// A failed run ends the series with its error.
    pub fn run_series(&self, method: &Method, mut progress: impl FnMut(usize)) -> Series {
        let mut series = Series::new(method.clone());
        for run in 0..self.runs.max(1) {
            progress(run);
            if !self.cold && !matches!(method.kind, Kind::Write | Kind::Small) {
                // A known state: the whole file read once with large reads.
                if let Err(e) = warm(method.input(&self.ctx)) {
                    series.error = Some(format!("cannot read the file: {e}"));
                    break;
                }
            }
            match self.run_child(method) {
                Ok(s) => series.samples.push(s),
                Err(Failure::NotApplicable(why)) => {
                    series.not_applicable = Some(why);
                    break;
                }
                Err(Failure::Failed(e)) => {
                    series.error = Some(e);
                    break;
                }
            }
        }
        series
    }

    fn run_child(&self, method: &Method) -> Result<Sample, Failure> {
        let go = method.way == Way::Go;
        let mut cmd = match (&self.go, go) {
            (Some(exe), true) => {
                let mut cmd = Command::new(exe);
                cmd.args(self.go_args(method));
                cmd
            }
            (None, true) => {
                return Err(Failure::NotApplicable(
                    "no Go program was built (swath lab --go, with Go on PATH)".into(),
                ))
            }
            (_, false) => {
                let mut cmd = Command::new(&self.exe);
                cmd.args(self.child_args(method));
                cmd
            }
        };
        // The Go program does not evict: the lab does it for it, and
        // measures the residency on both sides of the run.
        let input = method.input(&self.ctx);
        let reads = !matches!(method.kind, Kind::Write | Kind::Small);
        let mut before = None;
        if go && reads {
            if self.cold {
                os::evict(input)
                    .map_err(|e| Failure::Failed(format!("cannot evict the file: {e}")))?;
            }
            before = os::residency(input).ok();
        }
        let program = cmd.get_program().to_string_lossy().into_owned();
        let out =
            cmd.output().map_err(|e| Failure::Failed(format!("cannot run {program}: {e}")))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        if let Some(why) = not_applicable_of(&stdout) {
            return Err(Failure::NotApplicable(why.to_string()));
        }
        if !out.status.success() {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let msg = stderr.trim();
            return Err(Failure::Failed(if msg.is_empty() {
                format!("{}: child failed ({})", method.name, out.status)
            } else {
                msg.trim_start_matches("swath: ").to_string()
            }));
        }
        let mut sample = Sample::parse(&stdout).map_err(Failure::Failed)?;
        if go && reads {
            sample.residency = before;
            if self.cold {
                sample.residency_after = os::residency(input).ok();
            }
        }
        // Every child checks its own count; checked again here, so that no
        // program (the Go one included) can report a wrong one as a result.
        let expected = method.expected(&self.ctx, self.file_lines, self.prefix_lines);
        if sample.lines != expected {
            return Err(Failure::Failed(format!(
                "{}: WRONG ANSWER: reported {} lines, expected {expected}",
                method.name, sample.lines
            )));
        }
        Ok(sample)
    }
}

/// The first word of the line a child prints instead of a sample when its
/// method does not apply to the file; the reason follows.
pub const NOT_APPLICABLE_TAG: &str = "swath-lab-not-applicable";

/// The reason in a child's output, when it says its method does not apply.
pub fn not_applicable_of(stdout: &str) -> Option<&str> {
    stdout.lines().find_map(|l| l.strip_prefix(NOT_APPLICABLE_TAG)).map(str::trim)
}

/// Read a file once with 1 MiB reads, to put it in the page cache.
fn warm(path: &Path) -> io::Result<()> {
    let mut file = File::open(path)?;
    let mut buf = AlignedBuf::new(1 << 20);
    while file.read(&mut buf)? > 0 {}
    Ok(())
}

/// Median, min and max of some numbers (0s when there are none).
pub fn spread(values: impl IntoIterator<Item = f64>) -> (f64, f64, f64) {
    let mut v: Vec<f64> = values.into_iter().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return (0.0, 0.0, 0.0);
    }
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    let median = if v.len() % 2 == 1 { v[mid] } else { (v[mid - 1] + v[mid]) / 2.0 };
    (median, v[0], v[v.len() - 1])
}

/// The figures of a series as the report shows them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Figures {
    /// Median, min, max seconds.
    pub secs: (f64, f64, f64),
    /// Bytes per run.
    pub bytes: u64,
    /// Lines per run.
    pub lines: u64,
    /// GB/s (10^9 bytes) at the median time.
    pub gbps: f64,
    /// Median bytes allocated.
    pub allocated: u64,
    /// Median allocation count.
    pub allocations: u64,
    /// Highest heap peak.
    pub heap_peak: u64,
    /// Highest peak RSS.
    pub max_rss: u64,
    /// Median user and system CPU seconds.
    pub user: f64,
    /// Median system CPU seconds.
    pub sys: f64,
    /// Median minor + major page faults.
    pub faults: u64,
    /// Median major page faults.
    pub major_faults: u64,
    /// Median syscalls, when counted.
    pub syscalls: Option<u64>,
    /// Median residency before the runs, when measured.
    pub residency: Option<f64>,
    /// Highest residency just after a run, when measured (cold and
    /// larger-than-memory runs).
    pub residency_after: Option<f64>,
    /// Buffer offset from a page boundary, for buffer methods.
    pub buf_offset: Option<u64>,
}

impl Series {
    /// A series with no runs yet.
    pub fn new(method: Method) -> Series {
        Series { method, samples: Vec::new(), error: None, not_applicable: None }
    }

    /// A series that was not run, because the method does not apply.
    pub fn not_applicable(method: Method, why: String) -> Series {
        Series { not_applicable: Some(why), ..Series::new(method) }
    }

    /// True when every run succeeded.
    pub fn ok(&self) -> bool {
        self.error.is_none() && self.not_applicable.is_none() && !self.samples.is_empty()
    }

    /// True when the method ran and failed (not when it does not apply).
    pub fn failed(&self) -> bool {
        self.not_applicable.is_none() && !self.ok()
    }

    /// The figures, or `None` for a failed series.
    pub fn figures(&self) -> Option<Figures> {
        if !self.ok() {
            return None;
        }
        let s = &self.samples;
        let med = |f: &dyn Fn(&Sample) -> f64| spread(s.iter().map(f)).0;
        let secs = spread(s.iter().map(|x| x.secs));
        let bytes = s[0].bytes;
        let residency = if s.iter().all(|x| x.residency.is_some()) {
            Some(med(&|x| x.residency.unwrap_or(0.0)))
        } else {
            None
        };
        let residency_after = if s.iter().all(|x| x.residency_after.is_some()) {
            s.iter().filter_map(|x| x.residency_after).reduce(f64::max)
        } else {
            None
        };
        let syscalls = if s.iter().all(|x| x.syscalls.is_some()) {
            Some(med(&|x| x.syscalls.unwrap_or(0) as f64) as u64)
        } else {
            None
        };
        Some(Figures {
            secs,
            bytes,
            lines: s[0].lines,
            gbps: if secs.0 > 0.0 { bytes as f64 / secs.0 / 1e9 } else { 0.0 },
            allocated: med(&|x| x.allocated as f64) as u64,
            allocations: med(&|x| x.allocations as f64) as u64,
            heap_peak: s.iter().map(|x| x.heap_peak).max().unwrap_or(0),
            max_rss: s.iter().map(|x| x.max_rss).max().unwrap_or(0),
            user: med(&|x| x.user),
            sys: med(&|x| x.sys),
            faults: med(&|x| (x.minor_faults + x.major_faults) as f64) as u64,
            major_faults: med(&|x| x.major_faults as f64) as u64,
            syscalls,
            residency,
            residency_after,
            buf_offset: s[0].buf_offset,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_is_median_min_max() {
        assert_eq!(spread([3.0, 1.0, 2.0]), (2.0, 1.0, 3.0));
        assert_eq!(spread([4.0, 1.0]), (2.5, 1.0, 4.0));
        assert_eq!(spread([]), (0.0, 0.0, 0.0));
    }
}

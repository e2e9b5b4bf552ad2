//! Where records put aside go: a count, a limit, and optionally the
//! quarantine (their bytes, in file order) with its sidecar (where each
//! one was and why). The CLI's `--on-bad` and the Python readers' `on_bad=`
//! both write through this, so the files have one format.

use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::Aside;

/// The most records a run may put aside.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MaxBad {
    /// At most this many (checked as they come).
    Records(u64),
    /// At most this percentage of the records read (checked at the end).
    Percent(f64),
}

impl std::str::FromStr for MaxBad {
    type Err = String;

    /// `100` or `0.5%`.
    fn from_str(s: &str) -> Result<MaxBad, String> {
        let bad = || format!("{s:?}: expected a number of records (100) or a percentage (0.5%)");
        match s.strip_suffix('%') {
            Some(p) => {
                let p: f64 = p.trim().parse().map_err(|_| bad())?;
                if !(0.0..=100.0).contains(&p) {
                    return Err(format!("{s:?}: a percentage is between 0% and 100%"));
                }
                Ok(MaxBad::Percent(p))
            }
            None => s.trim().parse().map(MaxBad::Records).map_err(|_| bad()),
        }
    }
}

/// The sidecar's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sidecar {
    /// `record,line,byte,reason`, a header row first.
    Csv,
    /// One object a line: `record`, `line`, `byte`, `reason`, `at_byte`
    /// (the offending byte).
    JsonLines,
}

impl Sidecar {
    /// The JSON-lines sidecar when `json`, else the CSV one.
    pub fn json_if(json: bool) -> Sidecar {
        if json {
            Sidecar::JsonLines
        } else {
            Sidecar::Csv
        }
    }

    /// Its name beside the quarantine at `path`: `PATH.errors.csv` or
    /// `PATH.errors.jsonl`.
    pub fn path_beside(self, path: &Path) -> PathBuf {
        let mut name = path.as_os_str().to_owned();
        name.push(match self {
            Sidecar::Csv => ".errors.csv",
            Sidecar::JsonLines => ".errors.jsonl",
        });
        PathBuf::from(name)
    }
}

/// Why taking records put aside stopped the run.
#[derive(Debug)]
pub enum Stop {
    /// Writing the quarantine (`records`: its records, else the sidecar)
    /// failed.
    Write {
        /// Whether it was the records' file (else the sidecar).
        records: bool,
        /// The error.
        error: io::Error,
    },
    /// More than the limit were put aside.
    TooMany {
        /// The limit.
        max: MaxBad,
        /// Records put aside.
        count: u64,
        /// Records read, when known (the share's limit).
        of: Option<u64>,
        /// The record past the limit ([`describe`]), for a count.
        at: Option<String>,
    },
}

impl fmt::Display for Stop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stop::Write { records, error } => {
                let what = if *records { "the quarantine" } else { "the quarantine's sidecar" };
                write!(f, "cannot write {what}: {error}")
            }
            Stop::TooMany { max: MaxBad::Records(n), at, .. } => {
                write!(f, "more than {n} records put aside")?;
                if let Some(at) = at {
                    write!(f, "; stopped at {at}")?;
                }
                Ok(())
            }
            Stop::TooMany { max: MaxBad::Percent(p), count, of, .. } => {
                let of = of.unwrap_or(0);
                let share = if of == 0 { 0.0 } else { *count as f64 * 100.0 / of as f64 };
                write!(f, "{count} of {of} records put aside ({share:.2}%), more than {p}%")
            }
        }
    }
}

impl std::error::Error for Stop {}

/// Where `b` is and why, without the input's name.
pub fn describe(b: &impl Aside) -> String {
    let p = b.position();
    format!("record {} (line {}, byte {}): {}", p.record, p.line, p.byte, b.reason())
}

/// Records put aside: counted, checked against a limit, and written to a
/// quarantine (`records`) and its sidecar (`errors`) when given.
#[derive(Debug)]
pub struct Quarantine<W: Write> {
    files: Option<(W, W)>,
    sidecar: Sidecar,
    max: Option<MaxBad>,
    count: u64,
    first: Option<String>,
    line: Vec<u8>,
}

impl<W: Write> Quarantine<W> {
    /// Records put aside counted only (skipped).
    pub fn counting(max: Option<MaxBad>) -> Quarantine<W> {
        Quarantine {
            files: None,
            sidecar: Sidecar::Csv,
            max,
            count: 0,
            first: None,
            line: Vec::new(),
        }
    }

    /// Records put aside written to `records`, where and why to `errors`.
    ///
    /// # Errors
    ///
    /// Writing the CSV sidecar's header row.
    pub fn writing(
        records: W,
        mut errors: W,
        sidecar: Sidecar,
        max: Option<MaxBad>,
    ) -> io::Result<Quarantine<W>> {
        if sidecar == Sidecar::Csv {
            errors.write_all(b"record,line,byte,reason\n")?;
        }
        Ok(Quarantine {
            files: Some((records, errors)),
            sidecar,
            max,
            count: 0,
            first: None,
            line: Vec::new(),
        })
    }

    /// Take records put aside, in file order.
    ///
    /// # Errors
    ///
    /// More than `MaxBad::Records` of them, a write error.
    pub fn take<B: Aside>(&mut self, bad: impl IntoIterator<Item = B>) -> Result<(), Stop> {
        for b in bad {
            self.count += 1;
            if self.first.is_none() {
                self.first = Some(describe(&b));
            }
            if let Some(max @ MaxBad::Records(n)) = self.max {
                if self.count > n {
                    let at = Some(describe(&b));
                    return Err(Stop::TooMany { max, count: self.count, of: None, at });
                }
            }
            if let Some((records, errors)) = &mut self.files {
                sidecar_line(&b, self.sidecar, &mut self.line);
                records
                    .write_all(b.bytes())
                    .map_err(|error| Stop::Write { records: true, error })?;
                errors
                    .write_all(&self.line)
                    .map_err(|error| Stop::Write { records: false, error })?;
            }
        }
        Ok(())
    }

    /// Records put aside so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The first record put aside ([`describe`]).
    pub fn first(&self) -> Option<&str> {
        self.first.as_deref()
    }

    /// After the run, in which `good` records were kept: check
    /// `MaxBad::Percent`, and hand back the files (for the caller to put
    /// in place).
    ///
    /// # Errors
    ///
    /// More than the share put aside.
    pub fn finish(self, good: u64) -> Result<Option<(W, W)>, Stop> {
        if let Some(max @ MaxBad::Percent(p)) = self.max {
            let of = good + self.count;
            if of > 0 && self.count as f64 * 100.0 / of as f64 > p {
                return Err(Stop::TooMany { max, count: self.count, of: Some(of), at: None });
            }
        }
        Ok(self.files)
    }
}

/// `b`'s line of the sidecar, into `out` (cleared first).
fn sidecar_line(b: &impl Aside, sidecar: Sidecar, out: &mut Vec<u8>) {
    let p = b.position();
    let reason = b.reason();
    out.clear();
    match sidecar {
        Sidecar::Csv => {
            out.extend_from_slice(format!("{},{},{},\"", p.record, p.line, p.byte).as_bytes());
            out.extend_from_slice(reason.replace('"', "\"\"").as_bytes());
            out.extend_from_slice(b"\"\n");
        }
        Sidecar::JsonLines => {
            let at = b.at_byte();
            out.extend_from_slice(
                format!(
                    "{{\"record\":{},\"line\":{},\"byte\":{},\"at_byte\":{at},\"reason\":\"",
                    p.record, p.line, p.byte
                )
                .as_bytes(),
            );
            for c in reason.chars() {
                match c {
                    '"' => out.extend_from_slice(b"\\\""),
                    '\\' => out.extend_from_slice(b"\\\\"),
                    c if (c as u32) < 0x20 => {
                        out.extend_from_slice(format!("\\u{:04x}", c as u32).as_bytes())
                    }
                    c => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                }
            }
            out.extend_from_slice(b"\"}\n");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BadRecord;
    use crate::{Error, ErrorKind, Position};

    fn bad(record: u64, text: &str) -> BadRecord {
        let pos = Position::new(10 * record, record, record);
        let e = Error::new(ErrorKind::FieldCount { expected: 3, got: 1 }).at(pos).in_record(pos);
        BadRecord::new(pos, text.as_bytes().to_vec(), e)
    }

    #[test]
    fn the_files_hold_the_bytes_and_where_and_why() {
        let mut q = Quarantine::writing(Vec::new(), Vec::new(), Sidecar::Csv, None).unwrap();
        q.take(vec![bad(2, "a\n"), bad(5, "b,\"c\r\n")]).unwrap();
        assert_eq!(q.first(), Some("record 2 (line 2, byte 20): record has 1 fields, expected 3"));
        let (records, errors) = q.finish(10).unwrap().unwrap();
        assert_eq!(records, b"a\nb,\"c\r\n");
        assert_eq!(
            String::from_utf8(errors).unwrap(),
            "record,line,byte,reason\n2,2,20,\"record has 1 fields, expected 3\"\n5,5,50,\"record has 1 fields, expected 3\"\n"
        );
        let mut q = Quarantine::writing(Vec::new(), Vec::new(), Sidecar::JsonLines, None).unwrap();
        q.take(vec![bad(2, "a\n")]).unwrap();
        let (_, errors) = q.finish(1).unwrap().unwrap();
        assert_eq!(
            String::from_utf8(errors).unwrap(),
            "{\"record\":2,\"line\":2,\"byte\":20,\"at_byte\":20,\"reason\":\"record has 1 fields, expected 3\"}\n"
        );
    }

    #[test]
    fn the_limits_stop_the_run() {
        let mut q: Quarantine<Vec<u8>> = Quarantine::counting(Some(MaxBad::Records(1)));
        q.take(vec![bad(2, "a\n")]).unwrap();
        let e = q.take(vec![bad(3, "b\n")]).unwrap_err().to_string();
        assert!(e.contains("more than 1 records") && e.contains("record 3"), "{e}");
        let mut q: Quarantine<Vec<u8>> = Quarantine::counting(Some(MaxBad::Percent(10.0)));
        q.take(vec![bad(2, "a\n")]).unwrap();
        assert!(q.finish(9).is_ok());
        let mut q: Quarantine<Vec<u8>> = Quarantine::counting(Some(MaxBad::Percent(10.0)));
        q.take(vec![bad(2, "a\n")]).unwrap();
        let e = q.finish(8).unwrap_err().to_string();
        assert!(e.contains("1 of 9 records") && e.contains("11.11%"), "{e}");
        assert_eq!("0.5%".parse(), Ok(MaxBad::Percent(0.5)));
        assert_eq!("12".parse(), Ok(MaxBad::Records(12)));
        assert!("101%".parse::<MaxBad>().is_err());
        assert!("-1".parse::<MaxBad>().is_err());
    }
}

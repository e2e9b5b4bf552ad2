//! `--on-bad`, `--max-bad`, `--errors-json`: what the commands that write
//! records do with a broken one (`crate::quarantine` does it).

use std::path::PathBuf;

pub use swath_csv::bad::MaxBad;

/// The options.
#[derive(Debug, Clone, clap::Args)]
pub struct BadArgs {
    /// A broken record (CSV: a field too many or too few, a quoting error,
    /// and for to-json invalid UTF-8; JSON: not one object, a key twice, a
    /// value that does not fit its field): `fail` (stop with its error, the
    /// default),
    /// `skip` (leave it out), or `quarantine=FILE` (copy it byte for byte,
    /// in file order, to FILE, and its record, line, byte and reason to
    /// FILE.errors.csv). The count goes to stderr, and the exit status is
    /// 1 when any record was left out.
    #[arg(long, value_name = "fail|skip|quarantine=FILE", default_value = "fail", value_parser = parse_on_bad)]
    pub on_bad: OnBad,
    /// Stop with an error, leaving no output, when more than N records are
    /// left out (checked as they come), or more than N% of the records
    /// (checked at the end).
    #[arg(long, value_name = "N|N%", value_parser = parse_max_bad)]
    pub max_bad: Option<MaxBad>,
    /// Write the reasons as JSON lines (FILE.errors.jsonl), one object per
    /// record, instead of FILE.errors.csv.
    #[arg(long)]
    pub errors_json: bool,
}

/// `--on-bad`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnBad {
    /// Stop at the first broken record.
    Fail,
    /// Leave broken records out.
    Skip,
    /// Copy them to this file.
    Quarantine(PathBuf),
}

fn parse_on_bad(s: &str) -> Result<OnBad, String> {
    match s {
        "fail" => Ok(OnBad::Fail),
        "skip" => Ok(OnBad::Skip),
        _ => match s.strip_prefix("quarantine=") {
            Some("") | Some("-") => {
                Err("quarantine= needs a file name (not standard output)".to_string())
            }
            Some(file) => Ok(OnBad::Quarantine(PathBuf::from(file))),
            None => Err(format!("{s:?}: expected fail, skip or quarantine=FILE")),
        },
    }
}

fn parse_max_bad(s: &str) -> Result<MaxBad, String> {
    s.parse()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_options_parse_and_refuse_what_they_should() {
        assert_eq!(parse_on_bad("fail"), Ok(OnBad::Fail));
        assert_eq!(parse_on_bad("skip"), Ok(OnBad::Skip));
        assert_eq!(parse_on_bad("quarantine=bad.csv"), Ok(OnBad::Quarantine("bad.csv".into())));
        assert!(parse_on_bad("quarantine=").is_err());
        assert!(parse_on_bad("quarantine=-").is_err());
        assert!(parse_on_bad("drop").is_err());
        assert_eq!(parse_max_bad("10"), Ok(MaxBad::Records(10)));
        assert!(parse_max_bad("ten").is_err());
    }
}

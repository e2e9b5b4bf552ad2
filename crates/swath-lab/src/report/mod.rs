//! What the lab prints: a table, the recipes the numbers support, one JSON
//! document, an SVG chart.

mod compare;
mod json;
mod recipes;
mod svg;
mod table;

pub use json::to_json;
pub use recipes::recipes;
pub use svg::to_svg;
pub use table::to_table;

pub use compare::{decompression_share, to_compare_table, vs_article};

use crate::methods::Packed;
use crate::runner::Series;

/// A finished lab run.
#[derive(Clone, Debug)]
pub struct Report {
    /// The file read.
    pub file: String,
    /// Its size in bytes.
    pub size: u64,
    /// Lines in it (the reference every method was checked against).
    pub lines: u64,
    /// True when the lab generated the file (the seed's log).
    pub generated: bool,
    /// Cold cache runs (`--cold`).
    pub cold: bool,
    /// Runs per method.
    pub runs: usize,
    /// Bytes read by the 1-byte methods.
    pub prefix: u64,
    /// Unix time of the run (seconds).
    pub unix_time: u64,
    /// The machine, in one line.
    pub machine: String,
    /// Cores the OS reports.
    pub cores: usize,
    /// The CSV file of the CSV methods, when any ran.
    pub csv: Option<CsvInput>,
    /// One series per method, in run order.
    pub series: Vec<Series>,
    /// Show the texts' figures beside this machine's in a table of their
    /// own (`--compare`); the main table always has the ratio.
    pub compare: bool,
    /// Larger than memory (`--larger-than-ram`): the file kept out of the
    /// page cache while the methods read it.
    pub larger_than_ram: bool,
    /// Where the file is: file system and device, in one line.
    pub storage: Option<String>,
    /// The compressed copies the `gz-*` and `zst-*` methods read.
    pub compressed: Vec<CompressedInput>,
    /// `go version`, when the Go methods ran.
    pub go: Option<String>,
    /// What the lab has to say about this run (a skipped group and why).
    pub notes: Vec<String>,
}

/// A compressed copy of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompressedInput {
    /// Its format (and level).
    pub format: Packed,
    /// Its size in bytes.
    pub size: u64,
}

/// The CSV file the CSV methods read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CsvInput {
    /// Its name (`lab.csv` when generated).
    pub file: String,
    /// Its size in bytes.
    pub size: u64,
    /// Records in it, the header row not counted.
    pub records: u64,
    /// True when the lab generated it (`swath gen csv`'s file).
    pub generated: bool,
}

impl Report {
    /// The series of the method called `name`, if it ran and succeeded.
    pub fn ok(&self, name: &str) -> Option<&Series> {
        self.series.iter().find(|s| s.method.name == name && s.ok())
    }

    /// The size of the compressed copy in `format`, if the lab made one.
    pub fn compressed_size(&self, format: Packed) -> Option<u64> {
        self.compressed.iter().find(|c| c.format == format).map(|c| c.size)
    }

    /// `2026-11-29 23:05 UTC` for [`Report::unix_time`].
    pub fn date(&self) -> String {
        utc_date(self.unix_time)
    }
}

/// `YYYY-MM-DD HH:MM UTC` from Unix seconds (civil-from-days, so no date
/// library is needed for one line).
pub fn utc_date(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02} UTC", rem / 3600, rem % 3600 / 60)
}

/// GB/s with enough digits to tell small rates apart: `12.3`, `4.56`, `0.0123`.
pub fn fmt_gbps(g: f64) -> String {
    if g >= 10.0 {
        format!("{g:.1}")
    } else if g >= 0.1 {
        format!("{g:.2}")
    } else {
        format!("{g:.4}")
    }
}

/// The machine in one line: CPU model, cores, memory, kernel (Linux files;
/// "unknown" parts elsewhere).
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<u64>().ok())
        })
        .map(|kb| format!(", {:.1} GiB RAM", kb as f64 / (1 << 20) as f64))
        .unwrap_or_default();
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|s| format!(", Linux {}", s.trim()))
        .unwrap_or_default();
    let cores = swath::parallel::available_cores();
    format!("{cpu}, {cores} cores{mem}{kernel}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(utc_date(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc_date(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc_date(1_796_000_000), "2026-11-30 00:53 UTC");
    }
}

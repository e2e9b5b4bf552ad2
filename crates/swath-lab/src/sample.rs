//! One measured run of one method, and its one-line text form: the child
//! process prints it, the parent parses it.
//!
//! The form is `swath-lab-sample key=value ...` with plain numbers, so no
//! serialisation library is needed and a person can read it in a log.

/// The first word of a sample line.
pub const TAG: &str = "swath-lab-sample";

/// What one run of one method measured.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sample {
    /// Wall-clock seconds of the method alone.
    pub secs: f64,
    /// Lines the method found (checked equal to the expected count).
    pub lines: u64,
    /// Bytes read or written.
    pub bytes: u64,
    /// `read`/`write` calls, when the method counts them.
    pub syscalls: Option<u64>,
    /// Buffer offset from a page boundary, for buffer methods.
    pub buf_offset: Option<u64>,
    /// Bytes allocated during the run (counting allocator).
    pub allocated: u64,
    /// Allocations during the run.
    pub allocations: u64,
    /// Most heap bytes live at once during the run, above those before it.
    pub heap_peak: u64,
    /// Peak resident set of the whole child process, from the OS.
    pub max_rss: u64,
    /// User CPU seconds during the run.
    pub user: f64,
    /// System CPU seconds during the run.
    pub sys: f64,
    /// Minor page faults during the run.
    pub minor_faults: u64,
    /// Major page faults during the run.
    pub major_faults: u64,
    /// Fraction of the file in the page cache just before the run.
    pub residency: Option<f64>,
    /// Fraction in the page cache just after it (cold and
    /// larger-than-memory runs: how much the run left behind).
    pub residency_after: Option<f64>,
}

impl Sample {
    /// The one-line form.
    pub fn to_line(&self) -> String {
        let opt = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
        format!(
            "{TAG} secs={} lines={} bytes={} syscalls={} buf_offset={} allocated={} \
             allocations={} heap_peak={} max_rss={} user={} sys={} minor_faults={} \
             major_faults={} residency={} residency_after={}",
            self.secs,
            self.lines,
            self.bytes,
            opt(self.syscalls),
            opt(self.buf_offset),
            self.allocated,
            self.allocations,
            self.heap_peak,
            self.max_rss,
            self.user,
            self.sys,
            self.minor_faults,
            self.major_faults,
            self.residency.map_or("-".to_string(), |v| v.to_string()),
            self.residency_after.map_or("-".to_string(), |v| v.to_string()),
        )
    }

    /// Parse the one-line form (from a child's stdout, which may hold other
    /// lines: the last line starting with [`TAG`] counts).
    ///
    /// # Errors
    ///
    /// A message when no sample line is found or a field is missing or bad.
    pub fn parse(text: &str) -> Result<Sample, String> {
        let line = text
            .lines()
            .rev()
            .find(|l| l.starts_with(TAG))
            .ok_or_else(|| format!("no {TAG} line in the child's output: {text:?}"))?;
        let mut s = Sample::default();
        let mut seen = 0;
        for pair in line[TAG.len()..].split_whitespace() {
            let (k, v) = pair.split_once('=').ok_or_else(|| format!("bad field {pair:?}"))?;
            let bad = || format!("bad value in {pair:?}");
            let u = || v.parse::<u64>().map_err(|_| bad());
            let f = || v.parse::<f64>().map_err(|_| bad());
            let ou = || if v == "-" { Ok(None) } else { u().map(Some) };
            match k {
                "secs" => s.secs = f()?,
                "lines" => s.lines = u()?,
                "bytes" => s.bytes = u()?,
                "syscalls" => s.syscalls = ou()?,
                "buf_offset" => s.buf_offset = ou()?,
                "allocated" => s.allocated = u()?,
                "allocations" => s.allocations = u()?,
                "heap_peak" => s.heap_peak = u()?,
                "max_rss" => s.max_rss = u()?,
                "user" => s.user = f()?,
                "sys" => s.sys = f()?,
                "minor_faults" => s.minor_faults = u()?,
                "major_faults" => s.major_faults = u()?,
                "residency" => s.residency = if v == "-" { None } else { Some(f()?) },
                // Optional: not counted in `seen`.
                "residency_after" => {
                    s.residency_after = if v == "-" { None } else { Some(f()?) };
                    continue;
                }
                _ => continue,
            }
            seen += 1;
        }
        if seen < 14 {
            return Err(format!("incomplete sample line: {line:?}"));
        }
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_refuses_garbage() {
        let s = Sample {
            secs: 0.125,
            lines: 6_242_686,
            bytes: 536_870_912,
            syscalls: Some(2049),
            buf_offset: None,
            allocated: 1 << 20,
            allocations: 3,
            heap_peak: 262_144,
            max_rss: 3 << 20,
            user: 0.01,
            sys: 0.1,
            minor_faults: 12,
            major_faults: 0,
            residency: Some(0.5),
            residency_after: Some(0.0),
        };
        let text = format!("noise\n{}\n", s.to_line());
        assert_eq!(Sample::parse(&text), Ok(s));
        assert!(Sample::parse("nothing").is_err());
        assert!(Sample::parse("swath-lab-sample secs=1").is_err());
        assert!(Sample::parse(&s.to_line().replace("lines=6242686", "lines=x")).is_err());
    }
}

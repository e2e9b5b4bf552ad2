//! What lossy decoding replaced: counted per input, the first places kept,
//! gathered process-wide so that a command can say it once at its end
//! ([`take_replacements`]), whichever thread decoded.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// First places kept per input.
const FIRST: usize = 5;

/// What was replaced in one input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Replacements {
    /// The input (`None`: standard input or unnamed).
    pub name: Option<PathBuf>,
    /// Sequences replaced with U+FFFD.
    pub count: u64,
    /// The first ones: offset in the original input, and bytes (empty
    /// where they were no longer at hand).
    pub first: Vec<(u64, Vec<u8>)>,
}

impl Replacements {
    /// One line for stderr: `x.csv: 3 sequences that are not valid
    /// windows-1252 replaced with U+FFFD, first at bytes 13 (81), 220 (8D)`.
    pub fn describe(&self, encoding: &str) -> String {
        let name = self.name.as_ref().map_or("-".into(), |p| p.display().to_string());
        let places: Vec<String> = self
            .first
            .iter()
            .map(|(at, bytes)| {
                let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02X}")).collect();
                if hex.is_empty() {
                    at.to_string()
                } else {
                    format!("{at} ({})", hex.join(" "))
                }
            })
            .collect();
        let more = if self.count > self.first.len() as u64 { ", ..." } else { "" };
        format!(
            "{name}: {} sequence{} not valid {encoding} replaced with U+FFFD, first at byte{} {}{more}",
            self.count,
            if self.count == 1 { "" } else { "s" },
            if self.first.len() == 1 { "" } else { "s" },
            places.join(", "),
        )
    }
}

/// The replacements of every read that has finished: its encoding, the
/// read it belongs to, and its tally.
static DONE: Mutex<Vec<(&'static str, u64, Replacements)>> = Mutex::new(Vec::new());

/// Numbers the reads ([`read_id`]).
static READS: AtomicU64 = AtomicU64::new(0);

/// A number for one read of an input: the pieces it is decoded in add up
/// under it; another read of the same input (a schema inferred from the
/// head, then the data) counts apart.
pub(crate) fn read_id() -> u64 {
    READS.fetch_add(1, Ordering::Relaxed)
}

/// Take what lossy decoding replaced since the last call, one entry per
/// input, each with its encoding's name (inputs with no replacement are
/// not listed). An input read several times is counted from the read
/// that replaced the most (the one that read it all).
pub fn take_replacements() -> Vec<(Replacements, &'static str)> {
    let done = std::mem::take(&mut *DONE.lock().unwrap_or_else(|e| e.into_inner()));
    let mut out: Vec<(Replacements, &'static str)> = Vec::new();
    for (encoding, _, r) in done {
        match out.iter_mut().find(|(o, e)| o.name == r.name && *e == encoding) {
            Some((o, _)) if o.count < r.count => *o = r,
            Some(_) => {}
            None => out.push((r, encoding)),
        }
    }
    out
}

/// One reader's tally, added to the process-wide list when it reports.
#[derive(Debug)]
pub(crate) struct Replaced {
    now: Replacements,
    read: u64,
}

impl Replaced {
    pub(crate) fn new(name: Option<PathBuf>, read: u64) -> Replaced {
        Replaced { now: Replacements { name, ..Replacements::default() }, read }
    }

    /// One sequence replaced at `at`.
    pub(crate) fn note(&mut self, at: u64, bytes: &[u8]) {
        self.now.count += 1;
        if self.now.first.len() < FIRST {
            self.now.first.push((at, bytes.to_vec()));
        }
    }

    #[cfg(test)]
    pub(crate) fn count(&self) -> u64 {
        self.now.count
    }

    #[cfg(test)]
    pub(crate) fn first_offsets(&self) -> Vec<u64> {
        self.now.first.iter().map(|f| f.0).collect()
    }

    /// Add this tally to the list, merged with the same input's (pieces
    /// decoded on several threads): counts add, the first places stay
    /// the first in the file.
    pub(crate) fn report(self, encoding: &'static str) {
        if self.now.count == 0 {
            return;
        }
        let mut done = DONE.lock().unwrap_or_else(|e| e.into_inner());
        match done.iter_mut().find(|(e, read, _)| *read == self.read && *e == encoding) {
            Some((_, _, r)) => {
                r.count += self.now.count;
                r.first.extend(self.now.first);
                r.first.sort_by_key(|f| f.0);
                r.first.truncate(FIRST);
            }
            None => done.push((encoding, self.read, self.now)),
        }
    }
}

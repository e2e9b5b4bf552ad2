//! Progress on stderr while a command reads a large input: bytes done of
//! the total, rate and time left (indicatif).
//!
//! The whole API, for any command that reads a large input:
//!
//! ```text
//! let watch = progress::watch(&[path], quiet, streams_to_terminal);
//! // ... read ...
//! watch.finish(); // clears the bar before the result goes to stdout
//!                 // (dropping the watch does it too)
//! ```
//!
//! - Shown only when stderr is a terminal, not with `--quiet`, not when the
//!   command's records go to the same terminal (`streams_to_terminal`: its
//!   output shows progress already), and only once the run has lasted
//!   [`DELAY`] (`SWATH_PROGRESS_DELAY_MS` overrides it, for tests). Never
//!   anything on a pipe.
//! - Bytes done: by default what this process has read so far (`rchar` of
//!   `/proc/self/io`, Linux), which costs the readers nothing and counts
//!   every reader, parallel or not.
//! - The total is the inputs' size (regular files); for a stream (stdin, a
//!   pipe, a fifo) there is none, and the bar shows bytes and rate only.
//!   Compressed input is counted in compressed bytes, as its size is.
//!
//! `csv` commands get a watch from their options (`CsvOpts`, see
//! `cmd/csv/auto.rs`), `json` commands from theirs, `count` makes its own.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How long a run goes before it shows progress.
pub const DELAY: Duration = Duration::from_secs(1);

/// How often the position is checked (the end is noticed this fast).
const POLL: Duration = Duration::from_millis(10);

/// What the display thread and the readers share.
#[derive(Debug, Default)]
struct Shared {
    stop: AtomicBool,
}

/// A progress display for one run; dropping it clears the bar.
#[derive(Debug)]
pub struct Watch {
    shared: Arc<Shared>,
    thread: std::sync::Mutex<Option<JoinHandle<()>>>,
}

impl Watch {
    /// Clear the bar now, and show no more: call it before writing the
    /// result to standard output, which may be the same terminal.
    pub fn finish(&self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        let thread = self.thread.lock().ok().and_then(|mut t| t.take());
        if let Some(t) = thread {
            let _ = t.join();
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Watch a run that reads `inputs` (`-` is stdin); see the module
/// documentation.
pub fn watch(inputs: &[&Path], quiet: bool, streams_to_terminal: bool) -> Watch {
    let shared = Arc::new(Shared::default());
    let show = !quiet && !streams_to_terminal && std::io::stderr().is_terminal();
    if !show {
        return Watch { shared, thread: None.into() };
    }
    let total = inputs.iter().try_fold(0u64, |sum, p| {
        let m = std::fs::metadata(p).ok().filter(|m| m.is_file() && p.as_os_str() != "-")?;
        Some(sum + m.len())
    });
    let delay = std::env::var("SWATH_PROGRESS_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(DELAY, Duration::from_millis);
    let s = Arc::clone(&shared);
    let thread = std::thread::Builder::new()
        .name("swath-progress".into())
        .spawn(move || display(&s, total, delay))
        .ok();
    Watch { shared, thread: thread.into() }
}

/// The display thread: wait out the delay, then draw until stopped or
/// done.
fn display(s: &Shared, total: Option<u64>, delay: Duration) {
    // Reading /proc/self/io is a read too: its own bytes are taken off.
    let own = std::cell::Cell::new(0u64);
    let reads = || {
        let (r, len) = process_reads()?;
        own.set(own.get() + len);
        Some(r.saturating_sub(own.get()))
    };
    let base = reads().unwrap_or(0);
    let done = || reads().map_or(0, |r| r.saturating_sub(base));
    let start = Instant::now();
    while start.elapsed() < delay {
        if s.stop.load(Ordering::Relaxed) {
            return;
        }
        std::thread::sleep(POLL);
    }
    let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
    let template = match total {
        Some(_) => "{bar:30} {bytes}/{total_bytes} {binary_bytes_per_sec}, {eta} left",
        None => "{spinner} {bytes} read, {binary_bytes_per_sec}",
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    while !s.stop.load(Ordering::Relaxed) {
        let pos = done();
        if total.is_some_and(|t| pos >= t) {
            break;
        }
        bar.set_position(pos);
        if total.is_none() {
            bar.tick();
        }
        std::thread::sleep(POLL);
    }
    bar.finish_and_clear();
}

/// Bytes this process has read with read(2) and friends, from
/// `/proc/self/io` (`rchar`), and the bytes of that file read to know it;
/// `None` where there is no such file.
fn process_reads() -> Option<(u64, u64)> {
    let text = std::fs::read_to_string("/proc/self/io").ok()?;
    let rchar = text.lines().find_map(|l| l.strip_prefix("rchar:"))?.trim().parse().ok()?;
    Some((rchar, text.len() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_counted() {
        let (a, _) = process_reads().expect("/proc/self/io");
        let n = std::fs::read("/proc/self/exe").map(|b| b.len() as u64).unwrap();
        assert!(process_reads().unwrap().0 >= a + n);
        // Off a terminal (as under cargo test, or quiet): no thread at all.
        let w = watch(&[Path::new("/proc/self/exe")], true, false);
        assert!(w.thread.lock().unwrap().is_none());
    }
}

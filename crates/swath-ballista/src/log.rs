//! A small logger to standard error for the cluster's processes (Ballista
//! logs through the `log` facade): swath's own lines at info, Ballista's
//! and DataFusion's warnings; `SWATH_LOG=debug` (or `info`, `warn`, ...)
//! sets the level of every line.

use ::log::{Level, LevelFilter, Log, Metadata, Record};

struct StderrLog {
    /// The level of everything, when `SWATH_LOG` sets one.
    all: Option<Level>,
}

impl Log for StderrLog {
    fn enabled(&self, m: &Metadata) -> bool {
        match self.all {
            Some(level) => m.level() <= level,
            None if m.target().starts_with("swath") => m.level() <= Level::Info,
            None => m.level() <= Level::Warn,
        }
    }

    fn log(&self, r: &Record) {
        if self.enabled(r.metadata()) {
            eprintln!("[{} {}] {}", r.level(), r.target(), r.args());
        }
    }

    fn flush(&self) {}
}

/// Install the logger (once; later calls do nothing).
pub fn init_logging() {
    let all = std::env::var("SWATH_LOG").ok().and_then(|v| v.parse::<Level>().ok());
    let logger = Box::leak(Box::new(StderrLog { all }));
    if ::log::set_logger(logger).is_ok() {
        ::log::set_max_level(all.map_or(LevelFilter::Info, |l| l.to_level_filter()));
    }
}

//! What the last parallel run did: in parallel and verified, by the
//! validating scan, sequentially, or in parallel then sequentially.

use std::fmt;

/// How the last run read its input.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Mode {
    /// Nothing has run yet.
    NotRun,
    /// In parallel, every task verified.
    Parallel {
        /// Worker threads.
        threads: usize,
        /// Tasks (chunks with a record start).
        tasks: usize,
        /// Tasks read again on the calling thread because their guessed
        /// start was wrong (see [`ParallelReader::relative_numbers`](crate::ParallelReader::relative_numbers)).
        reread: usize,
    },
    /// Counted by the validating scan (no fields built; the reader read
    /// the top and the records across the seams).
    Scanned {
        /// Worker threads.
        threads: usize,
        /// Chunks scanned.
        chunks: usize,
    },
    /// Sequentially from the start, for this reason.
    Sequential(String),
    /// In parallel up to `byte` (a verified record start), then
    /// sequentially, for this reason.
    Resumed {
        /// Where the sequential read took over.
        byte: u64,
        /// Why.
        reason: String,
    },
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
        match self {
            Mode::NotRun => write!(f, "not run"),
            Mode::Parallel { threads, tasks, reread } => {
                let (tasks, threads) = (n(*tasks, "chunk"), n(*threads, "thread"));
                write!(f, "parallel: {tasks} on {threads}, all verified")?;
                if *reread > 0 {
                    write!(f, " ({reread} read again from the verified start)")?;
                }
                Ok(())
            }
            Mode::Scanned { chunks: 0, .. } => {
                write!(f, "validating scan: nothing to scan past the first records")
            }
            Mode::Scanned { threads, chunks } => {
                let (chunks, threads) = (n(*chunks, "chunk"), n(*threads, "thread"));
                write!(f, "validating scan: {chunks} on {threads}, seams read")
            }
            Mode::Sequential(why) => write!(f, "sequential: {why}"),
            Mode::Resumed { byte, reason } => {
                write!(f, "parallel up to byte {byte}, sequential after: {reason}")
            }
        }
    }
}

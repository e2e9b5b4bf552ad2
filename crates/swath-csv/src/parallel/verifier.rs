//! The serial check of phase 2: each task's result, in file order, against
//! the task before it (where that one stopped, how many records it read
//! and how many phase 1 predicted). By induction from the top, a task that
//! passes read exactly the records, numbers and lines a sequential read
//! would have.

use super::plan::Task;
use super::records::ChunkRecords;
use super::task::{Ctx, TaskOut};
use crate::error::Result;
use crate::reader::RecordStart;

/// What the task before the one being checked left.
#[derive(Clone, Copy, Debug)]
struct Checked {
    /// Where its reader stopped (the line made absolute; `None`: the end
    /// of input).
    last: Option<RecordStart>,
    /// Records it read.
    count: u64,
    /// Records phase 1 predicted for it.
    predicted: u64,
}

/// Where the sequential read takes over after a failed check.
#[derive(Debug)]
pub(super) struct Resume {
    /// The last verified record start (`None`: the end of input).
    pub(super) at: Option<RecordStart>,
    /// Records before it.
    pub(super) records: u64,
    /// Why the check failed.
    pub(super) why: String,
}

/// The check's state across tasks.
pub(super) struct Verifier {
    /// Exact numbers (phase 1 read every byte) rather than relative ones.
    exact: bool,
    /// Records before the task being checked: the sum of the verified
    /// tasks' counts, exact by induction.
    base: u64,
    prev: Option<Checked>,
    /// Tasks read again on the calling thread after a wrong guess.
    pub(super) reread: usize,
    /// Set when a check failed: the caller reads on sequentially.
    pub(super) resume: Option<Resume>,
    /// The first error, of the consumer or of a verified task.
    pub(super) outcome: Result<()>,
}

impl Verifier {
    pub(super) fn new(exact: bool) -> Verifier {
        Verifier { exact, base: 0, prev: None, reread: 0, resume: None, outcome: Ok(()) }
    }

    /// Check task `i`'s result `out` and hand its accumulator to `consume`;
    /// false stops the run (a failed check, the end of input, an error).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check<A, I, W, C>(
        &mut self,
        i: usize,
        mut out: TaskOut<A>,
        tasks: &[Task],
        ctx: &Ctx<'_>,
        init: &I,
        work: &W,
        consume: &mut C,
    ) -> bool
    where
        I: Fn() -> A,
        W: Fn(&mut A, &mut ChunkRecords<'_>) -> Result<()>,
        C: FnMut(A) -> Result<()>,
    {
        let exact = self.exact;
        // What to add to the lines of this task's positions (with relative
        // numbers, a task counts its lines from 1).
        let mut lines = 0u64;
        if let Some(Checked { last, count, predicted }) = self.prev {
            let why = if exact && out.first != last {
                Some(format!(
                    "chunk {i} found its first record at {:?}, the chunk before ended at {:?}",
                    out.first.map(|s| s.byte),
                    last.map(|s| s.byte)
                ))
            } else if exact && count != predicted {
                Some(format!("chunk {} has {count} records, {predicted} predicted", i - 1))
            } else {
                None
            };
            if let Some(why) = why {
                self.resume = Some(Resume { at: last, records: self.base, why });
                return false;
            }
            let Some(last) = last else {
                // The task before read to the end of input.
                return false;
            };
            match out.first {
                Some(first) if first.byte == last.byte && first.line <= last.line => {
                    lines = last.line - first.line;
                }
                _ => {
                    // A wrong guess (or a broken quote parity): read this
                    // task again from where the one before stopped, with
                    // exact lines.
                    let task = Task { start: last.byte, line: last.line, ..tasks[i] };
                    out = ctx.run(&task, init(), work);
                    self.reread += 1;
                }
            }
        }
        let last = out.last.map(|s| RecordStart { byte: s.byte, line: s.line + lines });
        self.prev = Some(Checked { last, count: out.count, predicted: tasks[i].predicted });
        // With relative numbers, a task counts its records from 1.
        let records = if exact { 0 } else { self.base };
        self.base += out.count;
        self.outcome = consume(out.acc);
        if let (Ok(()), Some(e)) = (&self.outcome, out.error) {
            self.outcome = Err(e.shift(records, lines));
        }
        self.outcome.is_ok()
    }
}

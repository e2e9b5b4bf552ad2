//! The serial check of phase 2: each task's result, in file order, against
//! the task before it (where that one stopped, how many records it read
//! and how many phase 1 predicted). By induction from the top, a task that
//! passes read exactly the records, numbers and lines a sequential read
//! would have.

use super::plan::Task;
use super::records::ChunkRecords;
use super::task::{Ctx, TaskOut};
use crate::error::Error;
use crate::reader::RecordStart;
use crate::BadRecord;

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

/// The check's state across tasks; `E` is the caller's error type.
pub(super) struct Verifier<E> {
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
    pub(super) outcome: std::result::Result<(), E>,
}

impl<E: From<Error>> Verifier<E> {
    pub(super) fn new(exact: bool) -> Verifier<E> {
        Verifier { exact, base: 0, prev: None, reread: 0, resume: None, outcome: Ok(()) }
    }

    /// Check the result `out` of `task` (the `i`th) and hand its accumulator to `consume`;
    /// false stops the run (a failed check, the end of input, an error).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn check<A, I, W, C>(
        &mut self,
        i: usize,
        mut out: TaskOut<A, E>,
        task: &Task,
        ctx: &Ctx<'_>,
        init: &I,
        work: &W,
        consume: &mut C,
    ) -> bool
    where
        I: Fn() -> A,
        W: Fn(&mut A, &mut ChunkRecords<'_>) -> std::result::Result<(), E>,
        C: FnMut(A, Vec<BadRecord>) -> std::result::Result<(), E>,
    {
        let exact = self.exact;
        // What to add to the lines of this task's positions (with relative
        // numbers, a task counts its lines from 1).
        let mut lines = 0u64;
        // Whether `out`'s record numbers and lines are the input's (else
        // they count from the task's start).
        let mut absolute = exact;
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
                    // exact numbers.
                    out = ctx.run(&self.exact_task(task, last), init(), work);
                    absolute = true;
                    self.reread += 1;
                }
            }
            if out.error.is_some() && !absolute && (lines != 0 || self.base != 0) {
                // The caller's error type cannot be renumbered: read the
                // task again with exact numbers, so that its error is the
                // one a sequential read meets (errors are rare; the work
                // runs twice on this task only).
                out = ctx.run(&self.exact_task(task, last), init(), work);
                lines = 0;
                absolute = true;
            }
        }
        let last = out.last.map(|s| RecordStart { byte: s.byte, line: s.line + lines });
        if !absolute {
            for bad in &mut out.bad {
                bad.shift(self.base, lines);
            }
        }
        self.prev = Some(Checked { last, count: out.count, predicted: task.predicted });
        self.base += out.count;
        self.outcome = consume(out.acc, out.bad);
        if let (Ok(()), Some(e)) = (&self.outcome, out.error) {
            self.outcome = Err(e);
        }
        self.outcome.is_ok()
    }

    /// After the last task: when it stopped at a record start rather than
    /// at the end of input (the chunks after it had no guessed start, or
    /// their guesses could not be read), the sequential read goes on from
    /// there.
    pub(super) fn finish(&mut self) {
        if self.resume.is_some() || self.outcome.is_err() {
            return;
        }
        if let Some(Checked { last: Some(at), .. }) = self.prev {
            let why = format!("no chunk after byte {} had a start found", at.byte);
            self.resume = Some(Resume { at: Some(at), records: self.base, why });
        }
    }

    /// `task` from `start` (where the task before stopped, verified), its
    /// records and lines numbered as the input's.
    fn exact_task(&self, task: &Task, start: RecordStart) -> Task {
        Task { start: start.byte, line: start.line, records_before: self.base, ..*task }
    }
}

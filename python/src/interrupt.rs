//! Long work off the interpreter: it runs on a thread of its own while the
//! calling thread waits without the GIL and wakes every few milliseconds
//! to run Python's signal handlers, so that Ctrl-C interrupts it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread;
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use crate::errors::Failure;

/// How often the waiting thread looks for a signal.
const POLL: Duration = Duration::from_millis(20);

/// Set when the caller gave up (a signal handler raised): work that can
/// stop early checks it between batches, chunks or records.
#[derive(Clone, Debug, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// True once the caller has stopped waiting.
    pub fn is_set(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    fn set(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Run `work` on a new thread and wait for it with the GIL released,
/// checking for signals (Ctrl-C) between waits.
///
/// When a signal handler raises (KeyboardInterrupt), that exception is
/// returned at once and the work is told to stop through its [`Cancel`];
/// work that cannot stop early (a line count) finishes on its own in the
/// background and its result is dropped.
pub fn run<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send + 'static,
    F: FnOnce(&Cancel) -> Result<T, Failure> + Send + 'static,
{
    let cancel = Cancel::default();
    let (tx, rx) = mpsc::sync_channel(1);
    let theirs = cancel.clone();
    thread::Builder::new()
        .name("swath-work".into())
        .spawn(move || {
            let _ = tx.send(work(&theirs));
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
    let mut rx = rx;
    loop {
        // The receiver goes into the GIL-free closure and comes back: a
        // `Receiver` is `Send` but not `Sync`.
        let (got, back) = py.detach(move || (rx.recv_timeout(POLL), rx));
        rx = back;
        match got {
            Ok(res) => return res.map_err(|e| e.into_py(py)),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    cancel.set();
                    return Err(e);
                }
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(PyRuntimeError::new_err("swath: the worker thread panicked (a bug)"));
            }
        }
    }
}

//! The async runtime object_store runs on: one for the process, of its own,
//! so that swath's threads wait on plain channels and condition variables
//! and a caller that is itself on an async runtime (DataFusion's) never
//! nests one runtime inside another.

use std::future::Future;
use std::sync::OnceLock;

use tokio::runtime::{Builder, Runtime};

static RUNTIME: OnceLock<Result<Runtime, String>> = OnceLock::new();

/// The shared runtime, started on first use.
pub(crate) fn runtime() -> Result<&'static Runtime, String> {
    let rt = RUNTIME.get_or_init(|| {
        Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("swath-remote")
            .enable_all()
            .build()
            .map_err(|e| format!("cannot start the remote I/O threads: {e}"))
    });
    rt.as_ref().map_err(Clone::clone)
}

/// Run `fut` on the runtime and wait for it from this (non-async) thread.
///
/// # Errors
///
/// The runtime could not start, or the task panicked.
pub(crate) fn wait<T: Send + 'static>(
    fut: impl Future<Output = T> + Send + 'static,
) -> Result<T, String> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    runtime()?.spawn(async move {
        let _ = tx.send(fut.await);
    });
    rx.recv().map_err(|_| "a remote I/O task failed".to_string())
}

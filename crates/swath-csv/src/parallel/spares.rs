//! Buffers handed from finished work to the next: the workers of one run
//! share them, so a run allocates about one buffer a thread, not one a
//! chunk.

use std::sync::Mutex;

use swath::Buffer;

/// A pool of spare buffers, shared by the threads of one run.
#[derive(Debug, Default)]
pub(crate) struct Spares(Mutex<Vec<Buffer>>);

impl Spares {
    /// A spare buffer, if there is one.
    pub(crate) fn take(&self) -> Option<Buffer> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).pop()
    }

    /// Give `buf` back for the next piece of work.
    pub(crate) fn give(&self, buf: Buffer) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).push(buf);
    }
}

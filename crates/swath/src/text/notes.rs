//! Doubts of `--encoding auto`, said once at a command's end: the
//! command reads on with its best guess, and the user learns it was one.

use std::sync::Mutex;

static NOTES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Keep `note` (once, however often the input is opened).
pub(crate) fn note(note: String) {
    let mut notes = NOTES.lock().unwrap_or_else(|e| e.into_inner());
    if !notes.contains(&note) {
        notes.push(note);
    }
}

/// Take the doubts noted since the last call: one line each, for stderr.
pub fn take_doubts() -> Vec<String> {
    std::mem::take(&mut *NOTES.lock().unwrap_or_else(|e| e.into_inner()))
}

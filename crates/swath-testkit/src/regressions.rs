//! Replaying the inputs the fuzzers found and the project keeps
//! (`fuzz/regressions/<target>/`), through the fuzz target's own check.

use std::path::Path;

/// Run `check` on every file in `dir/target`; the number of inputs run.
///
/// # Panics
///
/// When the directory is missing or holds no input (a renamed or missing
/// directory fails rather than replaying nothing), or when `check` does.
pub fn replay_kept_inputs(dir: &Path, target: &str, check: fn(&[u8])) -> usize {
    let dir = dir.join(target);
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
        panic!("{}: {e}: the regressions of {target} are missing", dir.display())
    });
    let mut n = 0;
    for e in entries {
        let path = e.unwrap().path();
        check(&std::fs::read(&path).unwrap());
        n += 1;
    }
    assert!(n >= 1, "{}: no inputs kept for {target}", dir.display());
    n
}

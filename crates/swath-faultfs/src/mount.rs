//! Mounting: one mount per test in a temporary directory, unmounted when the
//! guard drops (also while a failed test unwinds), never waiting for long.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use fuser::{BackgroundSession, Config, MountOption};

use crate::fault::{Fault, State};
use crate::fs::{FaultFs, FILE_NAME};

/// How long the guard waits for the filesystem thread after unmounting.
const UNMOUNT_WAIT: Duration = Duration::from_secs(5);

/// A mounted fault filesystem. Its one file is at [`FaultMount::path`].
/// Dropping it unmounts (lazily, so a reader still inside cannot block the
/// test) and removes the mount point.
pub struct FaultMount {
    session: Option<BackgroundSession>,
    state: Arc<State>,
    // Dropped after the unmount in `drop`: the directory must be empty by then.
    dir: tempfile::TempDir,
}

impl FaultMount {
    /// Serve `backing` with `fault`, every read passed to the filesystem as
    /// the program made it (direct I/O).
    ///
    /// # Errors
    ///
    /// When the backing file cannot be opened or the mount fails.
    pub fn new(backing: &Path, fault: Fault) -> io::Result<FaultMount> {
        FaultMount::mount(backing, fault, false)
    }

    /// Serve `backing` with `fault` through the kernel's page cache, as a
    /// memory map needs: the filesystem sees page-sized reads.
    ///
    /// # Errors
    ///
    /// As [`FaultMount::new`].
    pub fn with_page_cache(backing: &Path, fault: Fault) -> io::Result<FaultMount> {
        FaultMount::mount(backing, fault, true)
    }

    fn mount(backing: &Path, fault: Fault, page_cache: bool) -> io::Result<FaultMount> {
        let backing = std::fs::File::open(backing)?;
        let dir = tempfile::Builder::new().prefix("swath-faultfs-").tempdir()?;
        let state = Arc::new(State::default());
        let fs = FaultFs { backing, fault, state: state.clone(), page_cache };
        let mut config = Config::default();
        config.mount_options = vec![MountOption::FSName("swath-faultfs".into()), MountOption::RO];
        // Two event threads: a stalled read must not stop a `stat`.
        config.n_threads = Some(2);
        let session = fuser::spawn_mount(fs, dir.path(), &config)
            .map_err(|e| io::Error::new(e.kind(), format!("mounting the fault filesystem: {e}")))?;
        Ok(FaultMount { session: Some(session), state, dir })
    }

    /// The served file.
    pub fn path(&self) -> PathBuf {
        self.dir.path().join(FILE_NAME)
    }

    /// The mount point.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Reads the filesystem has answered so far (a test can check that its
    /// fault was reached at all).
    pub fn reads(&self) -> u64 {
        self.state.reads()
    }
}

impl Drop for FaultMount {
    fn drop(&mut self) {
        if let Ok(dir) = CString::new(self.dir.path().as_os_str().as_bytes()) {
            // SAFETY: `dir` is a valid NUL-terminated path; umount2 only reads it.
            unsafe { libc::umount2(dir.as_ptr(), libc::MNT_DETACH) };
        }
        if let Some(session) = self.session.take() {
            // The thread ends once the kernel lets go of the connection (when
            // no file on the mount is open any more); wait a little, never
            // forever: a leaked thread is better than a hung test.
            let deadline = Instant::now() + UNMOUNT_WAIT;
            while !session.guard.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            if session.guard.is_finished() {
                let _ = session.join();
            }
        }
    }
}

/// Why the fault tests cannot run here, or `None` when they can.
pub fn fuse_unavailable() -> Option<String> {
    if !Path::new("/dev/fuse").exists() {
        return Some("/dev/fuse is missing (no FUSE in this kernel or container)".into());
    }
    None
}

/// True when the environment says this is CI (`CI=true`), where a skip is
/// a failure.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// At the top of a FUSE test: return early, loudly, where FUSE is missing;
/// panic instead in CI, where every test must run.
#[macro_export]
macro_rules! require_fuse {
    () => {
        if let Some(why) = $crate::fuse_unavailable() {
            if $crate::in_ci() {
                panic!("FUSE fault test cannot run in CI: {why}");
            }
            eprintln!("\n*** SKIPPED (FUSE fault test): {why} ***\n");
            return;
        }
    };
}

//! Test support: a FUSE filesystem that serves one real file with a fault
//! chosen per test (EIO at a byte, short reads, EINTR, a file that shrinks
//! or grows while read, reads that stall), so swath's promises about a
//! broken disk are tested against the real kernel rather than mock readers.
//!
//! ```no_run
//! use swath_faultfs::{Fault, FaultMount};
//!
//! let mnt = FaultMount::new("big.csv".as_ref(), Fault::EioAt { at: 4096 })?;
//! let err = std::fs::read(mnt.path()).unwrap_err();
//! assert_eq!(err.raw_os_error(), Some(libc::EIO));
//! # Ok::<(), std::io::Error>(())
//! ```
//!
//! A mount lives in a temporary directory and is unmounted when its
//! [`FaultMount`] drops. Tests start with [`require_fuse!`]: it skips with
//! a loud message where `/dev/fuse` is missing, and fails when `CI=true`.
//! Mounting needs root (mount(2)) or `fusermount3` (Debian's `fuse3`).

#![deny(missing_docs)]

mod fault;
mod fs;
mod mount;

pub use fault::{Answer, Fault, State};
pub use fs::FILE_NAME;
pub use mount::{fuse_unavailable, in_ci, FaultMount};

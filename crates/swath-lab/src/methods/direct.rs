//! `O_DIRECT` reads: the page cache is bypassed, so what comes back is what
//! the device delivers (the way the article advises checking with `dd
//! iflag=direct`). Buffers, offsets and sizes must be aligned to the
//! device's block size; the lab's are page-aligned multiples of 4 KiB.
//!
//! Some file systems refuse `O_DIRECT` (ramfs; tmpfs before Linux 6.6):
//! the open fails with `EINVAL`, and the method is "not applicable".

use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

use swath::LineCount;

use super::{not_applicable, Outcome};
use crate::aligned::{AlignedBuf, PAGE};

/// Open `path` for `O_DIRECT` reads, or say why the file system will not.
fn open(path: &Path) -> io::Result<File> {
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
    {
        use std::os::unix::fs::OpenOptionsExt;
        match OpenOptions::new().read(true).custom_flags(libc::O_DIRECT).open(path) {
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Err(refused(path)),
            other => other,
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
    {
        let _ = OpenOptions::new();
        Err(not_applicable(format!("{}: O_DIRECT needs Linux or FreeBSD", path.display())))
    }
}

fn refused(path: &Path) -> io::Error {
    let fs = crate::os::storage(path).map_or_else(|_| "its file system".into(), |s| s.fs_type);
    not_applicable(format!(
        "{} is on {fs}, which refuses O_DIRECT (open with O_DIRECT: EINVAL); \
         use --dir on a disk-backed file system to measure the device",
        path.display()
    ))
}

/// Can `path` be read with `O_DIRECT`? `Err` says why not, for people.
pub fn probe(path: &Path) -> Result<(), String> {
    let mut file = open(path).map_err(|e| e.to_string())?;
    let mut buf = AlignedBuf::new(PAGE);
    match file.read(&mut buf) {
        Ok(_) => Ok(()),
        Err(e) if e.raw_os_error() == Some(libc::EINVAL) => Err(refused(path).to_string()),
        Err(e) => Err(format!("{}: an O_DIRECT read failed: {e}", path.display())),
    }
}

/// Count the file's lines with `O_DIRECT` reads of `size` bytes.
pub fn read(path: &Path, size: usize) -> io::Result<Outcome> {
    let mut file = open(path)?;
    let len = file.metadata()?.len();
    let size = size.div_ceil(PAGE).max(1) * PAGE;
    let mut buf = AlignedBuf::new(size);
    let mut count = LineCount::default();
    let mut calls = 0u64;
    // After the short read of the tail the offset is no longer aligned, and
    // another O_DIRECT read there may fail with EINVAL: stop at the length.
    while count.bytes < len {
        calls += 1;
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => return Err(refused(path)),
            Err(e) => return Err(e),
        };
        count.add(&buf[..n]);
    }
    Ok(Outcome {
        lines: count.lines(),
        bytes: count.bytes,
        syscalls: Some(calls),
        buf_offset: Some(0),
        id_sum: None,
    })
}

//! What the OS says about a process and a file: resource usage, free disk
//! space, page-cache residency, and eviction.

use std::fs::File;
use std::io;
use std::os::unix::io::AsRawFd;
use std::path::Path;

/// Resource usage of this process so far (all threads).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Usage {
    /// User CPU seconds.
    pub user: f64,
    /// System CPU seconds.
    pub sys: f64,
    /// Peak resident set size in bytes (the high-water mark).
    pub max_rss: u64,
    /// Minor page faults (no disk read).
    pub minor_faults: u64,
    /// Major page faults (waited for the disk).
    pub major_faults: u64,
}

/// `getrusage(RUSAGE_SELF)`.
pub fn usage() -> Usage {
    // SAFETY: an all-zero rusage is a valid value of this plain C struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage; RUSAGE_SELF is always accepted.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    if rc != 0 {
        return Usage::default();
    }
    let secs = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 * 1e-6;
    // Linux and the BSDs report ru_maxrss in KiB (macOS in bytes).
    let rss_unit = if cfg!(target_os = "macos") { 1 } else { 1024 };
    Usage {
        user: secs(ru.ru_utime),
        sys: secs(ru.ru_stime),
        max_rss: (ru.ru_maxrss.max(0) as u64) * rss_unit,
        minor_faults: ru.ru_minflt.max(0) as u64,
        major_faults: ru.ru_majflt.max(0) as u64,
    }
}

/// Bytes an unprivileged user may still write in the file system of `dir`.
///
/// # Errors
///
/// When `statvfs` fails (e.g. `dir` does not exist).
pub fn free_space(dir: &Path) -> io::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    // SAFETY: an all-zero statvfs is a valid value of this plain C struct.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path, `st` a valid writable struct.
    let rc = unsafe { libc::statvfs(c.as_ptr(), &mut st) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
}

/// The system page size.
pub fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 {
        n as usize
    } else {
        4096
    }
}

/// Fraction (0.0 to 1.0) of the file's pages in the page cache, by
/// `mincore` over a mapping that is never touched (so it faults nothing in).
/// An empty file is fully resident (there is nothing to read).
///
/// # Errors
///
/// When the file cannot be opened or mapped, or `mincore` fails.
pub fn residency(path: &Path) -> io::Result<f64> {
    let file = File::open(path)?;
    let len = file.metadata()?.len() as usize;
    if len == 0 {
        return Ok(1.0);
    }
    let page = page_size();
    let pages = len.div_ceil(page);
    // SAFETY: a fresh shared read-only mapping of a file we opened; we only
    // pass its address to mincore and unmap it, never dereference it.
    let addr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    if addr == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    let mut vec = vec![0u8; pages];
    // SAFETY: `addr..addr+len` is our mapping; `vec` has one byte per page.
    let rc = unsafe { libc::mincore(addr, len, vec.as_mut_ptr().cast()) };
    let err = io::Error::last_os_error();
    // SAFETY: unmapping exactly what we mapped.
    unsafe { libc::munmap(addr, len) };
    if rc != 0 {
        return Err(err);
    }
    let resident = vec.iter().filter(|&&b| b & 1 != 0).count();
    Ok(resident as f64 / pages as f64)
}

/// Drop the file from the page cache: `fdatasync` (dirty pages cannot be
/// dropped), then `posix_fadvise(POSIX_FADV_DONTNEED)`. The kernel may keep
/// pages someone else maps or has dirtied since; [`residency`] tells.
///
/// # Errors
///
/// When the file cannot be opened, synced or advised.
pub fn evict(path: &Path) -> io::Result<()> {
    let file = File::open(path)?;
    file.sync_data()?;
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
    {
        // SAFETY: a valid open descriptor; offset 0 and len 0 mean the whole file.
        let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        if rc != 0 {
            return Err(io::Error::from_raw_os_error(rc));
        }
        Ok(())
    }
    #[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
    {
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "evicting a file from the page cache needs posix_fadvise",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_grows_and_space_is_there() {
        let u = usage();
        assert!(u.max_rss > 0);
        assert!(free_space(Path::new(".")).unwrap() > 0);
        assert!(free_space(Path::new("/no/such/dir")).is_err());
    }

    #[test]
    fn eviction_lowers_residency() {
        let dir = std::env::temp_dir().join(format!("swath-lab-os-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        std::fs::write(&path, vec![b'x'; 1 << 20]).unwrap();
        let _ = std::fs::read(&path).unwrap();
        let warm = residency(&path).unwrap();
        evict(&path).unwrap();
        let cold = residency(&path).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!((0.0..=1.0).contains(&warm) && (0.0..=1.0).contains(&cold));
        // Some file systems (tmpfs) cannot drop pages: then nothing changes.
        assert!(cold <= warm, "warm {warm} cold {cold}");
    }
}

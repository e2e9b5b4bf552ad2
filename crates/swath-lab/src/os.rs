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
    if st.f_blocks == 0 {
        // A file system that reports no size at all (ramfs) has no limit
        // to check against: it grows until memory runs out.
        return Ok(u64::MAX);
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

/// Where a file lives: its mount, file system and block device.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Storage {
    /// The mount point the file is under.
    pub mount_point: String,
    /// The file system type (`ext4`, `tmpfs`, ...).
    pub fs_type: String,
    /// The mount's source (`/dev/vda`, `tmpfs`, a server path).
    pub source: String,
    /// The block device, from `/sys/block`, when there is one.
    pub device: Option<Device>,
}

/// A block device, as `/sys/block/NAME` describes it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Device {
    /// Its name (`vda`, `nvme0n1`); the whole disk, not the partition.
    pub name: String,
    /// The model, when the device says.
    pub model: Option<String>,
    /// True for a spinning disk (`queue/rotational`).
    pub rotational: Option<bool>,
    /// Its size in bytes.
    pub size: Option<u64>,
}

impl Storage {
    /// One line for people: `ext4 on /dev/vda (vda: virtio, non-rotational, 256 GiB), mounted at /`.
    pub fn describe(&self) -> String {
        let dev = match &self.device {
            Some(d) => {
                let mut parts = Vec::new();
                if let Some(m) = &d.model {
                    parts.push(m.clone());
                }
                match d.rotational {
                    Some(true) => parts.push("rotational".into()),
                    Some(false) => parts.push("non-rotational".into()),
                    None => {}
                }
                if let Some(n) = d.size {
                    parts.push(crate::units::format_bytes(n));
                }
                format!(" (block device {}: {})", d.name, parts.join(", "))
            }
            None => " (no block device)".into(),
        };
        format!("{} on {}{dev}, mounted at {}", self.fs_type, self.source, self.mount_point)
    }

    /// True when the file system keeps files in memory (tmpfs, ramfs):
    /// there is no device to measure, and no page cache to leave.
    pub fn in_memory(&self) -> bool {
        matches!(self.fs_type.as_str(), "tmpfs" | "ramfs" | "devtmpfs")
    }
}

/// The mount, file system and block device of `path`, from
/// `/proc/self/mountinfo` (matched by the file's device number, then by
/// the longest mount point above it) and `/sys/dev/block`.
///
/// # Errors
///
/// When `path` cannot be stat'ed or `/proc/self/mountinfo` read or matched.
pub fn storage(path: &Path) -> io::Result<Storage> {
    use std::os::unix::fs::MetadataExt;
    let real = std::fs::canonicalize(path)?;
    let dev = std::fs::metadata(&real)?.dev();
    let (major, minor) = (libc::major(dev), libc::minor(dev));
    let info = std::fs::read_to_string("/proc/self/mountinfo")?;
    let mounts: Vec<(String, String, String, String)> = info
        .lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let l: Vec<&str> = left.split(' ').collect();
            let r: Vec<&str> = right.split(' ').collect();
            Some((
                l.get(2)?.to_string(),
                unescape(l.get(4)?),
                r.first()?.to_string(),
                unescape(r.get(1)?),
            ))
        })
        .collect();
    let under = |m: &str| real.starts_with(m);
    let want = format!("{major}:{minor}");
    let best = mounts
        .iter()
        .filter(|m| m.0 == want && under(&m.1))
        .max_by_key(|m| m.1.len())
        .or_else(|| mounts.iter().filter(|m| under(&m.1)).max_by_key(|m| m.1.len()))
        .ok_or_else(|| io::Error::other(format!("{}: no mount found for it", real.display())))?;
    Ok(Storage {
        mount_point: best.1.clone(),
        fs_type: best.2.clone(),
        source: best.3.clone(),
        device: block_device(&want),
    })
}

/// mountinfo escapes spaces and such as `\040`.
fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\'
            && i + 3 < b.len()
            && b[i + 1..i + 4].iter().all(|c| (b'0'..=b'7').contains(c))
        {
            out.push((b[i + 1] - b'0') * 64 + (b[i + 2] - b'0') * 8 + (b[i + 3] - b'0'));
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The whole disk behind device `maj:min`, from `/sys/dev/block`.
fn block_device(maj_min: &str) -> Option<Device> {
    let mut dir = std::fs::canonicalize(format!("/sys/dev/block/{maj_min}")).ok()?;
    if dir.join("partition").exists() {
        dir = dir.parent()?.to_path_buf();
    }
    let read = |f: &str| {
        std::fs::read_to_string(dir.join(f))
            .ok()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
    };
    Some(Device {
        name: dir.file_name()?.to_string_lossy().into_owned(),
        model: read("device/model"),
        rotational: read("queue/rotational").map(|r| r == "1"),
        size: read("size").and_then(|n| n.parse::<u64>().ok()).map(|n| n * 512),
    })
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
    fn storage_names_the_file_system() {
        let here = storage(Path::new(".")).unwrap();
        assert!(!here.fs_type.is_empty() && here.mount_point.starts_with('/'), "{here:?}");
        assert!(here.describe().contains(&here.fs_type));
        let proc_fs = storage(Path::new("/proc/self/status")).unwrap();
        assert_eq!(proc_fs.fs_type, "proc");
        assert!(proc_fs.device.is_none());
        assert_eq!(unescape("/a\\040b"), "/a b");
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

//! The memory a process may use, as its container says: the cgroup memory
//! limit (v2 `memory.max`, v1 `memory.limit_in_bytes`) of the process's
//! cgroup and every cgroup above it, the smallest of them. Commands read
//! it to choose settings that leave the page cache room inside a small
//! limit (`docs/memory.md`).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// The smallest memory limit over this process's cgroup and its ancestors,
/// in bytes; `None` when there is none (or no cgroup file system here).
pub fn cgroup_limit() -> Option<u64> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    limit_from(&own, Path::new("/sys/fs/cgroup"))
}

/// [`cgroup_limit`] for `/proc/self/cgroup`'s text `own` and the cgroup
/// file systems mounted at `root`.
fn limit_from(own: &str, root: &Path) -> Option<u64> {
    let mut best: Option<u64> = None;
    for line in own.lines() {
        // hierarchy-ID:controllers:path
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let (base, file) = if controllers.is_empty() {
            // v2: the unified hierarchy, at the root or under `unified`
            // beside v1's controllers.
            let unified = if root.join("cgroup.controllers").exists() {
                root.to_path_buf()
            } else {
                root.join("unified")
            };
            (unified, "memory.max")
        } else if controllers.split(',').any(|c| c == "memory") {
            (root.join("memory"), "memory.limit_in_bytes")
        } else {
            continue;
        };
        let mut dir: PathBuf = base.join(path.trim_start_matches('/'));
        // From the process's own cgroup up to the root of the mount.
        loop {
            if let Some(limit) = read_limit(&dir.join(file)) {
                best = Some(best.map_or(limit, |b| b.min(limit)));
            }
            if dir == base || !dir.pop() {
                break;
            }
        }
    }
    best
}

/// A limit file's value; `None` for "max" or v1's "no limit" (a value
/// near `i64::MAX`, rounded to pages).
fn read_limit(file: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let n: u64 = text.trim().parse().ok()?;
    (n < 1 << 60).then_some(n)
}

/// Whether reads of local files drop what they read from the page cache.
static DROP_BEHIND: AtomicBool = AtomicBool::new(false);

/// Have every read of a local file through [`ReadAt`](crate::ReadAt) (the
/// parallel readers, the split plans, the counts) drop the pages it read
/// from the page cache once it has them (`posix_fadvise` `DONTNEED`).
///
/// Inside a small cgroup limit the page cache is charged to the limit,
/// and a file read once and never again fills it: the kernel then evicts
/// the program's own code, which is read back from disk at every fault.
/// `csv to-parquet -t 2` of a 4.3 GiB file under 64 MiB with the full
/// (130 MB) binary took 38.7 s against 14 s uncapped, with 7,568 major
/// faults; dropping the input's pages behind the reads, 20.6 s and 2,211.
/// Uncapped it is of no use (the cache is free to grow) and costs a system
/// call a read, so the CLI sets it only inside a small limit.
pub fn set_drop_behind(yes: bool) {
    DROP_BEHIND.store(yes, Ordering::Relaxed);
}

/// After `n` bytes were read from `file` at `offset`: drop their pages
/// when [`set_drop_behind`] asked for it. Advice only; its error is none
/// of the read's business.
pub(crate) fn read_done(file: &std::fs::File, offset: u64, n: usize) {
    if n == 0 || !DROP_BEHIND.load(Ordering::Relaxed) {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let (Ok(off), Ok(len)) = (libc::off_t::try_from(offset), libc::off_t::try_from(n)) else {
            return;
        };
        // SAFETY: posix_fadvise reads no memory of ours; the descriptor is
        // open for as long as `file` is borrowed.
        unsafe {
            libc::posix_fadvise(file.as_raw_fd(), off, len, libc::POSIX_FADV_DONTNEED);
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, offset);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path, text: &str) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn v1_and_v2_limits_and_their_ancestors() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // v1: the group's own limit is larger than its parent's.
        write(&root.join("memory/a/memory.limit_in_bytes"), "9223372036854771712\n");
        write(&root.join("memory/a/b/memory.limit_in_bytes"), "268435456\n");
        write(&root.join("memory/memory.limit_in_bytes"), "9223372036854771712\n");
        let v1 = "12:pids:/a/b\n9:memory:/a/b\n1:name=systemd:/a/b\n";
        assert_eq!(limit_from(v1, root), Some(256 << 20));
        write(&root.join("memory/a/memory.limit_in_bytes"), "67108864\n");
        assert_eq!(limit_from(v1, root), Some(64 << 20));
        // v2 under `unified` (the hybrid layout), no limit anywhere.
        write(&root.join("unified/c/memory.max"), "max\n");
        assert_eq!(limit_from("0::/c\n", root), None);
        write(&root.join("unified/c/memory.max"), "1048576\n");
        assert_eq!(limit_from("0::/c\n", root), Some(1 << 20));
        // No cgroup files at all.
        assert_eq!(limit_from("0::/elsewhere\n", &root.join("none")), None);
    }
}

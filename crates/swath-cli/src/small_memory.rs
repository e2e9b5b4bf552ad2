//! Inside a small memory limit (a container's cgroup), glibc's allocator
//! is told to give freed memory back rather than keep it.
//!
//! By default glibc raises its mmap threshold as large buffers are freed
//! (up to 32 MiB), so that later ones come from its arenas, and it keeps
//! what is freed there; with a thread per core each has its arena. For
//! `csv to-parquet -t 2` that is 10-15 MiB of freed memory held (peak RSS
//! 56 MiB against 43 MiB with the settings below). Under a 64 MiB cgroup
//! it left the page cache so little that the command crawled on refaults:
//! 47.9 s against 2.77 s uncapped, on a 1.1 GiB file (`bench/run memcap`).
//! With buffers of 256 KiB and more mapped on their own (returned to the
//! system on free) and two arenas, it took 3.55 s. Uncapped, the same
//! settings cost about 9% (more page faults), so they apply only below
//! [`FRUGAL_BELOW`].

/// Cgroup limits under this get the frugal allocator settings.
pub const FRUGAL_BELOW: u64 = 512 << 20;

/// Allocations from this size on are mappings of their own.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 256 << 10;

/// Apply the frugal settings when this process's cgroup limit is under
/// [`FRUGAL_BELOW`]; return the limit when they were applied. Called
/// first thing in `main`, before any thread starts.
pub fn fit_allocator_to_limit() -> Option<u64> {
    let limit = swath::memory::cgroup_limit().filter(|&l| l < FRUGAL_BELOW);
    let _ = SMALL_LIMIT.set(limit);
    if limit.is_some() {
        frugal_allocator();
    }
    limit
}

/// The cgroup limit when it is under [`FRUGAL_BELOW`] (as found by
/// [`fit_allocator_to_limit`]): commands size their buffers to it.
pub fn small_limit() -> Option<u64> {
    SMALL_LIMIT.get().copied().flatten()
}

static SMALL_LIMIT: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn frugal_allocator() {
    // SAFETY: mallopt only changes glibc's allocator parameters; called
    // before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn frugal_allocator() {}

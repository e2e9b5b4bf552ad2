//! A counting global allocator: how many bytes a method asks for.
//!
//! Install it in a binary (the `swath` binary does) and read [`stats`]
//! around the code to measure:
//!
//! ```
//! use swath_lab::{alloc, CountingAlloc};
//!
//! #[global_allocator]
//! static ALLOC: CountingAlloc = CountingAlloc;
//!
//! fn main() {
//!     let before = alloc::stats();
//!     let v = std::hint::black_box(vec![0u8; 1000]);
//!     let used = alloc::stats().since(&before);
//!     assert!(used.allocated >= 1000 && used.allocations >= 1);
//!     drop(v);
//! }
//! ```
//! The counters are global
//! atomics (relaxed: each is a tally, no ordering between them is needed),
//! so threads are counted too. The cost is a few atomic adds per allocation,
//! which is noise next to malloc itself, and nothing on paths that do not
//! allocate, which are the ones the lab cares about.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

static ALLOCATED: AtomicU64 = AtomicU64::new(0);
static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static CURRENT: AtomicU64 = AtomicU64::new(0);
static PEAK: AtomicU64 = AtomicU64::new(0);

/// The system allocator, counting. Zero-sized: the counters are global.
#[derive(Clone, Copy, Debug, Default)]
pub struct CountingAlloc;

/// The counters at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocStats {
    /// Bytes ever allocated (a `realloc` counts its new size).
    pub allocated: u64,
    /// Allocations (and reallocations) ever made.
    pub allocations: u64,
    /// Bytes live now.
    pub current: u64,
    /// Most bytes live at once since the last [`reset_peak`].
    pub peak: u64,
}

impl AllocStats {
    /// What happened between `earlier` and `self`: allocated bytes and
    /// counts as differences; `peak` as the rise of the peak above the bytes
    /// live at `earlier` (call [`reset_peak`] right after taking `earlier`).
    pub fn since(&self, earlier: &AllocStats) -> AllocStats {
        AllocStats {
            allocated: self.allocated.saturating_sub(earlier.allocated),
            allocations: self.allocations.saturating_sub(earlier.allocations),
            current: self.current,
            peak: self.peak.saturating_sub(earlier.current),
        }
    }
}

/// The counters now.
pub fn stats() -> AllocStats {
    AllocStats {
        allocated: ALLOCATED.load(Relaxed),
        allocations: ALLOCATIONS.load(Relaxed),
        current: CURRENT.load(Relaxed),
        peak: PEAK.load(Relaxed),
    }
}

/// Start a new peak from the bytes live now.
pub fn reset_peak() {
    PEAK.store(CURRENT.load(Relaxed), Relaxed);
}

/// True when [`CountingAlloc`] is this program's global allocator (checked
/// by allocating a little and looking at the counter).
pub fn is_installed() -> bool {
    let before = ALLOCATIONS.load(Relaxed);
    let probe = std::hint::black_box(Box::new(0u64));
    drop(probe);
    ALLOCATIONS.load(Relaxed) != before
}

fn on_alloc(size: usize) {
    let size = size as u64;
    ALLOCATED.fetch_add(size, Relaxed);
    ALLOCATIONS.fetch_add(1, Relaxed);
    let now = CURRENT.fetch_add(size, Relaxed) + size;
    PEAK.fetch_max(now, Relaxed);
}

fn on_dealloc(size: usize) {
    CURRENT.fetch_sub(size as u64, Relaxed);
}

// SAFETY: every call is forwarded unchanged to `System`, which upholds the
// GlobalAlloc contract; the counting touches only atomics and never allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as ours, forwarded.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            on_alloc(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as ours, forwarded.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            on_alloc(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours, forwarded.
        unsafe { System.dealloc(ptr, layout) };
        on_dealloc(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as ours, forwarded.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            on_dealloc(layout.size());
            on_alloc(new_size);
        }
        new
    }
}

//! A counting global allocator for tests: how often, and how many bytes,
//! the code under test allocates.
//!
//! Install it in a test binary and read the counters around the code:
//!
//! ```
//! use swath_testkit::alloc::{self, CountingAlloc};
//!
//! #[global_allocator]
//! static ALLOC: CountingAlloc = CountingAlloc;
//!
//! fn main() {
//!     let before = alloc::thread_stats();
//!     let v = std::hint::black_box(vec![0u8; 100]);
//!     let used = alloc::thread_stats().since(&before);
//!     assert_eq!((used.allocations, used.bytes), (1, 100));
//!     drop(v);
//! }
//! ```
//!
//! Two sets of counters: the process's ([`stats`], every thread, for code
//! that allocates on worker threads) and the calling thread's
//! ([`thread_stats`], which the test harness's other threads cannot
//! disturb). A `realloc` counts as one allocation of its new size; frees
//! are not counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);

thread_local! {
    // Const-initialised and without a destructor, so touching it inside
    // the allocator never allocates and never runs after it is gone.
    static THREAD: Cell<Stats> = const { Cell::new(Stats { allocations: 0, bytes: 0 }) };
}

/// The system allocator, counting. Zero-sized: the counters are statics.
#[derive(Clone, Copy, Debug, Default)]
pub struct CountingAlloc;

/// Allocation counters at one moment (or, from [`Stats::since`], between two).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Allocations and reallocations made.
    pub allocations: u64,
    /// Bytes asked for (a `realloc` counts its new size).
    pub bytes: u64,
}

impl Stats {
    /// What was allocated between `earlier` and `self`.
    pub fn since(&self, earlier: &Stats) -> Stats {
        Stats {
            allocations: self.allocations - earlier.allocations,
            bytes: self.bytes - earlier.bytes,
        }
    }
}

/// The process's counters: every thread's allocations.
pub fn stats() -> Stats {
    Stats { allocations: ALLOCATIONS.load(Relaxed), bytes: BYTES.load(Relaxed) }
}

/// The calling thread's counters.
pub fn thread_stats() -> Stats {
    THREAD.with(Cell::get)
}

/// True when [`CountingAlloc`] is this program's global allocator: a test
/// that relies on it asserts this first, so it cannot pass by counting
/// nothing.
pub fn is_installed() -> bool {
    let before = thread_stats();
    drop(std::hint::black_box(Box::new(0u64)));
    thread_stats() != before
}

fn count(size: usize) {
    ALLOCATIONS.fetch_add(1, Relaxed);
    BYTES.fetch_add(size as u64, Relaxed);
    // `try_with`: during thread teardown the slot may be gone; the process
    // counters still saw the allocation.
    let _ = THREAD.try_with(|t| {
        let s = t.get();
        t.set(Stats { allocations: s.allocations + 1, bytes: s.bytes + size as u64 });
    });
}

// SAFETY: every call is forwarded unchanged to `System`, which upholds the
// GlobalAlloc contract; the counting touches only atomics and a
// const-initialised thread-local, and never allocates.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: same contract as ours, forwarded.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: same contract as ours, forwarded.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours, forwarded.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        // SAFETY: same contract as ours, forwarded.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

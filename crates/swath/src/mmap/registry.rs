//! The table of live maps the SIGBUS handler consults: a fixed array of
//! atomics, so the handler reads it without a lock or an allocation.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// How many maps may be alive at once (one per file being read by mmap; a
/// parallel count shares one map among its threads).
pub const SLOTS: usize = 64;

/// `start` of a slot being filled in: taken, but not yet a live map.
const CLAIMED: usize = 1;

/// One live map: `start..start + len` in memory; `lost` is the lowest
/// offset in it that a fault replaced by zeros (`u64::MAX`: none).
pub(crate) struct Slot {
    start: AtomicUsize,
    len: AtomicUsize,
    lost: AtomicU64,
}

#[allow(clippy::declare_interior_mutable_const)]
const FREE: Slot =
    Slot { start: AtomicUsize::new(0), len: AtomicUsize::new(0), lost: AtomicU64::new(u64::MAX) };

static TABLE: [Slot; SLOTS] = [FREE; SLOTS];

/// Record the map at `start..start + len`; `None` when the table is full.
pub(crate) fn register(start: usize, len: usize) -> Option<usize> {
    debug_assert!(start > CLAIMED);
    for (i, slot) in TABLE.iter().enumerate() {
        if slot.start.compare_exchange(0, CLAIMED, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
            slot.len.store(len, Ordering::Relaxed);
            slot.lost.store(u64::MAX, Ordering::Relaxed);
            // Release: a handler that sees `start` sees `len` and `lost` too.
            slot.start.store(start, Ordering::Release);
            return Some(i);
        }
    }
    None
}

/// Forget slot `i` (before its map is unmapped).
pub(crate) fn unregister(i: usize) {
    TABLE[i].start.store(0, Ordering::Release);
}

/// The lowest offset of slot `i`'s map lost to a fault.
pub(crate) fn lost(i: usize) -> Option<u64> {
    let at = TABLE[i].lost.load(Ordering::Acquire);
    (at != u64::MAX).then_some(at)
}

/// The live map holding address `addr`: its start, length and slot.
/// Async-signal-safe: atomic loads only.
pub(crate) fn find(addr: usize) -> Option<(usize, usize, usize)> {
    for (i, slot) in TABLE.iter().enumerate() {
        let start = slot.start.load(Ordering::Acquire);
        if start <= CLAIMED {
            continue;
        }
        let len = slot.len.load(Ordering::Relaxed);
        if addr >= start && addr - start < len {
            return Some((i, start, len));
        }
    }
    None
}

/// Note that slot `i` lost the bytes from `offset` on. Async-signal-safe.
pub(crate) fn record_loss(i: usize, offset: u64) {
    TABLE[i].lost.fetch_min(offset, Ordering::AcqRel);
}

//! The parallel reader's memory does not grow with the input: what it
//! allocates per chunk is a small constant (a reader buffer), never a
//! function of the chunk's records, and never a regrown chunk buffer.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use swath_csv::{ParallelReader, ReaderBuilder};

struct Counting;

static BYTES: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards every call to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        BYTES.fetch_add(new as u64, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const CHUNK: u64 = 1 << 20;

fn csv_file(chunks: u64) -> std::path::PathBuf {
    let path =
        std::env::temp_dir().join(format!("swath-par-alloc-{}-{chunks}", std::process::id()));
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(out, "id,name,note").unwrap();
    let mut written = 0u64;
    let mut i = 0u64;
    while written < chunks * CHUNK {
        let row = format!("{i},\"name {i}\",\"a note\nover two lines\"\n");
        out.write_all(row.as_bytes()).unwrap();
        written += row.len() as u64;
        i += 1;
    }
    out.flush().unwrap();
    path
}

/// Bytes allocated to count the records of `path` in exact mode.
fn bytes_to_count(path: &std::path::Path) -> (u64, u64) {
    let before = BYTES.load(Ordering::Relaxed);
    let records = ParallelReader::new(&ReaderBuilder::new(), path)
        .threads(2)
        .chunk_size(CHUNK)
        .count()
        .unwrap();
    (BYTES.load(Ordering::Relaxed) - before, records)
}

#[test]
fn allocations_per_chunk_are_a_small_constant() {
    let small = csv_file(4);
    let large = csv_file(16);
    let (a_small, n_small) = bytes_to_count(&small);
    let (a_large, n_large) = bytes_to_count(&large);
    assert!(n_large > 3 * n_small, "{n_small} then {n_large} records");
    let per_chunk = (a_large - a_small) / 12;
    // A reader buffer (256 KiB) and bookkeeping per chunk; a chunk buffer
    // regrown per chunk would cost twice the chunk size.
    assert!(per_chunk < CHUNK / 2, "{per_chunk} bytes allocated per extra chunk");
    std::fs::remove_file(small).unwrap();
    std::fs::remove_file(large).unwrap();
}

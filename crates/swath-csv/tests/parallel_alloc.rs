//! The parallel reader's memory does not grow with the input: what it
//! allocates per chunk is a small constant (a reader buffer), never a
//! function of the chunk's records, and never a regrown chunk buffer.

use std::io::Write;

use swath_csv::{ParallelReader, ReaderBuilder};
use swath_testkit::alloc::{self, CountingAlloc};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// Bytes allocated so far, on every thread (the workers allocate).
fn bytes_so_far() -> u64 {
    alloc::stats().bytes
}

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
    let before = bytes_so_far();
    let records = ParallelReader::new(&ReaderBuilder::new(), path)
        .threads(2)
        .chunk_size(CHUNK)
        .count()
        .unwrap();
    (bytes_so_far() - before, records)
}

#[test]
fn allocations_per_chunk_are_a_small_constant() {
    assert!(alloc::is_installed());
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

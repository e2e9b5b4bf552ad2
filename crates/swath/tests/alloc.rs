//! No allocation per line: the allocation count of reading a file does not
//! depend on how many lines it has.

use swath::{count_source, CountOptions, LineReaderBuilder, Parallel, Source};
use swath_testkit::alloc::{self, CountingAlloc};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// Allocations so far on this thread, where the line reader runs (the test
/// harness's other threads must not count).
fn allocations() -> u64 {
    alloc::thread_stats().allocations
}

/// Allocations so far on every thread: the counting engine may allocate
/// on its workers.
fn allocations_everywhere() -> u64 {
    alloc::stats().allocations
}

fn file_of(lines: usize) -> std::path::PathBuf {
    let path = std::env::temp_dir().join(format!("swath-alloc-{}-{lines}", std::process::id()));
    std::fs::write(&path, "2000-01-01T00:00:00Z INFO request served status=200\n".repeat(lines))
        .unwrap();
    path
}

fn allocations_reading(path: &std::path::Path) -> (u64, u64) {
    let before = allocations();
    let mut rdr = LineReaderBuilder::new().from_path(path).unwrap();
    let mut n = 0u64;
    rdr.for_each_line(|_| {
        n += 1;
        true
    })
    .unwrap();
    (allocations() - before, n)
}

#[test]
fn reading_lines_allocates_a_constant_number_of_times() {
    assert!(alloc::is_installed());
    let small = file_of(10_000);
    let large = file_of(1_000_000);
    let (a_small, n_small) = allocations_reading(&small);
    let (a_large, n_large) = allocations_reading(&large);
    assert_eq!((n_small, n_large), (10_000, 1_000_000));
    assert_eq!(a_small, a_large, "allocations grew with the line count");
    assert!(a_large < 10, "{a_large} allocations to read a file");

    // Counting on one thread: one buffer, whatever the size, plus the list of
    // per-range results (one entry per 4 MiB range, grown by doubling): a
    // handful of allocations more for a larger file, none per line.
    let opts = CountOptions { parallel: Parallel::new().threads(1), ..Default::default() };
    let count = |p: &std::path::Path| {
        let mut src = Source::open(p).unwrap();
        let before = allocations_everywhere();
        let lines = count_source(&mut src, &opts).unwrap().lines();
        (allocations_everywhere() - before, lines)
    };
    let (c_small, _) = count(&small);
    let (c_large, lines) = count(&large);
    assert_eq!(lines, 1_000_000);
    assert!(c_large <= c_small + 4, "counting: {c_small} then {c_large} allocations");
    std::fs::remove_file(small).unwrap();
    std::fs::remove_file(large).unwrap();
}

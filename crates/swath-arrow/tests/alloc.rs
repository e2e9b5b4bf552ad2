//! No allocation per record: decoding 4x the rows into one batch costs the
//! same number of allocations (builders are sized for the batch up front;
//! fields are parsed from borrowed bytes).

mod common;

use std::io::Write;

use swath_arrow::ArrowReaderBuilder;
use swath_testkit::alloc::{self, stats, CountingAlloc};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn allocations_to_decode(rows: usize) -> (u64, usize) {
    let data = common::generate(rows, 23, false, false);
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(&data).unwrap();
    let mut b = ArrowReaderBuilder::new();
    b.batch_size(100_000);
    let mut rdr = b.from_path(f.path()).unwrap();
    let before = stats();
    let mut n = 0;
    while let Some(batch) = rdr.next_batch().unwrap() {
        n += batch.num_rows();
    }
    (stats().since(&before).allocations, n)
}

#[test]
fn allocation_count_does_not_grow_with_rows() {
    assert!(alloc::is_installed(), "the counting allocator must be installed");
    let (small, n1) = allocations_to_decode(10_000);
    let (large, n2) = allocations_to_decode(40_000);
    assert_eq!((n1, n2), (10_000, 40_000));
    // A few allocations of slack (a string buffer that doubles once).
    assert!(large <= small + 16, "{small} allocations for 10k rows, {large} for 40k");
}

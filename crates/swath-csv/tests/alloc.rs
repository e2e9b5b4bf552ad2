//! Reading 1,000,000 records allocates exactly as often as reading 1,000:
//! nothing per record, on the borrowed path, the reuse path and the typed
//! scan alike.

use swath_csv::{OwnedRecord, ReaderBuilder};
use swath_testkit::alloc::{self, CountingAlloc};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// This thread's allocations so far. The reader runs on the calling
/// thread; counting every thread's would also count the test harness's
/// (its "running for over 60 seconds" notice allocates, and once made this
/// test fail).
fn allocations_so_far() -> u64 {
    alloc::thread_stats().allocations
}

/// Fixed-width ids: the owned record then never needs a longer buffer for
/// a later row, so any difference in counts is per-record allocation.
fn doc(rows: usize) -> Vec<u8> {
    let mut d = b"id,name,note\n".to_vec();
    for i in 0..rows {
        d.extend_from_slice(format!("{i:07},\"Smith, \"\"J\"\"\",x\r\n").as_bytes());
    }
    d
}

/// Allocations made while reading all of `data` three ways.
fn allocations(data: &[u8], rows: usize) -> [u64; 3] {
    let mut out = [0; 3];
    let before = allocations_so_far();
    let mut rdr = ReaderBuilder::new().from_reader(data).unwrap();
    let mut n = 0;
    while let Some(r) = rdr.next_record().unwrap() {
        n += r.len();
    }
    out[0] = allocations_so_far() - before;
    assert_eq!(n, rows * 3);

    let before = allocations_so_far();
    let mut rdr = ReaderBuilder::new().from_reader(data).unwrap();
    let mut rec = OwnedRecord::new();
    let mut n = 0;
    while rdr.read_into(&mut rec).unwrap() {
        n += rec.get(1).unwrap().len();
    }
    out[1] = allocations_so_far() - before;
    assert_eq!(n, rows * "Smith, \"J\"".len());

    let before = allocations_so_far();
    let mut rdr = ReaderBuilder::new().from_reader(data).unwrap();
    let mut sum = 0u64;
    while let Some(r) = rdr.next_record().unwrap() {
        let (id, name, _): (u64, &str, &[u8]) = r.scan().unwrap();
        sum += id + name.len() as u64;
    }
    out[2] = allocations_so_far() - before;
    let rows = rows as u64;
    assert_eq!(sum, rows * (rows - 1) / 2 + rows * 10);
    out
}

#[test]
fn allocations_do_not_depend_on_the_number_of_records() {
    assert!(alloc::is_installed());
    let small = doc(1_000);
    let large = doc(1_000_000);
    let a = allocations(&small, 1_000);
    let b = allocations(&large, 1_000_000);
    assert_eq!(a, b, "allocations for 1k vs 1M records");
    // And they are few: the buffer, the field bounds, the scratch, the
    // header row, the owned record.
    assert!(b.iter().all(|&n| n < 32), "{b:?}");
}

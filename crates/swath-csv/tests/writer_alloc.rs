//! No allocation per record: a counting global allocator (the test kit's,
//! counting this thread) shows that writing 1,000,000 records allocates
//! exactly as much as writing 1,000 after construction: nothing.

use std::io;

use swath_csv::{QuoteStyle, WriterBuilder};
use swath_testkit::alloc::{self, CountingAlloc};

#[global_allocator]
static GLOBAL: CountingAlloc = CountingAlloc;

/// This thread's allocations so far: the test harness's other threads do
/// not count.
fn allocs() -> u64 {
    alloc::thread_stats().allocations
}

/// Allocations made while writing `rows` records, after the writer exists.
fn allocs_for(rows: u64, style: QuoteStyle) -> u64 {
    let mut wtr =
        WriterBuilder::new().quote_style(style).buffer_capacity(64 * 1024).from_writer(io::sink());
    let names = ["Alice", "Bob \"the\" builder", "Carol, C.", "multi\nline", ""];
    let before = allocs();
    for i in 0..rows {
        let name = names[(i % 5) as usize];
        let score = i as f64 / 7.0;
        wtr.write_row((i, name, score, i % 3 == 0, Some(-(i as i64)), 'x')).unwrap();
        wtr.write_record([name.as_bytes(), b"raw"]).unwrap();
        wtr.write_field(&(i as u8)).unwrap();
        wtr.write_field("streamed").unwrap();
        wtr.end_record().unwrap();
    }
    wtr.flush().unwrap();
    let after = allocs();
    drop(wtr);
    after - before
}

#[test]
fn the_counter_counts() {
    let before = allocs();
    let v = std::hint::black_box(vec![1u8; 100]);
    assert_eq!(allocs() - before, 1);
    drop(v);
}

#[test]
fn a_million_records_allocate_nothing() {
    assert_eq!(allocs_for(1_000, QuoteStyle::Necessary), 0);
    assert_eq!(allocs_for(1_000_000, QuoteStyle::Necessary), 0);
}

#[test]
fn other_styles_allocate_nothing() {
    // Fewer records: this runs in debug builds and NonNumeric parses.
    for style in [QuoteStyle::Always, QuoteStyle::NonNumeric, QuoteStyle::Never] {
        assert_eq!(allocs_for(20_000, style), 0, "{style:?}");
    }
}

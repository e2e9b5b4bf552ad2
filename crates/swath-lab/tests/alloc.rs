//! The counting allocator sees `lines()` allocate per line and the
//! reused-buffer methods not. One test in its own binary: the counters are
//! global, so no other test may run beside it.

use std::fs;

use swath_lab::gen::log;
use swath_lab::methods::{self, Ctx};
use swath_lab::{alloc, measure, CountingAlloc};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn lines_allocates_per_line_and_reused_buffers_do_not() {
    assert!(alloc::is_installed());

    // The counter itself: a known allocation is seen, with its size.
    let before = alloc::stats();
    alloc::reset_peak();
    let v = std::hint::black_box(vec![0u8; 1 << 20]);
    let seen = alloc::stats().since(&before);
    drop(v);
    assert!(seen.allocated >= 1 << 20 && seen.allocations >= 1 && seen.peak >= 1 << 20);

    let dir = std::env::temp_dir().join(format!("swath-lab-alloc-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("input");
    let size = 4 << 20;
    let mut data = Vec::new();
    log::write(&mut data, size).unwrap();
    fs::write(&file, &data).unwrap();
    drop(data);
    let ctx = Ctx {
        file,
        scratch: dir.clone(),
        prefix: 100_000,
        write_lines: 100_000,
        large_write: 1 << 20,
        csv: dir.join("input.csv"),
        csv_records: 0,
        csv_id_sum: 0,
        ..Ctx::default()
    };
    let lines = log::line_count(size);
    let run_on = |ctx: &Ctx, name: &str| {
        let m = methods::find(name).unwrap();
        let expected = m.expected(ctx, lines, log::line_count(ctx.prefix));
        measure::measure(&m, ctx, expected, false).unwrap()
    };
    let run = |name: &str| run_on(&ctx, name);

    let per_line = run("lines");
    assert!(per_line.allocations >= lines, "lines(): {per_line:?}");
    for name in [
        "read-512B",
        "read-256K",
        "read-256K-vec",
        "read-until",
        "swath-lines",
        "mmap",
        "byte-bufreader",
        "write-bufwriter",
        "write-swath",
    ] {
        let s = run(name);
        // A handful for the buffer, the file name, the reader: a constant,
        // far below one per line.
        assert!(s.allocations < 16, "{name}: {} allocations", s.allocations);
    }
    // The whole-file read allocates the file's size, once or a few times.
    let whole = run("fs-read");
    assert!(whole.allocated >= size && whole.allocations < 16, "{whole:?}");

    // CSV: a Vec<String> per record allocates per record (a Vec and one
    // String per non-empty field); borrowed records and the typed scan a
    // constant, the same for 2,000 and 40,000 rows.
    let mut constant = Vec::new();
    for rows in [2_000u64, 40_000] {
        let opts = swath_lab::gen::csv::CsvOptions { rows, seed: 1, quoted_newlines_pct: 5 };
        let mut data = Vec::new();
        swath_lab::gen::csv::write(&mut data, &opts).unwrap();
        fs::write(&ctx.csv, &data).unwrap();
        let ctx = Ctx {
            csv_records: rows,
            csv_id_sum: methods::csv::generated_id_sum(rows),
            ..ctx.clone()
        };
        let strings = run_on(&ctx, "csv-strings");
        assert!(strings.allocations >= 7 * rows, "csv-strings: {strings:?}");
        let borrowed = run_on(&ctx, "csv-borrowed");
        let typed = run_on(&ctx, "csv-typed");
        assert!(borrowed.allocations < 32, "csv-borrowed: {borrowed:?}");
        assert!(typed.allocations < 32, "csv-typed: {typed:?}");
        constant.push((borrowed.allocations, typed.allocations));
    }
    assert_eq!(constant[0], constant[1], "not a constant: {constant:?}");

    // The generators: a constant number of allocations whatever the size.
    for rows in [1_000u64, 50_000] {
        let before = alloc::stats();
        let opts = swath_lab::gen::csv::CsvOptions { rows, seed: 1, quoted_newlines_pct: 20 };
        swath_lab::gen::csv::write(&mut std::io::sink(), &opts).unwrap();
        let used = alloc::stats().since(&before);
        assert!(used.allocations <= 2, "csv {rows} rows: {used:?}");
    }
    let before = alloc::stats();
    log::write(&mut std::io::sink(), 64 << 20).unwrap();
    assert!(alloc::stats().since(&before).allocations <= 2);
    fs::remove_dir_all(&dir).unwrap();
}

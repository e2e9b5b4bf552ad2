//! Every method finds the right count, checked against the slow, obvious
//! scalar count, on files of several shapes.

use std::fs;
use std::path::{Path, PathBuf};

use swath::count::Kernel;
use swath_lab::gen::{csv, log};
use swath_lab::methods::{self, packed, Ctx, Kind, Packed, Via, Way};

/// True when `tool` can be run.
fn on_path(tool: &str) -> bool {
    std::process::Command::new(tool)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok()
}

struct Dir(PathBuf);

impl Dir {
    fn new(tag: &str) -> Dir {
        let p = std::env::temp_dir().join(format!("swath-lab-test-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&p);
        fs::create_dir_all(&p).unwrap();
        Dir(p)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Lines by the scalar twin: newlines plus an unterminated last line.
fn slow_lines(data: &[u8]) -> u64 {
    Kernel::scalar().count(data, b'\n') + u64::from(data.last().is_some_and(|&b| b != b'\n'))
}

fn check_all(dir: &Path, data: &[u8]) {
    let file = dir.join("input");
    fs::write(&file, data).unwrap();
    // The compressed copies the gz-* and zst-* methods read.
    let gz = dir.join("input.gz");
    let zst = dir.join("input.zst");
    packed::write_copy(&file, &gz, Packed::Gzip).unwrap();
    packed::write_copy(&file, &zst, Packed::Zstd).unwrap();
    let ctx = Ctx {
        gz,
        zst,
        file,
        scratch: dir.to_path_buf(),
        prefix: 100_000.min(data.len() as u64),
        write_lines: 1000,
        large_write: 1 << 20,
        csv: PathBuf::new(),
        csv_records: 0,
        csv_id_sum: 0,
        ..Ctx::default()
    };
    let file_lines = slow_lines(data);
    let prefix_lines = slow_lines(&data[..ctx.prefix as usize]);
    // The CSV methods read a CSV, not these shapes: csv_* tests below.
    // The Go methods run in the Go program (tests/go.rs).
    for m in methods::all().into_iter().filter(|m| m.kind != Kind::Csv && m.way != Way::Go) {
        let out = match m.run(&ctx) {
            Ok(out) => out,
            // Only O_DIRECT on a file system that refuses it, or a decoder
            // command that is not installed, may say "not applicable".
            Err(e) if methods::as_not_applicable(&e).is_some() => {
                let allowed = match m.way {
                    Way::Direct { .. } => methods::direct::probe(&ctx.file).is_err(),
                    Way::Decode { format, via: Via::Pipe } => !on_path(format.cat()),
                    _ => false,
                };
                assert!(allowed, "{}: not applicable, and it should be: {e}", m.name);
                eprintln!("SKIPPED {}: not applicable here: {e}", m.name);
                continue;
            }
            Err(e) => panic!("{}: {e}", m.name),
        };
        let found = m.check(&ctx, &out).unwrap();
        let expected = m.expected(&ctx, file_lines, prefix_lines);
        assert_eq!(found, expected, "{} on {} bytes", m.name, data.len());
        match m.kind {
            Kind::Read | Kind::Compressed => {
                assert_eq!(out.bytes, data.len() as u64, "{}", m.name)
            }
            Kind::Prefix => assert_eq!(out.bytes, ctx.prefix, "{}", m.name),
            Kind::Write => assert!(!dir.join(format!("{}.out", m.name)).exists()),
            Kind::Csv | Kind::Small => unreachable!("filtered out"),
        }
    }
}

#[test]
fn every_method_counts_the_generated_log() {
    let dir = Dir::new("log");
    let size = 4 << 20;
    let mut data = Vec::new();
    log::write(&mut data, size).unwrap();
    assert_eq!(slow_lines(&data), log::line_count(size));
    check_all(&dir.0, &data);
}

#[test]
fn every_method_counts_odd_shapes() {
    let dir = Dir::new("odd");
    let mut quoted = Vec::new();
    let opts = csv::CsvOptions { rows: 3000, seed: 3, quoted_newlines_pct: 20 };
    csv::write(&mut quoted, &opts).unwrap();
    let long_line = {
        let mut v = vec![b'x'; 3 << 20];
        v.extend_from_slice(b"\nshort\n");
        v
    };
    let shapes: Vec<Vec<u8>> = vec![
        Vec::new(),
        b"\n".to_vec(),
        b"no newline at all".to_vec(),
        b"a\r\nb\r\nc".to_vec(),
        vec![b'\n'; 70_001],
        quoted,
        long_line,
    ];
    for data in shapes {
        check_all(&dir.0, &data);
    }
}

#[test]
fn a_wrong_count_is_a_loud_failure() {
    let dir = Dir::new("wrong");
    let file = dir.0.join("input");
    fs::write(&file, b"one\ntwo\n").unwrap();
    let ctx = Ctx {
        file,
        scratch: dir.0.clone(),
        prefix: 8,
        write_lines: 10,
        large_write: 0,
        csv: PathBuf::new(),
        csv_records: 0,
        csv_id_sum: 0,
        ..Ctx::default()
    };
    let m = methods::find("read-4K").unwrap();
    let err = swath_lab::measure::measure(&m, &ctx, 3, false).unwrap_err().to_string();
    assert!(err.contains("WRONG ANSWER") && err.contains("counted 2"), "{err}");
    let ok = swath_lab::measure::measure(&m, &ctx, 2, false).unwrap();
    assert_eq!(ok.lines, 2);
    assert_eq!(ok.bytes, 8);
    assert!(ok.residency.is_some());
}

fn csv_methods() -> Vec<methods::Method> {
    let v: Vec<_> = methods::all().into_iter().filter(|m| m.kind == Kind::Csv).collect();
    assert_eq!(v.len(), 5);
    v
}

/// A context whose CSV is `data`, with the answers the generator gives.
fn csv_ctx(dir: &Path, data: &[u8], records: u64, id_sum: u64) -> Ctx {
    let path = dir.join("input.csv");
    fs::write(&path, data).unwrap();
    Ctx {
        file: PathBuf::new(),
        scratch: dir.to_path_buf(),
        prefix: 0,
        write_lines: 0,
        large_write: 0,
        csv: path,
        csv_records: records,
        csv_id_sum: id_sum,
        ..Ctx::default()
    }
}

#[test]
fn every_csv_method_reads_the_generated_csv() {
    let dir = Dir::new("csv");
    // 100,000 rows are over 4 MiB: the parallel reader cuts them into chunks,
    // and quoted newlines straddle the seams.
    for (rows, pct) in [(0u64, 0u8), (1, 0), (3000, 0), (3000, 20), (100_000, 5)] {
        let mut data = Vec::new();
        let opts = csv::CsvOptions { rows, seed: 5, quoted_newlines_pct: pct };
        let sum = csv::write(&mut data, &opts).unwrap();
        let ids = methods::csv::generated_id_sum(rows);
        let ctx = csv_ctx(&dir.0, &data, sum.rows, ids);
        for m in csv_methods() {
            let what = format!("{} on {rows} rows, {pct}% quoted newlines", m.name);
            let out = m.run(&ctx).unwrap_or_else(|e| panic!("{what}: {e}"));
            assert_eq!(out.lines, rows, "{what}");
            // A count has no fields to sum: its answer is the count.
            let sum = if m.name == "csv-count" { None } else { Some(ids) };
            assert_eq!(out.id_sum, sum, "{what}");
            assert_eq!(out.bytes, data.len() as u64, "{what}");
            assert_eq!(m.check(&ctx, &out).unwrap(), rows, "{what}");
            assert_eq!(m.expected(&ctx, 0, 0), rows);
            assert_eq!(m.input(&ctx), ctx.csv.as_path());
        }
    }
}

#[test]
fn a_wrong_csv_answer_is_a_loud_failure() {
    let dir = Dir::new("csv-wrong");
    let mut data = Vec::new();
    csv::write(&mut data, &csv::CsvOptions { rows: 500, seed: 2, quoted_newlines_pct: 10 })
        .unwrap();
    let ids = methods::csv::generated_id_sum(500);
    // One id changed (row 17 says 71): the count is right, the checksum not.
    let text = String::from_utf8(data.clone()).unwrap();
    let bad = text.replacen("\n17,", "\n71,", 1);
    assert_ne!(bad, text);
    for m in
        csv_methods().into_iter().filter(|m| !["csv-typed", "csv-count"].contains(&m.name.as_str()))
    {
        let ctx = csv_ctx(&dir.0, bad.as_bytes(), 500, ids);
        let err = swath_lab::measure::measure(&m, &ctx, 500, false).unwrap_err().to_string();
        assert!(err.contains("WRONG ANSWER") && err.contains("ids sum to"), "{}: {err}", m.name);
        let ctx = csv_ctx(&dir.0, &data, 500, ids);
        let err = swath_lab::measure::measure(&m, &ctx, 501, false).unwrap_err().to_string();
        assert!(err.contains("counted 500 records, expected 501"), "{}: {err}", m.name);
        assert_eq!(swath_lab::measure::measure(&m, &ctx, 500, false).unwrap().lines, 500);
    }
    // The count has only its count to be wrong about.
    let count = methods::find("csv-count").unwrap();
    let ctx = csv_ctx(&dir.0, &data, 500, ids);
    let err = swath_lab::measure::measure(&count, &ctx, 501, false).unwrap_err().to_string();
    assert!(err.contains("counted 500 records, expected 501"), "{err}");
    // The typed scan on the bad file reads the same ids, so it fails the same.
    let typed = methods::find("csv-typed").unwrap();
    let ctx = csv_ctx(&dir.0, bad.as_bytes(), 500, ids);
    assert!(swath_lab::measure::measure(&typed, &ctx, 500, false).is_err());
    // A field that is not the typed column's type is an error naming it.
    let ctx = csv_ctx(&dir.0, b"id,name,score,active,city,ts\n1,a,x,true,b,c\n", 1, 1);
    let err = typed.run(&ctx).unwrap_err().to_string();
    assert!(err.contains("record 2"), "{err}");
}

#[test]
fn lines_is_not_applicable_to_bytes_that_are_not_utf8() {
    let dir = Dir::new("utf8");
    let file = dir.0.join("input");
    fs::write(&file, b"fine\nalso fine\nbad \xff byte\nafter\n").unwrap();
    let ctx = Ctx {
        file,
        scratch: dir.0.clone(),
        prefix: 0,
        write_lines: 0,
        large_write: 0,
        csv: PathBuf::new(),
        csv_records: 0,
        csv_id_sum: 0,
        ..Ctx::default()
    };
    let lines = methods::find("lines").unwrap();
    let err = lines.run(&ctx).unwrap_err();
    assert_eq!(methods::as_not_applicable(&err), Some("invalid UTF-8 at line 3"));
    let failure = swath_lab::measure::measure(&lines, &ctx, 4, false).unwrap_err();
    assert_eq!(
        failure,
        swath_lab::measure::Failure::NotApplicable("invalid UTF-8 at line 3".into())
    );
    // Byte readers do not care.
    let read = methods::find("read-4K").unwrap();
    assert_eq!(swath_lab::measure::measure(&read, &ctx, 4, false).unwrap().lines, 4);
    // A plain I/O error is not "not applicable".
    assert!(methods::as_not_applicable(&std::io::Error::other("boom")).is_none());
}

/// Larger than memory: each reader that evicts behind itself leaves (next
/// to) nothing of the file in the page cache, and still counts right. On a
/// disk-backed directory (the target dir), as tmpfs files are memory.
#[test]
fn readers_evict_behind_themselves() {
    let base =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("behind-{}", std::process::id()));
    fs::create_dir_all(&base).unwrap();
    let dir = Dir(base);
    let storage = swath_lab::os::storage(&dir.0).unwrap();
    if storage.in_memory() {
        assert!(std::env::var_os("CI").is_none(), "CI: the target dir is on {}", storage.fs_type);
        eprintln!("SKIPPED: the target dir is on {}, which cannot evict", storage.fs_type);
        return;
    }
    let size = 6 << 20;
    let mut data = Vec::new();
    log::write(&mut data, size).unwrap();
    let file = dir.0.join("input");
    fs::write(&file, &data).unwrap();
    // Written back before the readers drop pages behind them: a dirty page
    // cannot be dropped (DONTNEED skips it), and on a loaded machine the
    // writeback had not run yet ("pread-cores: 21% still cached" in a CI
    // rehearsal, where the test passes alone).
    fs::File::open(&file).unwrap().sync_all().unwrap();
    let ctx = Ctx { file, scratch: dir.0.clone(), prefix: 1 << 20, behind: true, ..Ctx::default() };
    let lines = log::line_count(size);
    let prefix = log::line_count(ctx.prefix);
    let evicting = methods::all()
        .into_iter()
        .filter(|m| m.out_of_cache().contains("behind") && m.kind != Kind::Prefix);
    let mut n = 0;
    for m in evicting {
        let s = swath_lab::measure::measure(&m, &ctx, m.expected(&ctx, lines, prefix), true)
            .unwrap_or_else(|e| panic!("{}: {e}", m.name));
        let after = s.residency_after.expect("measured after a larger-than-ram run");
        assert!(after < 0.05, "{}: {:.0}% of the file still cached", m.name, after * 100.0);
        n += 1;
    }
    assert!(n >= 10, "{n} evicting methods");
    // fs::read cannot read a file larger than memory: not applicable.
    let err = methods::find("fs-read").unwrap().run(&ctx).unwrap_err();
    assert!(methods::as_not_applicable(&err).unwrap().contains("larger than memory"));
}

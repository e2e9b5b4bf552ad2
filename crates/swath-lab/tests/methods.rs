//! Every method finds the right count, checked against the slow, obvious
//! scalar count, on files of several shapes.

use std::fs;
use std::path::{Path, PathBuf};

use swath::count::Kernel;
use swath_lab::gen::{csv, log};
use swath_lab::methods::{self, Ctx, Kind};

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
    Kernel::Scalar.count(data, b'\n') + u64::from(data.last().is_some_and(|&b| b != b'\n'))
}

fn check_all(dir: &Path, data: &[u8]) {
    let file = dir.join("input");
    fs::write(&file, data).unwrap();
    let ctx = Ctx {
        file,
        scratch: dir.to_path_buf(),
        prefix: 100_000.min(data.len() as u64),
        write_lines: 1000,
        large_write: 1 << 20,
    };
    let file_lines = slow_lines(data);
    let prefix_lines = slow_lines(&data[..ctx.prefix as usize]);
    for m in methods::all() {
        let out = m.run(&ctx).unwrap_or_else(|e| panic!("{}: {e}", m.name));
        let found = m.check(&ctx, &out).unwrap();
        let expected = m.expected(&ctx, file_lines, prefix_lines);
        assert_eq!(found, expected, "{} on {} bytes", m.name, data.len());
        match m.kind {
            Kind::Read => assert_eq!(out.bytes, data.len() as u64, "{}", m.name),
            Kind::Prefix => assert_eq!(out.bytes, ctx.prefix, "{}", m.name),
            Kind::Write => assert!(!dir.join(format!("{}.out", m.name)).exists()),
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
    let ctx = Ctx { file, scratch: dir.0.clone(), prefix: 8, write_lines: 10, large_write: 0 };
    let m = methods::find("read-4K").unwrap();
    let err = swath_lab::measure::measure(&m, &ctx, 3, false).unwrap_err();
    assert!(err.contains("WRONG ANSWER") && err.contains("counted 2"), "{err}");
    let ok = swath_lab::measure::measure(&m, &ctx, 2, false).unwrap();
    assert_eq!(ok.lines, 2);
    assert_eq!(ok.bytes, 8);
    assert!(ok.residency.is_some());
}

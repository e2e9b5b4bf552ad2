//! `swath csv split` and `swath split` against slow twins: the parts'
//! records, read back one part at a time, joined, are the sequential
//! reader's records of the file (quoted newlines at every seam, CRLF, BOM,
//! 1 to 64 parts); line parts are GNU `split -n l/N`'s bytes; a malformed
//! record is the sequential reader's error and leaves no part behind.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use swath_csv::ReaderBuilder;
use swath_testkit::{csv_document, CsvShape};

fn swath() -> Command {
    Command::cargo_bin("swath").unwrap()
}

type Fields = Vec<Vec<u8>>;

/// The header row and the records of a CSV file, read sequentially
/// (gzip and zstd recognised by their magic bytes).
fn records(path: &Path) -> (Option<Fields>, Vec<Fields>) {
    let mut rdr = ReaderBuilder::new().from_path(path).unwrap();
    let head = rdr.headers().unwrap().map(|h| h.iter().map(<[u8]>::to_vec).collect());
    let mut out = Vec::new();
    while let Some(rec) = rdr.next_record().unwrap() {
        out.push(rec.iter().map(<[u8]>::to_vec).collect());
    }
    (head, out)
}

fn parts_in(dir: &Path) -> Vec<PathBuf> {
    if !dir.exists() {
        return Vec::new();
    }
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    v.sort();
    v
}

/// Split `file` with `args` into a fresh directory; check the parts and
/// return how many there are.
fn split_and_check(file: &Path, args: &[&str]) -> usize {
    let out = tempfile::tempdir().unwrap();
    swath()
        .args(["csv", "split"])
        .arg(file)
        .args(args)
        .arg("-o")
        .arg(out.path())
        .assert()
        .success();
    let (head, want) = records(file);
    let mut got = Vec::new();
    let parts = parts_in(out.path());
    for p in &parts {
        let (h, recs) = records(p);
        assert_eq!(h, head, "{args:?}: {} has the header row", p.display());
        got.extend(recs);
    }
    assert_eq!(got.len(), want.len(), "{args:?}");
    assert!(got == want, "{args:?}: the parts' records are not the file's");
    parts.len()
}

#[test]
fn parts_joined_are_the_file_for_1_to_64_parts() {
    let dir = tempfile::tempdir().unwrap();
    let shapes = [
        ("lf.csv", CsvShape::default()),
        ("crlf-bom.csv", CsvShape { crlf: true, bom: true, no_final_newline: true }),
    ];
    for (seed, (name, shape)) in shapes.into_iter().enumerate() {
        let path = dir.path().join(name);
        std::fs::write(&path, csv_document(seed as u64 + 11, 30, shape)).unwrap();
        for n in 1..=64 {
            let s = n.to_string();
            assert_eq!(split_and_check(&path, &["-n", &s]), n, "{name}: -n {n}");
        }
        for rows in [1, 2, 7, 29, 30, 100] {
            let s = rows.to_string();
            let parts = split_and_check(&path, &["--rows", &s]);
            assert_eq!(parts, 30usize.div_ceil(rows), "{name}: --rows {rows}");
        }
        for bytes in ["16", "100", "1K"] {
            split_and_check(&path, &["--bytes", bytes]);
        }
        split_and_check(&path, &["-n", "5", "--gzip"]);
        split_and_check(&path, &["-n", "5", "--zstd"]);
        // With an index (checkpoints every 64 bytes) the same.
        swath().args(["csv", "index", "--interval", "64"]).arg(&path).assert().success();
        for n in [1, 3, 9, 40] {
            assert_eq!(split_and_check(&path, &["-n", &n.to_string()]), n);
        }
        split_and_check(&path, &["--rows", "4"]);
    }
}

#[test]
fn parts_are_the_input_bytes_and_json_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    let data = csv_document(3, 40, CsvShape { crlf: true, ..CsvShape::default() });
    std::fs::write(&path, &data).unwrap();
    let out = dir.path().join("parts");
    let run = swath()
        .args(["csv", "split", "-n", "4", "--json", "--prefix", "p-"])
        .arg(&path)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    assert!(run.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let parts = doc["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 4);
    let header = b"id,text,n\r\n";
    let mut records = 0;
    for (i, p) in parts.iter().enumerate() {
        let (start, end) = (p["start"].as_u64().unwrap(), p["end"].as_u64().unwrap());
        let bytes = std::fs::read(p["path"].as_str().unwrap()).unwrap();
        let body = &data[start as usize..end as usize];
        let want = if i == 0 { body.to_vec() } else { [&header[..], body].concat() };
        assert_eq!(bytes, want, "part {i}: copied, not re-encoded");
        records += p["records"].as_u64().unwrap();
    }
    assert_eq!(parts.last().unwrap()["end"].as_u64().unwrap(), data.len() as u64);
    assert_eq!(records, 40);
    assert!(out.join("p-0001.csv").exists());
}

#[test]
fn a_malformed_record_is_the_sequential_error_and_leaves_no_part() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.csv");
    let mut data = csv_document(8, 40, CsvShape::default());
    let at = data.len() - 40;
    let nl = at + data[at..].iter().position(|&c| c == b'\n').unwrap() + 1;
    data.splice(nl..nl, b"77,ab\"c,1\n".iter().copied());
    std::fs::write(&path, &data).unwrap();
    let want = {
        let mut rdr = ReaderBuilder::new().from_path(&path).unwrap();
        loop {
            match rdr.next_record() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("no error"),
                Err(e) => break e.to_string(),
            }
        }
    };
    for n in ["1", "2", "5", "16"] {
        let out = dir.path().join(format!("out{n}"));
        let run = swath()
            .args(["csv", "split", "-n", n])
            .arg(&path)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2), "-n {n}");
        let err = String::from_utf8_lossy(&run.stderr);
        assert!(err.contains(&want), "-n {n}: {err}\nwant {want}");
        assert!(parts_in(&out).is_empty(), "-n {n}: parts left: {:?}", parts_in(&out));
    }
}

/// GNU `split -n l/N`, the twin of `swath split -n N`.
fn gnu_split(file: &Path, n: usize, dir: &Path) -> Option<Vec<Vec<u8>>> {
    let run = std::process::Command::new("split")
        .arg("-n")
        .arg(format!("l/{n}"))
        .arg(file)
        .arg(dir.join("x"))
        .output();
    match run {
        Ok(o) if o.status.success() => {}
        _ => return None,
    }
    Some(parts_in(dir).iter().map(|p| std::fs::read(p).unwrap()).collect())
}

#[test]
fn line_parts_are_gnu_splits() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = swath_testkit::Rng::new(5);
    for case in 0..12 {
        let len = [0, 3, 40, 200, 1000][case % 5];
        let mut data = rng.bytes(len, b"abc\n\n");
        if case % 2 == 0 {
            data.push(b'\n');
        }
        let path = dir.path().join(format!("f{case}.log"));
        std::fs::write(&path, &data).unwrap();
        for n in [1, 2, 3, 7, 16] {
            let gnu_dir = tempfile::tempdir().unwrap();
            let Some(gnu) = gnu_split(&path, n, gnu_dir.path()) else {
                eprintln!("\n*** SKIPPED: GNU split is not on PATH; `swath split` not compared with it ***\n");
                return;
            };
            let out = tempfile::tempdir().unwrap();
            swath()
                .args(["split", "-n", &n.to_string()])
                .arg(&path)
                .arg("-o")
                .arg(out.path())
                .assert()
                .success();
            let ours: Vec<Vec<u8>> =
                parts_in(out.path()).iter().map(|p| std::fs::read(p).unwrap()).collect();
            assert_eq!(ours.len(), n);
            assert_eq!(ours, gnu, "case {case} ({len} bytes), -n {n}");
        }
    }
}

/// The parts `swath csv split FILE ARGS` writes (name and bytes, in name
/// order), and its stderr.
fn split_parts(file: &Path, args: &[&str]) -> (Vec<(String, Vec<u8>)>, String) {
    let out = tempfile::tempdir().unwrap();
    let run = swath()
        .args(["csv", "split", "-v"])
        .arg(file)
        .args(args)
        .arg("-o")
        .arg(out.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(run.status.success(), "{args:?}: {err}");
    let parts = parts_in(out.path())
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(p).unwrap())
        })
        .collect();
    (parts, err)
}

#[test]
fn the_fast_paths_write_the_plain_paths_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let shapes = [
        ("lf.csv", CsvShape::default()),
        ("crlf.csv", CsvShape { crlf: true, ..CsvShape::default() }),
        ("crlf-bom-open.csv", CsvShape { crlf: true, bom: true, no_final_newline: true }),
        ("open.csv", CsvShape { no_final_newline: true, ..CsvShape::default() }),
    ];
    let cases: [&[&str]; 8] = [
        &["-n", "1"],
        &["-n", "2"],
        &["-n", "7"],
        &["-n", "33"],
        &["--rows", "3"],
        &["--bytes", "50"],
        &["-n", "4", "--gzip"],
        &["-n", "4", "--zstd"],
    ];
    for (seed, (name, shape)) in shapes.into_iter().enumerate() {
        let path = dir.path().join(name);
        std::fs::write(&path, csv_document(seed as u64 + 40, 60, shape)).unwrap();
        for args in cases {
            // The slow twin: each part's records read before it is copied.
            let plain = [args, &["--each-part", "--no-index"]].concat();
            let (want, err) = split_parts(&path, &plain);
            assert!(err.contains("each part's records read"), "{name} {args:?}: {err}");
            assert!(!want.is_empty());
            // Fused: the validating count alongside the copies.
            let (fused, err) = split_parts(&path, &[args, &["--no-index"]].concat());
            assert!(err.contains("a validating count"), "{name} {args:?}: {err}");
            assert!(fused == want, "{name} {args:?}: fused parts differ from the plain ones");
        }
        // With an index: copies only, the cuts from its checkpoints.
        for interval in ["64", "1M"] {
            let idx = dir.path().join(format!("{name}.{interval}.idx"));
            swath()
                .args(["csv", "index", "--interval", interval, "--index-file"])
                .arg(&idx)
                .arg(&path)
                .assert()
                .success();
            for args in cases {
                let (want, _) =
                    split_parts(&path, &[args, &["--each-part", "--no-index"]].concat());
                let with_index = [args, &["--index-file", idx.to_str().unwrap()]].concat();
                let (got, err) = split_parts(&path, &with_index);
                assert!(err.contains("plan: Index; checks: none"), "{name} {args:?}: {err}");
                assert!(got == want, "{name} {args:?} (index every {interval}): parts differ");
            }
        }
    }
}

/// The sequential reader's first error in `path`.
fn sequential_error(path: &Path) -> String {
    let mut rdr = ReaderBuilder::new().from_path(path).unwrap();
    loop {
        match rdr.next_record() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("no error in {}", path.display()),
            Err(e) => break e.to_string(),
        }
    }
}

#[test]
fn a_bad_record_in_the_middle_fails_every_path_and_leaves_no_part() {
    let dir = tempfile::tempdir().unwrap();
    let good = csv_document(9, 400, CsvShape { crlf: true, ..CsvShape::default() });
    let path = dir.path().join("mid.csv");
    std::fs::write(&path, &good).unwrap();
    // An index of the file as it was: stale once a middle byte changes.
    swath().args(["csv", "index", "--interval", "64"]).arg(&path).assert().success();
    let bad_at = |data: &[u8]| {
        let mid = data.len() / 2;
        mid + data[mid..].windows(2).position(|w| w == b"\n1" || w == b"\n2").unwrap() + 1
    };
    // A bare quote (a strict error that flips the quote parity after it),
    // and a record with a field too many.
    let mut bare = good.clone();
    let at = bad_at(&bare);
    bare[at + 1] = b'"';
    let mut wide = good.clone();
    let at = bad_at(&wide);
    wide.splice(at..at, b"5,x,1,extra\r\n".iter().copied());
    for (what, data) in [("bare quote", &bare), ("extra field", &wide)] {
        std::fs::write(&path, data).unwrap();
        let want = sequential_error(&path);
        for extra in [&[][..], &["--no-index"], &["--each-part"]] {
            for n in ["1", "2", "3", "8", "64"] {
                let out = dir.path().join(format!("out-{n}"));
                let run = swath()
                    .args(["csv", "split", "-n", n])
                    .args(extra)
                    .arg(&path)
                    .arg("-o")
                    .arg(&out)
                    .output()
                    .unwrap();
                let err = String::from_utf8_lossy(&run.stderr);
                assert_eq!(run.status.code(), Some(2), "{what} {extra:?} -n {n}: {err}");
                assert!(err.contains(&want), "{what} {extra:?} -n {n}: {err}\nwant {want}");
                assert!(
                    parts_in(&out).is_empty(),
                    "{what} -n {n}: parts left: {:?}",
                    parts_in(&out)
                );
            }
        }
    }
}

//! `swath csv slice|tail|sample|index` and `swath tail|sample|index`
//! against slow twins: the records printed are the sequential reader's
//! records with the same numbers, from an index and without one; a sample
//! of every record is the file; a stale index is noticed and not used; a
//! malformed record is the sequential reader's error.

use std::path::Path;

use assert_cmd::Command;
use swath_csv::ReaderBuilder;
use swath_testkit::{csv_document, CsvShape};

fn swath() -> Command {
    Command::cargo_bin("swath").unwrap()
}

type Fields = Vec<Vec<u8>>;

fn read(b: &ReaderBuilder, data: &[u8]) -> (Option<Fields>, Vec<Fields>) {
    let mut rdr = b.from_reader(data).unwrap();
    let head = rdr.headers().unwrap().map(|h| h.iter().map(<[u8]>::to_vec).collect());
    let mut out = Vec::new();
    while let Some(rec) = rdr.next_record().unwrap() {
        out.push(rec.iter().map(<[u8]>::to_vec).collect());
    }
    (head, out)
}

/// Run swath with `args`; its output parsed as CSV.
fn run_csv(args: &[&str], file: &Path, b: &ReaderBuilder) -> (Option<Fields>, Vec<Fields>) {
    let out = swath().args(args).arg(file).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    read(b, &out.stdout)
}

/// How the CSV commands are given the file.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Given {
    /// The file, read from its checkpoints (without an index, then with).
    Plain { indexed: bool },
    /// A gzip copy (one member): read front to back.
    Gzip,
    /// The file on standard input: read front to back.
    Stdin,
}

/// Run swath with `args` on `path` given as `how`; its output parsed.
fn run_given(
    args: &[&str],
    path: &Path,
    how: Given,
    b: &ReaderBuilder,
) -> (Option<Fields>, Vec<Fields>) {
    match how {
        Given::Plain { .. } => run_csv(args, path, b),
        Given::Gzip => run_csv(args, &gzip_copy(path), b),
        Given::Stdin => {
            let out = swath().args(args).arg("-").pipe_stdin(path).unwrap().output().unwrap();
            assert!(out.status.success(), "{args:?} -: {}", String::from_utf8_lossy(&out.stderr));
            read(b, &out.stdout)
        }
    }
}

/// `path` compressed beside it as `path.gz`, once.
fn gzip_copy(path: &Path) -> std::path::PathBuf {
    use std::io::Write;
    let gz = path.with_extension("csv.gz");
    if !gz.exists() {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(&std::fs::read(path).unwrap()).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    }
    gz
}

fn files(dir: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let shapes = [
        ("lf.csv", CsvShape::default()),
        ("crlf-bom.csv", CsvShape { crlf: true, bom: true, no_final_newline: true }),
    ];
    shapes
        .into_iter()
        .enumerate()
        .map(|(i, (name, shape))| {
            let data = csv_document(i as u64 + 21, 40, shape);
            let path = dir.join(name);
            std::fs::write(&path, &data).unwrap();
            (path, data)
        })
        .collect()
}

#[test]
fn slice_and_tail_are_the_sequential_records() {
    let dir = tempfile::tempdir().unwrap();
    let b = ReaderBuilder::new();
    for (path, data) in files(dir.path()) {
        let (head, all) = read(&b, &data);
        let ways = [
            Given::Plain { indexed: false },
            Given::Plain { indexed: true },
            Given::Gzip,
            Given::Stdin,
        ];
        for how in ways {
            if how == (Given::Plain { indexed: true }) {
                swath().args(["csv", "index", "--interval", "50"]).arg(&path).assert().success();
            }
            let what = format!("{} {how:?}", path.display());
            for n in [0usize, 1, 3, 39, 40, 41, 100] {
                let (h, got) = run_given(&["csv", "tail", "-n", &n.to_string()], &path, how, &b);
                assert_eq!(h, head, "{what}: tail -n {n}");
                assert_eq!(got, all[all.len().saturating_sub(n)..], "{what}: tail -n {n}");
            }
            for (start, end) in
                [(1, 1), (1, 40), (2, 5), (17, 33), (40, 40), (39, 100), (41, 50), (5, 3)]
            {
                let args =
                    ["csv", "slice", "--start", &start.to_string(), "--end", &end.to_string()];
                let (h, got) = run_given(&args, &path, how, &b);
                assert_eq!(h, head);
                let want = all.get(start - 1..end.min(all.len())).unwrap_or_default();
                assert_eq!(got, want, "{what}: slice {start}..={end}");
                let len = (end + 1).saturating_sub(start).to_string();
                let args = ["csv", "slice", "--start", &start.to_string(), "--len", &len];
                assert_eq!(run_given(&args, &path, how, &b).1, want, "{what}: --len");
            }
        }
    }
    // --no-headers: record 1 is the header row, as the sequential reader has it.
    let path = dir.path().join("lf.csv");
    let mut nh = ReaderBuilder::new();
    nh.has_headers(false);
    let (_, all) = read(&nh, &std::fs::read(&path).unwrap());
    let (h, got) =
        run_csv(&["csv", "slice", "--no-headers", "--start", "1", "--len", "2"], &path, &nh);
    assert!(h.is_none());
    assert_eq!(got, all[..2]);
}

#[test]
fn sample_is_uniform_reproducible_and_all_of_it_is_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let b = ReaderBuilder::new();
    for (path, data) in files(dir.path()) {
        let (head, all) = read(&b, &data);
        let (h, got) = run_csv(&["csv", "sample", "-n", "40"], &path, &b);
        assert_eq!(h, head);
        assert_eq!(got, all, "a sample of every record is the file");
        assert_eq!(run_csv(&["csv", "sample", "-n", "1000"], &path, &b).1, all);
        let a = run_csv(&["csv", "sample", "-n", "7", "--seed", "3"], &path, &b).1;
        swath().args(["csv", "index", "--interval", "30"]).arg(&path).assert().success();
        let again = run_csv(&["csv", "sample", "-n", "7", "--seed", "3"], &path, &b).1;
        assert_eq!(a, again, "the same seed, with an index or without, the same sample");
        let from_gz =
            run_given(&["csv", "sample", "-n", "7", "--seed", "3"], &path, Given::Gzip, &b);
        assert_eq!(
            (&from_gz.0, &from_gz.1),
            (&head, &a),
            "the same seed, compressed, the same sample"
        );
        // Standard input cannot be read twice: refused, saying why.
        let out = swath()
            .args(["csv", "sample", "-n", "3", "-"])
            .pipe_stdin(&path)
            .unwrap()
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be read twice"));
        assert_eq!(a.len(), 7);
        // In file order, each a record of the file.
        let at: Vec<usize> = a.iter().map(|r| all.iter().position(|x| x == r).unwrap()).collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{at:?}");
    }
    // Every record about equally often: 300 samples of 4 of 40.
    let path = dir.path().join("lf.csv");
    let all = read(&b, &std::fs::read(&path).unwrap()).1;
    let mut hits = vec![0u32; all.len()];
    for seed in 0..300 {
        for r in run_csv(&["csv", "sample", "-n", "4", "--seed", &seed.to_string()], &path, &b).1 {
            hits[all.iter().position(|x| *x == r).unwrap()] += 1;
        }
    }
    // 30 expected each; a record never or far too often chosen is a bias.
    assert!(hits.iter().all(|&h| (10..60).contains(&h)), "{hits:?}");
}

#[test]
fn a_stale_index_is_noticed_and_not_used() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    let data = csv_document(4, 30, CsvShape::default());
    std::fs::write(&path, &data).unwrap();
    let b = ReaderBuilder::new();
    let out =
        swath().args(["csv", "index", "--json", "--interval", "40"]).arg(&path).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["records"], 31);
    assert!(doc["checkpoints"].as_u64().unwrap() > 5);
    let tail = |data: &[u8]| {
        std::fs::write(&path, data).unwrap();
        let out = swath().args(["csv", "tail", "-n", "2"]).arg(&path).output().unwrap();
        assert!(out.status.success());
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        (read(&b, &out.stdout).1, stderr)
    };
    let mut longer = data.clone();
    longer.extend_from_slice(b"99,new,1\n");
    let (got, note) = tail(&longer);
    assert!(note.contains("ignoring the stale index"), "{note}");
    assert_eq!(got, read(&b, &longer).1[29..]);
    // A middle byte rewritten (same length): the time or the hash.
    let mut changed = data.clone();
    let mid = changed.iter().rposition(|&c| c == b'p').unwrap();
    changed[mid] = b'P';
    let (got, note) = tail(&changed);
    assert!(note.contains("ignoring the stale index"), "{note}");
    assert_eq!(got, read(&b, &changed).1[28..]);
    // Another dialect is another index.
    std::fs::write(&path, &data).unwrap();
    swath().args(["csv", "index"]).arg(&path).assert().success();
    let out = swath().args(["csv", "tail", "--lenient"]).arg(&path).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("other settings"));
    let out = swath().args(["csv", "tail"]).arg(&path).output().unwrap();
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_malformed_record_is_the_sequential_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.csv");
    let mut data = csv_document(6, 30, CsvShape::default());
    let nl = data.len() / 2 + data[data.len() / 2..].iter().position(|&c| c == b'\n').unwrap() + 1;
    data.splice(nl..nl, b"5,x\"y,1\n".iter().copied());
    std::fs::write(&path, &data).unwrap();
    let mut rdr = ReaderBuilder::new().from_path(&path).unwrap();
    let want = loop {
        match rdr.next_record() {
            Ok(Some(_)) => {}
            Ok(None) => panic!("no error"),
            Err(e) => break e.to_string(),
        }
    };
    for args in [
        &["csv", "slice", "--start", "10", "--len", "30"][..],
        &["csv", "tail", "-n", "3"],
        &["csv", "sample", "-n", "3"],
        &["csv", "index"],
    ] {
        let out = swath().args(args).arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&want), "{args:?}: {err}\nwant: {want}");
        if args[1] == "index" {
            continue;
        }
        // Read front to back from a compressed copy: the same error; tail
        // and sample print nothing.
        let out = swath().args(args).arg(gzip_copy(&path)).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?} .gz");
        let err = String::from_utf8_lossy(&out.stderr);
        // The same position, in the copy's name.
        let at = want.split_once(": ").map_or(want.as_str(), |(_, rest)| rest);
        assert!(err.contains("bad.csv.gz: record") && err.contains(at), "{args:?} .gz: {err}");
        if args[1] != "slice" {
            assert!(out.stdout.is_empty(), "{args:?} .gz printed {:?}", out.stdout);
        }
    }
    assert!(!dir.path().join("bad.csv.swathidx").exists());
}

/// The slow twins of the line commands.
fn lines_of(data: &[u8]) -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = data.split_inclusive(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
    if let Some(last) = v.last_mut() {
        if !last.ends_with(b"\n") {
            last.push(b'\n');
        }
    }
    v
}

#[test]
fn line_tail_sample_and_index() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = swath_testkit::Rng::new(9);
    for case in 0..6 {
        let mut data = rng.bytes([0, 1, 30, 300, 2000, 5000][case], b"ab\r\n\n");
        if case % 2 == 1 {
            data.push(b'\n');
        }
        let path = dir.path().join(format!("f{case}.log"));
        std::fs::write(&path, &data).unwrap();
        let lines = lines_of(&data);
        for n in [0, 1, 2, 10, 5000] {
            let out = swath().args(["tail", "-n", &n.to_string()]).arg(&path).output().unwrap();
            assert!(out.status.success());
            let from = lines.len().saturating_sub(n);
            let want: Vec<u8> =
                data[lines[..from].iter().map(Vec::len).sum::<usize>().min(data.len())..].to_vec();
            assert_eq!(out.stdout, want, "case {case}: tail -n {n}");
        }
        for with_index in [false, true] {
            if with_index {
                swath().args(["index", "--interval", "64"]).arg(&path).assert().success();
            }
            let out = swath().args(["sample", "-n", "100000"]).arg(&path).output().unwrap();
            assert_eq!(out.stdout, lines.concat(), "case {case}: all lines, index {with_index}");
            let a = swath().args(["sample", "-n", "5", "--seed", "1"]).arg(&path).output().unwrap();
            let got = lines_of(&a.stdout);
            assert_eq!(got.len(), 5.min(lines.len()), "case {case}");
            // In file order: each the next matching line.
            let mut at = 0;
            for l in &got {
                at += lines[at..].iter().position(|x| x == l).expect("a line of the file") + 1;
            }
        }
        // A stale index: appended to, then sampled — the new line is there.
        let mut longer = data.clone();
        longer.extend_from_slice(b"zzz\n");
        std::fs::write(&path, &longer).unwrap();
        let out = swath().args(["sample", "-n", "100000"]).arg(&path).output().unwrap();
        assert!(String::from_utf8_lossy(&out.stderr).contains("stale"));
        assert_eq!(out.stdout, lines_of(&longer).concat());
    }
}

//! `swath json index|slice|tail|sample|split` against their slow twin:
//! the records as serde_json reads the whole input. JSON lines (blank
//! lines and CRLF among them), a top-level array (compact and pretty),
//! CloudTrail's wrapper and pretty objects one after another; without an
//! index, with one (checkpoints 1 KiB apart), with a stale one; on one
//! thread and on two with chunks that cut records everywhere. Every way
//! gives the same records; a broken record is the same error `json count`
//! gives; an input that cannot be read from any place is refused.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{json, Value};

const SWATH: &str = env!("CARGO_BIN_EXE_swath");

fn swath(args: &[&str]) -> Output {
    Command::new(SWATH).args(args).stdin(Stdio::null()).output().unwrap()
}

fn ok(args: &[&str]) -> String {
    let o = swath(args);
    assert!(o.status.success(), "swath {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

fn records(n: usize) -> Vec<Value> {
    (1..=n)
        .map(|i| {
            let s = ["plain", "a ] b", "q \" }", "back \\\\ slash\\", "{\"x\":[1]}", "\n,["][i % 6];
            json!({"id": i, "s": s, "nested": {"xs": [i, s], "n": null}})
        })
        .collect()
}

/// The records a run printed, one JSON line each.
fn parsed(out: &str) -> Vec<Value> {
    out.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}"))).collect()
}

/// The forms of the same records: (name, bytes).
fn forms(recs: &[Value]) -> Vec<(&'static str, Vec<u8>)> {
    let lines: String = recs
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let end = if i % 7 == 0 { "\r\n" } else { "\n" };
            let blank = if i % 11 == 0 { "  \n" } else { "" };
            format!("{blank}{}{end}", serde_json::to_string(r).unwrap())
        })
        .collect();
    let array = Value::Array(recs.to_vec());
    let values: String =
        recs.iter().map(|r| serde_json::to_string_pretty(r).unwrap() + "\n").collect();
    vec![
        ("lines.jsonl", lines.into_bytes()),
        ("array.json", serde_json::to_vec(&array).unwrap()),
        ("pretty.json", serde_json::to_vec_pretty(&array).unwrap()),
        ("cloudtrail.json", json!({ "Records": array }).to_string().into_bytes()),
        ("values.json", values.into_bytes()),
    ]
}

#[test]
fn every_way_finds_the_records_serde_json_reads() {
    let dir = tempfile::tempdir().unwrap();
    let recs = records(2000);
    let n = recs.len();
    let mut samples: Vec<(String, Vec<Value>)> = Vec::new();
    for (name, bytes) in forms(&recs) {
        let file = dir.path().join(name);
        std::fs::write(&file, &bytes).unwrap();
        let f = file.to_str().unwrap();
        let idx = dir.path().join(format!("{name}.idx"));
        let idx = idx.to_str().unwrap();
        let report = ok(&["json", "index", f, "--index-file", idx, "--interval", "1K", "--json"]);
        let report: Value = serde_json::from_str(&report).unwrap();
        assert_eq!(report["records"], json!(n), "{name}");
        assert!(report["checkpoints"].as_u64().unwrap() > 20, "{name}: {report}");
        let ways: Vec<(&str, Vec<&str>)> = vec![
            ("no index, 1 thread", vec!["--no-index", "-t", "1"]),
            ("no index, 2 threads", vec!["--no-index", "-t", "2", "--chunk-size", "999"]),
            ("the index", vec!["--index-file", idx]),
            ("the index, 2 threads", vec!["--index-file", idx, "-t", "2", "--chunk-size", "333"]),
        ];
        for (how, extra) in &ways {
            let run = |args: &[&str]| {
                let mut a = vec!["json"];
                a.extend_from_slice(args);
                a.push(f);
                a.extend(extra.iter().copied());
                ok(&a)
            };
            for k in [0usize, 1, 7, 1999, 5000] {
                let got = parsed(&run(&["tail", "-n", &k.to_string()]));
                assert_eq!(got, recs[n - k.min(n)..], "{name}, {how}: tail -n {k}");
            }
            for (start, len) in [(1usize, 1usize), (999, 5), (1000, 300), (2000, 3), (2001, 1)] {
                let got = parsed(&run(&[
                    "slice",
                    "--start",
                    &start.to_string(),
                    "--len",
                    &len.to_string(),
                ]));
                let want = &recs[(start - 1).min(n)..(start - 1 + len).min(n)];
                assert_eq!(got, want, "{name}, {how}: slice {start} +{len}");
            }
            let got = parsed(&run(&["slice", "--start", "1990"]));
            assert_eq!(got, recs[1989..], "{name}, {how}: slice to the end");
            // A sample: 25 distinct records in file order, the same for a seed
            // whatever the form and the way.
            let sample = parsed(&run(&["sample", "-n", "25", "--seed", "3"]));
            let ids: Vec<u64> = sample.iter().map(|r| r["id"].as_u64().unwrap()).collect();
            assert_eq!(ids.len(), 25, "{name}, {how}");
            assert!(ids.windows(2).all(|w| w[0] < w[1]), "{name}, {how}: {ids:?}");
            for r in &sample {
                assert_eq!(r, &recs[r["id"].as_u64().unwrap() as usize - 1], "{name}, {how}");
            }
            samples.push((format!("{name}, {how}"), sample));
            assert_eq!(parsed(&run(&["sample", "-n", "5000"])), recs, "{name}, {how}: all");
            // Split: parts of 300 records whose lines are the records.
            let out = dir.path().join(format!("split-{name}-{}", how.replace([' ', ','], "")));
            let o = out.to_str().unwrap();
            let listed: Value =
                serde_json::from_str(&run(&["split", "--rows", "300", "-o", o, "--json"])).unwrap();
            let parts = listed["parts"].as_array().unwrap();
            assert_eq!(parts.len(), 7, "{name}, {how}");
            let mut all = Vec::new();
            for (i, p) in parts.iter().enumerate() {
                assert_eq!(p["first_record"], json!(1 + 300 * i), "{name}, {how}");
                let text = std::fs::read_to_string(p["path"].as_str().unwrap()).unwrap();
                let got = parsed(&text);
                assert_eq!(json!(got.len()), p["records"], "{name}, {how}");
                all.extend(got);
            }
            assert_eq!(all, recs, "{name}, {how}: the parts");
        }
        // JSON lines come out as they are (without the `\r`).
        if name.ends_with(".jsonl") {
            let text = String::from_utf8(bytes.clone()).unwrap();
            let want: Vec<&str> = text
                .lines()
                .map(|l| l.trim_end_matches('\r'))
                .filter(|l| !l.trim().is_empty())
                .collect();
            assert_eq!(ok(&["json", "tail", "-n", "3", f]), want[n - 3..].join("\n") + "\n");
        }
        // An index of other records (a path asked for that is not there) is
        // not used; one made before the file changed is ignored, said.
        std::fs::write(&file, [bytes.as_slice(), b"\n"].concat()).unwrap();
        let o = swath(&["json", "tail", "-n", "2", f, "--index-file", idx]);
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(parsed(&String::from_utf8(o.stdout).unwrap()), recs[n - 2..], "{name}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("ignoring the index") && err.contains("bytes now"), "{name}: {err}");
    }
    let first = &samples[0].1;
    for (how, s) in &samples {
        assert_eq!(s, first, "the sample of {how}");
    }
}

#[test]
fn a_broken_record_is_the_error_count_gives() {
    let dir = tempfile::tempdir().unwrap();
    let recs = records(500);
    for (name, bytes) in forms(&recs) {
        let text = String::from_utf8(bytes).unwrap();
        // Record 300's id value broken: `"id": 300` becomes `"id": 300,}`-like.
        let at = text.find("\"id\":300").or_else(|| text.find("\"id\": 300")).unwrap();
        let end = at + text[at..].find(['}', ',']).unwrap();
        let broken = format!("{},}}{}", &text[..end], &text[end..]);
        let file = dir.path().join(name);
        std::fs::write(&file, &broken).unwrap();
        let f = file.to_str().unwrap();
        let count = swath(&["json", "count", f]);
        assert_eq!(count.status.code(), Some(2), "{name}");
        let want = String::from_utf8_lossy(&count.stderr).to_string();
        // A wrapper is found only when its one member reads whole (within the
        // first MiB): broken, the file is read as lines, one record, and the
        // error is at its byte all the same.
        let place =
            if name == "cloudtrail.json" { "record 1 (line 1, byte" } else { "record 300 (line" };
        assert!(want.contains(place), "{name}: {want}");
        for cmd in [
            vec!["tail", "-n", "1"],
            vec!["slice", "--start", "1", "--len", "1"],
            vec!["sample", "-n", "3"],
        ] {
            for threads in ["1", "2"] {
                let mut args = vec!["json"];
                args.extend(cmd.iter().copied());
                args.extend([f, "-t", threads, "--chunk-size", "500"]);
                let o = swath(&args);
                assert_eq!(o.status.code(), Some(2), "{name}: {args:?}");
                assert!(o.stdout.is_empty(), "{name}: {args:?}: printed before the error");
                assert_eq!(String::from_utf8_lossy(&o.stderr), want, "{name}: {args:?}");
            }
        }
        let out = dir.path().join(format!("parts-{name}"));
        let o = swath(&["json", "split", f, "-n", "3", "-o", out.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{name}");
        assert!(
            !out.exists() || std::fs::read_dir(&out).unwrap().next().is_none(),
            "{name}: parts left"
        );
        let o = swath(&[
            "json",
            "index",
            f,
            "--index-file",
            out.with_extension("idx").to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{name}");
        assert!(!out.with_extension("idx").exists(), "{name}: an index of a broken file");
    }
}

#[test]
fn inputs_that_cannot_be_read_from_any_place_are_refused_or_read_front_to_back() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a.json");
    std::fs::write(&file, "[{\"a\":1},{\"a\":2}]").unwrap();
    let gz = dir.path().join("a.json.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut enc, b"[{\"a\":1},{\"a\":2}]").unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    for cmd in ["index", "tail", "sample", "slice", "split"] {
        let extra: &[&str] = match cmd {
            "sample" => &["-n", "1", "--seed", "3"],
            "slice" => &["--start", "1"],
            "split" => &["-n", "2", "-o"],
            _ => &[],
        };
        let mut args = vec!["json", cmd, gz.to_str().unwrap()];
        args.extend(extra);
        if cmd == "split" {
            args.push(dir.path().to_str().unwrap());
        }
        let o = swath(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        if ["tail", "sample", "slice"].contains(&cmd) {
            // These read a compressed file front to back: the plain answer.
            assert_eq!(o.status.code(), Some(0), "{cmd}: {err}");
            let plain: Vec<&str> = args
                .iter()
                .map(|a| if *a == args[2] { file.to_str().unwrap() } else { a })
                .collect();
            assert_eq!(o.stdout, swath(&plain).stdout, "{cmd}");
            assert!(!o.stdout.is_empty(), "{cmd}");
        } else {
            assert_eq!(o.status.code(), Some(2), "{cmd}: {err}");
            assert!(
                err.contains("gzip-compressed input cannot be read from any place"),
                "{cmd}: {err}"
            );
        }
        let o = Command::new(SWATH)
            .args(["json", cmd, "-"].iter().chain(extra.iter()))
            .args(if cmd == "split" { vec![dir.path().to_str().unwrap()] } else { vec![] })
            .stdin(std::fs::File::open(&file).unwrap())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{cmd} of stdin: {err}");
        assert!(err.contains("needs a regular file, not standard input"), "{cmd}: {err}");
    }
    assert!(Path::new(&file).exists());
}

#[test]
fn a_broken_record_in_a_compressed_file_is_json_counts_error() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..10 {
        text.push_str(&if i == 5 {
            "{\"a\": 5,}\n".to_string()
        } else {
            format!("{{\"a\":{i}}}\n")
        });
    }
    let plain = dir.path().join("b.jsonl");
    std::fs::write(&plain, &text).unwrap();
    let gz = dir.path().join("b.jsonl.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut enc, text.as_bytes()).unwrap();
    std::fs::write(&gz, enc.finish().unwrap()).unwrap();
    let want =
        String::from_utf8(swath(&["json", "count", plain.to_str().unwrap()]).stderr).unwrap();
    let at = want.split_once("b.jsonl: ").map(|(_, rest)| rest.trim().to_string()).unwrap();
    assert!(at.contains("line 6"), "{want}");
    for args in
        [&["tail", "-n", "2"][..], &["sample", "-n", "3"], &["slice", "--start", "2", "--len", "9"]]
    {
        let mut all = vec!["json", args[0], gz.to_str().unwrap()];
        all.extend(&args[1..]);
        let o = swath(&all);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&at), "{args:?}: {err}\nwant: {at}");
        if args[0] != "slice" {
            assert!(o.stdout.is_empty(), "{args:?} printed {:?}", o.stdout);
        }
    }
}

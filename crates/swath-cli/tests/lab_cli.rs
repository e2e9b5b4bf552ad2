//! `swath lab` through the real binary, on small sizes and one run.

use std::fs;
use std::path::Path;
use std::process::Command as StdCommand;

use assert_cmd::Command;
use serde_json::Value;
use swath_lab::gen::log;
use swath_lab::methods::Group;

fn swath() -> Command {
    Command::cargo_bin("swath").unwrap()
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(out)))
}

fn method<'v>(doc: &'v Value, name: &str) -> &'v Value {
    doc["methods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == name)
        .unwrap_or_else(|| panic!("no method {name}"))
}

#[test]
fn every_method_is_right_and_the_json_parses() {
    let dir = tempfile::tempdir().unwrap();
    let got = swath()
        .args(["lab", "--size", "4M", "--runs", "1", "--prefix", "64K", "--json"])
        .args(["--csv-rows", "20000"])
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(got.status.success(), "{}", String::from_utf8_lossy(&got.stderr));
    let doc = json_of(&got.stdout);
    let lines = log::line_count(4 << 20);
    assert_eq!(doc["lines"], lines);
    assert_eq!(doc["cache"], "warm");
    let all = doc["methods"].as_array().unwrap();
    // The default set: all but the groups asked for by --direct and --go.
    let default = swath_lab::methods::all()
        .into_iter()
        .filter(|m| matches!(m.group(), Group::Standard | Group::Compressed))
        .count();
    assert_eq!(all.len(), default);
    for m in all {
        if m["not_applicable"].as_str().is_some_and(|w| w.contains("is not on PATH")) {
            // zcat | swath count without zcat (or zstdcat): said, and skipped.
            eprintln!("SKIPPED {}: {}", m["name"], m["not_applicable"]);
            assert!(std::env::var_os("CI").is_none(), "CI installs gzip and zstd: {m}");
            continue;
        }
        assert_eq!(m["ok"], true, "{m}");
        assert!(m["secs"]["median"].as_f64().unwrap() > 0.0, "{m}");
        assert!(m["peak_rss"].as_u64().unwrap() > 0, "{m}");
        if m["kind"] == "read" || m["kind"] == "compressed" {
            assert_eq!(m["lines"], lines, "{m}");
        }
        // Every method says whether a text published a figure for it.
        assert!(m["article"].is_null() == m["vs_article"].is_null(), "{m}");
        if m["kind"] == "csv" {
            assert_eq!(m["lines"], 20_000, "{m}");
        }
    }
    assert_eq!(doc["csv"]["records"], 20_000);
    assert_eq!(doc["csv"]["generated"], true);
    let csv_names: Vec<&str> =
        all.iter().filter(|m| m["kind"] == "csv").map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(
        csv_names,
        ["csv-strings", "csv-borrowed", "csv-typed", "csv-parallel", "csv-count"]
    );
    let per_record = method(&doc, "csv-strings")["allocations"].as_u64().unwrap();
    assert!(per_record >= 7 * 20_000, "csv-strings made {per_record} allocations");
    for name in ["csv-borrowed", "csv-typed"] {
        let n = method(&doc, name)["allocations"].as_u64().unwrap();
        assert!(n < 32, "{name}: {n} allocations");
    }
    let recipes = doc["recipes"].to_string();
    for what in ["A String per CSV field", "Typed scan", "Parallel CSV"] {
        assert!(recipes.contains(what), "{what}: {recipes}");
    }
    // The binary's counting allocator: a String per line, against a constant.
    let per_line = method(&doc, "lines")["allocations"].as_u64().unwrap();
    assert!(per_line >= lines, "lines() made {per_line} allocations");
    for name in ["read-until", "read-256K", "swath-lines"] {
        let n = method(&doc, name)["allocations"].as_u64().unwrap();
        assert!(n < 16, "{name}: {n} allocations");
    }
    assert!(!doc["recipes"].as_array().unwrap().is_empty());
    // The generated file and the write runs are gone.
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[test]
fn cold_reports_a_residency_figure() {
    let dir = tempfile::tempdir().unwrap();
    let got = swath()
        .args(["lab", "--size", "2M", "--runs", "1", "--cold", "--json"])
        .args(["--only", "read-256K,mmap,write-swath"])
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(got.status.success(), "{}", String::from_utf8_lossy(&got.stderr));
    let doc = json_of(&got.stdout);
    assert_eq!(doc["cache"], "cold");
    for name in ["read-256K", "mmap"] {
        let r = method(&doc, name)["residency"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&r), "{name}: {r}");
    }
    assert!(method(&doc, "write-swath")["residency"].is_null());
    assert_eq!(doc["methods"].as_array().unwrap().len(), 3);
}

#[test]
fn table_and_a_well_formed_chart() {
    let dir = tempfile::tempdir().unwrap();
    let chart = dir.path().join("lab.svg");
    let work = dir.path().join("work");
    fs::create_dir(&work).unwrap();
    let got = swath()
        .args(["lab", "--size", "1M", "--runs", "2", "--only", "read-*,mmap,lines,read-until"])
        .arg("--chart")
        .arg(&chart)
        .arg("--dir")
        .arg(&work)
        .output()
        .unwrap();
    assert!(got.status.success(), "{}", String::from_utf8_lossy(&got.stderr));
    let table = String::from_utf8(got.stdout).unwrap();
    assert!(table.contains("warm cache"), "{table}");
    assert!(table.contains("read-8M") && table.contains("read-1M-vec"), "{table}");
    assert!(table.contains("Buffer size:") && table.contains("A String per line"), "{table}");
    assert!(got.stderr.is_empty(), "progress only on a terminal: {:?}", got.stderr);

    let svg = fs::read_to_string(&chart).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("well-formed SVG");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    let count = |tag: &str| root.descendants().filter(|n| n.tag_name().name() == tag).count();
    // This machine's buffer-size line, and the article's published one.
    assert_eq!(count("polyline"), 2, "the buffer-size lines");
    assert!(svg.contains("the article's machine (Go, published)"), "{svg}");
    assert!(svg.contains(">11.8<"), "the article's 1 MiB point, 11.79 GB/s");
    // One bar per method (read-* is 9 of them, + mmap, lines), the two Vec
    // points, the line legend's square, the bar legend's square (all read
    // methods: one kind), the background.
    assert_eq!(count("rect"), 11 + 2 + 1 + 1 + 1);
    assert_eq!(entries(&work), Vec::<String>::new());
}

#[test]
fn a_users_file_is_counted_with_its_own_reference() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mine.txt");
    let mut data = b"alpha\r\nbeta\n\n".repeat(5000);
    data.extend_from_slice(b"no newline at the end");
    fs::write(&file, &data).unwrap();
    let got = swath()
        .args(["lab", "--runs", "1", "--json", "--skip", "write-*", "--file"])
        .arg(&file)
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(got.status.success(), "{}", String::from_utf8_lossy(&got.stderr));
    let doc = json_of(&got.stdout);
    assert_eq!(doc["lines"], 15_001);
    assert_eq!(doc["generated"], false);
    assert_eq!(method(&doc, "byte-read")["lines"], 15_001);
    assert!(fs::metadata(&file).is_ok(), "the user's file stays");
    assert_eq!(entries(dir.path()), ["mine.txt"]);
}

#[test]
fn keep_keeps_the_generated_file() {
    let dir = tempfile::tempdir().unwrap();
    let got = swath()
        .args(["lab", "--size", "100K", "--runs", "1", "--only", "mmap", "--keep", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(got.status.success());
    let stderr = String::from_utf8_lossy(&got.stderr);
    let kept = stderr.trim().strip_prefix("swath: kept ").expect("the kept path");
    assert_eq!(fs::metadata(kept).unwrap().len(), 100 << 10);
}

#[test]
fn refuses_what_does_not_fit_and_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let got = swath().args(["lab", "--size", "1000T", "--dir"]).arg(dir.path()).output().unwrap();
    assert!(!got.status.success());
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert!(stderr.contains("not enough disk space"), "{stderr}");
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn unknown_methods_are_refused_with_the_list() {
    let got = swath().args(["lab", "--only", "nope"]).output().unwrap();
    assert!(!got.status.success());
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert!(stderr.contains("\"nope\"") && stderr.contains("read-256K"), "{stderr}");
    let list = swath().args(["lab", "--list", "--skip", "write-*"]).output().unwrap();
    let text = String::from_utf8(list.stdout).unwrap();
    assert!(text.contains("pread-10") && !text.contains("write-swath"), "{text}");
}

#[test]
fn a_wrong_answer_fails_the_child_loudly() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    fs::write(&file, b"1\n2\n3\n").unwrap();
    let got = swath()
        .args(["lab", "--run-method", "read-4K", "--expect", "4", "--file"])
        .arg(&file)
        .arg("--scratch")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!got.status.success());
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert!(stderr.contains("WRONG ANSWER: counted 3 lines, expected 4"), "{stderr}");
}

#[cfg(unix)]
#[test]
fn ctrl_c_removes_the_generated_file() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("swath"))
        .args(["lab", "--size", "8G", "--only", "mmap", "--dir"])
        .arg(dir.path())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    loop {
        let file = fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.path().join("lab.log"))
            .find(|p| fs::metadata(p).map(|m| m.len() > 0).unwrap_or(false));
        if file.is_some() {
            break;
        }
        assert!(started.elapsed().as_secs() < 30, "no file appeared");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let killed = StdCommand::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    assert_eq!(child.wait().unwrap().code(), Some(130));
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

#[test]
fn a_file_that_is_not_utf8_makes_lines_not_applicable_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("latin1.txt");
    let mut data = b"caf\xe9\n".to_vec();
    data.splice(0..0, b"plain\n".iter().copied());
    fs::write(&file, data.repeat(100)).unwrap();
    let got = swath()
        .args(["lab", "--runs", "1", "--json", "--only", "lines,read-4K,csv*", "--file"])
        .arg(&file)
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(got.status.success(), "{}", String::from_utf8_lossy(&got.stderr));
    let doc = json_of(&got.stdout);
    let lines = method(&doc, "lines");
    assert_eq!(lines["ok"], false);
    assert_eq!(lines["error"], Value::Null);
    assert_eq!(lines["not_applicable"], "invalid UTF-8 at line 2");
    assert_eq!(method(&doc, "read-4K")["lines"], 200);
    // --file without --csv-file: the CSV methods are left out.
    assert_eq!(doc["methods"].as_array().unwrap().len(), 2);
    assert_eq!(doc["csv"], Value::Null);

    let table = swath()
        .args(["lab", "--runs", "1", "--only", "lines,read-4K", "--file"])
        .arg(&file)
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(table.status.success());
    let text = String::from_utf8(table.stdout).unwrap();
    assert!(text.contains("lines: not applicable: invalid UTF-8 at line 2"), "{text}");
}

#[test]
fn a_users_csv_runs_the_csv_methods_and_typed_is_not_applicable() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mine.csv");
    let mut data = b"n,word\n".to_vec();
    for i in 1..=3000u64 {
        data.extend_from_slice(format!("{i},\"w{i}\nx\"\n").as_bytes());
    }
    fs::write(&file, &data).unwrap();
    let got = swath()
        .args(["lab", "--runs", "1", "--json", "--only", "csv*", "--csv-file"])
        .arg(&file)
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(got.status.success(), "{}", String::from_utf8_lossy(&got.stderr));
    let doc = json_of(&got.stdout);
    assert_eq!(doc["csv"]["records"], 3000);
    assert_eq!(doc["csv"]["generated"], false);
    for name in ["csv-strings", "csv-borrowed", "csv-parallel", "csv-count"] {
        assert_eq!(method(&doc, name)["lines"], 3000, "{name}");
    }
    assert!(method(&doc, "csv-typed")["not_applicable"].as_str().unwrap().contains("6 columns"));
    assert_eq!(entries(dir.path()), ["mine.csv"]);

    // `swath gen csv`'s file has the lab's columns: the typed scan runs.
    let gen = dir.path().join("gen.csv");
    swath().args(["gen", "csv", "--rows", "777"]).arg(&gen).assert().success();
    let got = swath()
        .args(["lab", "--runs", "1", "--json", "--only", "csv-typed", "--csv-file"])
        .arg(&gen)
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(got.status.success(), "{}", String::from_utf8_lossy(&got.stderr));
    assert_eq!(method(&json_of(&got.stdout), "csv-typed")["lines"], 777);

    // A wrong reference (the child told 3001) is a loud failure.
    let child = swath()
        .args(["lab", "--run-method", "csv-borrowed", "--expect", "3001", "--file"])
        .arg(&file)
        .arg("--csv-file")
        .arg(&file)
        .args(["--csv-records", "3001", "--csv-id-sum", "4501500", "--scratch"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!child.status.success());
    let stderr = String::from_utf8_lossy(&child.stderr);
    assert!(stderr.contains("WRONG ANSWER: counted 3000 records, expected 3001"), "{stderr}");
}

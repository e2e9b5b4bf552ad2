//! JSON documents through every `json` command and `swath sql`,
//! table-driven from the CLI's own definition: a top-level array (compact
//! and pretty-printed), CloudTrail's `{"Records": [...]}` (gzipped, as
//! CloudTrail writes it), a wrapper found by `--records`, and pretty
//! objects one after another give the answer the same records give as
//! JSON lines, on one thread and on two with chunks small enough to cut
//! records everywhere. A `json` command added later is run here without
//! anyone naming it (with its file alone unless [`args_of`] knows it).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

mod common;

const SWATH: &str = env!("CARGO_BIN_EXE_swath");

fn swath(args: &[String]) -> std::process::Output {
    Command::new(SWATH).args(args).stdin(Stdio::null()).output().unwrap()
}

/// The `json` subcommands, from the CLI's help.
fn json_commands() -> Vec<String> {
    common::commands::leaf_commands()
        .into_iter()
        .filter_map(|(name, _)| name.strip_prefix("json ").map(str::to_string))
        .collect()
}

/// A command's arguments beyond its file (`{out}`: a directory of its own).
fn args_of(cmd: &str) -> Vec<&'static str> {
    match cmd {
        "select" => vec!["-f", "id,req.status,tags,req"],
        "to-parquet" => vec!["-o", "{out}/o.parquet"],
        "to-arrow" => vec!["-o", "{out}/o.arrow"],
        "to-csv" => vec!["-o", "{out}/o.csv"],
        "index" => vec!["--index-file", "{out}/i.swathidx", "--interval", "2K", "--json"],
        "slice" => vec!["--start", "1499", "--len", "3"],
        "tail" => vec!["-n", "4"],
        "sample" => vec!["-n", "5", "--seed", "7"],
        "split" => vec!["-n", "3", "-o", "{out}", "--prefix", "p_"],
        _ => vec![],
    }
}

fn records() -> Vec<Value> {
    (0..3000)
        .map(|i| {
            let msg = ["plain", "a ] b", "q \" }", "back \\ slash", "{\"x\":[1]}"][i % 5];
            let mut r = json!({"id": i, "req": {"status": 200 + (i % 3) * 100, "ms": i as f64 / 4.0}, "msg": msg});
            if i % 4 == 0 {
                r["tags"] = json!(["t", msg]);
            }
            r
        })
        .collect()
}

/// What of a run's stdout is the records' (an index's report says how
/// many records; its bytes and checkpoints are the file's).
fn records_part(cmd: &str, stdout: String) -> String {
    match cmd {
        "index" => match serde_json::from_str::<Value>(&stdout) {
            Ok(v) => format!("records {}", v["records"]),
            Err(_) => stdout,
        },
        _ => stdout,
    }
}

/// The commands that start in the middle of their input: a compressed one
/// cannot be read from any place, and they say so.
fn refused_compressed(cmd: &str, code: i32, err: &str) -> bool {
    matches!(cmd, "index" | "slice" | "tail" | "sample" | "split")
        && code == 2
        && err.contains("gzip-compressed input cannot be read from any place")
}

/// What a run printed and wrote (Parquet and Arrow files by their rows).
fn answer(
    args: &[String],
    file: &Path,
    out: &Path,
) -> (i32, String, BTreeMap<String, Vec<u8>>, String) {
    std::fs::create_dir_all(out).unwrap();
    let args: Vec<String> = args
        .iter()
        .map(|a| {
            a.replace("{file}", file.to_str().unwrap()).replace("{out}", out.to_str().unwrap())
        })
        .collect();
    let o = swath(&args);
    let stdout = String::from_utf8_lossy(&o.stdout).replace(file.to_str().unwrap(), "FILE");
    let mut outputs = BTreeMap::new();
    for e in std::fs::read_dir(out).unwrap() {
        let p = e.unwrap().path();
        let bytes = match p.extension().and_then(|e| e.to_str()) {
            Some("parquet") => common::rows_text(common::parquet_batches(&p)),
            Some("arrow") => common::rows_text(common::ipc_batches(&p)),
            _ => std::fs::read(&p).unwrap(),
        };
        outputs.insert(p.file_name().unwrap().to_string_lossy().to_string(), bytes);
    }
    (o.status.code().unwrap_or(-1), stdout, outputs, String::from_utf8_lossy(&o.stderr).into())
}

#[test]
fn every_json_command_reads_documents_as_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    let recs = records();
    let lines: String = recs.iter().map(|r| serde_json::to_string(r).unwrap() + "\n").collect();
    let plain = dir.path().join("data.jsonl");
    std::fs::write(&plain, &lines).unwrap();
    let array = Value::Array(recs.clone());
    let gz = |text: String| {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(text.as_bytes()).unwrap();
        enc.finish().unwrap()
    };
    let forms: Vec<(&str, Vec<u8>, &str)> = vec![
        ("array.json", serde_json::to_vec(&array).unwrap(), "auto"),
        ("pretty.json", serde_json::to_vec_pretty(&array).unwrap(), "auto"),
        ("cloudtrail.json.gz", gz(json!({ "Records": array }).to_string()), "auto"),
        (
            "wrapped.json",
            serde_json::to_vec_pretty(
                &json!({"meta": {"n": [1, 2]}, "data": {"items": array}, "more": "]"}),
            )
            .unwrap(),
            "data.items",
        ),
        (
            "values.json",
            recs.iter()
                .map(|r| serde_json::to_string_pretty(r).unwrap() + "\n")
                .collect::<String>()
                .into_bytes(),
            "auto",
        ),
    ];
    let cmds = json_commands();
    assert!(cmds.len() >= 7, "the json commands look few: {cmds:?}");
    let mut failures = Vec::new();
    let mut checked = 0;
    for cmd in &cmds {
        let base: Vec<String> = ["json", cmd.as_str(), "{file}"]
            .iter()
            .chain(args_of(cmd).iter())
            .map(|s| s.to_string())
            .collect();
        let (code, mut want_out, want_files, err) =
            answer(&base, &plain, &dir.path().join(format!("{cmd}-plain")));
        assert_eq!(code, 0, "json {cmd} on JSON lines: {err}");
        if cmd == "schema" {
            let body: Vec<&str> = want_out.lines().filter(|l| !l.starts_with('(')).collect();
            want_out = body.join("\n");
        }
        want_out = records_part(cmd, want_out);
        // The index is the file's, not the records'.
        let want_files: BTreeMap<_, _> =
            want_files.into_iter().filter(|(k, _)| !k.ends_with(".swathidx")).collect();
        for (name, bytes, asked) in &forms {
            let file = dir.path().join(name);
            std::fs::write(&file, bytes).unwrap();
            for how in [vec!["-t", "1"], vec!["-t", "2", "--chunk-size", "777"]] {
                let mut args = base.clone();
                args.extend(how.iter().map(|s| s.to_string()));
                args.extend(["--records".to_string(), asked.to_string()]);
                let out = dir.path().join(format!("{cmd}-{name}-{}", how.join("")));
                let (code, mut stdout, files, err) = answer(&args, &file, &out);
                checked += 1;
                if cmd == "schema" {
                    // The footer says where the records were found.
                    let footer = stdout.lines().last().unwrap_or("").to_string();
                    let said = ["records, the elements of", "records, objects one after another"];
                    if !said.iter().any(|s| footer.contains(s)) {
                        failures.push(format!("json schema on {name}: footer {footer:?}"));
                    }
                    let body: Vec<&str> = stdout.lines().filter(|l| !l.starts_with('(')).collect();
                    stdout = body.join("\n");
                }
                stdout = records_part(cmd, stdout);
                let files: BTreeMap<_, _> =
                    files.into_iter().filter(|(k, _)| !k.ends_with(".swathidx")).collect();
                if name.ends_with(".gz") && refused_compressed(cmd, code, &err) {
                    continue;
                }
                if code != 0 || stdout != want_out || files != want_files {
                    failures.push(format!(
                        "json {cmd} {how:?} on {name}: exit {code}, stderr {:?}, stdout {:?} (lines: {:?}), outputs equal: {}",
                        err.trim(),
                        stdout.chars().take(300).collect::<String>(),
                        want_out.chars().take(300).collect::<String>(),
                        files == want_files
                    ));
                }
            }
        }
    }
    // swath sql: a table per form (`--records` as asked), the same rows.
    let q = |f: &str| {
        format!(
            "SELECT count(*) AS n, sum(id) AS s, max(req['ms']) AS ms, min(msg) AS m FROM '{f}'"
        )
    };
    let want = swath(&["sql".into(), "--csv".into(), q(plain.to_str().unwrap())]);
    assert!(want.status.success(), "sql on lines: {}", String::from_utf8_lossy(&want.stderr));
    for (name, _, asked) in &forms {
        let file = dir.path().join(name);
        let got = swath(&[
            "sql".into(),
            "--csv".into(),
            "--records".into(),
            asked.to_string(),
            q(file.to_str().unwrap()),
        ]);
        checked += 1;
        if got.stdout != want.stdout {
            failures.push(format!(
                "sql on {name}: {:?} {:?}, lines: {:?}",
                String::from_utf8_lossy(&got.stdout),
                String::from_utf8_lossy(&got.stderr),
                String::from_utf8_lossy(&want.stdout)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} runs wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

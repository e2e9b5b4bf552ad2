//! Compressed output through every command that writes a file, table-driven
//! from the CLI's own help (`common::commands`), so a new writing command
//! is covered without anyone naming it here:
//!
//! - a command with `-o, --output` (or `gen`'s `<OUT>`) writes `out.gz` and
//!   `out.zst` as the plain run's bytes compressed, the same at 1 and 3
//!   threads; real `gzip -dc` and `zstd -dc` decode them, and swath reads
//!   them back on several threads (small blocks here, by the hidden
//!   `SWATH_COMPRESS_BLOCK_BYTES`). A command whose plain output is a
//!   binary format with its own compression (Parquet, Arrow IPC) refuses
//!   a compressed name instead, and leaves no file;
//! - every writing command refuses `.bz2` (a format swath reads but does
//!   not write) and leaves no file;
//! - a command with `--gzip` and `--zstd` (the splits) writes parts that
//!   decode to the plain parts.
//!
//! A missing `gzip` or `zstd` fails the test in CI and skips loudly
//! elsewhere.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;

const SWATH: &str = env!("CARGO_BIN_EXE_swath");

/// The arguments a writing command needs besides its input and output
/// (`{file}` the input, `{out}` the output path).
fn how_to_run(cmd: &str) -> Vec<&'static str> {
    match cmd {
        "csv select" => vec!["-c", "id,note", "{file}", "-o", "{out}"],
        "csv search" => vec!["-s", "name", "an", "{file}", "-o", "{out}"],
        "json select" => vec!["-f", "id,tags", "{file}", "-o", "{out}"],
        "gen log" => vec!["--size", "300K", "{out}"],
        "gen csv" => vec!["--rows", "3000", "--quoted-newlines", "5", "{out}"],
        "gen jsonl" => vec!["--lines", "2000", "{out}"],
        "gen access-log" => vec!["--records", "1500", "{out}"],
        // Any other: its input, then -o (gen's unknown commands: the
        // output alone; a usage error fails the test, naming it).
        other if other.starts_with("gen ") => vec!["{out}"],
        _ => vec!["{file}", "-o", "{out}"],
    }
}

/// Run swath with small blocks and spans; with `-t threads` where given
/// (`gen` takes no `-t`).
fn swath(args: &[String], threads: Option<&str>) -> Output {
    let mut cmd = Command::new(SWATH);
    cmd.args(args);
    if let Some(t) = threads {
        cmd.args(["-t", t]);
    }
    cmd.stdin(Stdio::null())
        .env("SWATH_COMPRESS_BLOCK_BYTES", "8192")
        .env("SWATH_SPAN_BYTES", "8192")
        .output()
        .unwrap()
}

/// A CSV file (quoted commas and newlines) and a JSON-lines file.
fn inputs(dir: &Path) -> (PathBuf, PathBuf) {
    let mut csv = String::from("id,name,note\n");
    let mut json = String::new();
    for i in 0..4000u32 {
        let name = ["ann", "bob", "dana"][i as usize % 3];
        let note = if i % 5 == 0 { format!("\"two\nlines, {i}\"") } else { format!("n{i}") };
        csv.push_str(&format!("{i},{name},{note}\n"));
        json.push_str(&format!("{{\"id\":{i},\"name\":\"{name}\",\"tags\":[\"t{}\"]}}\n", i % 7));
    }
    let (c, j) = (dir.join("in.csv"), dir.join("in.jsonl"));
    std::fs::write(&c, csv).unwrap();
    std::fs::write(&j, json).unwrap();
    (c, j)
}

/// The real decompressor's output of `path`, or `None` (said loudly, and
/// a failure in CI) when it is not installed.
fn decompressed_by(tool: &str, path: &Path) -> Option<Vec<u8>> {
    match Command::new(tool).arg("-dc").arg(path).output() {
        Ok(out) => {
            assert!(out.status.success(), "{tool} -dc {}: {out:?}", path.display());
            Some(out.stdout)
        }
        Err(e) => {
            assert!(std::env::var("CI").is_err(), "{tool} is needed in CI: {e}");
            eprintln!("!!!!! SKIPPED: {tool} is not installed ({e}); its checks did not run");
            None
        }
    }
}

fn args_for(cmd: &str, file: &Path, out: &Path) -> Vec<String> {
    let mut args: Vec<String> = cmd.split(' ').map(str::to_string).collect();
    for a in how_to_run(cmd) {
        let a = a.replace("{file}", file.to_str().unwrap()).replace("{out}", out.to_str().unwrap());
        args.push(a);
    }
    args
}

fn is_binary_format(bytes: &[u8]) -> bool {
    bytes.starts_with(b"PAR1") || bytes.starts_with(b"ARROW1")
}

#[test]
fn every_writing_command_compresses_its_output_or_refuses_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, json) = inputs(dir.path());
    let mut writers = 0;
    for (cmd, help) in common::commands::leaf_commands() {
        let is_gen = cmd.starts_with("gen ");
        if !help.contains("--output <") && !is_gen {
            continue;
        }
        writers += 1;
        let input = if cmd.starts_with("json ") { &json } else { &csv };
        let run = |out: &Path, threads: &str| {
            swath(&args_for(&cmd, input, out), (!is_gen).then_some(threads))
        };
        let work = dir.path().join(cmd.replace(' ', "-"));
        std::fs::create_dir(&work).unwrap();
        let plain_path = work.join("out.txt");
        let plain = run(&plain_path, "2");
        assert!(plain.status.success(), "{cmd}: {}", String::from_utf8_lossy(&plain.stderr));
        let plain = std::fs::read(&plain_path).unwrap();
        assert!(!plain.is_empty(), "{cmd} wrote nothing");

        // A compressed format swath does not write: refused, no file.
        let bz2 = work.join("out.txt.bz2");
        let refused = run(&bz2, "2");
        let err = String::from_utf8_lossy(&refused.stderr);
        assert_eq!(refused.status.code(), Some(2), "{cmd} -o .bz2: {err}");
        let names_why = if is_binary_format(&plain) {
            err.contains("not written compressed")
        } else {
            err.contains(".bz2") && err.contains("gzip")
        };
        assert!(names_why, "{cmd}: {err}");
        assert!(!bz2.exists(), "{cmd} left {}", bz2.display());

        for (ext, tool) in [("gz", "gzip"), ("zst", "zstd")] {
            let path = work.join(format!("out.txt.{ext}"));
            if is_binary_format(&plain) {
                let refused = run(&path, "2");
                let err = String::from_utf8_lossy(&refused.stderr);
                assert_eq!(refused.status.code(), Some(2), "{cmd} -o .{ext}: {err}");
                assert!(err.contains("not written compressed"), "{cmd}: {err}");
                assert_eq!(common::names_in(&work), ["out.txt"], "{cmd} left a file");
                continue;
            }
            let mut at_threads = Vec::new();
            for threads in ["1", "3"] {
                let done = run(&path, threads);
                let err = String::from_utf8_lossy(&done.stderr);
                assert!(done.status.success(), "{cmd} -o .{ext} -t {threads}: {err}");
                at_threads.push(std::fs::read(&path).unwrap());
            }
            assert!(at_threads[0] == at_threads[1], "{cmd} .{ext}: other bytes at 3 threads");
            if let Some(decoded) = decompressed_by(tool, &path) {
                assert!(decoded == plain, "{cmd}: {tool} -dc differs from the plain output");
            }
            // swath reads it back on several threads, by its blocks.
            let count =
                swath(&["count".into(), "-v".into(), path.to_str().unwrap().into()], Some("2"));
            let err = String::from_utf8_lossy(&count.stderr);
            assert!(count.status.success(), "{cmd}: {err}");
            // Lines as `count` counts them: a last line without its newline
            // counts too.
            let lines = plain.iter().filter(|&&b| b == b'\n').count()
                + usize::from(plain.last().is_some_and(|&b| b != b'\n'));
            let said = String::from_utf8_lossy(&count.stdout);
            assert_eq!(said.split_whitespace().next(), Some(lines.to_string().as_str()), "{cmd}");
            if plain.len() > 3 * 8192 {
                assert!(err.contains("spans decoded on 2 threads"), "{cmd} .{ext}: {err}");
            }
        }
    }
    assert!(writers >= 10, "only {writers} writing commands found in the help");
}

#[test]
fn split_parts_compress_and_decode_to_the_plain_parts() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, json) = inputs(dir.path());
    let mut splits = 0;
    for (cmd, help) in common::commands::leaf_commands() {
        if !help.contains("--gzip") || !help.contains("--zstd") {
            continue;
        }
        splits += 1;
        let input = if cmd.starts_with("json ") { &json } else { &csv };
        let part_dir = |name: &str| {
            let d = dir.path().join(format!("{}-{name}", cmd.replace(' ', "-")));
            std::fs::create_dir(&d).unwrap();
            d
        };
        let split = |flag: Option<&str>, out: &Path| {
            let mut args: Vec<String> = cmd.split(' ').map(str::to_string).collect();
            args.extend(
                [input.to_str().unwrap(), "-n", "3", "-o", out.to_str().unwrap()].map(String::from),
            );
            args.extend(flag.map(String::from));
            let done = swath(&args, Some("2"));
            assert!(done.status.success(), "{args:?}: {}", String::from_utf8_lossy(&done.stderr));
        };
        let plain = part_dir("plain");
        split(None, &plain);
        let plain_names = common::names_in(&plain);
        assert_eq!(plain_names.len(), 3, "{cmd}: {plain_names:?}");
        for (flag, ext, tool) in [("--gzip", "gz", "gzip"), ("--zstd", "zst", "zstd")] {
            let out = part_dir(ext);
            split(Some(flag), &out);
            let names = common::names_in(&out);
            let want: Vec<String> = plain_names.iter().map(|n| format!("{n}.{ext}")).collect();
            assert_eq!(names, want, "{cmd} {flag}");
            for (plain_name, name) in plain_names.iter().zip(&names) {
                let expected = std::fs::read(plain.join(plain_name)).unwrap();
                if let Some(decoded) = decompressed_by(tool, &out.join(name)) {
                    assert!(decoded == expected, "{cmd} {flag}: {name} differs");
                }
            }
        }
    }
    assert!(splits >= 3, "only {splits} split commands found in the help");
}

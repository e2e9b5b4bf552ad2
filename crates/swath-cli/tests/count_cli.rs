//! `swath count` run as the real binary.

use assert_cmd::Command;
use std::io::Write;

fn swath() -> Command {
    Command::cargo_bin("swath").unwrap()
}

fn file(dir: &tempfile::TempDir, name: &str, data: &[u8]) -> std::path::PathBuf {
    let path = dir.path().join(name);
    std::fs::File::create(&path).unwrap().write_all(data).unwrap();
    path
}

fn stdout(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn counts_like_wc_with_the_final_unterminated_line() {
    let dir = tempfile::tempdir().unwrap();
    let a = file(&dir, "a.txt", b"x\ny\nz");
    let b = file(&dir, "b.txt", b"1\n2\n");
    let out = stdout(swath().args(["count", "--threads", "2"]).arg(&a).arg(&b));
    let want = format!("3 {}\n2 {}\n5 total\n", a.display(), b.display());
    assert_eq!(out, want);
    let out = stdout(swath().args(["count", "--newlines"]).arg(&a));
    assert_eq!(out, format!("2 {}\n", a.display()));
}

#[test]
fn agrees_with_wc_on_generated_files_for_every_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut data = Vec::new();
    for i in 0..200_000u32 {
        data.extend_from_slice(format!("{i} {}\n", "x".repeat((i % 97) as usize)).as_bytes());
    }
    data.extend_from_slice(b"tail without newline");
    let path = file(&dir, "big.txt", &data);
    let wc = std::process::Command::new("wc").arg("-l").arg(&path).output().unwrap();
    let wc: u64 =
        String::from_utf8(wc.stdout).unwrap().split_whitespace().next().unwrap().parse().unwrap();
    for threads in ["1", "2", "3"] {
        for mmap in [false, true] {
            let mut cmd = swath();
            cmd.args(["count", "--newlines", "--threads", threads]).arg(&path);
            if mmap {
                cmd.arg("--mmap");
            }
            let got: u64 = stdout(&mut cmd).split_whitespace().next().unwrap().parse().unwrap();
            assert_eq!(got, wc, "threads {threads} mmap {mmap}");
        }
    }
}

#[test]
fn reads_stdin_with_no_file_or_dash() {
    swath().arg("count").write_stdin("a\nb\nc").assert().success().stdout("3 -\n");
    swath().args(["count", "-"]).write_stdin("").assert().success().stdout("0 -\n");
}

#[test]
fn json_output_parses_as_one_document() {
    let dir = tempfile::tempdir().unwrap();
    let a = file(&dir, "quote\"d.txt", b"1\n2\n");
    let out = stdout(swath().args(["count", "--json"]).arg(&a));
    assert!(out.starts_with("{\"unit\":\"lines\",\"files\":[{\"path\":"), "{out}");
    assert!(out.contains("quote\\\"d.txt"), "{out}");
    assert!(out.trim_end().ends_with("\"total\":2}"), "{out}");
}

#[test]
fn bad_paths_are_one_line_errors_and_the_rest_is_still_counted() {
    let dir = tempfile::tempdir().unwrap();
    let a = file(&dir, "a.txt", b"1\n");
    let missing = dir.path().join("missing.txt");
    let assert =
        swath().arg("count").arg(&missing).arg(dir.path()).arg(&a).assert().failure().code(2);
    let out = assert.get_output();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(lines[0].starts_with("swath: ") && lines[0].contains("missing.txt"), "{stderr}");
    assert!(lines[1].contains("is a directory"), "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(&format!("1 {}", a.display())), "{stdout}");
}

#[test]
fn a_closed_pipe_exits_quietly() {
    // `swath count f f f ... | head -1`: the reader of stdout goes away.
    let dir = tempfile::tempdir().unwrap();
    let a = file(&dir, "a.txt", b"1\n");
    let args: Vec<_> = std::iter::repeat_n(a.as_os_str(), 20_000).collect();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("swath"))
        .arg("count")
        .args(&args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn help_has_examples() {
    let out = stdout(swath().args(["count", "--help"]));
    assert!(out.contains("Examples:") && out.contains("swath count big.log"), "{out}");
}

#[test]
fn gzip_on_stdin_is_decoded_unless_told_not_to() {
    let compressed = gzip(&b"a\n".repeat(1000));
    swath().arg("count").write_stdin(compressed.clone()).assert().success().stdout("1000 -\n");
    let raw = stdout(swath().args(["count", "--no-decompress"]).write_stdin(compressed));
    assert_ne!(raw, "1000 -\n");
}

#[test]
fn a_truncated_gzip_file_is_an_error_not_a_short_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut gz = gzip(&b"line\n".repeat(100_000));
    gz.truncate(gz.len() / 2);
    let path = file(&dir, "cut.gz", &gz);
    let out = swath().arg("count").arg(&path).assert().failure().code(2).get_output().clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("corrupt or truncated gzip stream at compressed byte"), "{stderr}");
    assert!(out.stdout.is_empty());
}

/// gzip through the system tool, so this test needs no compression crate.
fn gzip(data: &[u8]) -> Vec<u8> {
    let mut gz = std::process::Command::new("gzip")
        .arg("-c")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = gz.stdin.take().unwrap();
    let data = data.to_vec();
    let feeder = std::thread::spawn(move || stdin.write_all(&data).unwrap());
    let out = gz.wait_with_output().unwrap().stdout;
    feeder.join().unwrap();
    out
}

//! The Go program of `swath lab --go`: it builds, each Go method finds the
//! right count on files of several shapes, and a wrong count fails loudly.
//! Skipped (loudly) only where Go is absent, and never in CI, which
//! installs it (`.ci/run`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use swath_lab::go::{self, GoError, GoProgram};
use swath_lab::methods::{self, Ctx, Kind, Way};
use swath_lab::runner::{not_applicable_of, Plan};
use swath_lab::sample::Sample;

struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// The built program, or `None` (said loudly) where Go is absent; in CI
/// (`CI` set) an absent Go is a failure.
fn program(dir: &Path) -> Option<GoProgram> {
    match go::build(dir) {
        Ok(p) => Some(p),
        Err(GoError::Absent(why)) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must have Go (.ci/run installs it): {why}"
            );
            eprintln!("SKIPPED: the Go methods' tests: {why}");
            None
        }
        Err(GoError::Failed(why)) => panic!("the lab's Go program does not build: {why}"),
    }
}

fn slow_lines(data: &[u8]) -> u64 {
    let newlines = data.iter().filter(|&&b| b == b'\n').count() as u64;
    newlines + u64::from(data.last().is_some_and(|&b| b != b'\n'))
}

#[test]
fn every_go_method_counts_right_and_a_wrong_count_fails() {
    let dir = Dir(std::env::temp_dir().join(format!("swath-lab-go-{}", std::process::id())));
    fs::create_dir_all(&dir.0).unwrap();
    let Some(prog) = program(&dir.0) else { return };
    assert!(prog.version.starts_with("go"), "{}", prog.version);
    let go_methods: Vec<_> = methods::all().into_iter().filter(|m| m.way == Way::Go).collect();
    assert_eq!(go_methods.len(), 15);
    let mut long = b"short\n".to_vec();
    long.extend(std::iter::repeat_n(b'x', 100_000));
    long.extend_from_slice(b"\nend");
    let shapes: [Vec<u8>; 4] = [
        swath_lab::gen::log::LINE.repeat(5000)[..300_001].to_vec(),
        b"a\r\nb\n\n\nno newline at the end".repeat(1000),
        Vec::new(),
        long,
    ];
    for (i, data) in shapes.iter().enumerate() {
        let file = dir.0.join(format!("input-{i}"));
        fs::write(&file, data).unwrap();
        let plan = Plan {
            exe: PathBuf::new(),
            exe_args: Vec::new(),
            ctx: Ctx { file, scratch: dir.0.clone(), write_lines: 1234, ..Ctx::default() },
            runs: 1,
            cold: false,
            file_lines: slow_lines(data),
            prefix_lines: 0,
            go: Some(prog.exe.clone()),
        };
        for m in &go_methods {
            let out = Command::new(&prog.exe).args(plan.go_args(m)).output().unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "{} on shape {i}: {}",
                m.name,
                String::from_utf8_lossy(&out.stderr)
            );
            if let Some(why) = not_applicable_of(&stdout) {
                // Only bufio.Scanner, only on the line past its 64 KB limit.
                assert!(i == 3 && m.name == "go-scanner", "{} on shape {i}: n/a: {why}", m.name);
                assert!(why.contains("64 KB"), "{why}");
                continue;
            }
            let s = Sample::parse(&stdout).unwrap();
            let want = if m.kind == Kind::Read { plan.file_lines } else { 1234 };
            assert_eq!(s.lines, want, "{} on shape {i}", m.name);
            assert!(s.secs > 0.0 && s.max_rss > 0, "{}: {s:?}", m.name);
        }
        // The writes and the benchmark input were removed.
        let left: Vec<_> = fs::read_dir(&dir.0)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".out") || n.ends_with(".txt"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
    // A wrong count is a failure, said loudly.
    let m = methods::find("go-read-4K").unwrap();
    let file = dir.0.join("input-0");
    let out = Command::new(&prog.exe)
        .args(["-method", "go-read-4K", "-expect", "7", "-file"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(!out.status.success(), "{}", m.name);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("WRONG ANSWER: counted 3489 lines, expected 7"), "{stderr}");
}

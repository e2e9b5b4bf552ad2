//! Every reading command against a file served by the fault filesystem
//! (crates/swath-faultfs): short reads, EINTR and stalls must give the same
//! answer as the plain file; EIO and a shrinking file an error naming the
//! path and the byte, a non-zero exit, no panic, and no output file; a
//! growing file the answer for its size at open or for its final size.
//! Every run is bounded by a timeout, so a hang fails instead of waiting.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use assert_cmd::Command;
use swath_faultfs::{require_fuse, Fault, FaultMount};

/// Longer than any honest run here (the stall fault adds a second or two).
const TIMEOUT: Duration = Duration::from_secs(60);

/// A CSV that is also a line file: quoted fields with commas, quotes and
/// newlines, so record and line boundaries differ; about 16 KiB, so seams of
/// 4 KiB chunks fall inside quoted fields.
fn csv_bytes() -> Vec<u8> {
    let mut s = String::from("id,name,note\n");
    for i in 0..400 {
        match i % 4 {
            0 => s.push_str(&format!("{i},plain{i},{}\n", i * 7)),
            1 => s.push_str(&format!("{i},\"with, comma\",\"two\nlines {i}\"\n")),
            2 => s.push_str(&format!("{i},\"a \"\"quote\"\"\",{}\n", i % 13)),
            _ => s.push_str(&format!("{i},\"\",\"x{}y\"\n", "z".repeat(i % 20))),
        }
    }
    s.into_bytes()
}

/// One reading command: its arguments around the input (`{}`), whether it
/// writes `-o`, and whether `--mmap` applies.
struct Cmd {
    name: &'static str,
    args: &'static [&'static str],
    threads: bool,
    output: bool,
}

const CMDS: &[Cmd] = &[
    Cmd { name: "count", args: &["count"], threads: true, output: false },
    Cmd {
        name: "csv count",
        args: &["csv", "count", "--chunk-size", "4096"],
        threads: true,
        output: false,
    },
    Cmd {
        name: "csv check",
        args: &["csv", "check", "--chunk-size", "4096"],
        threads: true,
        output: false,
    },
    Cmd { name: "csv head", args: &["csv", "head", "-n", "100000"], threads: false, output: false },
    Cmd {
        name: "csv select",
        args: &["csv", "select", "-c", "3,1", "--chunk-size", "4096"],
        threads: true,
        output: true,
    },
    Cmd {
        name: "csv to-json",
        args: &["csv", "to-json", "--chunk-size", "4096"],
        threads: true,
        output: true,
    },
    Cmd {
        name: "csv stats",
        args: &["csv", "stats", "--json", "--chunk-size", "4096"],
        threads: true,
        output: false,
    },
];

/// A finished run: what it printed, with the input's path replaced by
/// `FILE`, and the output file's bytes when there was one.
#[derive(Debug, PartialEq)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    written: Option<Vec<u8>>,
    /// Names left in the output directory.
    left: Vec<String>,
}

fn run(cmd: &Cmd, threads: Option<usize>, mmap: bool, input: &Path, out_dir: &Path) -> Run {
    let mut c = Command::cargo_bin("swath").unwrap();
    c.args(cmd.args);
    if let Some(t) = threads {
        c.args(["-t", &t.to_string()]);
    }
    if mmap {
        c.arg("--mmap");
    }
    c.arg(input);
    let target = out_dir.join("out");
    if cmd.output {
        c.arg("-o").arg(&target);
    }
    let out: Output = c.timeout(TIMEOUT).output().unwrap();
    let name = input.display().to_string();
    let text = |b: &[u8]| String::from_utf8_lossy(b).replace(&name, "FILE");
    let mut left: Vec<String> = std::fs::read_dir(out_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    let written = std::fs::read(&target).ok();
    // A run cut by the timeout is killed: no exit code, like a crash.
    Run {
        code: out.status.code(),
        stdout: text(&out.stdout),
        stderr: text(&out.stderr),
        written,
        left,
    }
}

/// The thread counts and map settings a command is run with.
fn variants(cmd: &Cmd) -> Vec<(Option<usize>, bool)> {
    let mut v =
        if cmd.threads { vec![(Some(1), false), (Some(2), false)] } else { vec![(None, false)] };
    if cmd.name == "count" {
        v.push((Some(1), true));
        v.push((Some(2), true));
    }
    v
}

/// The answer on the plain file, for comparison.
fn expected(cmd: &Cmd, threads: Option<usize>, mmap: bool, file: &Path) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let r = run(cmd, threads, mmap, file, dir.path());
    assert_eq!(r.code, Some(0), "{}: the plain file fails: {}", cmd.name, r.stderr);
    r
}

fn label(cmd: &Cmd, threads: Option<usize>, mmap: bool) -> String {
    format!("{} (threads {threads:?}{})", cmd.name, if mmap { ", --mmap" } else { "" })
}

/// Faults that must not change the answer.
fn same_answer(fault: Fault) {
    let data = csv_bytes();
    let backing = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(backing.path(), &data).unwrap();
    for cmd in CMDS {
        for (threads, mmap) in variants(cmd) {
            let what = label(cmd, threads, mmap);
            let want = expected(cmd, threads, mmap, backing.path());
            // A mount per run: the fault's counters start again each time.
            let mnt = mount(backing.path(), fault.clone(), mmap);
            let dir = tempfile::tempdir().unwrap();
            let got = run(cmd, threads, mmap, &mnt.path(), dir.path());
            assert!(mnt.reads() > 0, "{what}: the fault filesystem was never read");
            assert_eq!(got, want, "{what} under {fault:?}");
        }
    }
}

fn mount(backing: &Path, fault: Fault, mmap: bool) -> FaultMount {
    let m = if mmap {
        FaultMount::with_page_cache(backing, fault)
    } else {
        FaultMount::new(backing, fault)
    };
    m.expect("mounting the fault filesystem (needs root or fusermount3)")
}

/// Faults that must end in an error naming the path and a byte offset.
/// Returns every run's message, to check the offsets.
fn fails(fault: Fault) -> Vec<(String, String)> {
    let data = csv_bytes();
    let backing = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(backing.path(), &data).unwrap();
    let mut messages = Vec::new();
    for cmd in CMDS {
        for (threads, mmap) in variants(cmd) {
            let what = label(cmd, threads, mmap);
            let mnt = mount(backing.path(), fault.clone(), mmap);
            let dir = tempfile::tempdir().unwrap();
            // An existing output must survive a failed run untouched.
            if cmd.output {
                std::fs::write(dir.path().join("out"), b"previous").unwrap();
            }
            let got = run(cmd, threads, mmap, &mnt.path(), dir.path());
            // The CLI exits 1 on errors today; the "cli" work moves that to
            // 2. Either way: an exit code (not a signal), and not 0.
            assert!(got.code.is_some(), "{what}: killed (crash or timeout): {got:?}");
            assert_ne!(got.code, Some(0), "{what}: succeeded under {fault:?}: {got:?}");
            // `csv check` lists problems on stdout; the others use stderr.
            let msg = format!("{}{}", got.stdout, got.stderr);
            assert!(!msg.contains("panicked"), "{what}: {msg}");
            assert!(msg.contains("FILE"), "{what}: the error does not name the path: {msg}");
            assert!(msg.contains("byte "), "{what}: the error has no byte offset: {msg}");
            if cmd.output {
                assert_eq!(
                    got.written.as_deref(),
                    Some(&b"previous"[..]),
                    "{what}: the old output changed"
                );
                assert_eq!(got.left, ["out"], "{what}: a temporary file was left behind");
            }
            messages.push((what, msg));
        }
    }
    messages
}

/// The byte offset after the first "byte " in a message (where the error
/// is; a record's start may follow).
fn byte_in(msg: &str) -> Option<u64> {
    let at = msg.find("byte ")? + 5;
    msg[at..].split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
}

#[test]
fn the_control_mount_changes_nothing() {
    require_fuse!();
    same_answer(Fault::None);
}

#[test]
fn short_reads_of_one_to_seven_bytes_give_the_same_answer() {
    require_fuse!();
    same_answer(Fault::ShortReads { max: 7, from: 0, to: u64::MAX });
}

#[test]
fn eintr_is_retried() {
    require_fuse!();
    same_answer(Fault::Eintr { every: 3 });
}

#[test]
fn a_stalled_read_is_waited_for() {
    require_fuse!();
    same_answer(Fault::Stall { at: 9_000, stall: Duration::from_secs(1) });
}

#[test]
fn eio_is_an_error_at_the_bad_byte() {
    require_fuse!();
    let at = 9_001;
    for (what, msg) in fails(Fault::EioAt { at }) {
        assert!(msg.contains("rror"), "{what}: {msg}");
        // Through the page cache (--mmap) the kernel fails the whole page.
        let page = at & !4095;
        let got = byte_in(&msg);
        assert!(got == Some(at) || (what.contains("mmap") && got == Some(page)), "{what}: {msg}");
    }
}

#[test]
fn a_file_that_shrinks_while_read_is_an_error_at_its_new_end() {
    require_fuse!();
    let to = 9_001;
    for (what, msg) in fails(Fault::Shrink { to }) {
        let got = byte_in(&msg).unwrap();
        // The exact end, or (through the page cache) the page it is in.
        assert!(
            got == to || (what.contains("mmap") && got == (to & !4095) + 4096 || got == to & !4095),
            "{what}: {msg}"
        );
    }
}

#[test]
fn a_file_that_grows_while_read_gives_the_answer_at_open_or_at_the_end() {
    require_fuse!();
    let data = csv_bytes();
    // The size at open ends with a complete record; the growth adds more.
    let at_open = data.len() / 2;
    let at_open = data[..at_open].iter().rposition(|&b| b == b'\n').unwrap() + 1;
    // ... and not inside a quoted field: cut after a record of kind 0.
    let text = std::str::from_utf8(&data).unwrap();
    let at_open =
        text[..at_open].rfind("plain").map(|i| i + text[i..].find('\n').unwrap() + 1).unwrap();
    let full = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(full.path(), &data).unwrap();
    let prefix = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(prefix.path(), &data[..at_open]).unwrap();
    let fault = Fault::Grow { len_at_open: at_open as u64, after: at_open as u64 / 2 };
    for cmd in CMDS {
        for (threads, mmap) in variants(cmd) {
            let what = label(cmd, threads, mmap);
            let small = expected(cmd, threads, mmap, prefix.path());
            let large = expected(cmd, threads, mmap, full.path());
            let mnt = mount(full.path(), fault.clone(), mmap);
            let dir = tempfile::tempdir().unwrap();
            let got = run(cmd, threads, mmap, &mnt.path(), dir.path());
            assert!(
                got == small || got == large,
                "{what}: {got:?}\nnot\n{small:?}\nnor\n{large:?}"
            );
        }
    }
}

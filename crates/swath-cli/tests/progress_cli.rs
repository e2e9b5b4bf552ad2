//! The progress display in a real pseudo-terminal (util-linux `script`):
//! shown on stderr for a slow input (a fifo fed slowly) and a large file,
//! cleared before the result; nothing on a pipe, nothing with --quiet.
//! `SWATH_PROGRESS_DELAY_MS=0` makes it show at once.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn have_script() -> bool {
    let ok = Command::new("script").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        // CI installs util-linux; a machine without it cannot run these.
        assert!(std::env::var_os("CI").is_none(), "`script` (util-linux) missing in CI");
        eprintln!("SKIPPED: no `script` (util-linux) on PATH: the pty tests did not run");
    }
    ok
}

/// A fifo that a thread feeds with `chunks` copies of `chunk`, pausing
/// between them.
fn slow_fifo(dir: &Path, chunk: Vec<u8>, chunks: usize) -> (PathBuf, std::thread::JoinHandle<()>) {
    let path = dir.join("slow.csv");
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string; mkfifo only creates the file.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let p = path.clone();
    let feeder = std::thread::spawn(move || {
        let mut f = std::fs::OpenOptions::new().write(true).open(&p).unwrap();
        f.write_all(b"id,name\n").unwrap();
        for _ in 0..chunks {
            if f.write_all(&chunk).is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(150));
        }
    });
    (path, feeder)
}

fn rows(n: usize) -> Vec<u8> {
    (0..n).flat_map(|i| format!("{i},name{i}\n").into_bytes()).collect()
}

/// Run `args` in a pseudo-terminal; everything it wrote there.
fn in_pty(args: &str) -> String {
    let bin = env!("CARGO_BIN_EXE_swath");
    let out = Command::new("script")
        .args(["-qfec", &format!("{bin} {args}"), "/dev/null"])
        .env("SWATH_PROGRESS_DELAY_MS", "0")
        .output()
        .unwrap();
    assert!(out.status.success(), "{args}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn a_slow_input_shows_bytes_and_rate_then_the_result() {
    if !have_script() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (fifo, feeder) = slow_fifo(dir.path(), rows(5000), 6);
    let shown = in_pty(&format!("csv count {}", fifo.display()));
    feeder.join().unwrap();
    assert!(shown.contains(" read, ") && shown.contains("/s"), "{shown:?}");
    // Cleared (erase line) before the result, which is on a line of its own.
    let clear = shown.rfind("\x1b[2K").expect("the bar is cleared");
    assert!(shown[clear..].contains("30000\r\n"), "{shown:?}");
}

#[test]
fn a_large_file_shows_done_of_total_and_time_left() {
    if !have_script() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.csv");
    let mut data = b"id,name\n".to_vec();
    data.extend(rows(600_000));
    std::fs::write(&path, &data).unwrap();
    let shown = in_pty(&format!("csv frequency -s name -l 1 {}", path.display()));
    assert!(shown.contains(" left") && shown.contains("MiB/"), "{shown:?}");
    assert!(shown.contains("name: 600000 values"), "{shown:?}");
    // --quiet: the result alone.
    let quiet = in_pty(&format!("-q csv count {}", path.display()));
    assert_eq!(quiet, "600000\r\n");
    let quiet = in_pty(&format!("count --quiet {}", path.display()));
    assert!(!quiet.contains('\x1b') && quiet.ends_with("/big.csv\r\n"), "{quiet:?}");
}

#[test]
fn nothing_reaches_a_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let (fifo, feeder) = slow_fifo(dir.path(), rows(5000), 4);
    let out = Command::new(env!("CARGO_BIN_EXE_swath"))
        .args(["csv", "count"])
        .arg(&fifo)
        .env("SWATH_PROGRESS_DELAY_MS", "0")
        .output()
        .unwrap();
    feeder.join().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "20000\n");
    assert!(out.stderr.is_empty(), "{:?}", String::from_utf8_lossy(&out.stderr));
}

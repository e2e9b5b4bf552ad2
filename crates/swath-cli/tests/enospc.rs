//! Writing to a full disk: every command that writes a file (`-o`, or
//! `gen`'s output) onto a 1 MiB tmpfs reports the lack of space, removes
//! its temporary file and leaves an existing target untouched.

use std::path::Path;
use std::process::Command as Std;
use std::time::Duration;

use assert_cmd::Command;

/// A tmpfs of 1 MiB mounted on a temporary directory, unmounted on drop.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    /// `None` (after a loud message) where mounting is not allowed; in CI
    /// that is a failure.
    fn mount() -> Option<SmallDisk> {
        let dir = tempfile::tempdir().unwrap();
        let out = Std::new("mount")
            .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
            .arg(dir.path())
            .output();
        match out {
            Ok(o) if o.status.success() => Some(SmallDisk { dir }),
            other => {
                let why = format!("cannot mount a tmpfs (needs root): {other:?}");
                if swath_faultfs::in_ci() {
                    panic!("{why}");
                }
                eprintln!("\n*** SKIPPED (ENOSPC test): {why} ***\n");
                None
            }
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Std::new("umount").arg("-l").arg(self.dir.path()).status();
    }
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_full_disk_is_reported_and_leaves_the_old_target_alone() {
    let Some(disk) = SmallDisk::mount() else { return };
    // Input on the real disk: 3 MiB of CSV, more than the tmpfs holds.
    let src = tempfile::tempdir().unwrap();
    let input = src.path().join("in.csv");
    let mut csv = String::from("a,b,c\n");
    while csv.len() < 3 << 20 {
        csv.push_str("12345,\"some text, quoted\",67890\n");
    }
    std::fs::write(&input, &csv).unwrap();
    let input = input.to_str().unwrap().to_string();

    let target = disk.path().join("out");
    let target_s = target.to_str().unwrap().to_string();
    let cases: Vec<(&str, Vec<String>)> = vec![
        (
            "csv select",
            vec![
                "csv".into(),
                "select".into(),
                "-c".into(),
                "1-3".into(),
                input.clone(),
                "-o".into(),
                target_s.clone(),
            ],
        ),
        (
            "csv select -t 2",
            vec![
                "csv".into(),
                "select".into(),
                "-t".into(),
                "2".into(),
                "-c".into(),
                "1-3".into(),
                input.clone(),
                "-o".into(),
                target_s.clone(),
            ],
        ),
        (
            "csv to-json",
            vec![
                "csv".into(),
                "to-json".into(),
                "-t".into(),
                "1".into(),
                input.clone(),
                "-o".into(),
                target_s.clone(),
            ],
        ),
        (
            "csv to-json -t 2",
            vec![
                "csv".into(),
                "to-json".into(),
                "-t".into(),
                "2".into(),
                input.clone(),
                "-o".into(),
                target_s.clone(),
            ],
        ),
        (
            "gen log",
            vec!["gen".into(), "log".into(), "--size".into(), "3M".into(), target_s.clone()],
        ),
        (
            "gen csv",
            vec!["gen".into(), "csv".into(), "--rows".into(), "100K".into(), target_s.clone()],
        ),
    ];
    for (what, args) in cases {
        std::fs::write(&target, b"previous").unwrap();
        let out = Command::cargo_bin("swath")
            .unwrap()
            .args(&args)
            .timeout(Duration::from_secs(60))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        // Exit 1 today; the "cli" work moves errors to 2. Not 0, not a signal.
        assert!(out.status.code().is_some_and(|c| c != 0), "{what}: {:?} {err}", out.status);
        assert!(!err.contains("panicked"), "{what}: {err}");
        assert!(
            err.contains("No space left on device") || err.contains("space"),
            "{what}: the error does not say the disk is full: {err}"
        );
        assert!(err.contains("out"), "{what}: the error does not name the target: {err}");
        assert_eq!(std::fs::read(&target).unwrap(), b"previous", "{what}: the old target changed");
        assert_eq!(names(disk.path()), ["out"], "{what}: a temporary file was left");
    }
}

//! Maps that cannot crash: a file truncated under a [`SafeMap`] (and under
//! `count_source` with `mmap: true`) is a `Truncated` error with the byte
//! offset, while a SIGBUS from a map that is not swath's still kills the
//! process (checked in a child process, the test binary run again).

use std::os::unix::process::ExitStatusExt;
use std::process::Command;

use swath::{count_source, CountOptions, ErrorKind, Parallel, SafeMap, Source};

const PAGE: usize = 4096;

fn file_of(len: usize) -> tempfile::NamedTempFile {
    let f = tempfile::NamedTempFile::new().unwrap();
    let data: Vec<u8> = (0..len).map(|i| if i % 64 == 63 { b'\n' } else { b'x' }).collect();
    std::fs::write(f.path(), data).unwrap();
    f
}

#[test]
fn a_file_truncated_while_mapped_reads_as_zeros_and_reports_the_offset() {
    let f = file_of(64 * PAGE);
    let file = std::fs::File::open(f.path()).unwrap();
    // SAFETY: nobody writes the file in place; it only shrinks.
    let map = unsafe { SafeMap::new(&file, 64 * PAGE as u64) }.unwrap();
    assert_eq!(map.lost_at(), None);
    let cut = 10 * PAGE as u64 + 100;
    std::fs::OpenOptions::new().write(true).open(f.path()).unwrap().set_len(cut).unwrap();
    // Touch every page: without the handler this is a SIGBUS crash.
    let newlines = map.iter().filter(|&&b| b == b'\n').count();
    assert!(newlines < 64 * PAGE / 64);
    assert_eq!(map.lost_at(), Some(11 * PAGE as u64), "the first page wholly past the new end");
    let err = map.check(&file).unwrap_err();
    assert!(
        matches!(err.kind(), ErrorKind::Truncated { expected, got } if *expected == 64 * PAGE as u64 && *got == cut),
        "{err}"
    );
    assert_eq!(err.position().unwrap().byte, cut);
}

#[test]
fn count_with_mmap_reports_a_truncation_instead_of_crashing() {
    // Many maps at once, on threads, each truncated before it is read: the
    // handler serves them all through its table.
    let files: Vec<_> = (0..4).map(|_| file_of(256 * PAGE)).collect();
    std::thread::scope(|s| {
        for f in &files {
            s.spawn(move || {
                let file = std::fs::File::open(f.path()).unwrap();
                // SAFETY: as above.
                let map = unsafe { SafeMap::new(&file, 256 * PAGE as u64) }.unwrap();
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(f.path())
                    .unwrap()
                    .set_len(PAGE as u64)
                    .unwrap();
                let sum: u64 = map.iter().map(|&b| u64::from(b)).sum();
                assert!(sum > 0);
                assert!(map.check(&file).is_err());
            });
        }
    });
    // count_source opens and maps by itself: truncate from another thread
    // while it reads. Whatever the timing, the outcome is a count or an
    // error, never a signal.
    let f = file_of(4 << 20);
    let full = (4 << 20) / 64;
    for round in 0..8 {
        let data: Vec<u8> =
            (0..4usize << 20).map(|i| if i % 64 == 63 { b'\n' } else { b'x' }).collect();
        std::fs::write(f.path(), &data).unwrap();
        let opts = CountOptions {
            mmap: true,
            parallel: Parallel::new().threads(2).chunk_size(256 << 10),
            ..CountOptions::default()
        };
        let path = f.path().to_path_buf();
        let cutter = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_micros(200 * round));
            std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(12345).unwrap();
        });
        let got = Source::open(f.path()).and_then(|mut src| count_source(&mut src, &opts));
        cutter.join().unwrap();
        match got {
            Ok(c) => assert!(c.lines() == full as u64 || c.bytes == 12345, "{c:?}"),
            Err(e) => {
                assert!(matches!(e.kind(), ErrorKind::Truncated { .. }), "{e}");
                assert!(e.position().is_some() && e.path().is_some(), "{e}");
            }
        }
    }
}

/// The child half of the test below: map a file without swath, with
/// swath's handler installed, truncate it, and touch the lost page.
#[test]
fn child_foreign_sigbus() {
    if std::env::var_os("SWATH_SIGBUS_CHILD").is_none() {
        return;
    }
    let f = file_of(4 * PAGE);
    let file = std::fs::File::open(f.path()).unwrap();
    // Install swath's handler through a map of its own, kept alive.
    // SAFETY: nobody writes the file.
    let ours = unsafe { SafeMap::new(&file, 4 * PAGE as u64) }.unwrap();
    // SAFETY: a test of the crash itself.
    let theirs = unsafe { memmap2::Mmap::map(&file) }.unwrap();
    std::fs::OpenOptions::new().write(true).open(f.path()).unwrap().set_len(0).unwrap();
    // SAFETY: the page is mapped; reading it after the truncation raises
    // SIGBUS, which is the point.
    let b = unsafe { std::ptr::read_volatile(&theirs[2 * PAGE]) };
    // Not reached: the line above must kill the process.
    println!("survived with {b} {}", ours.len());
    std::process::exit(0);
}

#[test]
fn a_sigbus_outside_swaths_maps_still_kills_the_process() {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .args(["--exact", "child_foreign_sigbus", "--nocapture", "--test-threads", "1"])
        .env("SWATH_SIGBUS_CHILD", "1")
        .output()
        .unwrap();
    assert_eq!(
        out.status.signal(),
        Some(libc::SIGBUS),
        "the child was not killed by SIGBUS: {:?}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout)
    );
}

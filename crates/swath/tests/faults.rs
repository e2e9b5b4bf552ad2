//! The core's sources through the fault filesystem (crates/swath-faultfs):
//! `count_source` (pread ranges on 1 and 2 threads, and mmap), `LineReader`
//! and a plain `Source` read. Harmless faults give the plain file's answer;
//! EIO and a shrinking file give an error with the path and the byte.

use std::io::Read;
use std::path::Path;
use std::time::Duration;

use swath::{count_source, CountOptions, LineReaderBuilder, Parallel, Source};
use swath_faultfs::{require_fuse, Fault, FaultMount};

fn data() -> Vec<u8> {
    (0..20_000usize).map(|i| if i % 37 == 36 { b'\n' } else { b'a' + (i % 23) as u8 }).collect()
}

/// Everything each reader says about `path`: counts, or error texts.
fn answers(path: &Path) -> Vec<Result<u64, swath::Error>> {
    let mut out = Vec::new();
    // mmap reads whole pages through the page cache: see the page-cache
    // tests at the end.
    for (threads, mmap) in [(1, false), (2, false)] {
        let opts = CountOptions {
            parallel: Parallel::new().threads(threads).chunk_size(4096),
            mmap,
            buffer_size: 1000,
        };
        out.push(
            Source::open(path).and_then(|mut s| count_source(&mut s, &opts)).map(|c| c.lines()),
        );
    }
    let lines = LineReaderBuilder::new().capacity(1000).from_path(path).and_then(|mut r| {
        let mut n = 0;
        while r.next_line()?.is_some() {
            n += 1;
        }
        Ok(n)
    });
    out.push(lines);
    let mut bytes = Vec::new();
    out.push(Source::open(path).and_then(|mut s| {
        s.read_to_end(&mut bytes).map_err(swath::Error::from)?;
        Ok(bytes.len() as u64)
    }));
    out
}

fn with_mount(fault: Fault, page_cache: bool) -> (tempfile::NamedTempFile, FaultMount) {
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), data()).unwrap();
    let m = if page_cache {
        FaultMount::with_page_cache(f.path(), fault)
    } else {
        FaultMount::new(f.path(), fault)
    };
    (f, m.expect("mount"))
}

fn same_answers(fault: Fault) {
    let (f, mnt) = with_mount(fault.clone(), false);
    let want: Vec<u64> = answers(f.path()).into_iter().map(Result::unwrap).collect();
    let got = answers(&mnt.path());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.as_ref().ok(), Some(w), "reader {i} under {fault:?}: {g:?}");
    }
}

#[test]
fn short_reads_eintr_and_stalls_change_no_answer() {
    require_fuse!();
    same_answers(Fault::ShortReads { max: 7, from: 0, to: u64::MAX });
    same_answers(Fault::Eintr { every: 3 });
    same_answers(Fault::Stall { at: 10_000, stall: Duration::from_millis(300) });
}

#[test]
fn eio_and_shrinking_are_errors_with_path_and_byte() {
    require_fuse!();
    for fault in [Fault::EioAt { at: 12_345 }, Fault::Shrink { to: 12_345 }] {
        let (_f, mnt) = with_mount(fault.clone(), false);
        for (i, got) in answers(&mnt.path()).into_iter().enumerate() {
            if i == 3 {
                // A plain `Read` of a Source: EIO is an error; a short file
                // just ends (the size check is the readers' job).
                if matches!(fault, Fault::EioAt { .. }) {
                    assert!(got.is_err());
                }
                continue;
            }
            let err = got.expect_err(&format!("reader {i} under {fault:?}"));
            assert_eq!(err.path(), Some(mnt.path().as_path()), "reader {i}: {err}");
            let byte = err.position().map(|p| p.byte);
            assert_eq!(byte, Some(12_345), "reader {i} under {fault:?}: {err}");
        }
    }
}

#[test]
fn a_page_that_cannot_be_read_under_mmap_is_an_error_not_a_crash() {
    require_fuse!();
    let (_f, mnt) = with_mount(Fault::EioAt { at: 12_345 }, true);
    let opts = CountOptions {
        mmap: true,
        parallel: Parallel::new().threads(2).chunk_size(4096),
        ..CountOptions::default()
    };
    let err = Source::open(mnt.path()).and_then(|mut s| count_source(&mut s, &opts)).unwrap_err();
    assert_eq!(err.position().map(|p| p.byte), Some(12_288), "{err}");
    assert!(err.to_string().contains("SIGBUS"), "{err}");
}

#[test]
fn mmap_through_the_page_cache_waits_for_stalls_and_reports_a_shrink() {
    require_fuse!();
    let opts = CountOptions {
        mmap: true,
        parallel: Parallel::new().threads(2).chunk_size(4096),
        ..CountOptions::default()
    };
    let (f, mnt) = with_mount(Fault::Stall { at: 10_000, stall: Duration::from_millis(300) }, true);
    let want = count_source(&mut Source::open(f.path()).unwrap(), &opts).unwrap();
    let got = count_source(&mut Source::open(mnt.path()).unwrap(), &opts).unwrap();
    assert_eq!(got, want);
    drop(mnt);
    let (_f, mnt) = with_mount(Fault::Shrink { to: 12_345 }, true);
    let err = Source::open(mnt.path()).and_then(|mut s| count_source(&mut s, &opts)).unwrap_err();
    assert!(matches!(err.kind(), swath::ErrorKind::Truncated { got: 12_345, .. }), "{err}");
    assert_eq!(err.path(), Some(mnt.path().as_path()));
}

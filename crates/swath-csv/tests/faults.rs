//! swath-csv's `Reader` and `ParallelReader` through the fault filesystem
//! (crates/swath-faultfs): the same records under short reads, EINTR and
//! stalls; an error with the path and the byte under EIO and shrinking.

use std::time::Duration;

use swath_csv::{ParallelReader, ReaderBuilder};
use swath_faultfs::{require_fuse, Fault, FaultMount};

fn data() -> Vec<u8> {
    let mut s = String::from("id,text,n\n");
    for i in 0..500 {
        if i % 3 == 0 {
            s.push_str(&format!("{i},\"multi\nline, \"\"{i}\"\"\",{}\n", i * 3));
        } else {
            s.push_str(&format!("{i},plain {i},{}\n", i % 7));
        }
    }
    s.into_bytes()
}

fn answers(path: &std::path::Path) -> Vec<Result<u64, swath_csv::Error>> {
    let b = ReaderBuilder::new();
    let seq = b.from_path(path).and_then(|mut r| {
        let mut n = 0;
        while r.next_record()?.is_some() {
            n += 1;
        }
        Ok(n)
    });
    let mut out = vec![seq];
    for threads in [1, 2] {
        out.push(ParallelReader::new(&b, path).threads(threads).chunk_size(4096).count());
    }
    out
}

fn mounted(fault: Fault) -> (tempfile::NamedTempFile, FaultMount) {
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), data()).unwrap();
    let m = FaultMount::new(f.path(), fault).expect("mount");
    (f, m)
}

#[test]
fn harmless_faults_give_the_same_records() {
    require_fuse!();
    for fault in [
        Fault::ShortReads { max: 7, from: 0, to: u64::MAX },
        Fault::Eintr { every: 3 },
        Fault::Stall { at: 5000, stall: Duration::from_millis(300) },
    ] {
        let (f, mnt) = mounted(fault.clone());
        let want: Vec<u64> = answers(f.path()).into_iter().map(Result::unwrap).collect();
        let got: Vec<Option<u64>> = answers(&mnt.path()).into_iter().map(Result::ok).collect();
        assert_eq!(got, want.into_iter().map(Some).collect::<Vec<_>>(), "{fault:?}");
    }
}

#[test]
fn eio_and_shrinking_are_errors_with_path_and_byte() {
    require_fuse!();
    for fault in [Fault::EioAt { at: 7_777 }, Fault::Shrink { to: 7_777 }] {
        let (_f, mnt) = mounted(fault.clone());
        for (i, got) in answers(&mnt.path()).into_iter().enumerate() {
            let err = got.expect_err(&format!("reader {i} under {fault:?}"));
            assert_eq!(err.path(), Some(mnt.path().as_path()), "reader {i}: {err}");
            assert_eq!(
                err.position().map(|p| p.byte),
                Some(7_777),
                "reader {i} under {fault:?}: {err}"
            );
        }
    }
}

//! The fault filesystem against plain `std::fs` reads: each fault does what
//! it says through the real kernel.

use std::io::Read;
use std::os::unix::fs::FileExt;
use std::time::Duration;

use swath_faultfs::{require_fuse, Fault, FaultMount};

fn backing(n: usize) -> (tempfile::NamedTempFile, Vec<u8>) {
    let data: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(f.path(), &data).unwrap();
    (f, data)
}

#[test]
fn serves_the_file_as_it_is_and_unmounts_on_drop() {
    require_fuse!();
    let (f, data) = backing(100_000);
    let mnt = FaultMount::new(f.path(), Fault::None).unwrap();
    let dir = mnt.dir().to_path_buf();
    assert_eq!(std::fs::metadata(mnt.path()).unwrap().len(), 100_000);
    assert_eq!(std::fs::read(mnt.path()).unwrap(), data);
    assert!(mnt.reads() > 0);
    drop(mnt);
    assert!(!dir.exists(), "the mount point was not removed");
}

#[test]
fn eio_short_reads_eintr_shrink_and_grow_reach_the_reader() {
    require_fuse!();
    let (f, data) = backing(10_000);

    let mnt = FaultMount::new(f.path(), Fault::EioAt { at: 5000 }).unwrap();
    let file = std::fs::File::open(mnt.path()).unwrap();
    let mut buf = vec![0u8; 8192];
    assert_eq!(file.read_at(&mut buf, 4000).unwrap(), 1000);
    let err = file.read_at(&mut buf, 5000).unwrap_err();
    assert_eq!(err.raw_os_error(), Some(libc::EIO));
    drop(file);
    drop(mnt);

    let mnt = FaultMount::new(f.path(), Fault::ShortReads { max: 7, from: 0, to: 100 }).unwrap();
    let mut file = std::fs::File::open(mnt.path()).unwrap();
    let n = file.read(&mut buf).unwrap();
    assert!((1..=7).contains(&n), "{n}");
    let mut rest = Vec::new();
    file.read_to_end(&mut rest).unwrap();
    assert_eq!(n + rest.len(), data.len());
    drop(file);
    drop(mnt);

    let mnt = FaultMount::new(f.path(), Fault::Eintr { every: 2 }).unwrap();
    let file = std::fs::File::open(mnt.path()).unwrap();
    assert_eq!(file.read_at(&mut buf[..10], 0).unwrap(), 10);
    let err = file.read_at(&mut buf[..10], 0).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::Interrupted);
    drop(file);
    drop(mnt);

    let mnt = FaultMount::new(f.path(), Fault::Shrink { to: 3000 }).unwrap();
    assert_eq!(std::fs::metadata(mnt.path()).unwrap().len(), 10_000);
    assert_eq!(std::fs::read(mnt.path()).unwrap(), &data[..3000]);
    drop(mnt);

    let mnt = FaultMount::new(f.path(), Fault::Grow { len_at_open: 4000, after: 2000 }).unwrap();
    assert_eq!(std::fs::metadata(mnt.path()).unwrap().len(), 4000);
    let file = std::fs::File::open(mnt.path()).unwrap();
    assert_eq!(file.read_at(&mut buf, 2000).unwrap(), 8000);
    assert_eq!(std::fs::metadata(mnt.path()).unwrap().len(), 10_000);
}

#[test]
fn a_stall_delays_only_its_read() {
    require_fuse!();
    let (f, data) = backing(10_000);
    let stall = Duration::from_millis(300);
    let mnt = FaultMount::new(f.path(), Fault::Stall { at: 100, stall }).unwrap();
    let t = std::time::Instant::now();
    assert_eq!(std::fs::read(mnt.path()).unwrap(), data);
    // Behaviour, not speed: the stall happened (it cannot be shorter).
    assert!(t.elapsed() >= stall);
}

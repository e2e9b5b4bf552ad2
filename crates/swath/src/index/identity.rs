//! What identifies a file for an index: its length, its modification time,
//! its inode and status-change time, and a hash of its first and last
//! 64 KiB. An append changes the length, a rewrite in place changes the
//! modification time; a rewrite with the modification time put back
//! (`touch -d`) still changes the status-change time, which no system call
//! sets back, and a file replaced by another has another inode. The hash
//! catches what a filesystem without those times (some network or FUSE
//! mounts) would let through at either end.

use std::fs::File;
use std::os::unix::fs::MetadataExt;

/// How many bytes at each end of the file are hashed.
pub const HASHED_BYTES: u64 = 64 * 1024;

/// What identifies a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileIdentity {
    /// Its length in bytes.
    pub len: u64,
    /// Its modification time: seconds since the Unix epoch.
    pub mtime_sec: i64,
    /// Its modification time: nanoseconds past `mtime_sec`.
    pub mtime_nsec: u32,
    /// Its status-change time (`st_ctime`): seconds since the Unix epoch.
    pub ctime_sec: i64,
    /// Its status-change time: nanoseconds past `ctime_sec`.
    pub ctime_nsec: u32,
    /// Its inode number.
    pub inode: u64,
    /// FNV-1a (64-bit) of its first 64 KiB, then its last 64 KiB.
    pub hash: u64,
}

impl FileIdentity {
    /// The identity of `file` now.
    ///
    /// # Errors
    ///
    /// An I/O error reading its metadata or its ends.
    pub fn of(file: &File) -> std::io::Result<FileIdentity> {
        let meta = file.metadata()?;
        let len = meta.len();
        let mut h = Fnv::new();
        let mut buf = vec![0u8; HASHED_BYTES as usize];
        for start in [0, len.saturating_sub(HASHED_BYTES)] {
            let want = (len - start).min(HASHED_BYTES) as usize;
            let n = crate::range::read_full_at(file, &mut buf[..want], start)?;
            h.write(&buf[..n]);
        }
        Ok(FileIdentity {
            len,
            mtime_sec: meta.mtime(),
            mtime_nsec: u32::try_from(meta.mtime_nsec()).unwrap_or(0),
            ctime_sec: meta.ctime(),
            ctime_nsec: u32::try_from(meta.ctime_nsec()).unwrap_or(0),
            inode: meta.ino(),
            hash: h.0,
        })
    }

    /// What differs from `now`, or `None` when nothing does.
    pub fn differs(&self, now: &FileIdentity) -> Option<String> {
        if self.len != now.len {
            Some(format!("the file is {} bytes now, {} when indexed", now.len, self.len))
        } else if (self.mtime_sec, self.mtime_nsec) != (now.mtime_sec, now.mtime_nsec) {
            Some("the file was modified after it was indexed".to_string())
        } else if self.inode != now.inode {
            Some(
                "the file was replaced by another after it was indexed (another inode)".to_string(),
            )
        } else if (self.ctime_sec, self.ctime_nsec) != (now.ctime_sec, now.ctime_nsec) {
            Some(
                "the file was written or its status changed after it was indexed \
                 (its change time differs, even where its modification time was put back)"
                    .to_string(),
            )
        } else if self.hash != now.hash {
            Some("the file's first or last 64 KiB changed after it was indexed".to_string())
        } else {
            None
        }
    }
}

/// FNV-1a, 64-bit: small, no dependency, and enough to tell a changed
/// head or tail apart (this is no defence against someone forging a file).
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_matches_the_reference_values() {
        let mut h = Fnv::new();
        h.write(b"");
        assert_eq!(h.0, 0xcbf2_9ce4_8422_2325);
        let mut h = Fnv::new();
        h.write(b"a");
        assert_eq!(h.0, 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn a_changed_byte_at_either_end_changes_the_identity() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&p, &data).unwrap();
        let a = FileIdentity::of(&File::open(&p).unwrap()).unwrap();
        for at in [0, data.len() - 1] {
            let mut d = data.clone();
            d[at] ^= 1;
            std::fs::write(&p, &d).unwrap();
            let b = FileIdentity::of(&File::open(&p).unwrap()).unwrap();
            assert_ne!(a.hash, b.hash, "byte {at}");
        }
    }
}

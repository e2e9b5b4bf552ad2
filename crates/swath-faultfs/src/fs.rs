//! The filesystem itself: a root directory holding one file, `data`, whose
//! bytes come from a real file and whose reads go through a [`Fault`].

use std::ffi::OsStr;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::time::{Duration, SystemTime};

use fuser::{
    Errno, FileAttr, FileHandle, FileType, Filesystem, FopenFlags, Generation, INodeNo, InitFlags,
    KernelConfig, LockOwner, OpenFlags, ReplyAttr, ReplyData, ReplyDirectory, ReplyEntry,
    ReplyOpen, Request,
};

use crate::fault::{Answer, Fault, State};

/// The name of the one file in the mount.
pub const FILE_NAME: &str = "data";

const FILE_INO: INodeNo = INodeNo(2);

/// Nothing cached: every `stat` asks us, so a shrinking or growing size is
/// seen when it changes.
const TTL: Duration = Duration::ZERO;

pub(crate) struct FaultFs {
    pub(crate) backing: File,
    pub(crate) fault: Fault,
    pub(crate) state: std::sync::Arc<State>,
    /// Serve reads through the kernel's page cache (needed by the mmap
    /// tests) instead of passing every `read` straight to us.
    pub(crate) page_cache: bool,
}

impl FaultFs {
    fn real_len(&self) -> u64 {
        self.backing.metadata().map_or(0, |m| m.len())
    }

    fn attr(&self, ino: INodeNo) -> FileAttr {
        let (kind, perm, size) = if ino == INodeNo::ROOT {
            (FileType::Directory, 0o755, 0)
        } else {
            (
                FileType::RegularFile,
                0o644,
                self.fault.visible_len(&self.state, self.real_len(), self.page_cache),
            )
        };
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        FileAttr {
            ino,
            size,
            blocks: size.div_ceil(512),
            atime: now,
            mtime: now,
            ctime: now,
            crtime: now,
            kind,
            perm,
            nlink: if kind == FileType::Directory { 2 } else { 1 },
            uid: 0,
            gid: 0,
            rdev: 0,
            blksize: 4096,
            flags: 0,
        }
    }
}

impl Filesystem for FaultFs {
    fn init(&mut self, _req: &Request, config: &mut KernelConfig) -> std::io::Result<()> {
        // Let a direct-I/O file be mapped too (Linux 6.6 and later); the map
        // then reads whole pages, through `read` below.
        let _ = config.add_capabilities(InitFlags::FUSE_DIRECT_IO_ALLOW_MMAP);
        Ok(())
    }

    fn lookup(&self, _req: &Request, parent: INodeNo, name: &OsStr, reply: ReplyEntry) {
        if parent == INodeNo::ROOT && name == FILE_NAME {
            reply.entry(&TTL, &self.attr(FILE_INO), Generation(0));
        } else {
            reply.error(Errno::ENOENT);
        }
    }

    fn getattr(&self, _req: &Request, ino: INodeNo, _fh: Option<FileHandle>, reply: ReplyAttr) {
        if ino == INodeNo::ROOT || ino == FILE_INO {
            reply.attr(&TTL, &self.attr(ino));
        } else {
            reply.error(Errno::ENOENT);
        }
    }

    fn open(&self, _req: &Request, ino: INodeNo, _flags: OpenFlags, reply: ReplyOpen) {
        if ino != FILE_INO {
            return reply.error(Errno::EISDIR);
        }
        // Direct I/O: each `read` of the program reaches us as it is, so a
        // short answer is a short read, not a hole the kernel fills with
        // zeros.
        let flags = if self.page_cache { FopenFlags::empty() } else { FopenFlags::FOPEN_DIRECT_IO };
        reply.opened(FileHandle(0), flags);
    }

    fn read(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        size: u32,
        _flags: OpenFlags,
        _lock_owner: Option<LockOwner>,
        reply: ReplyData,
    ) {
        if ino != FILE_INO {
            return reply.error(Errno::EISDIR);
        }
        let answer = self.fault.answer(&self.state, offset, size, self.real_len(), self.page_cache);
        let (start, end) = match answer {
            Answer::Errno(e) => return reply.error(Errno::from_i32(e)),
            Answer::Bytes { start, end } => (start, end),
            Answer::StallThen { stall, start, end } => {
                std::thread::sleep(stall);
                (start, end)
            }
        };
        let mut buf = vec![0u8; (end - start) as usize];
        let mut done = 0;
        while done < buf.len() {
            match self.backing.read_at(&mut buf[done..], start + done as u64) {
                Ok(0) => break,
                Ok(n) => done += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return reply.error(Errno::EIO),
            }
        }
        reply.data(&buf[..done]);
    }

    fn readdir(
        &self,
        _req: &Request,
        ino: INodeNo,
        _fh: FileHandle,
        offset: u64,
        mut reply: ReplyDirectory,
    ) {
        if ino != INodeNo::ROOT {
            return reply.error(Errno::ENOTDIR);
        }
        let entries = [
            (INodeNo::ROOT, FileType::Directory, "."),
            (INodeNo::ROOT, FileType::Directory, ".."),
            (FILE_INO, FileType::RegularFile, FILE_NAME),
        ];
        for (i, (ino, kind, name)) in entries.iter().enumerate().skip(offset as usize) {
            if reply.add(*ino, (i + 1) as u64, *kind, name) {
                break;
            }
        }
        reply.ok();
    }
}

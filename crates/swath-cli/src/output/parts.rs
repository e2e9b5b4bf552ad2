//! Writing the parts of a split (`swath csv split`, `swath split`): each
//! part is a prefix (the header row's bytes) and a byte range of the
//! input, copied, not re-encoded: `copy_file_range` on Linux (the kernel
//! copies, no byte crosses into user space), plain reads and writes where
//! the file system refuses it, or through a gzip or zstd encoder.
//!
//! Parts are written in parallel, each under a temporary name and renamed
//! when complete. A part renamed into place stays registered for removal
//! until every part is done: a failure or Ctrl-C removes the parts this
//! run finished, so no part is ever left that looks like a complete split.
//! [`write_each`] is that much alone, for parts written otherwise (`swath
//! json split` writes records, not byte ranges).

use std::fs::File;
use std::io::{self, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use anyhow::{Context, Result};

use swath::compress::{Codec, CompressWriter};

use crate::output::{register_temp, remove_on_interrupt, unregister_temp, AtomicFile};

/// How parts are compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compress {
    /// Not: bytes copied as they are.
    None,
    /// gzip (`.gz`).
    Gzip,
    /// zstd (`.zst`).
    Zstd,
}

impl Compress {
    /// The flags' choice.
    pub fn from_flags(gzip: bool, zstd: bool) -> Compress {
        match (gzip, zstd) {
            (true, _) => Compress::Gzip,
            (_, true) => Compress::Zstd,
            _ => Compress::None,
        }
    }

    /// The codec that writes it: independent blocks, so a part reads back
    /// on every core ([`swath::compress`]).
    pub fn codec(self) -> Option<Codec> {
        match self {
            Compress::None => None,
            Compress::Gzip => Some(Codec::GZIP),
            Compress::Zstd => Some(Codec::ZSTD),
        }
    }

    /// Write `out` through this compression: `fill` writes the decoded
    /// bytes. Compressed in the calling thread: parts are written in
    /// parallel already.
    pub fn write<W: Write>(
        self,
        mut out: W,
        fill: impl FnOnce(&mut dyn Write) -> Result<()>,
    ) -> Result<W> {
        let Some(codec) = self.codec() else {
            fill(&mut out)?;
            return Ok(out);
        };
        let mut enc = CompressWriter::new(out, codec, 0)?;
        fill(&mut enc)?;
        Ok(enc.finish()?)
    }

    /// The suffix of a part's name.
    pub fn suffix(self) -> &'static str {
        match self {
            Compress::None => "",
            Compress::Gzip => ".gz",
            Compress::Zstd => ".zst",
        }
    }
}

/// One part to write.
#[derive(Clone, Debug)]
pub struct Part {
    /// Where it goes.
    pub path: PathBuf,
    /// Bytes of the input it holds after the prefix.
    pub range: Range<u64>,
    /// It starts with the prefix (every part but the first, which holds
    /// the header row itself).
    pub with_prefix: bool,
    /// Ranges inside `range` left out (records put aside), in order.
    pub holes: Vec<Range<u64>>,
}

impl Part {
    /// The ranges of the input it holds: `range` less the holes.
    pub fn pieces(&self) -> Vec<Range<u64>> {
        let mut out = Vec::with_capacity(self.holes.len() + 1);
        let mut at = self.range.start;
        for h in &self.holes {
            let (start, end) = (h.start.max(at), h.end.min(self.range.end));
            if start >= end {
                continue;
            }
            if at < start {
                out.push(at..start);
            }
            at = end;
        }
        if at < self.range.end {
            out.push(at..self.range.end);
        }
        out
    }
}

/// A check that runs before part `i` is written (the CSV parts' records
/// are read, so a malformed record is an error with its position).
pub type Check<'a> = &'a (dyn Fn(usize) -> Result<()> + Sync);

/// A check of the whole input that runs while the parts are written (a
/// validating pass over the file): the parts stand only if it passes.
pub type Alongside<'a> = &'a (dyn Fn() -> Result<()> + Sync);

/// How the parts' bytes are checked.
#[derive(Clone, Copy)]
pub enum Checks<'a> {
    /// Not at all (line files; a CSV file whose valid index says it
    /// read cleanly).
    None,
    /// Part by part, before each is written.
    EachPart(Check<'a>),
    /// The whole input at once, on its own thread while the parts are
    /// copied.
    Alongside(Alongside<'a>),
}

/// Write `parts` of the file at `src`, each `prefix` then its range, on
/// `threads` threads, checked as `checks` says.
///
/// # Errors
///
/// The check of the whole input's error, else the first part's (in part
/// order); every part this call wrote is then removed.
pub fn write_parts(
    src: &Path,
    prefix: &[u8],
    parts: &[Part],
    compress: Compress,
    threads: usize,
    checks: Checks<'_>,
) -> Result<()> {
    let file = File::open(src).with_context(|| format!("cannot read {}", src.display()))?;
    let paths: Vec<PathBuf> = parts.iter().map(|p| p.path.clone()).collect();
    let alongside = match checks {
        Checks::Alongside(whole) => Some(whole),
        Checks::None | Checks::EachPart(_) => None,
    };
    write_each(&paths, threads, alongside, &|i| {
        let p = &parts[i];
        if let Checks::EachPart(check) = checks {
            check(i)?;
        }
        write_part(&file, if p.with_prefix { prefix } else { &[] }, p, compress)
    })
}

/// Write the parts at `paths` on `threads` threads, part `i` by `write(i)`
/// (which puts it in place only when complete), with `alongside` (a check
/// of the whole input) on a thread of its own. Each part written stays
/// registered for removal on Ctrl-C until all are done.
///
/// # Errors
///
/// The check of the whole input's error, else the first part's (in part
/// order); every part this call wrote is then removed.
pub fn write_each(
    paths: &[PathBuf],
    threads: usize,
    alongside: Option<Alongside<'_>>,
    write: &(dyn Fn(usize) -> Result<()> + Sync),
) -> Result<()> {
    remove_on_interrupt();
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    // Keyed by part number + 1; the whole input's check is 0, so its error
    // (the file's first bad record) comes first.
    let errors: Mutex<Vec<(usize, anyhow::Error)>> = Mutex::new(Vec::new());
    let fail = |key: usize, e: anyhow::Error| {
        errors.lock().unwrap_or_else(|e| e.into_inner()).push((key, e));
    };
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= paths.len() || !errors.lock().is_ok_and(|e| e.is_empty()) {
            break;
        }
        match write(i) {
            Ok(()) => {
                register_temp(&paths[i]);
                done.lock().unwrap_or_else(|e| e.into_inner()).push(paths[i].clone());
            }
            Err(e) => fail(i + 1, e),
        }
    };
    let threads = threads.clamp(1, paths.len().max(1));
    std::thread::scope(|s| {
        if let Some(whole) = alongside {
            s.spawn(|| {
                if let Err(e) = whole() {
                    fail(0, e);
                }
            });
        }
        for _ in 0..threads {
            s.spawn(work);
        }
    });
    let done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut errors = errors.into_inner().unwrap_or_else(|e| e.into_inner());
    if errors.is_empty() {
        for p in &done {
            unregister_temp(p);
        }
        return Ok(());
    }
    for p in &done {
        let _ = std::fs::remove_file(p);
        unregister_temp(p);
    }
    errors.sort_by_key(|(i, _)| *i);
    Err(errors.swap_remove(0).1)
}

fn write_part(src: &File, prefix: &[u8], part: &Part, compress: Compress) -> Result<()> {
    write_part_bytes(src, prefix, part, compress)
        .with_context(|| format!("cannot write {}", part.path.display()))
}

fn write_part_bytes(src: &File, prefix: &[u8], part: &Part, compress: Compress) -> Result<()> {
    let mut out = AtomicFile::create(&part.path)?;
    match compress {
        Compress::None => {
            out.write_all(prefix)?;
            let dst = out.as_file().context("part closed early")?;
            for piece in part.pieces() {
                copy_range(src, dst, piece)?;
            }
        }
        Compress::Gzip | Compress::Zstd => {
            compress.write(&mut out, |w| {
                w.write_all(prefix)?;
                for piece in part.pieces() {
                    stream_range(src, w, piece)?;
                }
                Ok(())
            })?;
        }
    }
    out.commit()?;
    Ok(())
}

/// Copy `range` of `src` to `dst` at its offset: in the kernel where it
/// can, else by reads and writes.
pub fn copy_range(src: &File, dst: &File, range: Range<u64>) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let mut off = range.start as libc::loff_t;
        let end = range.end as libc::loff_t;
        while off < end {
            let want = ((end - off) as usize).min(1 << 30);
            // SAFETY: both descriptors are open for the call; `off` is a
            // valid loff_t the kernel advances; a null out-offset means
            // dst's own offset.
            let n = unsafe {
                libc::copy_file_range(
                    src.as_raw_fd(),
                    &mut off,
                    dst.as_raw_fd(),
                    std::ptr::null_mut(),
                    want,
                    0,
                )
            };
            if n > 0 {
                continue;
            }
            if n == 0 {
                return Err(shrank());
            }
            let e = io::Error::last_os_error();
            match e.raw_os_error() {
                Some(libc::EINTR) => continue,
                Some(
                    libc::EXDEV | libc::ENOSYS | libc::EINVAL | libc::EOPNOTSUPP | libc::EPERM,
                ) => {
                    let mut w = dst;
                    return stream_range(src, &mut w, off as u64..range.end);
                }
                _ => return Err(e),
            }
        }
        Ok(())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let mut w = dst;
        stream_range(src, &mut w, range)
    }
}

/// The plain twin of [`copy_range`]: `pread` into a buffer, write it.
pub fn stream_range(
    src: &File,
    dst: &mut (impl Write + ?Sized),
    range: Range<u64>,
) -> io::Result<()> {
    let mut buf = vec![0u8; 1 << 20];
    let mut at = range.start;
    while at < range.end {
        let want = ((range.end - at) as usize).min(buf.len());
        let n = swath::range::read_full_at(src, &mut buf[..want], at)?;
        if n < want {
            return Err(shrank());
        }
        dst.write_all(&buf[..n])?;
        at += n as u64;
    }
    Ok(())
}

fn shrank() -> io::Error {
    io::Error::new(io::ErrorKind::UnexpectedEof, "the input shrank while it was split")
}

/// Where and how `swath split` and `swath csv split` write their parts.
#[derive(Debug, clap::Args)]
pub struct PartsArgs {
    /// The directory to write the parts in.
    #[arg(short = 'o', long, default_value = ".")]
    pub out_dir: PathBuf,
    /// The parts' names start with this (default: the input's name
    /// without its extension, then `_`); then a number and the input's
    /// extension.
    #[arg(long)]
    pub prefix: Option<String>,
    /// Compress the parts with gzip (`.gz`).
    #[arg(long, conflicts_with = "zstd")]
    pub gzip: bool,
    /// Compress the parts with zstd (`.zst`).
    #[arg(long)]
    pub zstd: bool,
}

impl PartsArgs {
    /// The compression asked for.
    pub fn compress(&self) -> Compress {
        Compress::from_flags(self.gzip, self.zstd)
    }

    /// The output directory, created if missing.
    pub fn create_dir(&self) -> Result<&Path> {
        std::fs::create_dir_all(&self.out_dir)
            .with_context(|| format!("cannot create {}", self.out_dir.display()))?;
        Ok(&self.out_dir)
    }

    /// The parts' name prefix and extension, for parts of `input`.
    pub fn names(&self, input: &Path) -> (String, String) {
        let ext =
            input.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
        let ext = format!("{ext}{}", self.compress().suffix());
        let prefix = self.prefix.clone().unwrap_or_else(|| {
            let stem = input.file_stem().map_or_else(|| "part".into(), |s| s.to_string_lossy());
            format!("{stem}_")
        });
        (prefix, ext)
    }
}

/// A part's name: `DIR/PREFIX0001.EXT` with as many digits as the count
/// needs (at least 4).
pub fn part_path(dir: &Path, prefix: &str, i: usize, count: usize, ext: &str) -> PathBuf {
    let width = count.to_string().len().max(4);
    dir.join(format!("{prefix}{:0width$}{ext}", i + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_and_its_plain_twin_write_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        let data: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&src, &data).unwrap();
        let f = File::open(&src).unwrap();
        for r in [0..0, 0..1, 5..100_000, 1..200_000] {
            let a = dir.path().join("a");
            let fa = File::create(&a).unwrap();
            (&fa).write_all(b"head").unwrap();
            copy_range(&f, &fa, r.clone()).unwrap();
            let mut b = Vec::from(&b"head"[..]);
            stream_range(&f, &mut b, r.clone()).unwrap();
            assert_eq!(std::fs::read(&a).unwrap(), b, "{r:?}");
            let want = [&b"head"[..], &data[r.start as usize..r.end as usize]].concat();
            assert_eq!(b, want);
        }
        // Past the end: an error, not a short part.
        let fa = File::create(dir.path().join("c")).unwrap();
        assert!(copy_range(&f, &fa, 199_990..200_010).is_err());
    }
}

//! Threads with `pread`: each reads its own contiguous byte range of the
//! file into its own aligned buffer (as in the seed, which used 10).

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::Path;

use super::behind::Behind;
use super::Outcome;
use crate::aligned::AlignedBuf;

/// Per-thread buffer: swath's default size.
const BUF: usize = 256 * 1024;

/// Count the file's lines with `threads` threads over equal ranges.
/// With `behind`, each thread evicts its range behind itself.
pub fn pread(path: &Path, threads: usize, behind: bool) -> io::Result<Outcome> {
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    let per = len.div_ceil(threads.max(1) as u64).max(1);
    let file = &file;
    let results: Vec<io::Result<(u64, u64, Option<u8>)>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.max(1) as u64)
            .map(|i| (i * per, ((i + 1) * per).min(len)))
            .filter(|(start, end)| start < end)
            .map(|(start, end)| s.spawn(move || count_range(file, start, end, behind)))
            .collect();
        handles.into_iter().map(|h| h.join().expect("pread thread panicked")).collect()
    });
    let (mut newlines, mut calls, mut last) = (0u64, 0u64, None);
    for r in results {
        let (n, c, l) = r?;
        newlines += n;
        calls += c;
        last = l.or(last);
    }
    Ok(Outcome {
        lines: newlines + u64::from(last.is_some_and(|b| b != b'\n')),
        bytes: len,
        syscalls: Some(calls),
        buf_offset: None,
        id_sum: None,
    })
}

/// `\n` count, `pread` calls, and the last byte of `start..end`.
fn count_range(
    file: &File,
    start: u64,
    end: u64,
    behind: bool,
) -> io::Result<(u64, u64, Option<u8>)> {
    let mut evict = Behind::new(file, start, behind);
    let mut buf = AlignedBuf::new(BUF);
    let (mut pos, mut newlines, mut calls, mut last) = (start, 0u64, 0u64, None);
    while pos < end {
        let want = (end - pos).min(BUF as u64) as usize;
        calls += 1;
        let n = match file.read_at(&mut buf[..want], pos) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("file ended at byte {pos}, before {end}: truncated while read?"),
                ))
            }
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        newlines += swath::count_newlines(&buf[..n]);
        last = Some(buf[n - 1]);
        pos += n as u64;
        if let Some(e) = &mut evict {
            e.advance(n);
        }
    }
    Ok((newlines, calls, last))
}

//! Sequential readers on one thread: raw `read` into buffers of each size,
//! std's line readers, the whole file at once, and swath's own.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use swath::{CountOptions, LineCount, LineReaderBuilder, Source};

use super::{not_applicable, to_io, Counted, Outcome};
use crate::aligned::{AlignedBuf, PAGE};

/// `read` into one reused buffer of `size` bytes, counting `\n` in what came.
/// With `behind`, what has been read is evicted from the page cache.
pub fn read_buf(path: &Path, size: usize, aligned: bool, behind: bool) -> io::Result<Outcome> {
    let mut file = Counted::evicting(File::open(path)?, behind);
    if aligned {
        let mut buf = AlignedBuf::new(size);
        count_reads(&mut file, &mut buf)
    } else {
        // What most programs do; malloc puts a large block 16 bytes past a
        // page boundary (glibc), which the kernel's copy pays for.
        let mut buf = vec![0u8; size];
        count_reads(&mut file, &mut buf)
    }
}

fn count_reads(file: &mut Counted<File>, buf: &mut [u8]) -> io::Result<Outcome> {
    let mut count = LineCount::default();
    let mut calls = 0u64;
    loop {
        calls += 1;
        let n = match file.read(buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        count.add(&buf[..n]);
    }
    Ok(Outcome {
        lines: count.lines(),
        bytes: count.bytes,
        syscalls: Some(calls),
        buf_offset: Some((buf.as_ptr() as usize % PAGE) as u64),
        id_sum: None,
    })
}

/// `BufReader` + `read_until` into one reused `Vec`: no allocation per line.
pub fn read_until(path: &Path, behind: bool) -> io::Result<Outcome> {
    let mut rdr = BufReader::new(Counted::evicting(File::open(path)?, behind));
    let mut line = Vec::with_capacity(256);
    let (mut lines, mut bytes) = (0u64, 0u64);
    loop {
        line.clear();
        let n = rdr.read_until(b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        lines += 1;
        bytes += n as u64;
    }
    Ok(Outcome {
        lines,
        bytes,
        syscalls: Some(rdr.get_ref().calls()),
        buf_offset: None,
        id_sum: None,
    })
}

/// `BufRead::lines()`: a fresh `String` per line, UTF-8 checked.
pub fn lines(path: &Path, behind: bool) -> io::Result<Outcome> {
    let len = std::fs::metadata(path)?.len();
    let mut rdr = BufReader::new(Counted::evicting(File::open(path)?, behind));
    let mut lines = 0u64;
    for line in (&mut rdr).lines() {
        match line {
            Ok(_) => lines += 1,
            // Not a wrong count: lines() cannot read such a file at all.
            Err(e) if e.kind() == io::ErrorKind::InvalidData => {
                return Err(not_applicable(format!("invalid UTF-8 at line {}", lines + 1)));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(Outcome {
        lines,
        // Read to the end, so every byte: the Strings lost the terminators.
        bytes: len,
        syscalls: Some(rdr.get_ref().calls()),
        buf_offset: None,
        id_sum: None,
    })
}

/// `fs::read` of the whole file, then one count.
pub fn fs_read(path: &Path) -> io::Result<Outcome> {
    let data = std::fs::read(path)?;
    Ok(Outcome {
        lines: swath::count_lines(&data),
        bytes: data.len() as u64,
        syscalls: None,
        buf_offset: None,
        id_sum: None,
    })
}

/// swath's line reader: borrowed lines from one 256 KiB aligned buffer.
pub fn swath_lines(path: &Path, behind: bool) -> io::Result<Outcome> {
    let len = std::fs::metadata(path)?.len();
    let file = Counted::evicting(File::open(path)?, behind);
    let mut rdr = LineReaderBuilder::new().from_reader(file);
    let mut lines = 0u64;
    while rdr.next_line().map_err(to_io)?.is_some() {
        lines += 1;
    }
    Ok(Outcome {
        lines,
        bytes: len,
        syscalls: Some(rdr.get_ref().calls()),
        buf_offset: None,
        id_sum: None,
    })
}

/// `swath count`'s engine with its defaults (pread ranges on every core).
pub fn swath_count(path: &Path) -> io::Result<Outcome> {
    let mut src = Source::open(path).map_err(to_io)?;
    let count = swath::count_source(&mut src, &CountOptions::default()).map_err(to_io)?;
    Ok(Outcome {
        lines: count.lines(),
        bytes: count.bytes,
        syscalls: None,
        buf_offset: None,
        id_sum: None,
    })
}

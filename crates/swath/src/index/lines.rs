//! The index of a line file, made in one parallel pass: every range of
//! `interval` bytes counts its `\n` bytes and finds its first line start
//! (the byte after the first `\n` at or after `start - 1`, as
//! [`LineFraming`](crate::LineFraming) does); the counts before a range
//! give its first line's number.

use std::fs::File;
use std::path::Path;

use super::{Checkpoint, FileIdentity, Index, IndexKind};
use crate::error::{Error, Result};
use crate::parallel::Parallel;

/// Bytes between checkpoints unless told otherwise.
pub const DEFAULT_INTERVAL: u64 = 4 << 20;

/// What one range knows alone.
struct Piece {
    newlines: u64,
    /// The first line start in the range, and the `\n` bytes before it in
    /// the range.
    first: Option<(u64, u64)>,
}

/// Index the line file at `path` with a checkpoint every `interval` bytes
/// (about), on `threads` threads (0: every core).
///
/// # Errors
///
/// An I/O error, naming the path.
pub fn index_lines(path: &Path, interval: u64, threads: usize) -> Result<Index> {
    let with_path = |e: std::io::Error| Error::from(e).with_path(path);
    let file = File::open(path).map_err(with_path)?;
    let identity = FileIdentity::of(&file).map_err(with_path)?;
    let len = identity.len;
    let mut par = Parallel::new().chunk_size(interval.max(1));
    if threads > 0 {
        par = par.threads(threads);
    }
    let pieces = par.try_map_with(
        len,
        || vec![0u8; interval.clamp(1, 8 << 20) as usize + 1],
        |buf, _, r| piece(&file, r, buf).map_err(with_path),
    )?;
    let mut checkpoints = vec![Checkpoint { byte: 0, record: 1, line: 1 }];
    let mut line = 1;
    for (i, p) in pieces.iter().enumerate() {
        if let (true, Some((byte, before))) = (i > 0, p.first) {
            let at = line + before;
            checkpoints.push(Checkpoint { byte, record: at, line: at });
        }
        line += p.newlines;
    }
    let unterminated = if len == 0 {
        0
    } else {
        let mut last = [0u8];
        crate::range::read_range_exact(&file, len - 1..len, &mut last)?;
        u64::from(last[0] != b'\n')
    };
    Ok(Index {
        kind: IndexKind::Lines,
        identity,
        dialect: String::new(),
        records: line - 1 + unterminated,
        checkpoints,
        gzip: None,
    })
}

/// Index a gzip file's lines in one front-to-back read, with its gzip
/// checkpoints ([`crate::decompress::gzip_index`]): the line checkpoints
/// are offsets in its decoded bytes, one per `interval` of them.
///
/// # Errors
///
/// An I/O error or a decoding error (with its offsets), naming the path.
pub fn index_gzip_lines(path: &Path, interval: u64) -> Result<Index> {
    use crate::decompress::gzip_index::{spacing_for, Indexer};
    use std::io::Read;
    let with_path = |e: std::io::Error| Error::from(e).with_path(path);
    let file = File::open(path).map_err(with_path)?;
    let identity = FileIdentity::of(&file).map_err(with_path)?;
    let interval = interval.max(1);
    let raw = crate::range::OwnedRange::new(std::sync::Arc::new(file), 0, identity.len);
    let mut decoded = Indexer::new(raw, spacing_for(identity.len));
    let mut buf = vec![0u8; 1 << 20];
    let mut checkpoints = vec![Checkpoint { byte: 0, record: 1, line: 1 }];
    // Decoded bytes and lines before `buf`; the next checkpoint is the
    // first line start at or after `next`.
    let (mut at, mut line, mut next, mut last) = (0u64, 1u64, interval, b'\n');
    loop {
        let n = decoded.read(&mut buf).map_err(with_path)?;
        if n == 0 {
            break;
        }
        let block = &buf[..n];
        for i in memchr::memchr_iter(b'\n', block) {
            let start = at + i as u64 + 1;
            line += 1;
            if start >= next {
                checkpoints.push(Checkpoint { byte: start, record: line, line });
                next = start + interval;
            }
        }
        at += n as u64;
        last = block[n - 1];
    }
    // A checkpoint at the very end is no line start.
    if checkpoints.last().is_some_and(|c| c.byte == at && at > 0) {
        checkpoints.pop();
    }
    let gzip = decoded.finish().expect("read to the end");
    let unterminated = u64::from(at > 0 && last != b'\n');
    Ok(Index {
        kind: IndexKind::Lines,
        identity,
        dialect: String::new(),
        records: line - 1 + unterminated,
        checkpoints,
        gzip: Some(gzip),
    })
}

fn piece(file: &File, r: std::ops::Range<u64>, buf: &mut [u8]) -> std::io::Result<Piece> {
    let from = r.start.saturating_sub(1);
    let mut newlines = 0;
    let mut first = None;
    let mut at = from;
    while at < r.end {
        let n = ((r.end - at) as usize).min(buf.len());
        let got = crate::range::read_full_at(file, &mut buf[..n], at)?;
        if got < n {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the file shrank while it was indexed",
            ));
        }
        let block = &buf[..n];
        // Byte `r.start - 1` only tells where the first line starts.
        let skip = usize::from(at < r.start);
        if first.is_none() {
            if r.start == 0 {
                first = Some((0, 0));
            } else if let Some(i) = memchr::memchr(b'\n', block) {
                let start = at + i as u64 + 1;
                if start < r.end {
                    first = Some((start, newlines + u64::from(i >= skip)));
                }
            }
        }
        newlines += crate::count::count_newlines(&block[skip..]);
        at += n as u64;
    }
    Ok(Piece { newlines, first })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slow twin: every line start and its number.
    fn naive(data: &[u8]) -> Vec<(u64, u64)> {
        let mut out = vec![(0, 1)];
        for (i, &b) in data.iter().enumerate() {
            if b == b'\n' && i + 1 < data.len() {
                out.push((i as u64 + 1, out.len() as u64 + 1));
            }
        }
        out
    }

    /// Lines, the last counted without its `\n`.
    fn lines(data: &[u8]) -> u64 {
        data.iter().filter(|&&b| b == b'\n').count() as u64
            + u64::from(data.last().is_some_and(|&b| b != b'\n'))
    }

    /// Every checkpoint is a line start of `starts`, with its number.
    fn each_a_line_start(idx: &Index, starts: &[(u64, u64)], what: &str) {
        for c in &idx.checkpoints {
            assert!(starts.contains(&(c.byte, c.line)), "{what}: {c:?}");
            assert_eq!(c.record, c.line);
        }
    }

    #[test]
    fn checkpoints_are_line_starts_with_their_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        let mut rng = swath_testkit::Rng::new(7);
        for case in 0..40 {
            let len = rng.index(300);
            let data = rng.bytes(len, b"ab\n\n\r");
            std::fs::write(&p, &data).unwrap();
            let starts = naive(&data);
            for interval in [1, 2, 3, 7, 64] {
                let idx = index_lines(&p, interval, 3).unwrap();
                assert_eq!(idx.records, lines(&data), "case {case}");
                each_a_line_start(&idx, &starts, &format!("case {case} {interval}"));
                // One checkpoint per range that holds a line start.
                let want = starts
                    .iter()
                    .map(|s| s.0 / interval)
                    .collect::<std::collections::BTreeSet<_>>()
                    .len();
                assert_eq!(idx.checkpoints.len(), want.max(1), "case {case} {interval}");
            }
        }
    }

    #[test]
    fn a_gzip_files_checkpoints_are_line_starts_of_its_decoded_bytes() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.gz");
        let mut rng = swath_testkit::Rng::new(11);
        for case in 0..40 {
            let len = rng.index(300);
            let data = rng.bytes(len, b"ab\n\n\r");
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
            enc.write_all(&data).unwrap();
            std::fs::write(&p, enc.finish().unwrap()).unwrap();
            let starts = naive(&data);
            for interval in [1, 2, 3, 7, 64] {
                let idx = index_gzip_lines(&p, interval).unwrap();
                assert_eq!(idx.records, lines(&data), "case {case}");
                assert_eq!(idx.gzip.as_ref().unwrap().decoded_len, data.len() as u64);
                assert_eq!(idx.checkpoints[0], Checkpoint { byte: 0, record: 1, line: 1 });
                for w in idx.checkpoints.windows(2) {
                    assert!(w[1].byte >= w[0].byte + interval, "case {case} {interval}");
                }
                each_a_line_start(&idx, &starts, &format!("case {case} {interval}"));
            }
        }
    }
}

//! The seed's log file: one 86-byte line (newline included), repeated.
//!
//! The file is cut at exactly the size asked for, like the seed's: 512 MiB is
//! 6,242,685 whole lines and a 2-byte unterminated tail, which a line reader
//! counts as one more line, so 6,242,686 lines. Exact sizes keep GB/s honest
//! and let anyone reproduce the seed's numbers; [`line_count`] and
//! [`newline_count`] give the answers a reader must find.

use std::io::{self, Write};

/// The line, terminator included (86 bytes).
pub const LINE: &[u8] =
    b"2000-01-01T00:00:00Z INFO request served path=/library/example status=200 bytes=18342\n";

/// Bytes per block written: whole lines, about 64 KiB.
const BLOCK_LINES: usize = 64 * 1024 / LINE.len();

/// Lines a reader finds in a file of `size` bytes: the whole lines, plus one
/// for a cut, unterminated last line (`ceil(size / 86)`).
pub fn line_count(size: u64) -> u64 {
    size.div_ceil(LINE.len() as u64)
}

/// `\n` bytes in a file of `size` bytes (what `wc -l` prints): `floor(size / 86)`.
pub fn newline_count(size: u64) -> u64 {
    size / LINE.len() as u64
}

/// Write exactly `size` bytes of the log to `out`: the line repeated, the
/// last one cut if `size` is not a multiple of 86. Returns `size`.
///
/// One block of whole lines is built once and written again and again: no
/// allocation per line, and `out` sees large writes.
///
/// # Errors
///
/// The first error of `out`.
pub fn write<W: Write + ?Sized>(out: &mut W, size: u64) -> io::Result<u64> {
    let block = LINE.repeat(BLOCK_LINES);
    let mut left = size;
    while left > 0 {
        let n = left.min(block.len() as u64) as usize;
        out.write_all(&block[..n])?;
        left -= n as u64;
    }
    Ok(size)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_is_86_bytes_and_512_mib_has_the_seeds_count() {
        assert_eq!(LINE.len(), 86);
        assert_eq!(line_count(512 << 20), 6_242_686);
        assert_eq!(newline_count(512 << 20), 6_242_685);
    }

    #[test]
    fn writes_exact_sizes_with_matching_counts() {
        let block = (BLOCK_LINES * LINE.len()) as u64;
        for size in [0, 1, 85, 86, 87, 172, block - 1, block, block + 1, 3 * block + 40] {
            let mut out = Vec::new();
            assert_eq!(write(&mut out, size).unwrap(), size);
            assert_eq!(out.len() as u64, size, "size {size}");
            assert_eq!(swath::count_lines(&out), line_count(size), "size {size}");
            assert_eq!(swath::count_newlines(&out), newline_count(size), "size {size}");
            // Every byte is where the repeated line puts it.
            assert!(out.iter().enumerate().all(|(i, &b)| b == LINE[i % LINE.len()]));
        }
    }

    #[test]
    fn errors_reach_the_caller() {
        let mut full = [0u8; 100];
        let mut out = &mut full[..];
        let err = write(&mut out, 1000).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::WriteZero);
    }
}

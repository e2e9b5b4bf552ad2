//! Readers that return few bytes per `read`: a reader under test then
//! meets its input in pieces, and every buffer seam (a terminator, a quote,
//! a `\r\n` or a BOM split across two reads) runs.

use std::io::{self, Read};

/// Returns at most `chunk` bytes per `read` (fewer when `out` is smaller).
///
/// ```
/// use std::io::Read;
/// let mut r = swath_testkit::Chunked::new(b"abcdef", 4);
/// let mut out = [0u8; 16];
/// assert_eq!(r.read(&mut out).unwrap(), 4);
/// assert_eq!(r.read(&mut out).unwrap(), 2);
/// assert_eq!(r.read(&mut out).unwrap(), 0);
/// ```
#[derive(Clone, Debug)]
pub struct Chunked<'a> {
    /// What is left to hand out.
    pub data: &'a [u8],
    /// The most bytes one `read` returns; at least 1.
    pub chunk: usize,
}

impl<'a> Chunked<'a> {
    /// `data` in reads of at most `chunk` bytes.
    ///
    /// # Panics
    ///
    /// When `chunk` is 0 (a reader that returns 0 means end of input).
    pub fn new(data: &'a [u8], chunk: usize) -> Chunked<'a> {
        assert!(chunk > 0, "a chunk of 0 bytes would read as end of input");
        Chunked { data, chunk }
    }

    /// `data` one byte per `read`: the smallest pieces a reader can meet.
    pub fn one_byte(data: &'a [u8]) -> Chunked<'a> {
        Chunked::new(data, 1)
    }
}

impl Read for Chunked<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = self.data.len().min(self.chunk).min(out.len());
        out[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::Chunked;

    #[test]
    fn hands_out_everything_in_pieces() {
        for chunk in 1..5 {
            let mut r = Chunked::new(b"hello, world", chunk);
            let mut got = Vec::new();
            let mut buf = [0u8; 3];
            loop {
                let n = r.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                assert!(n <= chunk.min(3));
                got.extend_from_slice(&buf[..n]);
            }
            assert_eq!(got, b"hello, world");
        }
        let mut all = Vec::new();
        Chunked::one_byte(b"xyz").read_to_end(&mut all).unwrap();
        assert_eq!(all, b"xyz");
    }
}

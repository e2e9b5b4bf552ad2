//! [`DecodedFile`]: a file in a single-byte encoding, seen by ranges as
//! the UTF-8 text it decodes to, so that the exact parallel CSV reader
//! plans and reads it on every core as it does a UTF-8 file.
//!
//! In a single-byte encoding every byte is one character, and the UTF-8
//! length of each is known from the byte alone (1 for ASCII, 2 or 3
//! above). One pass over the file, on every core, sums those lengths per
//! piece of [`PIECE`] bytes: the offset of each piece's text. A read at
//! an offset of the text decodes the piece that holds it (kept in a small
//! cache, as readers go through a piece in several reads) and copies.

use std::io;
use std::sync::{Arc, Mutex};

use super::TextEncoding;
use crate::read_at::{read_full_at, ReadAt};

/// Bytes of the file per piece (the default).
const PIECE: u64 = 1 << 20;

/// Pieces kept decoded: each reading thread goes through one or two at
/// a time.
const CACHED: usize = 8;

/// A file in a single-byte encoding, read by ranges of its UTF-8 text.
pub struct DecodedFile {
    src: Arc<dyn ReadAt>,
    /// The file's length.
    raw_len: u64,
    /// Bytes of the file per piece.
    piece: u64,
    encoding: TextEncoding,
    /// Where the text of each piece starts; one more at the end (the
    /// text's length).
    starts: Vec<u64>,
    cache: Mutex<Vec<(usize, Arc<Vec<u8>>)>>,
}

impl DecodedFile {
    /// Bytes of the file per piece, by default: a reading thread goes
    /// through a piece in a few reads.
    pub const PIECE: u64 = PIECE;

    /// Whether `encoding` can be read this way: single-byte, and every
    /// byte a character (windows-1252, ISO-8859-1, KOI8-R, ...; not
    /// ISO-8859-8, which leaves some bytes undefined: those must be
    /// errors, at their place, as the streaming decoder makes them).
    pub fn fits(encoding: TextEncoding) -> bool {
        encoding.is_single_byte()
            && (0..=255u8).all(|b| {
                let mut d = super::TextDecoder::without_bom(encoding);
                let mut out = [0u8; 8];
                matches!(d.decode(&[b], &mut out, true).0, super::Step::InputEmpty)
            })
    }

    /// The text of `src` (`len` bytes) in `encoding`, which must
    /// [`fit`](Self::fits); the lengths of the pieces' text are summed on
    /// `threads` threads.
    ///
    /// # Errors
    ///
    /// An I/O error reading the file.
    ///
    /// # Panics
    ///
    /// If `encoding` does not fit.
    pub fn new(
        src: Arc<dyn ReadAt>,
        len: u64,
        encoding: TextEncoding,
        piece: u64,
        threads: usize,
    ) -> io::Result<DecodedFile> {
        let piece = piece.max(1);
        assert!(DecodedFile::fits(encoding), "{encoding} is not read by ranges");
        let table = utf8_lengths(encoding);
        let pieces = len.div_ceil(piece) as usize;
        let lens: Vec<io::Result<u64>> = {
            let next = std::sync::atomic::AtomicUsize::new(0);
            let out: Vec<Mutex<Option<io::Result<u64>>>> =
                (0..pieces).map(|_| Mutex::new(None)).collect();
            std::thread::scope(|s| {
                for _ in 0..threads.clamp(1, pieces.max(1)) {
                    s.spawn(|| {
                        let mut buf = vec![0u8; piece as usize];
                        loop {
                            let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            if k >= pieces {
                                return;
                            }
                            let at = k as u64 * piece;
                            let want = piece.min(len - at) as usize;
                            let got = read_full_at(&*src, &mut buf[..want], at).and_then(|n| {
                                if n < want {
                                    let msg = format!(
                                        "the file ended at byte {} while decoded",
                                        at + n as u64
                                    );
                                    return Err(io::Error::new(io::ErrorKind::UnexpectedEof, msg));
                                }
                                Ok(buf[..n].iter().map(|&b| u64::from(table[b as usize])).sum())
                            });
                            *out[k].lock().unwrap_or_else(|e| e.into_inner()) = Some(got);
                        }
                    });
                }
            });
            out.into_iter()
                .map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()).unwrap_or(Ok(0)))
                .collect()
        };
        let mut starts = Vec::with_capacity(pieces + 1);
        let mut at = 0u64;
        starts.push(0);
        for l in lens {
            at += l?;
            starts.push(at);
        }
        let cache = Mutex::new(Vec::new());
        Ok(DecodedFile { src, raw_len: len, piece, encoding, starts, cache })
    }

    /// The length of the text.
    pub fn len(&self) -> u64 {
        self.starts.last().copied().unwrap_or(0)
    }

    /// The text is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Piece `k` decoded, from the cache or the file.
    fn piece(&self, k: usize) -> io::Result<Arc<Vec<u8>>> {
        {
            let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((_, text)) = cache.iter().find(|(i, _)| *i == k) {
                return Ok(Arc::clone(text));
            }
        }
        let at = k as u64 * self.piece;
        let want = self.piece.min(self.raw_len - at) as usize;
        let mut raw = vec![0u8; want];
        let n = read_full_at(&*self.src, &mut raw, at)?;
        if n < want {
            let msg = format!("the file ended at byte {} while decoded", at + n as u64);
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, msg));
        }
        let text = Arc::new(super::decode_slice(&raw, self.encoding));
        let expected = self.starts[k + 1] - self.starts[k];
        if text.len() as u64 != expected {
            // The file changed under us.
            let msg = format!(
                "the file changed while read: bytes {at}..{} decode to {} bytes, not {expected}",
                at + want as u64,
                text.len()
            );
            return Err(io::Error::other(msg));
        }
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if cache.len() >= CACHED {
            cache.remove(0);
        }
        cache.push((k, Arc::clone(&text)));
        Ok(text)
    }
}

impl ReadAt for DecodedFile {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        if offset >= self.len() || buf.is_empty() {
            return Ok(0);
        }
        // The piece that holds `offset`: the last whose text starts at or
        // before it (pieces of empty text are skipped by `partition_point`).
        let k = self.starts.partition_point(|&s| s <= offset) - 1;
        let text = self.piece(k)?;
        let from = (offset - self.starts[k]) as usize;
        let n = buf.len().min(text.len() - from);
        buf[..n].copy_from_slice(&text[from..from + n]);
        Ok(n)
    }
}

/// The UTF-8 length of each byte's character in a single-byte encoding.
fn utf8_lengths(encoding: TextEncoding) -> [u8; 256] {
    let mut table = [0u8; 256];
    for (b, t) in table.iter_mut().enumerate() {
        let text = super::decode_slice(&[b as u8], encoding);
        *t = text.len() as u8;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_at_any_offset_give_the_text_decoded_at_once() {
        let mut bytes = Vec::new();
        for i in 0..(3 * PIECE as usize + 1234) {
            bytes.push(match i % 7 {
                0 => b'\n',
                1 => 0xE9,
                2 => 0x80,
                3 => 0x81,
                _ => b'a' + (i % 26) as u8,
            });
        }
        assert!(!DecodedFile::fits(TextEncoding::Whatwg(encoding_rs::ISO_8859_8)));
        assert!(!DecodedFile::fits(TextEncoding::UTF_16LE));
        for encoding in [TextEncoding::WINDOWS_1252, TextEncoding::Latin1] {
            assert!(DecodedFile::fits(encoding));
            let want = super::super::decode_slice(&bytes, encoding);
            let src: Arc<dyn ReadAt> = Arc::new(bytes.clone());
            let f = DecodedFile::new(src, bytes.len() as u64, encoding, PIECE, 3).unwrap();
            assert_eq!(f.len(), want.len() as u64);
            for (at, n) in
                [(0u64, 10usize), (PIECE * 2 - 3, 10), (f.len() - 5, 100), (12345, 3 << 20)]
            {
                let mut buf = vec![0u8; n];
                let got = read_full_at(&f, &mut buf, at).unwrap();
                let end = (at as usize + n).min(want.len());
                assert_eq!(&buf[..got], &want[at as usize..end], "{encoding} at {at}");
            }
        }
    }
}

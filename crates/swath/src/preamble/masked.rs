//! A file or remote object's body, by ranges: the preamble's bytes read
//! as line ends, and the object ends where its footer starts.

use std::io;
use std::sync::Arc;

use super::{Body, Found, StartFinder};
use crate::range::{read_full_at, ReadAt};

/// Bytes read per `pread` while the preamble and footer are looked for.
const STEP: usize = 64 << 10;

/// `inner` with every byte before `start` other than `\n` read as `\r`,
/// ending at `end`.
pub struct Masked {
    inner: Arc<dyn ReadAt>,
    start: u64,
    end: u64,
}

impl Masked {
    /// Where `body` is in `inner` (of length `len`): its preamble read
    /// from the top, its footer from the end.
    ///
    /// # Errors
    ///
    /// An I/O error, or the preamble's error (no line matched).
    pub fn find(inner: &dyn ReadAt, len: u64, body: Body) -> io::Result<Found> {
        let (start, line) = match body.preamble {
            None => (0, 1),
            Some(p) => {
                let mut finder = StartFinder::new(p, body.max_line);
                // Most preambles are a line or none: a small first read
                // (one request to a remote object), larger ones after.
                let mut buf = vec![0u8; STEP];
                let mut step = 4096;
                let mut at = 0u64;
                loop {
                    let n = read_full_at(inner, &mut buf[..step], at)?;
                    step = (step * 4).min(STEP);
                    if n == 0 {
                        // No line started the body: all of it is preamble.
                        break finder.finish()?.unwrap_or((len, finder.line()));
                    }
                    if let Some(found) = finder.feed(&buf[..n])? {
                        break found;
                    }
                    at += n as u64;
                }
            }
        };
        let end = footer_start(inner, start, len, body.footer_lines)?;
        Ok(Found { start, line, end: Some(end) })
    }

    /// `inner` as `found` says (from [`Masked::find`] on it, of length
    /// `len`).
    pub fn new(inner: Arc<dyn ReadAt>, len: u64, found: Found) -> Masked {
        Masked { inner, start: found.start, end: found.end.unwrap_or(len) }
    }

    /// The body's length: the object ends where the footer starts.
    pub fn len(&self) -> u64 {
        self.end
    }

    /// Whether nothing is left (no bytes before the footer).
    pub fn is_empty(&self) -> bool {
        self.end == 0
    }
}

/// Where the last `lines` non-empty lines of `inner` (of length `len`)
/// start, read backwards, never before `floor`.
fn footer_start(inner: &dyn ReadAt, floor: u64, len: u64, lines: u64) -> io::Result<u64> {
    if lines == 0 {
        return Ok(len);
    }
    let mut buf = vec![0u8; STEP];
    let mut counted = 0u64;
    // Whether the line being walked back through (the one after the last
    // `\n` met) has a byte other than `\r`.
    let mut filled = false;
    let mut pos = len;
    while pos > floor {
        let from = pos.saturating_sub(STEP as u64).max(floor);
        let want = (pos - from) as usize;
        let n = read_full_at(inner, &mut buf[..want], from)?;
        if n < want {
            let msg =
                format!("the input ended at byte {} while its footer was read", from + n as u64);
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, msg));
        }
        for (i, &b) in buf[..want].iter().enumerate().rev() {
            if b == b'\n' {
                if filled {
                    counted += 1;
                    if counted == lines {
                        return Ok(from + i as u64 + 1);
                    }
                }
                filled = false;
            } else if b != b'\r' {
                filled = true;
            }
        }
        pos = from;
    }
    // The first line of the body is one of the footer's.
    Ok(floor)
}

impl ReadAt for Masked {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let want = buf.len().min(self.end.saturating_sub(offset).min(usize::MAX as u64) as usize);
        if want == 0 {
            return Ok(0);
        }
        let n = self.inner.read_at(&mut buf[..want], offset)?;
        if offset < self.start {
            let masked = ((self.start - offset) as usize).min(n);
            mask(&mut buf[..masked]);
        }
        Ok(n)
    }
}

/// Preamble bytes as line ends: `\n` stays, anything else is `\r`.
pub(crate) fn mask(bytes: &mut [u8]) {
    for b in bytes {
        if *b != b'\n' {
            *b = b'\r';
        }
    }
}

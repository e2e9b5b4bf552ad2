//! A stream's body, front to back: the preamble's bytes read as line
//! ends, and the footer's last lines held back and dropped at the end.

use std::io::{self, Read};

use super::masked::mask;
use super::{Body, StartFinder};

/// Bytes read from the stream at a time.
const STEP: usize = 64 << 10;

/// A stream with its preamble masked and its footer left out; see the
/// [module documentation](super).
pub struct MaskedStream {
    inner: Box<dyn Read + Send>,
    /// Asks the preamble's lines, until one starts the body.
    finder: Option<StartFinder>,
    /// Bytes read and not handed out yet; `pending[0]` is byte `base`.
    pending: Vec<u8>,
    base: u64,
    /// Bytes before this one may be handed out.
    ready: u64,
    /// Bytes before this one were handed out.
    out: u64,
    footer_lines: u64,
    max_footer: usize,
    /// Where the body starts, once known (bytes before it are masked).
    body: Option<u64>,
    eof: bool,
}

impl MaskedStream {
    /// Read `inner` with `body`'s preamble masked and footer left out.
    pub fn new(inner: Box<dyn Read + Send>, body: Body) -> MaskedStream {
        let finder = body.preamble.map(|p| StartFinder::new(p, body.max_line));
        let body_at = if finder.is_none() { Some(0) } else { None };
        MaskedStream {
            inner,
            finder,
            pending: Vec::new(),
            base: 0,
            ready: 0,
            out: 0,
            footer_lines: body.footer_lines,
            max_footer: body.max_footer.max(1),
            body: body_at,
            eof: false,
        }
    }

    /// Read more of the stream and work out what may be handed out.
    fn fill(&mut self) -> io::Result<()> {
        // Drop what was handed out.
        let done = (self.out - self.base) as usize;
        self.pending.drain(..done);
        self.base = self.out;
        let old = self.pending.len();
        self.pending.resize(old + STEP, 0);
        let n = loop {
            match self.inner.read(&mut self.pending[old..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.pending.truncate(old);
                    return Err(e);
                }
            }
        };
        self.pending.truncate(old + n);
        let end = self.base + self.pending.len() as u64;
        if n == 0 {
            self.eof = true;
        }
        if let Some(finder) = &mut self.finder {
            let found =
                if n == 0 { finder.finish()? } else { finder.feed(&self.pending[old..])? };
            match found {
                Some((start, _)) => self.body = Some(start),
                // Nothing started the body: all of it is preamble.
                None if n == 0 => self.body = Some(end),
                None => {}
            }
            let decided = self.body.unwrap_or_else(|| finder.decided());
            let from = (self.ready.max(self.base) - self.base) as usize;
            let to = (decided - self.base) as usize;
            mask(&mut self.pending[from..to]);
            self.ready = decided;
            if self.body.is_some() {
                self.finder = None;
            } else {
                return Ok(());
            }
        }
        self.scan_body(end);
        Ok(())
    }

    /// Hand out all but the last `footer_lines` non-empty lines of what
    /// was read up to `end`: walking back from `end` over the bytes not
    /// handed out yet, line by line, to the start of the last of them
    /// (a few lines back; only a stream whose footer is still coming
    /// walks further).
    fn scan_body(&mut self, end: u64) {
        if self.footer_lines == 0 {
            self.ready = end;
            return;
        }
        let from = (self.ready - self.base) as usize;
        let bytes = &self.pending[from..(end - self.base) as usize];
        let mut counted = 0;
        let mut line_end = bytes.len();
        while line_end > 0 {
            // The line that ends at `line_end` (its `\n` excluded).
            let start = memchr::memrchr(b'\n', &bytes[..line_end]).map_or(0, |i| i + 1);
            if bytes[start..line_end].iter().any(|&b| b != b'\r') {
                counted += 1;
                if counted == self.footer_lines {
                    self.ready += start as u64;
                    return;
                }
            }
            line_end = start.saturating_sub(1);
            if start == 0 {
                break;
            }
        }
    }
}

impl Read for MaskedStream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.out < self.ready {
                let from = (self.out - self.base) as usize;
                let n = buf.len().min((self.ready - self.out) as usize);
                buf[..n].copy_from_slice(&self.pending[from..from + n]);
                self.out += n as u64;
                return Ok(n);
            }
            if self.eof || buf.is_empty() {
                return Ok(0);
            }
            let end = self.base + self.pending.len() as u64;
            if self.finder.is_none() && self.footer_lines == 0 && self.out == end {
                // Past the preamble, nothing held back: straight through.
                let n = self.inner.read(buf)?;
                self.out += n as u64;
                self.base = self.out;
                self.pending.clear();
                self.ready = self.out;
                self.eof = n == 0;
                return Ok(n);
            }
            if self.pending.len() > self.max_footer + STEP {
                let msg = format!(
                    "the last {} lines of the input (its footer) are longer than {} bytes",
                    self.footer_lines, self.max_footer
                );
                return Err(io::Error::new(io::ErrorKind::InvalidData, msg));
            }
            self.fill()?;
        }
    }
}

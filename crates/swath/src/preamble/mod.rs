//! A text's body between a preamble and a footer: the title lines an
//! export puts before its header ("Report generated 2023-10-31", Excel's
//! `sep=;`) and the lines it puts after its data ("Totals;1.234,50").
//!
//! The body is found once, when a source is opened
//! ([`Source::with_body`](crate::Source::with_body)), and every reader
//! then reads the same thing, whatever it does with it:
//!
//! - **The preamble reads as line ends.** Each byte before the body's
//!   first line is `\r`, and each `\n` stays: a CSV reader sees empty
//!   lines (which it skips), and every byte offset and line number a
//!   reader reports is the file's own, with no offset to carry around.
//!   The parallel readers' quote parity starts clean at the body (a
//!   preamble's stray quote is gone).
//! - **The footer is not there.** A file or remote object ends where the
//!   footer starts ([`Masked`]); a stream holds the last lines back and
//!   drops them at its end ([`MaskedStream`]).
//!
//! Lines are split at `\n` (a `\r` before it is part of the line end):
//! physical lines, as an editor numbers them, not records (a title in
//! quotes over two lines is two lines).

mod masked;
mod stream;
#[cfg(test)]
mod tests;

pub use masked::Masked;
pub use stream::MaskedStream;

use std::io;

/// Where the body starts: asked line by line from the top, until it says
/// yes.
pub trait Preamble: Send {
    /// Whether line `number` (from 1) starts the body. `text` is the line
    /// without its line end and, on line 1, without a UTF-8 byte order
    /// mark; a line longer than [`Body::max_line`] is cut there.
    ///
    /// # Errors
    ///
    /// A line that says the body cannot be read as asked (Excel's
    /// `sep=;` when another delimiter was named).
    fn starts_body(&mut self, number: u64, text: &[u8]) -> io::Result<bool>;

    /// The input ended after `lines` lines without one that starts the
    /// body: the error to report, or `None` when that means no records
    /// (more lines skipped than there are).
    fn not_found(&self, lines: u64) -> Option<String>;
}

/// How to find a text's body.
pub struct Body {
    /// Where it starts (`None`: at the top).
    pub preamble: Option<Box<dyn Preamble>>,
    /// How many lines at the end are a footer (empty lines at the very
    /// end are not counted: a "Totals" line followed by a blank one is
    /// still the last line).
    pub footer_lines: u64,
    /// The most of a line handed to [`Preamble::starts_body`].
    pub max_line: usize,
    /// The most a stream holds back for its footer: its last
    /// `footer_lines` lines must fit.
    pub max_footer: usize,
}

impl Body {
    /// The whole text, nothing left out.
    pub fn whole() -> Body {
        Body { preamble: None, footer_lines: 0, max_line: 1 << 20, max_footer: 64 << 20 }
    }

    /// Whether anything is left out.
    pub fn is_whole(&self) -> bool {
        self.preamble.is_none() && self.footer_lines == 0
    }
}

impl std::fmt::Debug for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Body")
            .field("preamble", &self.preamble.is_some())
            .field("footer_lines", &self.footer_lines)
            .finish()
    }
}

/// Where a body was found: its first byte and line, and the byte its
/// footer starts at (`None`: not known yet, a stream).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    /// The first byte of the body (0 without a preamble).
    pub start: u64,
    /// The line number at `start`.
    pub line: u64,
    /// Where the footer starts, when it is known.
    pub end: Option<u64>,
}

impl Found {
    /// Whether the body is all of the `len` bytes it was found in.
    pub fn is_all_of(&self, len: u64) -> bool {
        self.start == 0 && self.end.is_none_or(|e| e == len)
    }

    /// A stream's body: where it starts is found as it is read.
    pub const UNKNOWN: Found = Found { start: 0, line: 0, end: None };
}

/// Feeds a text's lines to a [`Preamble`] from the top, in pieces of any
/// size, and says where the body starts: what both [`Masked`] (by ranges)
/// and [`MaskedStream`] (front to back) run. A line is asked about when
/// it ends, or as soon as `max_line` of its bytes are in.
pub(crate) struct StartFinder {
    preamble: Box<dyn Preamble>,
    max_line: usize,
    /// Bytes fed so far.
    fed: u64,
    /// The current line: its number, first byte, text so far (at most
    /// `max_line`), and whether it was asked about already (a long one).
    line: u64,
    line_start: u64,
    text: Vec<u8>,
    asked: bool,
}

impl StartFinder {
    pub(crate) fn new(preamble: Box<dyn Preamble>, max_line: usize) -> StartFinder {
        let max_line = max_line.max(1);
        StartFinder {
            preamble,
            max_line,
            fed: 0,
            line: 1,
            line_start: 0,
            text: Vec::new(),
            asked: false,
        }
    }

    /// Every byte before this one is preamble: the start of the line not
    /// asked about yet, or all bytes fed when it was asked already (a
    /// line longer than `max_line`).
    pub(crate) fn decided(&self) -> u64 {
        if self.asked {
            self.fed
        } else {
            self.line_start
        }
    }

    /// The number of the line being read.
    pub(crate) fn line(&self) -> u64 {
        self.line
    }

    /// Feed the next bytes; returns the body's first byte and line as soon
    /// as a line says it starts the body.
    ///
    /// # Errors
    ///
    /// The preamble's error.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> io::Result<Option<(u64, u64)>> {
        let mut rest = bytes;
        while !rest.is_empty() {
            let (piece, ended) = match memchr::memchr(b'\n', rest) {
                Some(i) => (&rest[..i], true),
                None => (rest, false),
            };
            if !self.asked {
                let room = self.max_line - self.text.len();
                self.text.extend_from_slice(&piece[..piece.len().min(room)]);
                if ended || self.text.len() == self.max_line {
                    if self.ask(ended)? {
                        return Ok(Some((self.line_start, self.line)));
                    }
                    self.asked = true;
                }
            }
            let used = piece.len() + usize::from(ended);
            self.fed += used as u64;
            rest = &rest[used..];
            if ended {
                self.line += 1;
                self.line_start = self.fed;
                self.text.clear();
                self.asked = false;
            }
        }
        Ok(None)
    }

    /// The input ended: a last line without a line end is asked about
    /// too. Returns where the body starts, or the error (or `None`: no
    /// body at all) when no line started it.
    ///
    /// # Errors
    ///
    /// The preamble's error, or its [`Preamble::not_found`].
    pub(crate) fn finish(&mut self) -> io::Result<Option<(u64, u64)>> {
        if self.fed > self.line_start && !self.asked && self.ask(false)? {
            return Ok(Some((self.line_start, self.line)));
        }
        let lines = if self.fed > self.line_start { self.line } else { self.line - 1 };
        match self.preamble.not_found(lines) {
            Some(why) => Err(io::Error::new(io::ErrorKind::InvalidData, why)),
            None => Ok(None),
        }
    }

    /// Ask about the current line (`ended`: its text is whole, so a `\r`
    /// at its end is the line end's).
    fn ask(&mut self, ended: bool) -> io::Result<bool> {
        let mut text = &self.text[..];
        if ended {
            text = text.strip_suffix(b"\r").unwrap_or(text);
        }
        if self.line == 1 {
            text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
        }
        self.preamble.starts_body(self.line, text)
    }
}

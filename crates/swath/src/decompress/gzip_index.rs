//! A gzip index: checkpoints in an ordinary gzip file (one member, or
//! members without sizes) where decoding can start, as zlib's `zran.c`
//! keeps them. A checkpoint is a deflate block boundary: the compressed
//! bit it starts at, the decoded offset, the CRC-32 and length of its
//! member's bytes before it (to check the member's trailer), and the 32
//! KiB window the next blocks may refer back into (kept deflated).
//!
//! [`Indexer`] makes them during a full read, at the cost of stopping the
//! decoder at block ends and copying a window every few MiB.
//! [`Resumed`] decodes the stretch between two checkpoints on its own.
//!
//! An index is never trusted. Decoding from checkpoint k to k+1 ends by
//! checking that the decoder stands exactly at checkpoint k+1: the same
//! bit, decoded offset, member length and CRC, and the same window. The
//! stretch from the top of the file is decoded from known ground (the
//! first gzip header), so by induction every stretch whose check passes
//! decoded the file's true bytes, whatever the index says. A check that
//! fails is a failed span (decoded again front to back).

use std::io::{self, Read};
use std::sync::Arc;

use super::inflate::{RawInflate, WINDOW};
use super::Compression;
use crate::read_at::{read_full_at, ReadAt};

/// A point where decoding can start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GzCheckpoint {
    /// The compressed bit (from the file's start) of the next block.
    pub bit: u64,
    /// Decoded bytes before it, in the whole file.
    pub out: u64,
    /// Decoded bytes before it in its member.
    pub member_out: u64,
    /// The CRC-32 of those.
    pub crc: u32,
    /// The last (up to) 32 KiB decoded before it in its member.
    pub window: Window,
}

/// A checkpoint's window as the sidecar holds it: deflated, in base64.
/// It is decoded only when a span starts or ends at its checkpoint:
/// decoding every window of a 3.6 MB sidecar was most of `tail`'s 30 ms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window(String);

impl Window {
    /// The window of `bytes` decoded ones (deflated here).
    pub fn of(bytes: &[u8]) -> Window {
        Window::from_deflated(&deflate_window(bytes))
    }

    /// A window already deflated.
    pub fn from_deflated(deflated: &[u8]) -> Window {
        Window(crate::index::base64::encode(deflated))
    }

    /// A window as the sidecar's text has it (checked when used).
    pub fn from_base64(text: String) -> Window {
        Window(text)
    }

    /// Its text in the sidecar.
    pub fn as_base64(&self) -> &str {
        &self.0
    }

    /// Its deflated bytes.
    ///
    /// # Errors
    ///
    /// Text that is not base64 (a damaged index).
    pub fn deflated(&self) -> io::Result<Vec<u8>> {
        crate::index::base64::decode(&self.0).ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidData, "a window that is not base64")
        })
    }

    /// The window itself, at most 32 KiB.
    ///
    /// # Errors
    ///
    /// A window that does not decode or inflate, or is over 32 KiB (a
    /// damaged index).
    pub fn inflate(&self) -> io::Result<Vec<u8>> {
        inflate_window(&self.deflated()?)
    }
}

/// The checkpoints of one gzip file, in order; the first after at least
/// `spacing` decoded bytes (the top of the file is the implicit start).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GzipIndex {
    /// Decoded bytes between checkpoints, at least.
    pub spacing: u64,
    /// The file's decoded length.
    pub decoded_len: u64,
    /// Checkpoints in file order, strictly increasing in `bit` and `out`.
    pub checkpoints: Vec<GzCheckpoint>,
}

/// Decoded bytes between checkpoints: the decoded size of a span
/// ([`super::spans::SPAN_DECODED`], or what `SWATH_SPAN_BYTES` sets for
/// tests), more for large files so that an index keeps at most about
/// 4,096 windows.
pub fn spacing_for(compressed_len: u64) -> u64 {
    // gzip compresses text some 4 to 8 times; aim at the middle.
    let decoded_guess = compressed_len.saturating_mul(5);
    (decoded_guess / 4096).max(super::span_target())
}

fn deflate_window(window: &[u8]) -> Vec<u8> {
    use flate2::write::DeflateEncoder;
    use std::io::Write;
    let mut enc = DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(window).expect("deflate into a Vec");
    enc.finish().expect("deflate into a Vec")
}

/// The window of a checkpoint, inflated.
///
/// # Errors
///
/// A window that does not inflate, or is over 32 KiB (a damaged index).
pub fn inflate_window(deflated: &[u8]) -> io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(WINDOW);
    flate2::read::DeflateDecoder::new(deflated).take(WINDOW as u64 + 1).read_to_end(&mut out)?;
    if out.len() > WINDOW {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "a window over 32 KiB"));
    }
    Ok(out)
}

/// Compressed bytes read ahead.
const INPUT: usize = 256 * 1024;

/// The longest gzip header read (its name, comment and extra field).
const MAX_HEADER: usize = 64 << 20;

/// Compressed input read ahead, with the file offset of what is next.
struct Input<R> {
    src: R,
    buf: Vec<u8>,
    pos: usize,
    len: usize,
    /// The file offset of `buf[len]` (the next byte to read from `src`).
    offset: u64,
    ended: bool,
}

impl<R: Read> Input<R> {
    fn new(src: R, offset: u64) -> Input<R> {
        Input { src, buf: vec![0; INPUT], pos: 0, len: 0, offset, ended: false }
    }

    fn pending(&self) -> &[u8] {
        &self.buf[self.pos..self.len]
    }

    /// The file offset of the next byte not yet taken.
    fn position(&self) -> u64 {
        self.offset - (self.len - self.pos) as u64
    }

    fn read_more(&mut self) -> io::Result<bool> {
        if self.ended {
            return Ok(false);
        }
        let n = loop {
            match self.src.read(&mut self.buf[self.len..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        };
        self.len += n;
        self.offset += n as u64;
        self.ended = n == 0;
        Ok(n > 0)
    }

    /// Read more when all was taken; false at the end of the input.
    fn fill(&mut self) -> io::Result<bool> {
        if self.pos < self.len {
            return Ok(true);
        }
        self.pos = 0;
        self.len = 0;
        self.read_more()
    }

    /// At least `n` bytes not yet taken, in one slice, or fewer at the end
    /// of the input.
    fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.len - self.pos < n {
            self.buf.copy_within(self.pos..self.len, 0);
            self.len -= self.pos;
            self.pos = 0;
            if self.buf.len() < n {
                self.buf.resize(n.next_power_of_two(), 0);
            }
            while self.len < n && self.read_more()? {}
        }
        Ok(&self.buf[self.pos..self.len])
    }
}

fn corrupt(msg: impl Into<String>, compressed: u64, decoded: u64) -> io::Error {
    super::decoder::failure(Compression::Gzip, msg.into(), compressed, decoded)
}

/// Where a [`Walk`] is.
enum Phase {
    /// Before a member's header (or at the end of the file).
    Between,
    /// In a member's deflate data, with the CRC-32 and length of its
    /// bytes so far, for its trailer.
    Inside { crc: crc32fast::Hasher, member_out: u64 },
}

/// A gzip file decoded member by member: the headers and trailers read
/// and checked here, the deflate data by [`RawInflate`], stopping at
/// every block end.
struct Walk<R> {
    input: Input<R>,
    inflate: RawInflate,
    phase: Phase,
    /// Decoded bytes so far, from the walk's start.
    out: u64,
    /// The decoded offset of the walk's start in the file.
    base: u64,
}

/// What [`Walk::step`] did.
enum Stepped {
    /// Bytes written (maybe none: a header or trailer was read).
    Wrote(usize),
    /// The input ended between members.
    Ended,
}

impl<R: Read> Walk<R> {
    fn corrupt(&self, msg: impl Into<String>) -> io::Error {
        corrupt(msg, self.input.position(), self.base + self.out)
    }

    /// The header of the member that starts here.
    fn header(&mut self) -> io::Result<()> {
        let cut = "unexpected end of file in a gzip header";
        let h = self.input.peek(10)?;
        if h.len() < 10 {
            return Err(self.corrupt(cut));
        }
        if h[..3] != [0x1f, 0x8b, 8] {
            return Err(self.corrupt("invalid gzip header (not a gzip member)"));
        }
        let flags = h[3];
        if flags & 0xe0 != 0 {
            return Err(self.corrupt("invalid gzip header (reserved flags set)"));
        }
        let mut at = 10;
        if flags & 4 != 0 {
            let h = self.input.peek(at + 2)?;
            if h.len() < at + 2 {
                return Err(self.corrupt(cut));
            }
            at += 2 + usize::from(u16::from_le_bytes([h[at], h[at + 1]]));
        }
        // The name, then the comment: each ends with a zero byte.
        for flag in [8, 16] {
            if flags & flag == 0 {
                continue;
            }
            let mut want = at + 256;
            loop {
                let h = self.input.peek(want)?;
                if let Some(i) = memchr::memchr(0, h.get(at..).unwrap_or(&[])) {
                    at += i + 1;
                    break;
                }
                if h.len() < want {
                    return Err(self.corrupt(cut));
                }
                if want > MAX_HEADER {
                    return Err(self.corrupt("a gzip header over 64 MiB"));
                }
                want *= 2;
            }
        }
        if flags & 2 != 0 {
            let h = self.input.peek(at + 2)?;
            if h.len() < at + 2 {
                return Err(self.corrupt(cut));
            }
            let crc16 = crc32fast::hash(&h[..at]) as u16;
            if crc16 != u16::from_le_bytes([h[at], h[at + 1]]) {
                return Err(self.corrupt("invalid gzip header (its CRC does not match)"));
            }
            at += 2;
        }
        let h = self.input.peek(at)?;
        if h.len() < at {
            return Err(self.corrupt(cut));
        }
        self.input.pos += at;
        Ok(())
    }

    /// A member's trailer: its CRC-32 and length, checked.
    fn trailer(&mut self, crc: u32, member_out: u64) -> io::Result<()> {
        let t = self.input.peek(8)?;
        if t.len() < 8 {
            return Err(self.corrupt("unexpected end of file in a gzip trailer"));
        }
        let got_crc = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
        let got_len = u32::from_le_bytes([t[4], t[5], t[6], t[7]]);
        if got_crc != crc {
            return Err(self.corrupt("a gzip member's CRC-32 does not match its data"));
        }
        if got_len != member_out as u32 {
            return Err(self.corrupt("a gzip member's length does not match its data"));
        }
        self.input.pos += 8;
        Ok(())
    }

    /// Decode into `buf` up to the next block end, or read a header or a
    /// trailer.
    fn step(&mut self, buf: &mut [u8]) -> io::Result<Stepped> {
        if let Phase::Between = self.phase {
            if !self.input.fill()? {
                return Ok(Stepped::Ended);
            }
            self.header()?;
            self.inflate.reset();
            self.phase = Phase::Inside { crc: crc32fast::Hasher::new(), member_out: 0 };
            return Ok(Stepped::Wrote(0));
        }
        if !self.input.fill()? {
            return Err(self.corrupt("unexpected end of file (the gzip data is cut short)"));
        }
        let step = match self.inflate.inflate(self.input.pending(), buf, true) {
            Ok(step) => step,
            Err(m) => return Err(self.corrupt(format!("corrupt deflate stream: {m}"))),
        };
        self.input.pos += step.read;
        self.out += step.written as u64;
        let Phase::Inside { crc, member_out } = &mut self.phase else { unreachable!() };
        crc.update(&buf[..step.written]);
        *member_out += step.written as u64;
        if step.end {
            let (crc, member_out) = (crc.clone().finalize(), *member_out);
            self.trailer(crc, member_out)?;
            self.phase = Phase::Between;
        }
        Ok(Stepped::Wrote(step.written))
    }

    /// True between two blocks inside a member, where a checkpoint can be.
    fn at_checkpoint(&self) -> bool {
        // Right after a header the decoder has not run on this member:
        // what it says of its bits is the last member's.
        matches!(self.phase, Phase::Inside { member_out, .. } if member_out > 0)
            && self.inflate.at_block_boundary()
    }

    /// Where the decoder stands, when it is between two blocks inside a
    /// member: a checkpoint's bit, member length, CRC and window (a copy).
    fn here(&mut self) -> Option<(u64, u64, u32, Vec<u8>)> {
        if !self.at_checkpoint() {
            return None;
        }
        let Phase::Inside { crc, member_out } = &self.phase else { return None };
        let bit = self.input.position() * 8 - self.inflate.unused_bits();
        let (member_out, crc) = (*member_out, crc.clone().finalize());
        Some((bit, member_out, crc, self.inflate.window()))
    }
}

/// A reader of a gzip file's decoded bytes (every member, as `gzip -d`)
/// that makes checkpoints as it goes; [`Indexer::finish`] gives them.
pub struct Indexer<R> {
    walk: Walk<R>,
    spacing: u64,
    index: GzipIndex,
    last: u64,
    ended: bool,
}

impl<R: Read> Indexer<R> {
    /// Read the gzip file `src`, with a checkpoint about every `spacing`
    /// decoded bytes.
    pub fn new(src: R, spacing: u64) -> Indexer<R> {
        let walk = Walk {
            input: Input::new(src, 0),
            inflate: RawInflate::raw(),
            phase: Phase::Between,
            out: 0,
            base: 0,
        };
        let index = GzipIndex { spacing, ..GzipIndex::default() };
        Indexer { walk, spacing: spacing.max(1), index, last: 0, ended: false }
    }

    /// The checkpoints, once every byte was read (`None` before).
    pub fn finish(mut self) -> Option<GzipIndex> {
        if !self.ended {
            return None;
        }
        self.index.decoded_len = self.walk.out;
        Some(self.index)
    }
}

impl<R: Read> Read for Indexer<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() || self.ended {
            return Ok(0);
        }
        loop {
            let written = match self.walk.step(buf)? {
                Stepped::Ended => {
                    self.ended = true;
                    return Ok(0);
                }
                Stepped::Wrote(n) => n,
            };
            let out = self.walk.out;
            if out - self.last >= self.spacing {
                if let Some((bit, member_out, crc, window)) = self.walk.here() {
                    let c = GzCheckpoint { bit, out, member_out, crc, window: Window::of(&window) };
                    self.index.checkpoints.push(c);
                    self.last = out;
                }
            }
            if written > 0 {
                return Ok(written);
            }
        }
    }
}

/// The decoded bytes of one span of an indexed gzip file: from checkpoint
/// `k - 1` (the top of the file for `k = 0`) to checkpoint `k` (the end
/// of the file for the last), checked against where they end.
pub struct Resumed {
    walk: Walk<crate::range::OwnedRange>,
    /// Where the span ends, unless it is the last.
    stop: Option<GzCheckpoint>,
    done: bool,
}

impl Resumed {
    /// Decode span `k` of `index` over `src` (a gzip file of `len` bytes).
    ///
    /// # Errors
    ///
    /// A checkpoint whose window does not inflate or that is past the
    /// file's end; an I/O error.
    pub fn new(src: Arc<dyn ReadAt>, len: u64, index: &GzipIndex, k: usize) -> io::Result<Resumed> {
        let stop = index.checkpoints.get(k).cloned();
        let mut inflate = RawInflate::raw();
        let Some(from) = k.checked_sub(1).and_then(|i| index.checkpoints.get(i)) else {
            let input = Input::new(crate::range::OwnedRange::new(src, 0, len), 0);
            let walk = Walk { input, inflate, phase: Phase::Between, out: 0, base: 0 };
            return Ok(Resumed { walk, stop, done: false });
        };
        let byte = from.bit / 8;
        let shift = (from.bit % 8) as u8;
        let mut first = byte;
        if shift > 0 {
            let mut b = [0u8];
            if read_full_at(&*src, &mut b, byte)? != 1 {
                let msg = "an index checkpoint past the file's end";
                return Err(io::Error::new(io::ErrorKind::InvalidData, msg));
            }
            inflate.prime(8 - shift, b[0] >> shift);
            first += 1;
        }
        let window = from.window.inflate()?;
        inflate.set_window(&window).map_err(io::Error::other)?;
        let input = Input::new(crate::range::OwnedRange::new(src, first, len), first);
        let crc = crc32fast::Hasher::new_with_initial_len(from.crc, from.member_out);
        let phase = Phase::Inside { crc, member_out: from.member_out };
        let walk = Walk { input, inflate, phase, out: 0, base: from.out };
        Ok(Resumed { walk, stop, done: false })
    }

    /// The span's decoded bytes are all out: the decoder must stand
    /// exactly at the checkpoint the span ends at.
    fn check_stop(&mut self, stop: &GzCheckpoint) -> io::Result<()> {
        // The block that ended at the checkpoint may still have its
        // end-of-block code to read; no byte may come before the boundary.
        let mut probe = [0u8; 1];
        for _ in 0..4 {
            if self.walk.at_checkpoint() || !matches!(self.walk.phase, Phase::Inside { .. }) {
                break;
            }
            if let Stepped::Wrote(1) = self.walk.step(&mut probe)? {
                return Err(self.walk.corrupt("the index's checkpoint is not at a block end"));
            }
        }
        let fits = self.walk.here().is_some_and(|(bit, member_out, crc, window)| {
            bit == stop.bit
                && member_out == stop.member_out
                && crc == stop.crc
                && stop.window.inflate().is_ok_and(|w| w == window)
        });
        if !fits {
            return Err(self.walk.corrupt(format!(
                "the data does not reach the index's checkpoint at decoded byte {} \
                 (the index does not fit this file)",
                stop.out
            )));
        }
        Ok(())
    }
}

impl Read for Resumed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.done || buf.is_empty() {
            return Ok(0);
        }
        loop {
            let room = match &self.stop {
                Some(stop) => {
                    let left = stop.out.saturating_sub(self.walk.base + self.walk.out);
                    if left == 0 {
                        let stop = stop.clone();
                        self.check_stop(&stop)?;
                        self.done = true;
                        return Ok(0);
                    }
                    usize::try_from(left).unwrap_or(usize::MAX).min(buf.len())
                }
                None => buf.len(),
            };
            match self.walk.step(&mut buf[..room])? {
                Stepped::Ended if self.stop.is_none() => {
                    self.done = true;
                    return Ok(0);
                }
                Stepped::Ended => {
                    let msg = "the file ends before the index's next checkpoint";
                    return Err(self.walk.corrupt(msg));
                }
                Stepped::Wrote(0) => {}
                Stepped::Wrote(n) => return Ok(n),
            }
        }
    }
}

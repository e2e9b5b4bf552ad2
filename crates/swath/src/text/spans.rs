//! [`TextSpans`]: a file in an encoding that a line feed can cut,
//! decoded in pieces on every core and read in order.
//!
//! Piece `k` starts at the first cut at or after `k * P` (in bytes of the
//! file) and ends at the next piece's start. A cut is a place right after
//! a line feed (`0A`; `0A 00` at an even offset in UTF-16LE, `00 0A` in
//! UTF-16BE): there, every decoder of these encodings is between
//! characters and holds no state, so a piece decodes alone to exactly the
//! text that decoding the file front to back gives for it. In a
//! single-byte encoding every byte is a character and any place is a cut.
//!
//! Worker `k` looks for its start only inside its own `P` bytes: when
//! there is none (a line longer than `P`), its piece is empty and the
//! worker before it decodes on to the first cut past. So every byte is
//! decoded once, searched at most once more, and memory stays flat: each
//! worker streams its piece into a bounded queue, and starts a piece only
//! when it is at most `threads + 1` pieces ahead of the reader.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use super::decoder::{Step, TextDecoder};
use super::reader::DecodeError;
use super::replacements::Replaced;
use super::TextEncoding;
use crate::range::{read_full_at, ReadAt};

/// Raw bytes read at a time.
const RAW: usize = 256 << 10;

/// Decoded bytes per chunk sent.
const CHUNK: usize = 1 << 20;

enum Piece {
    Data(Vec<u8>),
    End,
    Failed(io::Error),
}

struct Work {
    src: Arc<dyn ReadAt>,
    len: u64,
    /// Where the text starts (after a byte order mark).
    start: u64,
    piece: u64,
    encoding: TextEncoding,
    line_feed: (&'static [u8], usize),
    lossy: bool,
    name: Option<PathBuf>,
    /// The read the pieces' replacements add up under.
    read: u64,
    next: AtomicUsize,
    senders: Mutex<Vec<Option<SyncSender<Piece>>>>,
    /// Chunks the reader has finished with, for the workers to fill again.
    pool: Mutex<Vec<Vec<u8>>>,
    /// The piece the reader is in: a worker starts piece `k` only when
    /// `k < reading + ahead`, so that decoded pieces waiting to be read
    /// stay few however fast the workers are (memory stays flat).
    reading: Mutex<usize>,
    read_on: Condvar,
    ahead: usize,
    stop: AtomicBool,
}

impl Work {
    /// A chunk of [`CHUNK`] bytes, one the reader gave back if there is.
    fn chunk(&self) -> Vec<u8> {
        let mut c = self.pool.lock().unwrap_or_else(|e| e.into_inner()).pop().unwrap_or_default();
        c.resize(CHUNK, 0);
        c
    }

    fn pieces(&self) -> usize {
        self.senders.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    fn run(&self) {
        let pieces = self.pieces();
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            let k = self.next.fetch_add(1, Ordering::Relaxed);
            if k >= pieces || !self.wait_for_room(k) {
                return;
            }
            let tx = self.senders.lock().unwrap_or_else(|e| e.into_inner())[k].take();
            let Some(tx) = tx else { return };
            match self.piece(k, &tx) {
                Ok(true) => {}
                // The reader is gone.
                Ok(false) => return,
                Err(e) => {
                    let _ = tx.send(Piece::Failed(e));
                    // No later piece is needed.
                    self.next.fetch_add(pieces, Ordering::Relaxed);
                    return;
                }
            }
        }
    }

    /// Wait until piece `k` is near enough the reader; false once stopped.
    fn wait_for_room(&self, k: usize) -> bool {
        let mut reading = self.reading.lock().unwrap_or_else(|e| e.into_inner());
        while k >= *reading + self.ahead {
            if self.stop.load(Ordering::Relaxed) {
                return false;
            }
            // A timeout: a reader dropped without a last notification.
            let (r, _) = self
                .read_on
                .wait_timeout(reading, Duration::from_millis(50))
                .unwrap_or_else(|e| e.into_inner());
            reading = r;
        }
        !self.stop.load(Ordering::Relaxed)
    }

    /// The first cut at or after `from`, looked for before `to` (and the
    /// end of the file); `None` when there is none there.
    fn cut_at_or_after(&self, from: u64, to: u64) -> io::Result<Option<u64>> {
        let (lf, align) = self.line_feed;
        if lf.len() == 1 && self.encoding.is_single_byte() {
            return Ok(Some(from));
        }
        let to = to.min(self.len);
        // A line feed ending just at `from` makes `from` a cut: look from
        // its first byte, on the encoding's alignment.
        let mut at = from.saturating_sub(lf.len() as u64).max(self.start);
        at -= (at - self.start) % align as u64;
        let mut buf = vec![0u8; 64 << 10];
        while at < to {
            let want = ((to - at) as usize + lf.len()).min(buf.len());
            let n = read_full_at(&*self.src, &mut buf[..want], at)?;
            if n < lf.len() {
                return Ok(None);
            }
            let mut i = 0;
            while i + lf.len() <= n {
                if &buf[i..i + lf.len()] == lf {
                    let cut = at + (i + lf.len()) as u64;
                    if cut >= from {
                        return Ok((cut < to || cut == self.len).then_some(cut));
                    }
                }
                i += align;
            }
            // Go on from the last aligned unit not wholly examined.
            at += (i as u64).max(align as u64);
        }
        Ok(None)
    }

    /// Decode piece `k` into `tx`: false when the reader is gone.
    fn piece(&self, k: usize, tx: &SyncSender<Piece>) -> io::Result<bool> {
        let nominal = self.start.max(k as u64 * self.piece);
        let next = (k as u64 + 1) * self.piece;
        let start = if k == 0 {
            self.start
        } else {
            match self.cut_at_or_after(nominal, next)? {
                Some(s) => s,
                None => return Ok(tx.send(Piece::End).is_ok()),
            }
        };
        let mut dec = TextDecoder::without_bom(self.encoding);
        let mut replaced = self.lossy.then(|| Replaced::new(self.name.clone(), self.read));
        let mut raw = vec![0u8; RAW];
        let mut out = self.chunk();
        let mut filled = 0;
        let mut pos = start;
        // The end, once a cut past `next` is found.
        let mut end: Option<u64> = None;
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return Ok(false);
            }
            let limit = end.unwrap_or(self.len);
            let want = ((limit - pos) as usize).min(RAW);
            let n = read_full_at(&*self.src, &mut raw[..want], pos)?;
            let block_end = pos + n as u64;
            if n < want {
                let msg = format!("the file ended at byte {block_end} while being decoded");
                return Err(io::Error::new(io::ErrorKind::UnexpectedEof, msg));
            }
            // The piece ends at the first cut at or after `next`.
            let mut take = n;
            if end.is_none() && block_end >= next {
                let search_to = block_end + self.line_feed.0.len() as u64;
                if let Some(cut) = self.cut_at_or_after(next.max(pos), search_to)? {
                    end = Some(cut);
                    take = take.min((cut - pos) as usize);
                }
            }
            let last = pos + take as u64 == end.unwrap_or(self.len);
            let mut src = &raw[..take];
            let mut offset = pos;
            loop {
                if CHUNK - filled < 64 {
                    out.truncate(filled);
                    if tx.send(Piece::Data(std::mem::replace(&mut out, self.chunk()))).is_err() {
                        return Ok(false);
                    }
                    filled = 0;
                }
                let (step, read, written) = dec.decode(src, &mut out[filled..], last);
                filled += written;
                src = &src[read..];
                offset += read as u64;
                match step {
                    Step::InputEmpty => break,
                    Step::OutputFull => {}
                    Step::Malformed { bad, after } => {
                        let at = (offset - after as u64).saturating_sub(bad as u64);
                        let local = (at.saturating_sub(pos)) as usize;
                        let bytes = raw.get(local..local + bad).map(<[u8]>::to_vec);
                        let bytes = bytes.filter(|_| at >= pos).unwrap_or_default();
                        let Some(r) = &mut replaced else {
                            let e = DecodeError { encoding: self.encoding, byte: at, bytes };
                            return Err(io::Error::new(io::ErrorKind::InvalidData, e));
                        };
                        r.note(at, &bytes);
                        // Room for it: a chunk is sent with 64 bytes left.
                        out[filled..filled + 3].copy_from_slice("\u{FFFD}".as_bytes());
                        filled += 3;
                    }
                }
            }
            pos += take as u64;
            if last {
                break;
            }
        }
        if let Some(r) = replaced {
            r.report(self.encoding.name());
        }
        out.truncate(filled);
        if filled > 0 && tx.send(Piece::Data(out)).is_err() {
            return Ok(false);
        }
        Ok(tx.send(Piece::End).is_ok())
    }
}

/// What [`TextSpans`] decodes: the encoding, whether lossy, and the
/// input's name (for what lossy decoding replaced).
#[derive(Clone, Debug)]
pub struct TextOf {
    /// The encoding.
    pub encoding: TextEncoding,
    /// U+FFFD, counted, instead of an error.
    pub lossy: bool,
    /// The input, in messages.
    pub name: Option<PathBuf>,
}

/// A reader of the UTF-8 text of a file in another encoding, decoded in
/// pieces on several threads.
pub struct TextSpans {
    work: Arc<Work>,
    queues: VecDeque<Receiver<Piece>>,
    current: Vec<u8>,
    pos: usize,
    failed: Option<(io::ErrorKind, String)>,
}

impl TextSpans {
    /// Decode `src` (`len` bytes, the text from byte `start`: after its
    /// byte order mark) in pieces of about `piece` bytes on `threads`
    /// threads. `None` when its encoding cannot be cut at a line feed
    /// ([`TextEncoding::line_feed`]).
    pub fn spawn(
        src: Arc<dyn ReadAt>,
        len: u64,
        start: u64,
        text: TextOf,
        piece: u64,
        threads: usize,
    ) -> Option<TextSpans> {
        let TextOf { encoding, lossy, name } = text;
        let line_feed = encoding.line_feed()?;
        let piece = piece.max(line_feed.1 as u64 * 2);
        let pieces = len.div_ceil(piece).max(1) as usize;
        // A piece's decoded bytes fit its queue (UTF-8 takes at most three
        // bytes for each byte of these encodings), so a worker a piece
        // ahead runs on.
        let depth = (piece as usize * 3) / CHUNK + 2;
        let (senders, queues): (Vec<_>, VecDeque<_>) = (0..pieces)
            .map(|_| {
                let (tx, rx) = sync_channel(depth);
                (Some(tx), rx)
            })
            .unzip();
        let work = Arc::new(Work {
            src,
            len,
            start,
            piece,
            encoding,
            line_feed,
            lossy,
            name,
            read: super::replacements::read_id(),
            next: AtomicUsize::new(0),
            senders: Mutex::new(senders),
            pool: Mutex::new(Vec::new()),
            reading: Mutex::new(0),
            read_on: Condvar::new(),
            ahead: threads.max(1) + 1,
            stop: AtomicBool::new(false),
        });
        // Not joined on drop: a worker returns at its next block or send
        // once the reader (and with it every queue) is gone.
        for i in 0..threads.clamp(1, pieces) {
            let work = Arc::clone(&work);
            std::thread::Builder::new()
                .name(format!("swath-text-{i}"))
                .spawn(move || work.run())
                .expect("spawn text decoder thread");
        }
        Some(TextSpans { work, queues, current: Vec::new(), pos: 0, failed: None })
    }

    fn fail(&mut self, e: io::Error) -> io::Error {
        self.failed = Some((e.kind(), e.to_string()));
        self.work.stop.store(true, Ordering::Relaxed);
        e
    }
}

impl Drop for TextSpans {
    fn drop(&mut self) {
        self.work.stop.store(true, Ordering::Relaxed);
        self.work.read_on.notify_all();
    }
}

impl Read for TextSpans {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some((kind, msg)) = &self.failed {
            return Err(io::Error::new(*kind, msg.clone()));
        }
        while self.pos == self.current.len() {
            let Some(queue) = self.queues.front() else { return Ok(0) };
            match queue.recv() {
                Ok(Piece::Data(chunk)) => {
                    let used = std::mem::replace(&mut self.current, chunk);
                    self.pos = 0;
                    if used.capacity() >= CHUNK {
                        let mut pool = self.work.pool.lock().unwrap_or_else(|e| e.into_inner());
                        if pool.len() < 8 {
                            pool.push(used);
                        }
                    }
                }
                Ok(Piece::End) => {
                    self.queues.pop_front();
                    *self.work.reading.lock().unwrap_or_else(|e| e.into_inner()) += 1;
                    self.work.read_on.notify_all();
                }
                Ok(Piece::Failed(e)) => return Err(self.fail(e)),
                Err(_) => {
                    let e = io::Error::other("a text decoder thread stopped unexpectedly");
                    return Err(self.fail(e));
                }
            }
        }
        let n = buf.len().min(self.current.len() - self.pos);
        buf[..n].copy_from_slice(&self.current[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(
        bytes: &[u8],
        enc: TextEncoding,
        start: u64,
        piece: u64,
        threads: usize,
    ) -> io::Result<Vec<u8>> {
        let src: Arc<dyn ReadAt> = Arc::new(bytes.to_vec());
        let len = bytes.len() as u64;
        let text = TextOf { encoding: enc, lossy: false, name: None };
        let mut r = TextSpans::spawn(src, len, start, text, piece, threads).unwrap();
        let mut out = Vec::new();
        r.read_to_end(&mut out)?;
        Ok(out)
    }

    fn text() -> String {
        let mut s = String::from("id,name,city\n");
        for i in 0..300 {
            let long = if i % 37 == 0 { "x".repeat(500) } else { String::new() };
            s.push_str(&format!("{i},José Zoë {long},東京 München €\n"));
        }
        s.push_str("last,no line feed,Łódź");
        s
    }

    #[test]
    fn every_piece_size_gives_the_text_decoded_front_to_back() {
        let text = text();
        for e in [
            encoding_rs::WINDOWS_1252,
            encoding_rs::UTF_16LE,
            encoding_rs::UTF_16BE,
            encoding_rs::GB18030,
            encoding_rs::SHIFT_JIS,
            encoding_rs::EUC_KR,
            encoding_rs::BIG5,
        ] {
            let bytes: Vec<u8> = if e == encoding_rs::UTF_16LE {
                text.encode_utf16().flat_map(u16::to_le_bytes).collect()
            } else if e == encoding_rs::UTF_16BE {
                text.encode_utf16().flat_map(u16::to_be_bytes).collect()
            } else {
                e.encode(&text).0.into_owned()
            };
            let (want, _) = e.decode_without_bom_handling(&bytes);
            for piece in [1, 2, 3, 7, 64, 333, 4096, 1 << 20] {
                for threads in [1, 3] {
                    let got = decode(&bytes, TextEncoding::Whatwg(e), 0, piece, threads).unwrap();
                    assert_eq!(String::from_utf8(got).unwrap(), want, "{} piece {piece}", e.name());
                }
            }
        }
    }

    #[test]
    fn the_first_error_in_the_file_is_the_one_reported() {
        let mut bytes = encoding_rs::SHIFT_JIS.encode(&text()).0.into_owned();
        let first = 1000;
        bytes[first] = 0x81;
        bytes[first + 1] = b'\n';
        bytes[3000] = 0xFF;
        for piece in [5, 64, 999, 1 << 20] {
            let e = decode(&bytes, TextEncoding::Whatwg(encoding_rs::SHIFT_JIS), 0, piece, 3)
                .unwrap_err();
            assert!(e.to_string().contains(&format!("at byte {first}")), "{piece}: {e}");
        }
    }

    #[test]
    fn latin1_is_cut_anywhere() {
        let bytes: Vec<u8> = (0..5000u32).map(|i| (i % 256) as u8).collect();
        let want: String = bytes.iter().map(|&b| b as char).collect();
        for piece in [1, 3, 100, 4999] {
            let got = decode(&bytes, TextEncoding::Latin1, 0, piece, 2).unwrap();
            assert_eq!(String::from_utf8(got).unwrap(), want);
        }
    }
}

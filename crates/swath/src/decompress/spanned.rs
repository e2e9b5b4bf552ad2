//! Spans decoded on every core, read in order: each worker takes the next
//! span ([`super::spans`]), decodes it with a decoder of its own, and
//! streams its chunks into that span's bounded queue; the reader drains
//! the queues in span order. The bytes are those of decoding the file
//! front to back (each span is whole members or frames, checked by their
//! own CRCs and sizes), and memory stays flat: each worker holds one span,
//! whose queue holds at most [`SPAN_QUEUE`] chunks of
//! [`CHUNK_SIZE`](super::CHUNK_SIZE).
//!
//! A span that fails is decoded again, front to back on one thread, from
//! its start to the end of the file, and the bytes already handed out are
//! skipped: a span starts where the span before it ended after whole
//! members or frames, so its start is sure, but its end came from a size
//! in a header that the decoder itself ignores (a crafted BGZF size). Front
//! to back, the file then either decodes as `gzip -d` decodes it, or fails
//! with the error and offsets that decoding it front to back gives.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};

use super::decoder::{failure, Decoder};
use super::spans::{Rebuilt, Span};
use super::thread::{Decoded, CHUNK_SIZE};
use super::{Compression, DecompressError};
use crate::range::{OwnedRange, ReadAt};

/// Chunks a span's queue holds: a span of [`super::spans::SPAN_DECODED`]
/// decoded bytes fits, so a worker a span ahead of the reader runs on.
pub const SPAN_QUEUE: usize = (super::spans::SPAN_DECODED as usize) / CHUNK_SIZE + 1;

/// What a worker sends for its span.
enum Piece {
    Data(Vec<u8>),
    End,
    /// Decoding failed: the reader decodes again from the span's start
    /// (the error it reports is the one of decoding front to back).
    Failed,
}

/// What the workers share.
struct Work {
    format: Compression,
    src: Arc<dyn ReadAt>,
    /// The compressed file's length.
    len: u64,
    spans: Vec<Span>,
    next: AtomicUsize,
    senders: Mutex<Vec<Option<SyncSender<Piece>>>>,
    /// Chunks the reader has finished with, for the workers to fill again.
    pool: Mutex<Vec<Vec<u8>>>,
    stop: AtomicBool,
}

impl Work {
    fn chunk(&self) -> Vec<u8> {
        let mut chunk =
            self.pool.lock().unwrap_or_else(|e| e.into_inner()).pop().unwrap_or_default();
        chunk.resize(CHUNK_SIZE, 0);
        chunk
    }

    /// Decode spans until none is left, one has failed (the reader decodes
    /// again from there), or the reader is gone.
    fn run(&self) {
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return;
            }
            let k = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(span) = self.spans.get(k) else { return };
            let tx = self.senders.lock().unwrap_or_else(|e| e.into_inner())[k].take();
            let Some(tx) = tx else { return };
            if !self.decode(span, &tx) {
                // No later span is needed. Earlier ones still are: their
                // workers go on until the reader stops them.
                self.next.fetch_add(self.spans.len(), Ordering::Relaxed);
                return;
            }
        }
    }

    /// Decode one span into `tx`; false when the reader is gone or the
    /// span failed.
    fn decode(&self, span: &Span, tx: &SyncSender<Piece>) -> bool {
        let Ok(mut dec) = self.decoder(span) else {
            let _ = tx.send(Piece::Failed);
            return false;
        };
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return false;
            }
            let mut chunk = self.chunk();
            let (filled, result) = match dec.fill(&mut chunk) {
                Ok(n) => (n, Ok(())),
                Err((n, e)) => (n, Err(e)),
            };
            let at_end = filled < chunk.len();
            chunk.truncate(filled);
            if filled > 0 && tx.send(Piece::Data(chunk)).is_err() {
                return false;
            }
            if result.is_err() {
                let _ = tx.send(Piece::Failed);
                return false;
            }
            if at_end {
                return tx.send(Piece::End).is_ok();
            }
        }
    }

    /// The decoder of one span.
    fn decoder(&self, span: &Span) -> io::Result<Decoder> {
        let raw: Box<dyn Read + Send> = match &span.rebuilt {
            // bzip2 blocks at bit offsets: a stream of their own.
            Some(Rebuilt::Bzip2(run)) => {
                Box::new(io::Cursor::new(super::bzip2_blocks::synthesize(&*self.src, run)?))
            }
            // xz blocks: their stream's header, a new index and footer.
            Some(Rebuilt::Xz(run)) => run.reader(Arc::clone(&self.src)),
            // gzip between two checkpoints of its index.
            Some(Rebuilt::Gzip { index, k }) => {
                let src = Arc::clone(&self.src);
                let resumed = super::gzip_index::Resumed::new(src, self.len, index, *k)?;
                return Ok(Decoder::decoding(Box::new(resumed)));
            }
            None => Box::new(OwnedRange::new(
                Arc::clone(&self.src),
                span.compressed.start,
                span.compressed.end,
            )),
        };
        Decoder::new(self.format, raw)
    }
}

/// A reader of decoded bytes, fed by workers that decode spans in parallel.
pub struct SpanDecoded {
    work: Arc<Work>,
    queues: VecDeque<Receiver<Piece>>,
    /// The span being read; the decoded bytes handed out, and those
    /// before the span being read.
    span: usize,
    base: u64,
    span_base: u64,
    /// After a span failed: the compressed byte decoding restarted at
    /// (the decoded bytes before it are `span_base`), and the decoder that
    /// goes on from there front to back.
    fallback: Option<(u64, Decoded)>,
    current: Vec<u8>,
    pos: usize,
    done: bool,
    /// The decoding error, repeated on every later read (never a quiet end).
    failed: Option<(io::ErrorKind, String)>,
}

impl SpanDecoded {
    /// Start decoding `spans` of `src` (in `format`) on `threads` threads.
    ///
    /// # Panics
    ///
    /// Panics if swath does not decode `format`, or `spans` is empty.
    pub fn spawn(
        format: Compression,
        src: Arc<dyn ReadAt>,
        len: u64,
        spans: Vec<Span>,
        threads: usize,
    ) -> SpanDecoded {
        assert!(format.is_decoded(), "swath does not decode {}", format.name());
        assert!(!spans.is_empty(), "a file has at least one span");
        let (senders, queues): (Vec<_>, VecDeque<_>) = spans
            .iter()
            .map(|_| {
                let (tx, rx) = sync_channel(SPAN_QUEUE);
                (Some(tx), rx)
            })
            .unzip();
        let workers = threads.clamp(1, spans.len());
        let work = Arc::new(Work {
            format,
            src,
            len,
            spans,
            next: AtomicUsize::new(0),
            senders: Mutex::new(senders),
            pool: Mutex::new(Vec::new()),
            stop: AtomicBool::new(false),
        });
        // Not joined on drop: a worker returns at its next chunk or send
        // once the reader (and with it every queue) is gone.
        for i in 0..workers {
            let work = Arc::clone(&work);
            std::thread::Builder::new()
                .name(format!("swath-{}-{i}", format.name()))
                .spawn(move || work.run())
                .expect("spawn decoder thread");
        }
        SpanDecoded {
            work,
            queues,
            span: 0,
            base: 0,
            span_base: 0,
            fallback: None,
            current: Vec::new(),
            pos: 0,
            done: false,
            failed: None,
        }
    }

    fn fail(&mut self, e: io::Error) -> io::Error {
        self.failed = Some((e.kind(), e.to_string()));
        self.work.stop.store(true, Ordering::Relaxed);
        e
    }

    /// Give a finished chunk back to the workers (a few are enough).
    fn recycle(&mut self) {
        let used = std::mem::take(&mut self.current);
        if used.capacity() == CHUNK_SIZE {
            let mut pool = self.work.pool.lock().unwrap_or_else(|e| e.into_inner());
            if pool.len() < SPAN_QUEUE {
                pool.push(used);
            }
        }
    }

    /// Span `self.span` failed: stop the workers and decode from its start
    /// to the end of the file on one thread, skipping what was handed out.
    /// A span of blocks taken out of their stream (bzip2, xz) cannot be
    /// decoded front to back from its start: decoding starts from the top.
    fn fall_back(&mut self) -> io::Result<()> {
        self.work.stop.store(true, Ordering::Relaxed);
        self.queues.clear();
        let span = &self.work.spans[self.span];
        let (start, start_decoded) = match span.rebuilt {
            Some(_) => (0, 0),
            None => (span.compressed.start, self.span_base),
        };
        let raw = OwnedRange::new(Arc::clone(&self.work.src), start, self.work.len);
        let mut dec = Decoded::spawn(self.work.format, Box::new(raw));
        self.span_base = start_decoded;
        let mut skip = self.base - start_decoded;
        let mut scratch = vec![0u8; CHUNK_SIZE];
        while skip > 0 {
            let want = usize::try_from(skip).unwrap_or(usize::MAX).min(scratch.len());
            let n = dec.read(&mut scratch[..want]).map_err(|e| self.moved(e, start))?;
            if n == 0 {
                let e =
                    io::Error::other("a span decoded to more bytes than the file front to back");
                return Err(e);
            }
            skip -= n as u64;
        }
        self.fallback = Some((start, dec));
        Ok(())
    }

    /// An error of the decoder started at compressed byte `start`, with
    /// its offsets made the file's.
    fn moved(&self, e: io::Error, start: u64) -> io::Error {
        match e.get_ref().and_then(|inner| inner.downcast_ref::<DecompressError>()) {
            Some(d) => failure(
                d.format,
                d.message.clone(),
                start + d.compressed_offset,
                self.span_base + d.decompressed_offset,
            ),
            None => e,
        }
    }
}

impl Drop for SpanDecoded {
    fn drop(&mut self) {
        self.work.stop.store(true, Ordering::Relaxed);
    }
}

impl Read for SpanDecoded {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some((kind, msg)) = &self.failed {
            if self.pos == self.current.len() {
                return Err(io::Error::new(*kind, msg.clone()));
            }
        }
        if let Some((start, dec)) = &mut self.fallback {
            if self.pos == self.current.len() {
                let start = *start;
                return match dec.read(buf) {
                    Ok(n) => Ok(n),
                    Err(e) => {
                        let e = self.moved(e, start);
                        Err(self.fail(e))
                    }
                };
            }
        }
        while self.pos == self.current.len() {
            if self.done {
                return Ok(0);
            }
            self.recycle();
            self.pos = 0;
            let Some(queue) = self.queues.front() else {
                self.done = true;
                return Ok(0);
            };
            match queue.recv() {
                Ok(Piece::Data(chunk)) => {
                    self.base += chunk.len() as u64;
                    self.current = chunk;
                }
                Ok(Piece::End) => {
                    self.queues.pop_front();
                    self.span += 1;
                    self.span_base = self.base;
                }
                Ok(Piece::Failed) => {
                    if let Err(e) = self.fall_back() {
                        return Err(self.fail(e));
                    }
                    return self.read(buf);
                }
                Err(_) => {
                    let e = io::Error::other("a decoder thread stopped unexpectedly");
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

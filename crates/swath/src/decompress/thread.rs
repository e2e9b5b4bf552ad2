//! One decoding thread: the whole stream decoded in order on a thread of
//! its own, which hands decoded chunks to the reader through a bounded
//! queue. Chunks are recycled, so memory stays flat: at most
//! [`QUEUE_DEPTH`] + 2 chunks of [`CHUNK_SIZE`] exist at once. The way in
//! for a stream (a pipe, stdin, a remote object) and for a file whose
//! structure gives no spans ([`super::spans`]).

use std::io::{self, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use super::decoder::{failure, Decoder};
use super::Compression;

/// Size of one decoded chunk handed to the reader.
pub const CHUNK_SIZE: usize = 256 * 1024;

/// Decoded chunks that may wait in the queue.
pub const QUEUE_DEPTH: usize = 4;

/// A reader of decoded bytes, fed by a decoder thread.
pub struct Decoded {
    chunks: Receiver<io::Result<Vec<u8>>>,
    recycle: SyncSender<Vec<u8>>,
    current: Vec<u8>,
    pos: usize,
    done: bool,
    /// The decoding error, repeated on every later read (never a quiet end).
    failed: Option<(io::ErrorKind, String)>,
}

impl Decoded {
    /// Start decoding `raw` (which must be in `format`) on its own thread.
    ///
    /// # Panics
    ///
    /// Panics if swath does not decode `format` ([`Compression::is_decoded`]).
    pub fn spawn(format: Compression, raw: Box<dyn Read + Send>) -> Decoded {
        assert!(format.is_decoded(), "swath does not decode {}", format.name());
        Decoded::spawn_decoder(format, Decoder::new(format, raw))
    }

    /// Run `dec` (a decoder of `format`, or the error of making it) on a
    /// thread of its own.
    pub(super) fn spawn_decoder(format: Compression, dec: io::Result<Decoder>) -> Decoded {
        let (chunk_tx, chunks) = sync_channel(QUEUE_DEPTH);
        let (recycle, recycled) = sync_channel(QUEUE_DEPTH + 2);
        for _ in 0..QUEUE_DEPTH + 2 {
            recycle.send(vec![0u8; CHUNK_SIZE]).expect("fresh channel has room");
        }
        // Not joined on drop: it may be blocked reading a pipe; it returns on
        // its next send or receive once our ends of the channels are gone.
        std::thread::Builder::new()
            .name(format!("swath-{}", format.name()))
            .spawn(move || decode(format, dec, chunk_tx, recycled))
            .expect("spawn decoder thread");
        Decoded { chunks, recycle, current: Vec::new(), pos: 0, done: false, failed: None }
    }
}

/// The decoder thread: fill recycled chunks and send them, in order.
fn decode(
    format: Compression,
    dec: io::Result<Decoder>,
    out: SyncSender<io::Result<Vec<u8>>>,
    recycled: Receiver<Vec<u8>>,
) {
    let mut dec = match dec {
        Ok(d) => d,
        Err(e) => {
            let _ = out.send(Err(failure(format, e.to_string(), 0, 0)));
            return;
        }
    };
    let mut produced = 0u64;
    loop {
        // Blocks while the reader holds every chunk: the queue is bounded.
        let Ok(mut chunk) = recycled.recv() else { return };
        chunk.resize(CHUNK_SIZE, 0);
        let (filled, result) = match dec.fill(&mut chunk) {
            Ok(n) => (n, Ok(())),
            Err((n, e)) => (n, Err(e)),
        };
        produced += filled as u64;
        let at_end = filled < chunk.len();
        chunk.truncate(filled);
        if filled > 0 && out.send(Ok(chunk)).is_err() {
            return; // the reader is gone
        }
        if let Err(e) = result {
            let _ = out.send(Err(failure(format, e.to_string(), dec.consumed(), produced)));
            return;
        }
        if at_end {
            // End of stream: an empty chunk says so explicitly, so a decoder
            // thread that died is never mistaken for a clean end.
            let _ = out.send(Ok(Vec::new()));
            return;
        }
    }
}

impl Read for Decoded {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.current.len() {
            if let Some((kind, msg)) = &self.failed {
                return Err(io::Error::new(*kind, msg.clone()));
            }
            if self.done {
                return Ok(0);
            }
            let used = std::mem::take(&mut self.current);
            if used.capacity() > 0 {
                let _ = self.recycle.try_send(used);
            }
            self.pos = 0;
            match self.chunks.recv() {
                Ok(Ok(chunk)) if chunk.is_empty() => self.done = true,
                Ok(Ok(chunk)) => self.current = chunk,
                Ok(Err(e)) => {
                    self.failed = Some((e.kind(), e.to_string()));
                    return Err(e);
                }
                Err(_) => {
                    let e = io::Error::other("the decoder thread stopped unexpectedly");
                    self.failed = Some((e.kind(), e.to_string()));
                    return Err(e);
                }
            }
        }
        let n = buf.len().min(self.current.len() - self.pos);
        buf[..n].copy_from_slice(&self.current[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

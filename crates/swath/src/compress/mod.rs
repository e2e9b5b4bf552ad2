//! Compressed output on every core, in a form swath reads back on every
//! core: the output is cut into blocks, each compressed on its own
//! ([`blocks`]: a gzip member that says its size, or a zstd frame with a
//! seek table after the last), on worker threads, and written in order.
//! This is how pigz and `zstd -T` spread the work, with independent
//! blocks (as `pigz --independent`, `bgzip` and `pzstd` write them) so
//! that the reader can split the file as well.
//!
//! The cost of independence is the ratio: each block starts without the
//! previous block's window. At 4 MiB blocks it is about 1% (see
//! `docs/compressed.md`).

pub mod blocks;

use std::collections::VecDeque;
use std::io::{self, Write};
use std::path::Path;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use blocks::{zstd_seek_table, GzipMembers, ZstdFrames};

/// A compressed output format and its level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Codec {
    /// gzip members with an `IG` size field, level 0-9.
    Gzip(u32),
    /// zstd frames and a seek table, zstd's levels.
    Zstd(i32),
}

impl Codec {
    /// gzip at its default level, 6.
    pub const GZIP: Codec = Codec::Gzip(6);
    /// zstd at its default level, 3.
    pub const ZSTD: Codec = Codec::Zstd(3);

    /// The input bytes of one block, 4 MiB: each block starts with an
    /// empty window. On a 253 MB CSV, 1 MiB gzip blocks made 40.45 MB,
    /// 4 MiB 40.34 MB (`gzip -6`: 39.14 MB; the rest is zlib-rs's level 6,
    /// zlib-ng's, not the blocks); zstd's 4 MiB frames 0.2% over `zstd -3`.
    /// The hidden `SWATH_COMPRESS_BLOCK_BYTES` sets it, with which the
    /// CLI's tests cut small outputs into many blocks.
    pub fn block_size(self) -> usize {
        let hidden = std::env::var("SWATH_COMPRESS_BLOCK_BYTES").ok();
        if let Some(n) = hidden.and_then(|v| v.parse().ok()).filter(|&n: &usize| n > 0) {
            return n;
        }
        4 << 20
    }

    /// The codec a file name asks for: `.gz` and `.zst` (any case) are
    /// written compressed; `None` for any other name.
    ///
    /// # Errors
    ///
    /// The name of a compressed format swath reads but does not write
    /// (`.bz2`, `.xz`, `.lz4`, `.zip`, ...): writing plain text under it
    /// would make a file that lies about its contents.
    pub fn for_path(path: &Path) -> Result<Option<Codec>, String> {
        let Some(ext) = path.extension().and_then(|e| e.to_str()) else { return Ok(None) };
        match ext.to_ascii_lowercase().as_str() {
            "gz" | "gzip" | "tgz" => Ok(Some(Codec::GZIP)),
            "zst" | "zstd" => Ok(Some(Codec::ZSTD)),
            other @ ("bz2" | "bzip2" | "xz" | "lzma" | "lz4" | "zip" | "br" | "snappy" | "sz") => {
                Err(format!(
                    "swath writes compressed output as gzip (.gz) or zstd (.zst), not .{other}"
                ))
            }
            _ => Ok(None),
        }
    }
}

/// One block on its way: its input, and where its compressed bytes come
/// back.
struct Job {
    input: Vec<u8>,
    reply: SyncSender<io::Result<Done>>,
}

/// A compressed block, and its input buffer to use again.
struct Done {
    compressed: Vec<u8>,
    input: Vec<u8>,
}

/// Compresses one codec's blocks.
enum Encoder {
    Gzip(GzipMembers),
    Zstd(ZstdFrames),
}

impl Encoder {
    fn new(codec: Codec) -> io::Result<Encoder> {
        Ok(match codec {
            Codec::Gzip(level) => Encoder::Gzip(GzipMembers::new(level.min(9))),
            Codec::Zstd(level) => Encoder::Zstd(ZstdFrames::new(level)?),
        })
    }

    fn block(&mut self, input: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
        match self {
            Encoder::Gzip(g) => g.member(input, out),
            Encoder::Zstd(z) => z.frame(input, out),
        }
    }
}

/// A [`Write`] that compresses into `W` on `threads` worker threads (0:
/// in the caller's thread, for callers that already run in parallel).
/// [`CompressWriter::finish`] writes the last block and the seek table and
/// gives `W` back; dropped without it, the output is incomplete (the
/// caller's own drop removes a file that was not finished).
pub struct CompressWriter<W: Write> {
    /// `None` once finished.
    inner: Option<W>,
    codec: Codec,
    block_size: usize,
    block: Vec<u8>,
    /// Compressed in this thread when there are no workers.
    local: Option<Encoder>,
    jobs: Option<SyncSender<Job>>,
    workers: Vec<JoinHandle<()>>,
    /// Blocks sent, in output order.
    pending: VecDeque<(Receiver<io::Result<Done>>, u64)>,
    in_flight: usize,
    spare: Vec<Vec<u8>>,
    /// (compressed, decoded) sizes of the zstd frames written.
    frames: Vec<(u64, u64)>,
    written: u64,
}

impl<W: Write> CompressWriter<W> {
    /// Compress into `inner` with `codec` on `threads` threads.
    ///
    /// # Errors
    ///
    /// A zstd level it refuses.
    pub fn new(inner: W, codec: Codec, threads: usize) -> io::Result<CompressWriter<W>> {
        let block_size = codec.block_size();
        let mut writer = CompressWriter {
            inner: Some(inner),
            codec,
            block_size,
            block: Vec::with_capacity(block_size),
            local: None,
            jobs: None,
            workers: Vec::new(),
            pending: VecDeque::new(),
            in_flight: threads + 1,
            spare: Vec::new(),
            frames: Vec::new(),
            written: 0,
        };
        if threads == 0 {
            writer.local = Some(Encoder::new(codec)?);
            return Ok(writer);
        }
        Encoder::new(codec)?; // the level's error here, not in a worker
        let (tx, rx) = sync_channel::<Job>(threads);
        let rx = Arc::new(Mutex::new(rx));
        for _ in 0..threads {
            let rx = Arc::clone(&rx);
            writer.workers.push(std::thread::spawn(move || work(&rx, codec)));
        }
        writer.jobs = Some(tx);
        Ok(writer)
    }

    /// The decoded bytes taken so far.
    pub fn bytes_in(&self) -> u64 {
        self.written + self.block.len() as u64
    }

    /// Send the block being filled (even when empty, for the last).
    fn send_block(&mut self) -> io::Result<()> {
        let fresh = self.spare.pop().unwrap_or_default();
        let mut input = std::mem::replace(&mut self.block, fresh);
        self.block.clear();
        self.block.reserve(self.block_size);
        let decoded = input.len() as u64;
        self.written += decoded;
        if let Some(encoder) = &mut self.local {
            let mut out = Vec::new();
            encoder.block(&input, &mut out)?;
            input.clear();
            self.spare.push(input);
            return self.emit(out, decoded);
        }
        let (reply, back) = sync_channel(1);
        let jobs = self.jobs.as_ref().ok_or_else(closed)?;
        jobs.send(Job { input, reply }).map_err(|_| worker_gone())?;
        self.pending.push_back((back, decoded));
        while self.pending.len() >= self.in_flight {
            self.write_oldest()?;
        }
        Ok(())
    }

    /// Wait for the oldest block sent and write it.
    fn write_oldest(&mut self) -> io::Result<()> {
        let Some((back, decoded)) = self.pending.pop_front() else { return Ok(()) };
        let mut done = back.recv().map_err(|_| worker_gone())??;
        done.input.clear();
        self.spare.push(done.input);
        self.emit(done.compressed, decoded)
    }

    fn emit(&mut self, compressed: Vec<u8>, decoded: u64) -> io::Result<()> {
        self.out()?.write_all(&compressed)?;
        if matches!(self.codec, Codec::Zstd(_)) {
            self.frames.push((compressed.len() as u64, decoded));
        }
        Ok(())
    }

    /// Write the last block (an empty input still makes a valid, empty
    /// file), every block still in flight, and zstd's seek table; stop
    /// the workers; give the inner writer back, flushed.
    ///
    /// # Errors
    ///
    /// A compression or write error.
    pub fn finish(mut self) -> io::Result<W> {
        // Nothing sent yet: one empty block, so an empty output is a file.
        if !self.block.is_empty() || self.written == 0 {
            self.send_block()?;
        }
        while !self.pending.is_empty() {
            self.write_oldest()?;
        }
        if matches!(self.codec, Codec::Zstd(_)) {
            let table = zstd_seek_table(&self.frames)?;
            self.out()?.write_all(&table)?;
        }
        self.stop_workers();
        let mut inner = self.inner.take().ok_or_else(closed)?;
        inner.flush()?;
        Ok(inner)
    }

    fn stop_workers(&mut self) {
        drop(self.jobs.take());
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }

    fn out(&mut self) -> io::Result<&mut W> {
        self.inner.as_mut().ok_or_else(closed)
    }
}

impl<W: Write> std::fmt::Debug for CompressWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompressWriter")
            .field("codec", &self.codec)
            .field("workers", &self.workers.len())
            .field("bytes_in", &self.bytes_in())
            .finish_non_exhaustive()
    }
}

impl<W: Write> Write for CompressWriter<W> {
    fn write(&mut self, mut buf: &[u8]) -> io::Result<usize> {
        let taken = buf.len();
        let size = self.block_size;
        while !buf.is_empty() {
            let room = size - self.block.len();
            let n = room.min(buf.len());
            self.block.extend_from_slice(&buf[..n]);
            buf = &buf[n..];
            if self.block.len() == size {
                self.send_block()?;
            }
        }
        Ok(taken)
    }

    /// Blocks are written when full; a flush does not cut one short
    /// (that would cost ratio), and the inner writer is flushed.
    fn flush(&mut self) -> io::Result<()> {
        self.out()?.flush()
    }
}

impl<W: Write> Drop for CompressWriter<W> {
    fn drop(&mut self) {
        self.stop_workers();
    }
}

fn closed() -> io::Error {
    io::Error::other("write to a finished compressor")
}

fn worker_gone() -> io::Error {
    io::Error::other("a compressing thread stopped")
}

/// A worker: compress jobs until the channel closes.
fn work(jobs: &Mutex<Receiver<Job>>, codec: Codec) {
    let Ok(mut encoder) = Encoder::new(codec) else { return };
    loop {
        let job = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        let Ok(Job { input, reply }) = job else { return };
        let mut compressed = Vec::new();
        let result = encoder.block(&input, &mut compressed).map(|()| Done { compressed, input });
        let _ = reply.send(result);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn text(n: usize) -> Vec<u8> {
        (0..n).map(|i| (b'a' + (i * 7 % 23) as u8) ^ ((i >> 12) as u8 & 3)).collect()
    }

    fn decode(codec: Codec, bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        match codec {
            Codec::Gzip(_) => {
                flate2::read::MultiGzDecoder::new(bytes).read_to_end(&mut out).unwrap();
            }
            Codec::Zstd(_) => out = zstd::stream::decode_all(bytes).unwrap(),
        }
        out
    }

    #[test]
    fn every_size_and_thread_count_decodes_to_the_input() {
        for codec in [Codec::Gzip(1), Codec::Zstd(1)] {
            let block = codec.block_size();
            for len in [0, 1, block - 1, block, 2 * block + 5] {
                let input = text(len);
                for threads in [0, 1, 2, 3] {
                    let mut w = CompressWriter::new(Vec::new(), codec, threads).unwrap();
                    // Writes of odd sizes, crossing block ends.
                    for piece in input.chunks(77_777) {
                        w.write_all(piece).unwrap();
                    }
                    assert_eq!(w.bytes_in(), len as u64);
                    let out = w.finish().unwrap();
                    assert!(!out.is_empty(), "{codec:?} {len}: an empty input is a valid file");
                    assert_eq!(
                        decode(codec, &out),
                        input,
                        "{codec:?} {len} bytes, {threads} threads"
                    );
                }
            }
        }
    }

    #[test]
    fn the_same_bytes_at_every_thread_count() {
        let input = text(3 << 20);
        let at = |threads| {
            let mut w = CompressWriter::new(Vec::new(), Codec::GZIP, threads).unwrap();
            w.write_all(&input).unwrap();
            w.finish().unwrap()
        };
        let one = at(0);
        assert_eq!(at(1), one);
        assert_eq!(at(4), one);
    }

    #[test]
    fn names_choose_the_codec_and_unwritten_formats_are_refused() {
        assert_eq!(Codec::for_path(Path::new("a.csv.gz")), Ok(Some(Codec::GZIP)));
        assert_eq!(Codec::for_path(Path::new("a.CSV.ZST")), Ok(Some(Codec::ZSTD)));
        assert_eq!(Codec::for_path(Path::new("a.csv")), Ok(None));
        assert_eq!(Codec::for_path(Path::new("-")), Ok(None));
        let err = Codec::for_path(Path::new("out.csv.bz2")).unwrap_err();
        assert!(err.contains(".bz2"), "{err}");
    }

    #[test]
    fn a_writer_dropped_unfinished_stops_its_threads() {
        let mut w = CompressWriter::new(Vec::new(), Codec::GZIP, 2).unwrap();
        w.write_all(&text(5 << 20)).unwrap();
        drop(w); // must not hang or panic
    }
}

//! gzip and zstd input, recognised by magic bytes (never by file name) and
//! decoded on a thread of its own (bzip2, xz, zip and lz4 are recognised
//! too, and refused with an error that names them), which hands decoded chunks to the reader
//! through a bounded queue. Chunks are recycled, so memory stays flat: at
//! most [`QUEUE_DEPTH`] + 2 chunks of [`CHUNK_SIZE`] exist at once.
//!
//! A corrupt or truncated stream is an error that names both offsets, the
//! compressed byte where decoding stopped and the decompressed byte reached;
//! never a short count.

use std::fmt;
use std::io::{self, BufReader, Read};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Size of one decoded chunk handed to the reader.
pub const CHUNK_SIZE: usize = 256 * 1024;

/// Decoded chunks that may wait in the queue.
pub const QUEUE_DEPTH: usize = 4;

/// How many first bytes [`Compression::detect`] looks at: enough for
/// every magic number it knows (bzip2's block magic ends at byte 10).
pub const MAGIC_LEN: usize = 16;

/// A compression format, recognised by its magic bytes: the ones swath
/// decodes (gzip, zstd), and the ones it only names, so that no command
/// ever reads compressed bytes as data ([`Compression::is_decoded`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Compression {
    /// Plain bytes.
    None,
    /// gzip (RFC 1952), including several concatenated members like `gzip -d`
    /// (multi-member files, `pigz -i`, BGZF).
    Gzip,
    /// Zstandard frames, several in a row, and skippable frames among
    /// them (all `pzstd` output and the seekable format start with one).
    Zstd,
    /// bzip2: named, not decoded.
    Bzip2,
    /// xz: named, not decoded.
    Xz,
    /// A zip archive: named, not decoded.
    Zip,
    /// An LZ4 frame: named, not decoded.
    Lz4,
}

impl Compression {
    /// Recognise a format from the first bytes of an input ([`MAGIC_LEN`]
    /// bytes, or all there are: a shorter file is plain unless it is a
    /// whole magic number).
    pub fn detect(prefix: &[u8]) -> Compression {
        match prefix {
            [0x1f, 0x8b, ..] => Compression::Gzip,
            [0x28, 0xb5, 0x2f, 0xfd, ..] => Compression::Zstd,
            // A skippable frame: magic 0x184D2A5?, little-endian.
            [0x50..=0x5f, 0x2a, 0x4d, 0x18, ..] => Compression::Zstd,
            // "BZh", the block size '1'..'9', then the magic of a block
            // (pi) or of the end of the stream (sqrt(pi)): ten bytes, so a
            // text that starts with "BZh1" is still text.
            [b'B', b'Z', b'h', b'1'..=b'9', rest @ ..]
                if rest.starts_with(&[0x31, 0x41, 0x59, 0x26, 0x53, 0x59])
                    || rest.starts_with(&[0x17, 0x72, 0x45, 0x38, 0x50, 0x90]) =>
            {
                Compression::Bzip2
            }
            [0xfd, b'7', b'z', b'X', b'Z', 0x00, ..] => Compression::Xz,
            // A local file header, or the end of an empty archive.
            [b'P', b'K', 0x03, 0x04, ..] | [b'P', b'K', 0x05, 0x06, ..] => Compression::Zip,
            // An LZ4 frame, or the legacy format `lz4 -l` writes.
            [0x04, 0x22, 0x4d, 0x18, ..] | [0x02, 0x21, 0x4c, 0x18, ..] => Compression::Lz4,
            _ => Compression::None,
        }
    }

    /// A short name: `gzip`, `zstd`, `bzip2`, `xz`, `zip`, `lz4` or `none`.
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
            Compression::Zip => "zip",
            Compression::Lz4 => "lz4",
        }
    }

    /// Whether swath decodes this format (gzip and zstd), rather than
    /// only recognising it.
    pub fn is_decoded(self) -> bool {
        matches!(self, Compression::Gzip | Compression::Zstd)
    }

    /// The error for an input in a format swath recognises but does not
    /// decode: it names the format and says what to do.
    pub fn unsupported(self) -> io::Error {
        let tool = match self {
            Compression::Bzip2 => "bzip2 -dc FILE",
            Compression::Xz => "xz -dc FILE",
            Compression::Zip => "unzip -p FILE",
            Compression::Lz4 => "lz4 -dc FILE",
            _ => "decompress FILE",
        };
        io::Error::new(
            io::ErrorKind::Unsupported,
            format!(
                "{} input: swath decodes gzip and zstd, not {}; decompress it first \
                 (`{tool} | swath ... -`)",
                self.name(),
                self.name()
            ),
        )
    }
}

/// A decoding failure, carried inside the `io::Error` the reader returns
/// (`err.get_ref()` and downcast to read the offsets).
#[derive(Debug)]
pub struct DecompressError {
    /// The format being decoded.
    pub format: Compression,
    /// Compressed bytes consumed when decoding failed.
    pub compressed_offset: u64,
    /// Decompressed bytes produced before the failure.
    pub decompressed_offset: u64,
    /// What the decoder said.
    pub message: String,
}

impl fmt::Display for DecompressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "corrupt or truncated {} stream at compressed byte {} (decompressed byte {}): {}",
            self.format.name(),
            self.compressed_offset,
            self.decompressed_offset,
            self.message
        )
    }
}

impl std::error::Error for DecompressError {}

/// Read the first bytes of `rdr` to recognise its format, and give back a
/// reader that still yields every byte (the prefix is replayed, never
/// rewound: `rdr` may be a pipe).
///
/// # Errors
///
/// The I/O error of the first reads.
pub fn sniff(mut rdr: Box<dyn Read + Send>) -> io::Result<(Compression, Box<dyn Read + Send>)> {
    let mut prefix = [0u8; MAGIC_LEN];
    let mut n = 0;
    while n < prefix.len() {
        match rdr.read(&mut prefix[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let format = Compression::detect(&prefix[..n]);
    let replay = io::Cursor::new(prefix[..n].to_vec()).chain(rdr);
    Ok((format, Box::new(replay)))
}

/// Counts the compressed bytes the decoder has pulled from the source.
struct Counted<R> {
    inner: R,
    count: u64,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

type Raw = BufReader<Counted<Box<dyn Read + Send>>>;

/// Compressed bytes actually consumed: pulled from the source minus what
/// still waits in the read-ahead buffer.
fn consumed(raw: &Raw) -> u64 {
    raw.get_ref().count - raw.buffer().len() as u64
}

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
        let (chunk_tx, chunks) = sync_channel(QUEUE_DEPTH);
        let (recycle, recycled) = sync_channel(QUEUE_DEPTH + 2);
        for _ in 0..QUEUE_DEPTH + 2 {
            recycle.send(vec![0u8; CHUNK_SIZE]).expect("fresh channel has room");
        }
        // Not joined on drop: it may be blocked reading a pipe; it returns on
        // its next send or receive once our ends of the channels are gone.
        std::thread::Builder::new()
            .name(format!("swath-{}", format.name()))
            .spawn(move || decode(format, raw, chunk_tx, recycled))
            .expect("spawn decoder thread");
        Decoded { chunks, recycle, current: Vec::new(), pos: 0, done: false, failed: None }
    }
}

/// The decoder thread: fill recycled chunks and send them, in order.
fn decode(
    format: Compression,
    raw: Box<dyn Read + Send>,
    out: SyncSender<io::Result<Vec<u8>>>,
    recycled: Receiver<Vec<u8>>,
) {
    let raw: Raw = BufReader::with_capacity(256 * 1024, Counted { inner: raw, count: 0 });
    let mut produced = 0u64;
    let fail = |msg: String, compressed: u64, produced: u64| {
        let err = DecompressError {
            format,
            compressed_offset: compressed,
            decompressed_offset: produced,
            message: msg,
        };
        io::Error::new(io::ErrorKind::InvalidData, err)
    };
    enum Dec {
        Gzip(Box<flate2::bufread::MultiGzDecoder<Raw>>),
        Zstd(zstd::stream::read::Decoder<'static, Raw>),
    }
    let mut dec = match format {
        Compression::Gzip => Dec::Gzip(Box::new(flate2::bufread::MultiGzDecoder::new(raw))),
        _ => match zstd::stream::read::Decoder::with_buffer(raw) {
            Ok(d) => Dec::Zstd(d),
            Err(e) => {
                let _ = out.send(Err(fail(e.to_string(), 0, 0)));
                return;
            }
        },
    };
    loop {
        // Blocks while the reader holds every chunk: the queue is bounded.
        let Ok(mut chunk) = recycled.recv() else { return };
        chunk.resize(CHUNK_SIZE, 0);
        let mut filled = 0;
        let mut result = Ok(());
        while filled < chunk.len() {
            let r = match &mut dec {
                Dec::Gzip(d) => d.read(&mut chunk[filled..]),
                Dec::Zstd(d) => d.read(&mut chunk[filled..]),
            };
            match r {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        produced += filled as u64;
        let at_end = filled < chunk.len();
        chunk.truncate(filled);
        if filled > 0 && out.send(Ok(chunk)).is_err() {
            return; // the reader is gone
        }
        if let Err(e) = result {
            let compressed = match &dec {
                Dec::Gzip(d) => consumed(d.get_ref()),
                Dec::Zstd(d) => consumed(d.get_ref()),
            };
            let _ = out.send(Err(fail(e.to_string(), compressed, produced)));
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

//! Compressed input, recognised by magic bytes (never by file name): gzip,
//! zstd, bzip2, xz, LZ4 frames, and a zip archive's member ([`zip`]). A
//! stream is decoded on a thread of its own ([`Decoded`]); a file whose
//! structure cuts it into spans (BGZF, zstd frames, bzip2 blocks, xz
//! blocks: [`spans`]) on every core ([`SpanDecoded`]). Either way the reader gets the bytes in
//! order, and memory stays flat.
//!
//! A corrupt or truncated stream is an error that names both offsets, the
//! compressed byte where decoding stopped and the decompressed byte reached;
//! never a short count.

use std::fmt;
use std::io::{self, Read};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::index::FileIdentity;
use crate::read_at::ReadAt;

pub mod bzip2_blocks;
mod decoder;
pub mod gzip_index;
pub mod index_on_read;
mod inflate;
mod lz4;
mod spanned;
pub mod spans;
mod thread;
pub mod xz_blocks;
pub mod zip;

pub use spanned::SpanDecoded;
pub use spans::{find_spans, find_spans_of, Rebuilt, Span};
pub use thread::{Decoded, CHUNK_SIZE, QUEUE_DEPTH};

/// Threads that decode the spans of a compressed file (0: every core).
static DECODE_THREADS: AtomicUsize = AtomicUsize::new(0);

/// The zip member to read (`--member NAME`), when one is named.
static ZIP_MEMBER: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Read the member `name` of zip archives (the CLI's `--member NAME`);
/// `None`: an archive must hold one file.
pub fn set_zip_member(name: Option<String>) {
    *ZIP_MEMBER.lock().unwrap_or_else(|e| e.into_inner()) = name;
}

fn zip_member() -> Option<String> {
    ZIP_MEMBER.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Decode the spans of compressed files on `n` threads (0: every core, the
/// default); a command's `--threads` sets it. 1 decodes every file on one
/// thread, front to back.
pub fn set_decode_threads(n: usize) {
    DECODE_THREADS.store(n, Ordering::Relaxed);
}

/// The threads that decode a compressed file's spans.
pub fn decode_threads() -> usize {
    match DECODE_THREADS.load(Ordering::Relaxed) {
        0 => crate::parallel::available_cores(),
        n => n,
    }
}

/// The decoded size of a span: [`spans::SPAN_DECODED`], or the hidden
/// `SWATH_SPAN_BYTES`, with which the CLI's tests cut small files into
/// many spans.
pub(crate) fn span_target() -> u64 {
    std::env::var("SWATH_SPAN_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n: &u64| n > 0)
        .unwrap_or(spans::SPAN_DECODED)
}

/// Decode a compressed file (`src`, `len` bytes, in `format`): on every
/// core ([`decode_threads`]) when its structure cuts it into spans, or a
/// gzip file when `gzip_index` (its checkpoints, from its sidecar) does,
/// else on one thread of its own (a large gzip file at `index_to` is
/// indexed on the way: [`index_on_read`]). With the reader, how it is
/// decoded, in words
/// (`-v` says it).
///
/// # Errors
///
/// An I/O error reading its headers.
///
/// # Panics
///
/// Panics if swath does not decode `format` ([`Compression::is_decoded`]).
pub fn decode_file(
    format: Compression,
    src: Arc<dyn ReadAt>,
    len: u64,
    gzip_index: Option<gzip_index::GzipIndex>,
    index_to: Option<&std::path::Path>,
) -> io::Result<(Box<dyn Read + Send>, String)> {
    if format == Compression::Zip {
        let members = zip::members(&*src, len)?;
        let m = zip::choose(&members, zip_member().as_deref())?;
        let start = zip::data_start(&*src, &m)?;
        let end = start.saturating_add(m.compressed_size);
        let raw = Box::new(crate::range::OwnedRange::new(src, start, end));
        let dec = Decoded::spawn_decoder(format, decoder::Decoder::zip_member(&m, raw, start));
        let how = format!("member {:?} decoded on one thread", m.name);
        return Ok((Box::new(dec), how));
    }
    let threads = decode_threads();
    if threads > 1 {
        let spans = find_spans_of(&*src, len, format, span_target())?;
        if spans.len() > 1 {
            let how =
                format!("{} spans decoded on {} threads", spans.len(), threads.min(spans.len()));
            return Ok((Box::new(SpanDecoded::spawn(format, src, len, spans, threads)), how));
        }
        if let Some(index) = gzip_index.filter(|i| !i.checkpoints.is_empty()) {
            let spans = spans::gzip_index_spans(&Arc::new(index), len);
            let how = format!(
                "{} spans from its index decoded on {} threads",
                spans.len(),
                threads.min(spans.len())
            );
            return Ok((Box::new(SpanDecoded::spawn(format, src, len, spans, threads)), how));
        }
    }
    let how = if threads > 1 {
        "decoded on one thread: its structure gives one span"
    } else {
        "decoded on one thread"
    };
    let raw = crate::range::OwnedRange::new(src, 0, len);
    let large = index_on_read::index_on_read_min().is_some_and(|min| len >= min);
    if let (Compression::Gzip, true, true, Some(path)) = (format, threads > 1, large, index_to) {
        if let Ok(identity) = std::fs::File::open(path).and_then(|f| FileIdentity::of(&f)) {
            let indexing = index_on_read::IndexOnRead::new(raw, path, identity);
            let dec = decoder::Decoder::decoding(Box::new(indexing));
            let how = format!(
                "{how}, indexed on the way ({} written at its end)",
                crate::index::default_index_path(path).display()
            );
            return Ok((Box::new(Decoded::spawn_decoder(format, Ok(dec))), how));
        }
    }
    Ok((Box::new(Decoded::spawn(format, Box::new(raw))), how.to_string()))
}

/// How many first bytes [`Compression::detect`] looks at: enough for
/// every magic number it knows (bzip2's block magic ends at byte 10).
pub const MAGIC_LEN: usize = 16;

/// A compression format, recognised by its magic bytes, so that no command
/// ever reads compressed bytes as data. swath decodes them all
/// ([`Compression::is_decoded`]); a zip archive only from a file (its
/// directory is at its end).
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
    /// bzip2 streams, several in a row (`pbzip2`, `lbzip2`).
    Bzip2,
    /// xz streams, several in a row.
    Xz,
    /// A zip archive: one member is read ([`set_zip_member`]).
    Zip,
    /// LZ4 frames (`lz4`), several in a row, and the legacy format
    /// (`lz4 -l`).
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

    /// Whether swath decodes this format (every one but [`Compression::None`]:
    /// a zip archive only from a file).
    pub fn is_decoded(self) -> bool {
        !matches!(self, Compression::None)
    }

    /// The error for an input in this format that swath cannot read as
    /// it comes: a zip archive from a stream (its directory is at its end).
    pub fn unsupported(self) -> io::Error {
        let how = match self {
            Compression::Zip => {
                "a zip archive is read from a file, not a stream (its directory is at its end); \
                 save it first, or `unzip -p FILE | swath ... -`"
            }
            _ => "swath cannot read it here; decompress it first",
        };
        io::Error::new(io::ErrorKind::Unsupported, format!("{} input: {how}", self.name()))
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

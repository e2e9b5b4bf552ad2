//! One decoder over any reader of compressed bytes (gzip members, zstd
//! frames, bzip2 and xz streams, LZ4 frames, one zip member), which knows
//! how many compressed bytes it has consumed: the one decoding loop of the
//! single decoding thread ([`super::Decoded`]) and of every span worker
//! ([`super::SpanDecoded`]).

use std::io::{self, BufReader, Read};

use super::{Compression, DecompressError};

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

/// Read-ahead of compressed bytes.
const RAW_BUFFER: usize = 256 * 1024;

/// A decoder of every member, frame or stream in turn (skippable frames
/// skipped), or of one zip member's data.
pub(super) struct Decoder {
    format: Format,
    /// The compressed offset of the first byte read (a zip member's data).
    base: u64,
    /// A zip member's CRC-32 and size, checked at its end.
    check: Option<super::zip::Check>,
}

enum Format {
    Gzip(Box<flate2::bufread::MultiGzDecoder<Raw>>),
    Zstd(zstd::stream::read::Decoder<'static, Raw>),
    Bzip2(Box<bzip2::bufread::MultiBzDecoder<Raw>>),
    Xz(Box<liblzma::bufread::XzDecoder<Raw>>),
    Lz4(Box<lz4_flex::frame::FrameDecoder<Raw>>),
    /// A zip member's raw deflate data.
    Deflate(Box<flate2::bufread::DeflateDecoder<Raw>>),
    /// A zip member stored as it is.
    Stored(Raw),
    /// Bytes already decoded by a reader of their own (a span of an
    /// indexed gzip file).
    Decoding(Box<dyn Read + Send>),
}

/// `raw` behind the read-ahead, its bytes counted.
fn counted(raw: Box<dyn Read + Send>) -> Raw {
    BufReader::with_capacity(RAW_BUFFER, Counted { inner: raw, count: 0 })
}

impl Format {
    /// The decoder of every member, frame or stream of `format` in `raw`.
    fn of(format: Compression, raw: Raw) -> io::Result<Format> {
        Ok(match format {
            Compression::Gzip => Format::Gzip(Box::new(flate2::bufread::MultiGzDecoder::new(raw))),
            Compression::Zstd => Format::Zstd(zstd::stream::read::Decoder::with_buffer(raw)?),
            Compression::Bzip2 => Format::Bzip2(Box::new(bzip2::bufread::MultiBzDecoder::new(raw))),
            Compression::Xz => {
                Format::Xz(Box::new(liblzma::bufread::XzDecoder::new_multi_decoder(raw)))
            }
            Compression::Lz4 => Format::Lz4(Box::new(lz4_flex::frame::FrameDecoder::new(raw))),
            other => return Err(other.unsupported()),
        })
    }
}

impl Decoder {
    /// A decoder of `raw`, which holds `format` from its first byte.
    ///
    /// # Errors
    ///
    /// zstd's failure to make a decoding context; a zip archive (its
    /// members are decoded through [`Decoder::zip_member`]).
    pub(super) fn new(format: Compression, raw: Box<dyn Read + Send>) -> io::Result<Decoder> {
        // lz4_flex ends quietly inside a frame: follow the framing below it.
        let raw: Box<dyn Read + Send> = match format {
            Compression::Lz4 => Box::new(super::lz4::Framed::new(raw)),
            _ => raw,
        };
        Ok(Decoder { format: Format::of(format, counted(raw))?, base: 0, check: None })
    }

    /// A decoder of one zip member's data (`raw`, from compressed byte
    /// `base` of the archive), checked against the member's CRC-32 and size.
    ///
    /// # Errors
    ///
    /// zstd's failure to make a decoding context; a method swath does not
    /// decode.
    pub(super) fn zip_member(
        m: &super::zip::Member,
        raw: Box<dyn Read + Send>,
        base: u64,
    ) -> io::Result<Decoder> {
        let raw = counted(raw);
        let format = match m.method {
            0 => Format::Stored(raw),
            8 => Format::Deflate(Box::new(flate2::bufread::DeflateDecoder::new(raw))),
            12 => Format::of(Compression::Bzip2, raw)?,
            93 => Format::of(Compression::Zstd, raw)?,
            95 => Format::of(Compression::Xz, raw)?,
            _ => return Err(Compression::Zip.unsupported()),
        };
        Ok(Decoder { format, base, check: Some(super::zip::Check::new(m)) })
    }

    /// A decoder that passes on what `decoding` decodes.
    pub(super) fn decoding(decoding: Box<dyn Read + Send>) -> Decoder {
        Decoder { format: Format::Decoding(decoding), base: 0, check: None }
    }

    /// Compressed bytes consumed so far (from the start of the input; 0
    /// for a reader of its own, which says its offsets in its errors).
    pub(super) fn consumed(&self) -> u64 {
        self.base
            + match &self.format {
                Format::Gzip(d) => consumed(d.get_ref()),
                Format::Zstd(d) => consumed(d.get_ref()),
                Format::Bzip2(d) => consumed(d.get_ref()),
                Format::Xz(d) => consumed(d.get_ref()),
                Format::Lz4(d) => consumed(d.get_ref()),
                Format::Deflate(d) => consumed(d.get_ref()),
                Format::Stored(d) => consumed(d),
                Format::Decoding(_) => 0,
            }
    }

    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = match &mut self.format {
            Format::Gzip(d) => d.read(buf),
            Format::Zstd(d) => d.read(buf),
            Format::Bzip2(d) => d.read(buf),
            Format::Xz(d) => d.read(buf),
            Format::Lz4(d) => d.read(buf),
            Format::Deflate(d) => d.read(buf),
            Format::Stored(d) => d.read(buf),
            Format::Decoding(d) => d.read(buf),
        }?;
        if let Some(check) = &mut self.check {
            check.update(&buf[..n])?;
        }
        Ok(n)
    }

    /// Fill `chunk` whole, or up to the end of the stream (then fewer bytes).
    ///
    /// # Errors
    ///
    /// The decoder's error, after the bytes decoded before it (the count of
    /// which is returned with it).
    pub(super) fn fill(&mut self, chunk: &mut [u8]) -> Result<usize, (usize, io::Error)> {
        let mut filled = 0;
        while filled < chunk.len() {
            match self.read(&mut chunk[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err((filled, e)),
            }
        }
        Ok(filled)
    }
}

/// The error for a stream of `format` that failed at these offsets.
pub(super) fn failure(
    format: Compression,
    message: String,
    compressed_offset: u64,
    decompressed_offset: u64,
) -> io::Error {
    let err = DecompressError { format, compressed_offset, decompressed_offset, message };
    io::Error::new(io::ErrorKind::InvalidData, err)
}

//! One decoder of gzip members or zstd frames over any reader of compressed
//! bytes, which knows how many compressed bytes it has consumed: the one
//! decoding loop of the single decoding thread ([`super::Decoded`]) and of
//! every span worker ([`super::SpanDecoded`]).

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

/// A gzip (every member, in turn) or zstd (every frame, skippable ones
/// skipped) decoder.
pub(super) struct Decoder(Format);

enum Format {
    Gzip(Box<flate2::bufread::MultiGzDecoder<Raw>>),
    Zstd(zstd::stream::read::Decoder<'static, Raw>),
}

impl Decoder {
    /// A decoder of `raw`, which holds `format` from its first byte.
    ///
    /// # Errors
    ///
    /// zstd's failure to make a decoding context.
    pub(super) fn new(format: Compression, raw: Box<dyn Read + Send>) -> io::Result<Decoder> {
        let raw: Raw = BufReader::with_capacity(RAW_BUFFER, Counted { inner: raw, count: 0 });
        Ok(Decoder(match format {
            Compression::Gzip => Format::Gzip(Box::new(flate2::bufread::MultiGzDecoder::new(raw))),
            Compression::Zstd => Format::Zstd(zstd::stream::read::Decoder::with_buffer(raw)?),
            other => return Err(other.unsupported()),
        }))
    }

    /// Compressed bytes consumed so far.
    pub(super) fn consumed(&self) -> u64 {
        match &self.0 {
            Format::Gzip(d) => consumed(d.get_ref()),
            Format::Zstd(d) => consumed(d.get_ref()),
        }
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
            let r = match &mut self.0 {
                Format::Gzip(d) => d.read(&mut chunk[filled..]),
                Format::Zstd(d) => d.read(&mut chunk[filled..]),
            };
            match r {
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

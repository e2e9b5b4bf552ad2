//! One block of output, compressed on its own so that it decodes on its
//! own: a gzip member that says its size, or a zstd frame that says its
//! content size.
//!
//! - gzip: a member whose header carries an `IG` extra field (4 bytes,
//!   the member's whole compressed size), the convention of Python's
//!   `mgzip` and `pgzip`. Every gzip reader reads the file as ordinary
//!   concatenated members; swath's span finder walks the members by that
//!   field without decoding them (`decompress::spans`), so the file is
//!   read back on every core.
//! - zstd: a frame with its content size and checksum; the frames are
//!   followed by a seek table in a skippable frame (the zstd seekable
//!   format: `contrib/seekable_format` in the zstd sources).

use std::io;

use flate2::{Compress, FlushCompress, Status};

/// The gzip member header's size: 10 bytes, XLEN, and the `IG` field.
const GZIP_HEADER: usize = 10 + 2 + 8;

/// Compresses blocks into gzip members with their size in an `IG` field.
pub struct GzipMembers {
    deflate: Compress,
    level: u32,
}

impl GzipMembers {
    /// At `level` (0-9; 6 is gzip's default).
    pub fn new(level: u32) -> GzipMembers {
        GzipMembers { deflate: Compress::new(flate2::Compression::new(level), false), level }
    }

    /// Append `input` as one gzip member to `out`.
    ///
    /// # Errors
    ///
    /// A member over 4 GiB (the `IG` field's limit; blocks are far smaller)
    /// or a deflate error.
    pub fn member(&mut self, input: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
        let start = out.len();
        // XFL: 2 for the slowest level, 4 for the fastest (RFC 1952); OS
        // 255, unknown.
        let xfl = match self.level {
            9 => 2,
            0 | 1 => 4,
            _ => 0,
        };
        out.extend_from_slice(&[0x1f, 0x8b, 8, 4, 0, 0, 0, 0, xfl, 255]);
        out.extend_from_slice(&8u16.to_le_bytes());
        out.extend_from_slice(b"IG");
        out.extend_from_slice(&4u16.to_le_bytes());
        out.extend_from_slice(&[0; 4]); // the size, filled in below
        self.deflate.reset();
        // zlib's deflateBound: a little more than the input, for stored
        // blocks' headers.
        out.reserve(input.len() + input.len() / 1000 + 64);
        let before_in = self.deflate.total_in();
        loop {
            let done = usize::try_from(self.deflate.total_in() - before_in).unwrap_or(usize::MAX);
            let status = self
                .deflate
                .compress_vec(&input[done..], out, FlushCompress::Finish)
                .map_err(io::Error::other)?;
            if status == Status::StreamEnd {
                break;
            }
            out.reserve(out.capacity().max(4096));
        }
        let mut crc = crc32fast::Hasher::new();
        crc.update(input);
        out.extend_from_slice(&crc.finalize().to_le_bytes());
        // ISIZE: the input's length modulo 2^32, as RFC 1952 defines it.
        out.extend_from_slice(&(input.len() as u32).to_le_bytes());
        let size = u32::try_from(out.len() - start).map_err(|_| {
            io::Error::other("a gzip member over 4 GiB: its size does not fit its IG field")
        })?;
        out[start + GZIP_HEADER - 4..start + GZIP_HEADER].copy_from_slice(&size.to_le_bytes());
        Ok(())
    }
}

/// Compresses blocks into zstd frames that say their content size.
pub struct ZstdFrames {
    compressor: zstd::bulk::Compressor<'static>,
}

impl ZstdFrames {
    /// At `level` (zstd's; 3 is its default).
    ///
    /// # Errors
    ///
    /// A level zstd refuses.
    pub fn new(level: i32) -> io::Result<ZstdFrames> {
        use zstd::zstd_safe::CParameter;
        let mut compressor = zstd::bulk::Compressor::new(level)?;
        compressor.set_parameter(CParameter::ContentSizeFlag(true))?;
        compressor.set_parameter(CParameter::ChecksumFlag(true))?;
        Ok(ZstdFrames { compressor })
    }

    /// Append `input` as one frame to `out`.
    ///
    /// # Errors
    ///
    /// A zstd error.
    pub fn frame(&mut self, input: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
        let bound = zstd::zstd_safe::compress_bound(input.len());
        if out.is_empty() {
            // A Vec is written from its start (its length is set to the
            // frame's), so only an empty one is compressed into directly.
            out.reserve(bound);
            self.compressor.compress_to_buffer(input, out)?;
        } else {
            let mut frame = Vec::with_capacity(bound);
            self.compressor.compress_to_buffer(input, &mut frame)?;
            out.extend_from_slice(&frame);
        }
        Ok(())
    }
}

/// The zstd seekable format's seek table: a skippable frame listing each
/// frame's compressed and decoded size (without checksums: each frame
/// carries its own).
///
/// # Errors
///
/// A frame over 4 GiB (blocks are far smaller).
pub fn zstd_seek_table(frames: &[(u64, u64)]) -> io::Result<Vec<u8>> {
    let too_big = || io::Error::other("a zstd frame over 4 GiB does not fit the seek table");
    let entries = frames.len() * 8;
    let count = u32::try_from(frames.len()).map_err(|_| too_big())?;
    let mut out = Vec::with_capacity(8 + entries + 9);
    out.extend_from_slice(&0x184D_2A5Eu32.to_le_bytes());
    out.extend_from_slice(&u32::try_from(entries + 9).map_err(|_| too_big())?.to_le_bytes());
    for &(compressed, decoded) in frames {
        out.extend_from_slice(&u32::try_from(compressed).map_err(|_| too_big())?.to_le_bytes());
        out.extend_from_slice(&u32::try_from(decoded).map_err(|_| too_big())?.to_le_bytes());
    }
    out.extend_from_slice(&count.to_le_bytes());
    out.push(0); // the descriptor: no checksums in the table
    out.extend_from_slice(&0x8F92_EAB1u32.to_le_bytes());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn text(n: usize) -> Vec<u8> {
        (0..n).map(|i| b"abcdefghij,0123\n"[i % 16] ^ ((i / 997) as u8 & 1)).collect()
    }

    #[test]
    fn gzip_members_decode_as_concatenated_gzip_and_say_their_size() {
        let mut out = Vec::new();
        let mut members = GzipMembers::new(6);
        let blocks = [text(100_000), Vec::new(), text(3)];
        let mut ends = Vec::new();
        for block in &blocks {
            members.member(block, &mut out).unwrap();
            ends.push(out.len());
        }
        let mut decoded = Vec::new();
        flate2::read::MultiGzDecoder::new(&out[..]).read_to_end(&mut decoded).unwrap();
        assert_eq!(decoded, blocks.concat());
        let mut start = 0;
        for end in ends {
            let size = u32::from_le_bytes(out[start + 16..start + 20].try_into().unwrap());
            assert_eq!(&out[start + 12..start + 14], b"IG");
            assert_eq!(size as usize, end - start);
            start = end;
        }
    }

    #[test]
    fn zstd_frames_and_their_seek_table_decode_as_the_input() {
        let mut out = Vec::new();
        let mut frames = ZstdFrames::new(3).unwrap();
        let blocks = [text(70_000), text(5)];
        let mut sizes = Vec::new();
        for block in &blocks {
            let before = out.len();
            frames.frame(block, &mut out).unwrap();
            sizes.push(((out.len() - before) as u64, block.len() as u64));
        }
        let table = zstd_seek_table(&sizes).unwrap();
        assert_eq!(table.len(), 8 + 2 * 8 + 9);
        out.extend_from_slice(&table);
        let decoded = zstd::stream::decode_all(&out[..]).unwrap();
        assert_eq!(decoded, blocks.concat());
    }
}

//! bzip2 blocks as spans. A bzip2 stream is a 4-byte header (`BZh1`..
//! `BZh9`), blocks that each decode on their own, each starting with the
//! 48-bit magic 0x314159265359 and its 32-bit CRC at any bit offset, and
//! an end: the 48-bit magic 0x177245385090 and the stream's CRC, padded to
//! a byte. Streams may follow one another (`pbzip2`).
//!
//! [`find_runs`] finds every magic by searching the bytes at each of the 8
//! bit shifts, then checks that they make exactly a sequence of streams:
//! each header where the previous stream ended, its first block right
//! after it, each stream's CRC the combination of its blocks' CRCs, and
//! nothing after the last stream. A magic found by chance inside a block
//! breaks the CRC combination, and then the file is decoded front to back.
//! Runs of blocks are decoded apart by [`synthesize`]: a one-stream bzip2
//! file holding the run's bits, its end, and their combined CRC.

use std::io;
use std::ops::Range;

use crate::read_at::{read_full_at, ReadAt};

const BLOCK_MAGIC: u64 = 0x3141_5926_5359;
const END_MAGIC: u64 = 0x1772_4538_5090;

/// Blocks that follow one another in one stream, decoded as one span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockRun {
    /// Their bits: from the first block's magic to where the last block
    /// ends (the next block's magic, or the stream's end magic).
    pub bits: Range<u64>,
    /// Their blocks' CRCs, combined as a stream's CRC combines them.
    pub crc: u32,
}

/// A magic found in the file, with the CRC that follows it.
#[derive(Clone, Copy, Debug)]
struct Hit {
    bit: u64,
    end: bool,
    crc: u32,
}

/// The file is searched in pieces of this many bytes (memory stays flat),
/// each read with [`OVERLAP`] more, so a magic and its CRC (80 bits) that
/// start in a piece are read whole from it.
const PIECE: usize = 8 << 20;
const OVERLAP: usize = 16;

/// Read bits `[at, at + n)` (n <= 57) as a big-endian number.
fn bits_at(data: &[u8], at: u64, n: u32) -> Option<u64> {
    let first = usize::try_from(at / 8).ok()?;
    let shift = (at % 8) as u32;
    let bytes = (shift + n).div_ceil(8) as usize;
    let slice = data.get(first..first + bytes)?;
    let mut v = 0u64;
    for &b in slice {
        v = (v << 8) | u64::from(b);
    }
    let total = bytes as u32 * 8;
    Some((v >> (total - shift - n)) & ((1u64 << n) - 1))
}

/// Every place of `magic` (48 bits) that starts in `data[..starts]`, at
/// any bit offset, with the 32 bits after it; `base` is `data`'s offset.
fn find_magic(data: &[u8], starts: usize, base: u64, magic: u64, end: bool, out: &mut Vec<Hit>) {
    for shift in 0..8u64 {
        // The magic at this bit shift: the bytes it fills whole, searched
        // with memmem, then the partial bytes on either side checked.
        let word = magic << (16 - shift); // magic's top bit at bit `shift` of 64
        let bytes = word.to_be_bytes();
        let whole = if shift == 0 { &bytes[0..6] } else { &bytes[1..6] };
        let lead = usize::from(shift != 0);
        for pos in memchr::memmem::find_iter(data, whole) {
            let Some(start) = pos.checked_sub(lead) else { continue };
            if start >= starts {
                break;
            }
            let bit = start as u64 * 8 + shift;
            if bits_at(data, bit, 48) == Some(magic) {
                if let Some(crc) = bits_at(data, bit + 48, 32) {
                    out.push(Hit { bit: base * 8 + bit, end, crc: crc as u32 });
                }
            }
        }
    }
}

/// Runs of blocks of about `target` compressed bytes, or `None` when the
/// file is not exactly a sequence of well-formed streams whose CRCs agree
/// (then it is decoded front to back, which says what is wrong). The file
/// is read once, in pieces: bzip2 decodes at some 30 MB/s a core, so
/// searching it first costs little beside.
///
/// # Errors
///
/// An I/O error reading the file.
pub fn find_runs(src: &dyn ReadAt, len: u64, target: u64) -> io::Result<Option<Vec<BlockRun>>> {
    let mut hits = Vec::new();
    let mut piece = vec![0u8; PIECE + OVERLAP];
    let mut at = 0u64;
    while at < len {
        let n = read_full_at(src, &mut piece, at)?;
        let starts = n.min(PIECE);
        find_magic(&piece[..n], starts, at, BLOCK_MAGIC, false, &mut hits);
        find_magic(&piece[..n], starts, at, END_MAGIC, true, &mut hits);
        if n < PIECE {
            break;
        }
        at += PIECE as u64;
    }
    hits.sort_by_key(|h| h.bit);
    let target_bits = target.saturating_mul(8).max(1);
    let mut runs = Vec::new();
    let mut pos = 0u64; // bits
    let mut next = hits.iter().peekable();
    while pos < len * 8 {
        // A stream header, where the last stream ended.
        let mut head = [0u8; 4];
        let header = (read_full_at(src, &mut head, pos / 8)? == 4)
            .then(|| u64::from(u32::from_be_bytes(head)));
        let level_ok =
            header.is_some_and(|h| h >> 8 == 0x425a68 && (0x31..=0x39).contains(&(h & 0xff)));
        if !level_ok {
            return Ok(None);
        }
        pos += 32;
        let mut stream_crc = 0u32;
        let mut run: Option<BlockRun> = None;
        loop {
            let Some(hit) = next.next().copied() else { return Ok(None) };
            if hit.bit != pos {
                return Ok(None);
            }
            let crc = hit.crc;
            if hit.end {
                if crc != stream_crc {
                    return Ok(None);
                }
                runs.extend(run.take());
                pos = (pos + 80).div_ceil(8) * 8;
                break;
            }
            // A block: it ends where the next magic is.
            let Some(following) = next.peek() else { return Ok(None) };
            let end = following.bit;
            stream_crc = stream_crc.rotate_left(1) ^ crc;
            let r = run.get_or_insert(BlockRun { bits: pos..pos, crc: 0 });
            r.bits.end = end;
            r.crc = r.crc.rotate_left(1) ^ crc;
            if r.bits.end - r.bits.start >= target_bits {
                runs.extend(run.take());
            }
            pos = end;
        }
    }
    Ok(Some(runs))
}

/// Appends bits, most significant first, as bzip2 writes them.
struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl BitWriter {
    fn push(&mut self, v: u64, bits: u32) {
        debug_assert!(bits <= 32);
        self.acc = (self.acc << bits) | (v & ((1u64 << bits) - 1));
        self.n += bits;
        while self.n >= 8 {
            self.n -= 8;
            self.out.push((self.acc >> self.n) as u8);
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push((self.acc << (8 - self.n)) as u8);
        }
        self.out
    }
}

/// A one-stream bzip2 file that holds `run`'s blocks (read from `src`):
/// a header, their bits, the end magic and their combined CRC.
///
/// # Errors
///
/// An I/O error, or a file shorter than the run.
pub fn synthesize(src: &dyn ReadAt, run: &BlockRun) -> io::Result<Vec<u8>> {
    let first = run.bits.start / 8;
    let last = run.bits.end.div_ceil(8);
    let mut data = vec![0u8; usize::try_from(last - first).map_err(io::Error::other)?];
    if read_full_at(src, &mut data, first)? < data.len() {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "bzip2 input shrank"));
    }
    let mut w = BitWriter { out: Vec::with_capacity(data.len() + 16), acc: 0, n: 0 };
    w.push(0x425a_6839, 32); // "BZh9": any block fits the largest size
    let mut at = run.bits.start - first * 8;
    let end = run.bits.end - first * 8;
    // Up to the next byte boundary bit by bit, then whole bytes.
    while at < end && at % 8 != 0 {
        w.push(bits_at(&data, at, 1).unwrap_or(0), 1);
        at += 1;
    }
    while at + 8 <= end {
        w.push(u64::from(data[(at / 8) as usize]), 8);
        at += 8;
    }
    if at < end {
        let rest = (end - at) as u32;
        w.push(bits_at(&data, at, rest).unwrap_or(0), rest);
    }
    w.push(END_MAGIC >> 16, 32);
    w.push(END_MAGIC & 0xffff, 16);
    w.push(u64::from(run.crc), 32);
    Ok(w.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn bz(data: &[u8], level: u32) -> Vec<u8> {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(level));
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn text(n: u32, seed: u64) -> Vec<u8> {
        let mut x = seed;
        let mut out = Vec::new();
        for i in 0..n {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            writeln!(out, "{i},{},{}", x >> 40, (x >> 20) % 977).unwrap();
        }
        out
    }

    fn decode(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        bzip2::read::MultiBzDecoder::new(bytes).read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn runs_of_blocks_decode_apart_to_the_whole() {
        // Level 1: 100 kB blocks, so 1 MB of text is some 12 blocks; two
        // streams one after the other, as pbzip2 writes.
        let (a, b) = (text(60_000, 1), text(30_000, 2));
        let mut file = bz(&a, 1);
        file.extend(bz(&b, 1));
        let mut all = a.clone();
        all.extend_from_slice(&b);
        let runs = find_runs(&file.as_slice(), file.len() as u64, 100_000).unwrap().unwrap();
        assert!(runs.len() >= 4, "{runs:?}");
        let mut out = Vec::new();
        for run in &runs {
            out.extend(decode(&synthesize(&file.as_slice(), run).unwrap()));
        }
        assert!(out == all);
    }

    #[test]
    fn anything_but_whole_streams_is_left_to_front_to_back() {
        let file = bz(&text(60_000, 3), 1);
        let len = file.len() as u64;
        let runs = |f: &[u8]| find_runs(&f, f.len() as u64, 1).unwrap();
        assert!(runs(&file).is_some());
        assert!(runs(&file[..file.len() - 1]).is_none(), "cut short");
        let mut extra = file.clone();
        extra.extend_from_slice(b"junk");
        assert!(runs(&extra).is_none(), "text after the stream");
        // A block's CRC changed: the stream's CRC no longer agrees.
        let mut bad = file.clone();
        let first = find_runs(&file.as_slice(), len, 1).unwrap().unwrap()[1].bits.start;
        let crc_byte = ((first + 48) / 8) as usize + 1;
        bad[crc_byte] ^= 0x10;
        assert!(runs(&bad).is_none(), "a block CRC that does not combine");
    }
}

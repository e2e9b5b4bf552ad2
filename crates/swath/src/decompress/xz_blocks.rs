//! xz blocks as spans. An xz file is one or more streams, each a 12-byte
//! header, blocks that each decode on their own (`xz -T0` writes several),
//! an index of every block's sizes and a 12-byte footer that says where
//! the index starts; zero padding may follow a stream. [`find_runs`] reads
//! the streams from the end, footer and index only (their CRCs checked),
//! and [`XzRun::reader`] gives a run of blocks as a stream of its own: the
//! stream's header, the blocks' bytes as they are, a new index of just
//! those blocks and its footer. liblzma then checks each block against
//! that index and its own check (CRC-64 by default), so a crafted index
//! can only make an error, and an error makes the file be decoded front
//! to back.

use std::io::{self, Read};
use std::ops::Range;
use std::sync::Arc;

use crate::range::OwnedRange;
use crate::read_at::{read_full_at, ReadAt};

/// Blocks that follow one another in one stream, decoded as one span.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XzRun {
    /// The stream's header (its check type is in it).
    pub header: [u8; 12],
    /// The blocks' bytes.
    pub blocks: Range<u64>,
    /// Each block's unpadded and uncompressed size, from the index.
    pub records: Vec<(u64, u64)>,
}

impl XzRun {
    /// The decoded size of the run.
    pub fn decoded(&self) -> u64 {
        self.records.iter().map(|r| r.1).sum()
    }

    /// The run as an xz stream of its own, its blocks read from `src`.
    pub fn reader(&self, src: Arc<dyn ReadAt>) -> Box<dyn Read + Send> {
        let mut index = vec![0u8];
        push_vli(&mut index, self.records.len() as u64);
        for &(unpadded, uncompressed) in &self.records {
            push_vli(&mut index, unpadded);
            push_vli(&mut index, uncompressed);
        }
        while index.len() % 4 != 0 {
            index.push(0);
        }
        let crc = crc32(&index);
        index.extend_from_slice(&crc.to_le_bytes());
        let backward = u32::try_from(index.len() / 4 - 1).unwrap_or(u32::MAX);
        let mut footer_body = backward.to_le_bytes().to_vec();
        footer_body.extend_from_slice(&self.header[6..8]);
        let mut tail = index;
        tail.extend_from_slice(&crc32(&footer_body).to_le_bytes());
        tail.extend_from_slice(&footer_body);
        tail.extend_from_slice(b"YZ");
        let blocks = OwnedRange::new(src, self.blocks.start, self.blocks.end);
        Box::new(io::Cursor::new(self.header).chain(blocks).chain(io::Cursor::new(tail)))
    }
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut c = flate2::Crc::new();
    c.update(bytes);
    c.sum()
}

fn push_vli(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A variable-length integer at `*at` in `b`, moving `*at` past it.
fn vli(b: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for i in 0..9 {
        let byte = *b.get(*at)?;
        *at += 1;
        v |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// One stream found from the end: its header, where its blocks start, and
/// its index's records.
struct Stream {
    header: [u8; 12],
    blocks_at: u64,
    records: Vec<(u64, u64)>,
}

/// The stream that ends at `end` (its footer's last byte), or `None`.
fn stream_before(src: &dyn ReadAt, end: u64) -> io::Result<Option<(u64, Stream)>> {
    if end < 24 {
        return Ok(None);
    }
    let mut footer = [0u8; 12];
    if read_full_at(src, &mut footer, end - 12)? < 12 || &footer[10..12] != b"YZ" {
        return Ok(None);
    }
    if crc32(&footer[4..10]) != u32::from_le_bytes(footer[0..4].try_into().expect("4")) {
        return Ok(None);
    }
    let index_len = (u64::from(u32::from_le_bytes(footer[4..8].try_into().expect("4"))) + 1) * 4;
    let Some(index_at) = (end - 12).checked_sub(index_len) else { return Ok(None) };
    let Ok(n) = usize::try_from(index_len) else { return Ok(None) };
    if n > 64 << 20 {
        return Ok(None); // a crafted size: not worth reading
    }
    let mut index = vec![0u8; n];
    if read_full_at(src, &mut index, index_at)? < n || index[0] != 0 {
        return Ok(None);
    }
    let stored = u32::from_le_bytes(index[n - 4..].try_into().expect("4"));
    if crc32(&index[..n - 4]) != stored {
        return Ok(None);
    }
    let mut at = 1;
    let Some(count) = vli(&index, &mut at) else { return Ok(None) };
    let mut records = Vec::new();
    let mut blocks_len = 0u64;
    for _ in 0..count {
        let (Some(unpadded), Some(uncompressed)) = (vli(&index, &mut at), vli(&index, &mut at))
        else {
            return Ok(None);
        };
        records.push((unpadded, uncompressed));
        blocks_len = blocks_len.saturating_add(unpadded.div_ceil(4) * 4);
    }
    let Some(blocks_at) = index_at.checked_sub(blocks_len) else { return Ok(None) };
    let Some(start) = blocks_at.checked_sub(12) else { return Ok(None) };
    let mut header = [0u8; 12];
    if read_full_at(src, &mut header, start)? < 12
        || header[..6] != [0xfd, b'7', b'z', b'X', b'Z', 0]
        || header[6..8] != footer[8..10]
    {
        return Ok(None);
    }
    Ok(Some((start, Stream { header, blocks_at, records })))
}

/// Runs of blocks of about `target` decoded bytes, or `None` when the
/// streams cannot all be read from the end (then the file is decoded
/// front to back, which says what is wrong).
///
/// # Errors
///
/// An I/O error reading the file.
pub fn find_runs(src: &dyn ReadAt, len: u64, target: u64) -> io::Result<Option<Vec<XzRun>>> {
    let mut streams = Vec::new();
    let mut end = len;
    while end > 0 {
        // Stream padding: zero bytes, four at a time.
        let mut word = [0u8; 4];
        while end >= 4 && read_full_at(src, &mut word, end - 4)? == 4 && word == [0; 4] {
            end -= 4;
        }
        if end == 0 {
            break;
        }
        let Some((start, stream)) = stream_before(src, end)? else { return Ok(None) };
        streams.push(stream);
        end = start;
    }
    streams.reverse();
    let mut runs = Vec::new();
    for s in streams {
        let mut at = s.blocks_at;
        let mut run: Option<XzRun> = None;
        for rec in s.records {
            let r = run.get_or_insert_with(|| XzRun {
                header: s.header,
                blocks: at..at,
                records: Vec::new(),
            });
            at += rec.0.div_ceil(4) * 4;
            r.blocks.end = at;
            r.records.push(rec);
            if r.decoded() >= target {
                runs.extend(run.take());
            }
        }
        runs.extend(run);
    }
    Ok(Some(runs))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// xz in blocks of `block` input bytes, as `xz -T0` writes (a full
    /// flush ends a block).
    fn xz_blocks(data: &[u8], block: usize) -> Vec<u8> {
        let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
        for piece in data.chunks(block) {
            e.write_all(piece).unwrap();
            e.flush().unwrap();
        }
        e.finish().unwrap()
    }

    fn text(n: u32) -> Vec<u8> {
        let mut out = Vec::new();
        let mut x = 7u64;
        for i in 0..n {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            writeln!(out, "{i},{},{}", x >> 40, (x >> 20) % 977).unwrap();
        }
        out
    }

    fn decode(r: impl Read) -> Vec<u8> {
        let mut out = Vec::new();
        liblzma::read::XzDecoder::new_multi_decoder(r).read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn runs_of_blocks_decode_apart_to_the_whole() {
        let (a, b) = (text(50_000), text(20_000));
        let mut file = xz_blocks(&a, 100_000);
        file.extend_from_slice(&[0; 8]); // stream padding
        file.extend(xz_blocks(&b, 100_000));
        let mut all = a.clone();
        all.extend_from_slice(&b);
        let src: Arc<dyn ReadAt> = Arc::new(file.clone());
        let runs = find_runs(&*src, file.len() as u64, 300_000).unwrap().unwrap();
        assert!(runs.len() >= 3, "{runs:?}");
        let mut out = Vec::new();
        for run in &runs {
            let part = decode(run.reader(Arc::clone(&src)));
            assert_eq!(part.len() as u64, run.decoded());
            out.extend(part);
        }
        assert!(out == all);
    }

    #[test]
    fn a_file_that_cannot_be_read_from_its_end_is_left_to_front_to_back() {
        let file = xz_blocks(&text(50_000), 100_000);
        let runs = |f: &[u8]| find_runs(&f, f.len() as u64, 1).unwrap();
        assert!(runs(&file).is_some());
        assert!(runs(&file[..file.len() - 1]).is_none(), "cut short");
        let mut extra = file.clone();
        extra.extend_from_slice(b"junk");
        assert!(runs(&extra).is_none(), "text after the stream");
        let mut bad = file.clone();
        let at = bad.len() - 20; // inside the index
        bad[at] ^= 1;
        assert!(runs(&bad).is_none(), "an index whose CRC fails");
    }
}

//! Spans: a compressed file cut, without decoding it, into stretches that
//! decode on their own, found from the file's own structure:
//!
//! - gzip: BGZF (`bgzip`), whose every member says its size in a `BC`
//!   extra field, and members with an `IG` field (Python's `mgzip` and
//!   `pgzip`, and swath's own `-o FILE.gz`: [`crate::compress`]): the
//!   members are walked by their headers alone, one read each. A member
//!   without either field ends the walk.
//! - zstd: frames, walked by their block headers (3 bytes a block; a
//!   block says its compressed size), skippable frames (`pzstd`, the
//!   seekable format) stepped over. Anything that is not a frame ends
//!   the walk.
//! - bzip2: runs of blocks, found by their 48-bit magic at any bit offset
//!   and checked against the streams' CRCs ([`super::bzip2_blocks`]); a
//!   file whose blocks cannot all be accounted for is one span.
//! - xz: runs of blocks, from each stream's index, read from the end
//!   ([`super::xz_blocks`]); a file whose streams cannot all be read so
//!   is one span.
//!
//! The spans always tile the whole file: where the walk stops (a plain
//! gzip member, a truncated or corrupt header), the rest of the file is
//! one last span, decoded as it would be front to back, and a damaged file
//! fails there as it would front to back. A cut is never trusted: each
//! span is decoded by a decoder of whole members or frames, which fails
//! unless its span ends exactly where one ends. So a wrong cut (a crafted
//! size) can only make an error, never different bytes.

use std::io;
use std::ops::Range;
use std::sync::Arc;

use super::bzip2_blocks::{find_runs, BlockRun};
use super::gzip_index::GzipIndex;
use super::xz_blocks::XzRun;
use super::Compression;
use crate::read_at::{read_full_at, ReadAt};

/// Stop adding members or frames to a span once their decoded size
/// (when the structure tells it) reaches this.
pub const SPAN_DECODED: u64 = 4 * 1024 * 1024;

/// Stop adding members or frames of unknown decoded size to a span once
/// their compressed size reaches this (a quarter of [`SPAN_DECODED`]).
pub const SPAN_COMPRESSED: u64 = SPAN_DECODED / 4;

/// A stretch of a compressed file that decodes on its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// Its compressed bytes (for bzip2, the bytes that hold its bits).
    pub compressed: Range<u64>,
    /// Its decoded size, when the structure says it (BGZF sizes, zstd
    /// frame content sizes) for every member or frame in it.
    pub decoded: Option<u64>,
    /// Blocks taken out of their stream (bzip2 at bit offsets, xz by its
    /// index) and decoded as a stream of their own.
    pub rebuilt: Option<Rebuilt>,
}

/// Blocks decoded as a stream made for them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rebuilt {
    /// bzip2 blocks ([`super::bzip2_blocks::synthesize`]).
    Bzip2(BlockRun),
    /// xz blocks ([`XzRun::reader`]).
    Xz(XzRun),
    /// The stretch of a gzip file between two checkpoints of its index
    /// (span `k`: from checkpoint `k - 1`, or the top, to checkpoint `k`,
    /// or the end), decoded by [`super::gzip_index::Resumed`].
    Gzip {
        /// The file's checkpoints.
        index: Arc<GzipIndex>,
        /// Which span.
        k: usize,
    },
}

/// The spans of a gzip file from its index: one more than its
/// checkpoints.
pub fn gzip_index_spans(index: &Arc<GzipIndex>, len: u64) -> Vec<Span> {
    let bits = index.checkpoints.iter().map(|c| c.bit);
    let starts: Vec<u64> = std::iter::once(0).chain(bits.map(|b| b / 8)).collect();
    let outs: Vec<u64> = std::iter::once(0)
        .chain(index.checkpoints.iter().map(|c| c.out))
        .chain([index.decoded_len])
        .collect();
    (0..starts.len())
        .map(|k| Span {
            compressed: starts[k]..starts.get(k + 1).copied().unwrap_or(len),
            decoded: Some(outs[k + 1].saturating_sub(outs[k])),
            rebuilt: Some(Rebuilt::Gzip { index: Arc::clone(index), k }),
        })
        .collect()
}

/// One member or frame found by the walk.
struct Unit {
    end: u64,
    /// Its decoded size, when its header or trailer says it.
    decoded: Option<u64>,
}

/// Cut `src` (of `len` bytes, in `format`) into spans of about
/// [`SPAN_DECODED`] decoded bytes. One span (the whole file) when the
/// structure gives no cuts.
///
/// # Errors
///
/// An I/O error reading the headers.
pub fn find_spans(src: &dyn ReadAt, len: u64, format: Compression) -> io::Result<Vec<Span>> {
    find_spans_of(src, len, format, SPAN_DECODED)
}

/// As [`find_spans`], with spans of about `decoded` decoded bytes (and a
/// quarter of that compressed where sizes are unknown).
///
/// # Errors
///
/// An I/O error reading the headers.
pub fn find_spans_of(
    src: &dyn ReadAt,
    len: u64,
    format: Compression,
    decoded_target: u64,
) -> io::Result<Vec<Span>> {
    let compressed_target = (decoded_target / 4).max(1);
    if format == Compression::Bzip2 {
        return Ok(match find_runs(src, len, compressed_target)? {
            Some(runs) if !runs.is_empty() => runs
                .into_iter()
                .map(|run| Span {
                    compressed: run.bits.start / 8..run.bits.end.div_ceil(8),
                    decoded: None,
                    rebuilt: Some(Rebuilt::Bzip2(run)),
                })
                .collect(),
            _ => vec![Span { compressed: 0..len, decoded: None, rebuilt: None }],
        });
    }
    if format == Compression::Xz {
        return Ok(match super::xz_blocks::find_runs(src, len, decoded_target)? {
            Some(runs) if !runs.is_empty() => runs
                .into_iter()
                .map(|run| Span {
                    compressed: run.blocks.clone(),
                    decoded: Some(run.decoded()),
                    rebuilt: Some(Rebuilt::Xz(run)),
                })
                .collect(),
            _ => vec![Span { compressed: 0..len, decoded: None, rebuilt: None }],
        });
    }
    let mut spans = Vec::new();
    let mut start = 0u64;
    let mut at = 0u64;
    let mut decoded = Some(0u64);
    let close = |spans: &mut Vec<Span>, start: u64, end: u64, decoded: Option<u64>| {
        spans.push(Span { compressed: start..end, decoded, rebuilt: None });
    };
    while at < len {
        let unit = match format {
            Compression::Gzip => bgzf_member(src, at, len)?,
            Compression::Zstd => zstd_frame(src, at, len)?,
            _ => None,
        };
        let Some(unit) = unit else { break };
        at = unit.end;
        decoded = decoded.zip(unit.decoded).map(|(a, b)| a + b);
        let full = match decoded {
            Some(d) => d >= decoded_target,
            None => at - start >= compressed_target,
        };
        if full {
            close(&mut spans, start, at, decoded);
            start = at;
            decoded = Some(0);
        }
    }
    if start < len || spans.is_empty() {
        // The rest: what the walk did not reach is decoded front to back.
        let rest_known = at == len;
        close(&mut spans, start, len, if rest_known { decoded } else { None });
    }
    Ok(spans)
}

/// Read up to `buf.len()` bytes at `at`, fewer at the end of the file.
fn read_at(src: &dyn ReadAt, at: u64, len: u64, buf: &mut [u8]) -> io::Result<usize> {
    let want = buf.len().min(usize::try_from(len - at).unwrap_or(usize::MAX));
    read_full_at(src, &mut buf[..want], at)
}

/// The BGZF member at `at`: its end and decoded size, from its `BC` extra
/// field (BSIZE: its size less one) or an `IG` field (its size, 4 bytes)
/// and its ISIZE trailer. `None` when this is not one (a plain gzip
/// member, a truncated header).
fn bgzf_member(src: &dyn ReadAt, at: u64, len: u64) -> io::Result<Option<Unit>> {
    let mut head = [0u8; 64];
    let n = read_at(src, at, len, &mut head)?;
    let head = &head[..n];
    // ID1 ID2 CM=8 FLG with FEXTRA, then MTIME XFL OS XLEN.
    if n < 12 || head[..3] != [0x1f, 0x8b, 8] || head[3] & 4 == 0 {
        return Ok(None);
    }
    let xlen = usize::from(u16::from_le_bytes([head[10], head[11]]));
    let extra = &head[12..(12 + xlen).min(n)];
    let mut i = 0;
    let mut size = None;
    while i + 4 <= extra.len() {
        let slen = usize::from(u16::from_le_bytes([extra[i + 2], extra[i + 3]]));
        if extra[i..i + 2] == *b"BC" && slen == 2 && i + 6 <= extra.len() {
            size = Some(u64::from(u16::from_le_bytes([extra[i + 4], extra[i + 5]])) + 1);
        }
        if extra[i..i + 2] == *b"IG" && slen == 4 && i + 8 <= extra.len() {
            let field = [extra[i + 4], extra[i + 5], extra[i + 6], extra[i + 7]];
            size = Some(u64::from(u32::from_le_bytes(field)));
        }
        i += 4 + slen;
    }
    let Some(size) = size else { return Ok(None) };
    // The header (12 + XLEN), the deflate data and the 8-byte trailer.
    if size < 12 + xlen as u64 + 8 || at + size > len {
        return Ok(None);
    }
    let mut isize = [0u8; 4];
    if read_full_at(src, &mut isize, at + size - 4)? < 4 {
        return Ok(None);
    }
    let decoded = u64::from(u32::from_le_bytes(isize));
    Ok(Some(Unit { end: at + size, decoded: Some(decoded) }))
}

/// The zstd frame (or skippable frame) at `at`: its end, walked by its
/// block headers, and its content size when its header says it. `None`
/// when this is not one, or its blocks run past the file's end.
fn zstd_frame(src: &dyn ReadAt, at: u64, len: u64) -> io::Result<Option<Unit>> {
    let mut head = [0u8; 18];
    let n = read_at(src, at, len, &mut head)?;
    if n < 8 {
        return Ok(None);
    }
    let magic = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
    if magic & 0xffff_fff0 == 0x184d_2a50 {
        let size = u64::from(u32::from_le_bytes([head[4], head[5], head[6], head[7]]));
        let end = at + 8 + size;
        return Ok((end <= len).then_some(Unit { end, decoded: Some(0) }));
    }
    if magic != 0xfd2f_b528 {
        return Ok(None);
    }
    let fhd = head[4];
    let fcs_flag = fhd >> 6;
    let single_segment = fhd & 0x20 != 0;
    let checksum = fhd & 0x04 != 0;
    let dict_len = [0usize, 1, 2, 4][usize::from(fhd & 3)];
    let fcs_len = match (fcs_flag, single_segment) {
        (0, false) => 0,
        (0, true) => 1,
        (1, _) => 2,
        (2, _) => 4,
        _ => 8,
    };
    let fcs_at = 5 + usize::from(!single_segment) + dict_len;
    let header = fcs_at + fcs_len;
    if n < header {
        return Ok(None);
    }
    let decoded = match fcs_len {
        0 => None,
        _ => {
            let mut v = [0u8; 8];
            v[..fcs_len].copy_from_slice(&head[fcs_at..header]);
            let v = u64::from_le_bytes(v);
            Some(if fcs_len == 2 { v + 256 } else { v })
        }
    };
    let mut block = at + header as u64;
    loop {
        let mut bh = [0u8; 3];
        if read_at(src, block, len, &mut bh)? < 3 {
            return Ok(None);
        }
        let h = u32::from_le_bytes([bh[0], bh[1], bh[2], 0]);
        let last = h & 1 != 0;
        let size = u64::from(h >> 3);
        block += 3 + match (h >> 1) & 3 {
            0 | 2 => size, // raw, compressed: the bytes follow
            1 => 1,        // RLE: one byte, repeated
            _ => return Ok(None),
        };
        if last {
            let end = block + if checksum { 4 } else { 0 };
            return Ok((end <= len).then_some(Unit { end, decoded }));
        }
        if block >= len {
            return Ok(None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip_member(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// A BGZF block as bgzip writes it: a gzip member with a `BC` field.
    fn bgzf_block(data: &[u8]) -> Vec<u8> {
        let mut deflated =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        deflated.write_all(data).unwrap();
        let deflated = deflated.finish().unwrap();
        let mut out = vec![0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, b'B', b'C', 2, 0];
        let bsize = (out.len() + 2 + deflated.len() + 8 - 1) as u16;
        out.extend_from_slice(&bsize.to_le_bytes());
        out.extend_from_slice(&deflated);
        let mut crc = flate2::Crc::new();
        crc.update(data);
        out.extend_from_slice(&crc.sum().to_le_bytes());
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out
    }

    /// Lines of letters that compress about 2:1 (a xorshift's choices).
    fn text(n: usize, seed: u8) -> Vec<u8> {
        let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ u64::from(seed);
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if i % 61 == 60 {
                    b'\n'
                } else {
                    b'a' + (x % 26) as u8
                }
            })
            .collect()
    }

    #[test]
    fn bgzf_blocks_are_grouped_into_spans_that_tile_the_file() {
        let mut file = Vec::new();
        let mut ends = Vec::new();
        for i in 0..200 {
            file.extend(bgzf_block(&text(60_000, i)));
            ends.push(file.len() as u64);
        }
        file.extend(bgzf_block(b"")); // bgzip's end-of-file block
        let len = file.len() as u64;
        let spans = find_spans(&file.as_slice(), len, Compression::Gzip).unwrap();
        assert!(spans.len() > 1, "{spans:?}");
        assert_eq!(spans[0].compressed.start, 0);
        assert_eq!(spans.last().unwrap().compressed.end, len);
        for w in spans.windows(2) {
            assert_eq!(w[0].compressed.end, w[1].compressed.start);
            assert!(ends.contains(&w[0].compressed.end), "a cut at a block's end");
        }
        let decoded: u64 = spans.iter().map(|s| s.decoded.unwrap()).sum();
        assert_eq!(decoded, 200 * 60_000);
    }

    #[test]
    fn members_with_an_ig_size_field_are_walked_like_bgzf() {
        use crate::compress::blocks::GzipMembers;
        let mut file = Vec::new();
        let mut ends = Vec::new();
        let mut members = GzipMembers::new(1);
        for i in 0..12 {
            members.member(&text(1 << 20, i), &mut file).unwrap();
            ends.push(file.len() as u64);
        }
        let len = file.len() as u64;
        let spans = find_spans(&file.as_slice(), len, Compression::Gzip).unwrap();
        assert_eq!(spans.len(), 3, "{spans:?}");
        for w in spans.windows(2) {
            assert_eq!(w[0].compressed.end, w[1].compressed.start);
            assert!(ends.contains(&w[0].compressed.end), "a cut at a member's end");
        }
        assert_eq!(spans.last().unwrap().compressed.end, len);
        let decoded: u64 = spans.iter().map(|s| s.decoded.unwrap()).sum();
        assert_eq!(decoded, 12 << 20);
    }

    #[test]
    fn a_plain_gzip_member_ends_the_walk_and_the_rest_is_one_span() {
        // 70 blocks of 60,000 bytes reach SPAN_DECODED: the first span.
        let mut file = Vec::new();
        let mut first = 0;
        for i in 0..80 {
            file.extend(bgzf_block(&text(60_000, i)));
            if i == 69 {
                first = file.len() as u64;
            }
        }
        file.extend(gzip_member(&text(100_000, 3)));
        file.extend(bgzf_block(&text(1000, 4)));
        let len = file.len() as u64;
        let spans = find_spans(&file.as_slice(), len, Compression::Gzip).unwrap();
        assert_eq!(spans.len(), 2, "{spans:?}");
        assert_eq!(
            spans[0],
            Span { compressed: 0..first, decoded: Some(70 * 60_000), rebuilt: None }
        );
        assert_eq!(spans[1], Span { compressed: first..len, decoded: None, rebuilt: None });
        // A plain gzip file: one span, the whole of it.
        let plain = gzip_member(&text(100_000, 5));
        let spans = find_spans(&plain.as_slice(), plain.len() as u64, Compression::Gzip).unwrap();
        assert_eq!(
            spans,
            [Span { compressed: 0..plain.len() as u64, decoded: None, rebuilt: None }]
        );
    }

    #[test]
    fn zstd_frames_and_skippable_frames_are_walked_by_their_headers() {
        let mut file = Vec::new();
        let mut ends = Vec::new();
        for i in 0..12 {
            // A skippable frame (as pzstd writes) before every other frame.
            if i % 2 == 0 {
                file.extend_from_slice(&0x184d_2a50u32.to_le_bytes());
                file.extend_from_slice(&4u32.to_le_bytes());
                file.extend_from_slice(&[1, 2, 3, 4]);
            }
            // bulk::compress writes the content size in the frame header.
            file.extend(zstd::bulk::compress(&text(1024 * 1024, i), 3).unwrap());
            ends.push(file.len() as u64);
        }
        let len = file.len() as u64;
        let spans = find_spans(&file.as_slice(), len, Compression::Zstd).unwrap();
        assert_eq!(spans.len(), 3, "{spans:?}");
        for s in &spans[..2] {
            assert_eq!(s.decoded, Some(4 * 1024 * 1024));
            assert!(ends.contains(&s.compressed.end));
        }
        assert_eq!(spans[2].compressed.end, len);
        // A frame cut short: the walk stops, and the rest is one span.
        let cut = &file[..file.len() - 10];
        let spans = find_spans(&cut, cut.len() as u64, Compression::Zstd).unwrap();
        assert_eq!(spans.last().unwrap().decoded, None);
        assert_eq!(spans.last().unwrap().compressed.end, cut.len() as u64);
        // Frames that do not say their size (a stream's) are grouped by
        // their compressed size.
        let mut file = Vec::new();
        for i in 0..40 {
            file.extend(zstd::encode_all(&text(200_000, i)[..], 1).unwrap());
        }
        let spans = find_spans(&file.as_slice(), file.len() as u64, Compression::Zstd).unwrap();
        assert!(spans.len() > 1, "{spans:?}");
        assert!(spans.iter().all(|s| s.decoded.is_none()));
        assert!(spans[..spans.len() - 1]
            .iter()
            .all(|s| s.compressed.end - s.compressed.start >= SPAN_COMPRESSED));
    }
}

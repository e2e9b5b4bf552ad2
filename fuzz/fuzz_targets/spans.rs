//! Spans decoded on 1-3 threads against decoding front to back, on files
//! made of the input: BGZF members or gzip members with an `IG` size field
//! (swath's own compressed output), zstd frames (with skippable frames),
//! bzip2 streams or xz blocks of a few bytes each, then damaged (a byte
//! flipped, a cut, a byte added) or not. Both must give the same bytes,
//! or both fail: a span never decodes to other bytes than the file does.
//!
//! `cargo fuzz run spans` (from `fuzz/`). The first byte chooses the
//! format and the piece size, the next three the damage (its top bit: `IG`
//! members rather than BGZF), the span size and the threads; the rest is
//! the text compressed.

#![no_main]

use std::io::{Read, Write};
use std::sync::Arc;

use swath::decompress::{find_spans_of, SpanDecoded};
use swath::{Compression, ReadAt};

libfuzzer_sys::fuzz_target!(|data: &[u8]| check(data));

fn bgzf_block(piece: &[u8], out: &mut Vec<u8>) {
    let mut d = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
    d.write_all(piece).unwrap();
    let d = d.finish().unwrap();
    let header = [0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, b'B', b'C', 2, 0];
    let bsize = u16::try_from(header.len() + 2 + d.len() + 8 - 1).unwrap();
    out.extend_from_slice(&header);
    out.extend_from_slice(&bsize.to_le_bytes());
    out.extend_from_slice(&d);
    let mut crc = flate2::Crc::new();
    crc.update(piece);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&(piece.len() as u32).to_le_bytes());
}

/// `text` compressed in pieces of `piece` bytes, each its own member,
/// frame, stream or block.
fn compress(format: Compression, text: &[u8], piece: usize, ig: bool) -> Vec<u8> {
    let mut out = Vec::new();
    match format {
        Compression::Gzip if ig => {
            let mut members = swath::compress::blocks::GzipMembers::new(1);
            for p in text.chunks(piece) {
                members.member(p, &mut out).unwrap();
            }
        }
        Compression::Gzip => {
            for p in text.chunks(piece) {
                bgzf_block(p, &mut out);
            }
            bgzf_block(b"", &mut out);
        }
        Compression::Zstd => {
            for (i, p) in text.chunks(piece).enumerate() {
                if i % 3 == 1 {
                    out.extend_from_slice(&0x184d_2a50u32.to_le_bytes());
                    out.extend_from_slice(&2u32.to_le_bytes());
                    out.extend_from_slice(b"sk");
                }
                out.extend(zstd::bulk::compress(p, 1).unwrap());
            }
        }
        Compression::Bzip2 => {
            for p in text.chunks(piece) {
                let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(1));
                e.write_all(p).unwrap();
                out.extend(e.finish().unwrap());
            }
        }
        _ => {
            let mut e = liblzma::write::XzEncoder::new(Vec::new(), 0);
            for p in text.chunks(piece) {
                e.write_all(p).unwrap();
                e.flush().unwrap(); // ends the block
            }
            out.extend(e.finish().unwrap());
        }
    }
    out
}

fn front_to_back(format: Compression, file: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    match format {
        Compression::Gzip => flate2::read::MultiGzDecoder::new(file).read_to_end(&mut out)?,
        Compression::Zstd => zstd::stream::read::Decoder::new(file)?.read_to_end(&mut out)?,
        Compression::Bzip2 => bzip2::read::MultiBzDecoder::new(file).read_to_end(&mut out)?,
        _ => liblzma::read::XzDecoder::new_multi_decoder(file).read_to_end(&mut out)?,
    };
    Ok(out)
}

fn check(data: &[u8]) {
    let [ctl, damage, at, knobs, text @ ..] = data else { return };
    let formats = [Compression::Gzip, Compression::Zstd, Compression::Bzip2, Compression::Xz];
    let format = formats[usize::from(ctl % 4)];
    let piece = 1 + usize::from(ctl / 4) * 8;
    let mut file = compress(format, text, piece, damage & 0x80 != 0);
    if file.is_empty() {
        return;
    }
    let at = usize::from(*at) * file.len() / 256;
    match damage % 4 {
        1 => file[at] ^= 1 << (damage / 4 % 8),
        2 => file.truncate(at.max(1)),
        3 => file.push(*knobs),
        _ => {}
    }
    let front = front_to_back(format, &file);
    let len = file.len() as u64;
    let src: Arc<dyn ReadAt> = Arc::new(file);
    let target = 1 + u64::from(knobs / 4) * 4;
    let threads = 1 + usize::from(knobs % 3);
    let Ok(spans) = find_spans_of(&*src, len, format, target) else { return };
    let mut out = Vec::new();
    let spanned =
        SpanDecoded::spawn(format, src, len, spans, threads).read_to_end(&mut out).map(|_| out);
    match (&front, &spanned) {
        (Ok(a), Ok(b)) => assert!(a == b, "{format:?}: the spans' bytes differ from the file's"),
        (Err(_), Err(_)) => {}
        _ => panic!("{format:?}: front to back {front:?}, by spans {spanned:?}"),
    }
}

//! Compressed files decoded by spans on several threads give the bytes of
//! decoding them front to back, or the error of doing so: BGZF, zstd
//! frames, bzip2 blocks and xz blocks, at 1 to 4 threads; a corrupt span, a truncated file, a crafted
//! size in a header, and a reader that leaves early.

use std::io::{Read, Write};
use std::sync::Arc;

use swath::decompress::{find_spans, DecompressError, SpanDecoded};
use swath::{Compression, ReadAt};

/// Lines of varied text, about 3:1 under deflate.
fn text(lines: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut x = 0x9e37_79b9_u64;
    for i in 0..lines {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        writeln!(out, "{i},user{},\"{} items\",{}", x >> 50, (x >> 20) % 1000, x % 97).unwrap();
    }
    out
}

/// A BGZF file as bgzip writes it: members of at most 64 KiB input, each
/// with its size in a `BC` extra field, and the empty end-of-file block.
fn bgzf(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for piece in data.chunks(65_280).chain([&b""[..]]) {
        let mut deflated =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        deflated.write_all(piece).unwrap();
        let deflated = deflated.finish().unwrap();
        let header = [0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, b'B', b'C', 2, 0];
        let bsize = u16::try_from(header.len() + 2 + deflated.len() + 8 - 1).unwrap();
        out.extend_from_slice(&header);
        out.extend_from_slice(&bsize.to_le_bytes());
        out.extend_from_slice(&deflated);
        let mut crc = flate2::Crc::new();
        crc.update(piece);
        out.extend_from_slice(&crc.sum().to_le_bytes());
        out.extend_from_slice(&u32::try_from(piece.len()).unwrap().to_le_bytes());
    }
    out
}

/// zstd frames of 1 MiB input each, with their content size and a
/// checksum, a skippable frame before every third.
fn zstd_frames(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for (i, piece) in data.chunks(1 << 20).enumerate() {
        if i % 3 == 0 {
            out.extend_from_slice(&0x184d_2a50u32.to_le_bytes());
            out.extend_from_slice(&4u32.to_le_bytes());
            out.extend_from_slice(&[0; 4]);
        }
        let mut c = zstd::bulk::Compressor::new(1).unwrap();
        c.include_checksum(true).unwrap();
        out.extend(c.compress(piece).unwrap());
    }
    out
}

/// Decode `file` by its spans on `threads` threads.
fn decode(file: &[u8], format: Compression, threads: usize) -> std::io::Result<Vec<u8>> {
    let src: Arc<dyn ReadAt> = Arc::new(file.to_vec());
    let spans = find_spans(&*src, file.len() as u64, format)?;
    let mut out = Vec::new();
    SpanDecoded::spawn(format, src, file.len() as u64, spans, threads).read_to_end(&mut out)?;
    Ok(out)
}

/// Decode `file` front to back, on the calling thread.
fn front_to_back(file: &[u8], format: Compression) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    match format {
        Compression::Gzip => flate2::read::MultiGzDecoder::new(file).read_to_end(&mut out)?,
        Compression::Bzip2 => bzip2::read::MultiBzDecoder::new(file).read_to_end(&mut out)?,
        Compression::Xz => {
            liblzma::read::XzDecoder::new_multi_decoder(file).read_to_end(&mut out)?
        }
        _ => zstd::stream::read::Decoder::new(file)?.read_to_end(&mut out)?,
    };
    Ok(out)
}

fn decompress_error(e: &std::io::Error) -> &DecompressError {
    e.get_ref().and_then(|e| e.downcast_ref()).unwrap_or_else(|| panic!("not decoding: {e}"))
}

/// bzip2 at level 1 (100 kB blocks), in two streams as pbzip2 writes.
fn bzip2_streams(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for half in [&data[..data.len() / 2], &data[data.len() / 2..]] {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(1));
        e.write_all(half).unwrap();
        out.extend(e.finish().unwrap());
    }
    out
}

/// xz in blocks of 1 MiB input (a full flush ends a block), as `xz -T0`
/// writes, in two streams with stream padding between.
fn xz_blocks(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for half in [&data[..data.len() / 2], &data[data.len() / 2..]] {
        let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
        for piece in half.chunks(1 << 20) {
            e.write_all(piece).unwrap();
            e.flush().unwrap();
        }
        out.extend(e.finish().unwrap());
        out.extend_from_slice(&[0; 4]);
    }
    out
}

fn formats() -> [(Compression, Vec<u8>, Vec<u8>); 4] {
    let data = text(400_000); // about 13 MiB: several spans
    [
        (Compression::Gzip, bgzf(&data), data.clone()),
        (Compression::Zstd, zstd_frames(&data), data.clone()),
        (Compression::Bzip2, bzip2_streams(&data), data.clone()),
        (Compression::Xz, xz_blocks(&data), data),
    ]
}

#[test]
fn spans_decode_to_the_bytes_of_front_to_back_at_every_thread_count() {
    for (format, file, data) in formats() {
        let spans = find_spans(&file.as_slice(), file.len() as u64, format).unwrap();
        assert!(spans.len() >= 3, "{format:?}: {} spans", spans.len());
        assert_eq!(front_to_back(&file, format).unwrap(), data);
        for threads in 1..=4 {
            let out = decode(&file, format, threads).unwrap();
            assert!(out == data, "{format:?} at {threads} threads");
        }
    }
}

#[test]
fn a_corrupt_span_fails_as_front_to_back_does_and_a_truncated_file_never_ends_quietly() {
    for (format, file, _) in formats() {
        let spans = find_spans(&file.as_slice(), file.len() as u64, format).unwrap();
        // Corrupt the middle of the second span's compressed bytes.
        let mid = &spans[1].compressed;
        let at = usize::try_from(mid.start + (mid.end - mid.start) / 2).unwrap();
        let mut bad = file.clone();
        for b in &mut bad[at..at + 64] {
            *b ^= 0x5a;
        }
        assert!(front_to_back(&bad, format).is_err(), "{format:?}: the damage is seen");
        for threads in [2, 3] {
            let err = decode(&bad, format, threads).unwrap_err();
            let dec = decompress_error(&err);
            assert!(dec.compressed_offset >= mid.start, "{format:?}: {err}");
            assert!(dec.compressed_offset <= at as u64 + 64 + 300_000, "{format:?}: {err}");
            let before = spans[0].decoded.unwrap_or(0);
            assert!(dec.decompressed_offset >= before, "{format:?}: {err}");
        }
        // Cut inside the second span, or 3 bytes before the end.
        for cut in [at, file.len() - 3] {
            let short = &file[..cut];
            for threads in [2, 4] {
                let err = decode(short, format, threads).unwrap_err();
                let dec = decompress_error(&err);
                assert!(dec.compressed_offset <= cut as u64, "{format:?}: {err}");
            }
        }
    }
}

#[test]
fn a_crafted_size_in_a_bgzf_header_changes_nothing_front_to_back_decodes() {
    let data = text(400_000);
    let mut file = bgzf(&data);
    let spans = find_spans(&file.as_slice(), file.len() as u64, Compression::Gzip).unwrap();
    // The member that ends the first span says it is 40 bytes longer: the
    // cut lands inside the next member. Decoders ignore the field.
    let members: Vec<usize> = {
        let mut at = 0;
        let mut starts = Vec::new();
        while at < file.len() {
            starts.push(at);
            at += usize::from(u16::from_le_bytes([file[at + 16], file[at + 17]])) + 1;
        }
        starts
    };
    let end = usize::try_from(spans[0].compressed.end).unwrap();
    let last = *members.iter().rev().find(|&&m| m < end).unwrap();
    let bsize = u16::from_le_bytes([file[last + 16], file[last + 17]]) + 40;
    file[last + 16..last + 18].copy_from_slice(&bsize.to_le_bytes());
    assert_eq!(front_to_back(&file, Compression::Gzip).unwrap(), data);
    for threads in 2..=3 {
        let out = decode(&file, Compression::Gzip, threads).unwrap();
        assert!(out == data, "at {threads} threads");
    }
}

#[test]
fn a_reader_that_leaves_early_stops_the_workers() {
    for (format, file, data) in formats() {
        let src: Arc<dyn ReadAt> = Arc::new(file.clone());
        let spans = find_spans(&*src, file.len() as u64, format).unwrap();
        let mut rdr = SpanDecoded::spawn(format, src, file.len() as u64, spans, 3);
        let mut head = vec![0u8; 100_000];
        rdr.read_exact(&mut head).unwrap();
        assert_eq!(head, data[..100_000]);
        drop(rdr); // must not hang: the test would time out
    }
}

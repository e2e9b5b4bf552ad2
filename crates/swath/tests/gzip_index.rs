//! The gzip index: checkpoints made during a full read let any stretch
//! of an ordinary gzip file be decoded on its own, and the file on every
//! core, with the bytes of decoding it front to back. A crafted or stale
//! checkpoint can only make a span fail (decoded again front to back),
//! never different bytes.

use std::io::{Read, Write};
use std::sync::Arc;

use swath::decompress::gzip_index::{GzipIndex, Indexer, Resumed, Window};
use swath::decompress::spans::gzip_index_spans;
use swath::decompress::SpanDecoded;
use swath::Compression;

/// Lines of varied text, with repeats deflate refers back to.
fn text(lines: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut x = 0x9e37_79b9_u64;
    let agents = ["curl/8.5.0", "Mozilla/5.0 (X11; Linux x86_64)", "python-requests/2.31"];
    for i in 0..lines {
        x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        let agent = agents[(x >> 60) as usize % agents.len()];
        writeln!(
            out,
            "{i},10.0.{}.{},GET /api/v1/items/{},\"{agent}\",{}",
            x >> 56,
            (x >> 40) % 256,
            (x >> 20) % 5000,
            x % 997
        )
        .unwrap();
    }
    out
}

fn gzip(data: &[u8], level: u32) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// Decoded front to back, every member, as `gzip -d`.
fn gunzip(file: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(file).read_to_end(&mut out).unwrap();
    out
}

fn make_index(file: &[u8], spacing: u64) -> (Vec<u8>, GzipIndex) {
    let mut indexer = Indexer::new(file, spacing);
    let mut out = Vec::new();
    indexer.read_to_end(&mut out).unwrap();
    (out, indexer.finish().expect("read to the end"))
}

fn src(file: &[u8]) -> Arc<dyn swath::ReadAt> {
    Arc::new(file.to_vec())
}

/// Every span alone, then all of them on 1 to 4 threads.
fn check_spans(file: &[u8], index: &GzipIndex, want: &[u8]) {
    let len = file.len() as u64;
    let bounds: Vec<u64> = std::iter::once(0)
        .chain(index.checkpoints.iter().map(|c| c.out))
        .chain([want.len() as u64])
        .collect();
    for k in 0..=index.checkpoints.len() {
        let mut out = Vec::new();
        Resumed::new(src(file), len, index, k).unwrap().read_to_end(&mut out).unwrap();
        let span = &want[bounds[k] as usize..bounds[k + 1] as usize];
        assert!(out == span, "span {k} of {}", index.checkpoints.len() + 1);
    }
    let index = Arc::new(index.clone());
    for threads in 1..=4 {
        let spans = gzip_index_spans(&index, len);
        let mut out = Vec::new();
        SpanDecoded::spawn(Compression::Gzip, src(file), len, spans, threads)
            .read_to_end(&mut out)
            .unwrap();
        assert!(out == want, "{threads} threads");
    }
}

#[test]
fn checkpoints_decode_their_spans_at_every_level() {
    let data = text(60_000);
    for level in [0, 2, 6, 9, 1] {
        let file = gzip(&data, level);
        let (out, index) = make_index(&file, 200_000);
        assert!(out == data, "level {level}: the indexer reads as gzip -d");
        assert_eq!(index.decoded_len, data.len() as u64);
        // zlib-rs's level 1 (zlib-ng's deflate_quick) writes blocks of
        // megabytes, and a checkpoint can only be at a block's end.
        let least = if level == 1 { 1 } else { 5 };
        assert!(index.checkpoints.len() >= least, "level {level}: {}", index.checkpoints.len());
        assert!(index.checkpoints.iter().any(|c| c.bit % 8 != 0) || level == 0);
        check_spans(&file, &index, &data);
    }
}

#[test]
fn checkpoints_in_several_members_and_spans_across_them() {
    let data = text(50_000);
    let (a, b) = data.split_at(data.len() / 3);
    let mut file = gzip(a, 6);
    file.extend(gzip(b, 1));
    // An empty member between them, as some writers leave.
    let (x, y) = (gzip(b"", 6), file.split_off(gzip(a, 6).len()));
    file.extend(x);
    file.extend(y);
    let want = gunzip(&file);
    assert_eq!(want, data);
    for spacing in [100_000, 333_333, 1 << 30] {
        let (out, index) = make_index(&file, spacing);
        assert!(out == want);
        check_spans(&file, &index, &want);
    }
}

#[test]
fn a_file_of_full_flushes_and_a_tiny_spacing() {
    // Python's zlib with Z_FULL_FLUSH, and a checkpoint at every block.
    let data = text(8_000);
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    for piece in data.chunks(10_000) {
        enc.write_all(piece).unwrap();
        enc.flush().unwrap();
    }
    let file = enc.finish().unwrap();
    let (out, index) = make_index(&file, 1);
    assert!(out == data);
    assert!(index.checkpoints.len() > 20);
    check_spans(&file, &index, &data);
}

/// A checkpoint changed in one way: the span ending there must fail its
/// check, the spans on threads must still give the true bytes.
fn crafted(file: &[u8], index: &GzipIndex, want: &[u8], k: usize, change: impl Fn(&mut GzipIndex)) {
    let mut bad = index.clone();
    change(&mut bad);
    let len = file.len() as u64;
    let mut out = Vec::new();
    let alone = Resumed::new(src(file), len, &bad, k).and_then(|mut r| r.read_to_end(&mut out));
    assert!(alone.is_err(), "span {k} must fail its check");
    let bad = Arc::new(bad);
    for threads in [1, 2, 3] {
        let spans = gzip_index_spans(&bad, len);
        let mut out = Vec::new();
        let read = SpanDecoded::spawn(Compression::Gzip, src(file), len, spans, threads)
            .read_to_end(&mut out);
        assert!(read.is_ok() && out == want, "{threads} threads, crafted checkpoint {k}");
    }
}

#[test]
fn a_crafted_checkpoint_makes_a_failed_span_never_other_bytes() {
    let data = text(40_000);
    let file = gzip(&data, 6);
    let (_, index) = make_index(&file, 150_000);
    assert!(index.checkpoints.len() >= 4);
    let k = 2;
    crafted(&file, &index, &data, k, |i| i.checkpoints[k].bit += 1);
    crafted(&file, &index, &data, k, |i| i.checkpoints[k].out += 1);
    crafted(&file, &index, &data, k, |i| i.checkpoints[k].crc ^= 1);
    crafted(&file, &index, &data, k, |i| i.checkpoints[k].member_out -= 1);
    crafted(&file, &index, &data, k, |i| {
        let mut w = i.checkpoints[k].window.inflate().unwrap();
        w[100] ^= 0x20;
        let mut enc = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(&w).unwrap();
        i.checkpoints[k].window = Window::from_deflated(&enc.finish().unwrap());
    });
    // The checkpoints of another file of the same size.
    let mut other = data.clone();
    other[..2].copy_from_slice(b"X,");
    let other = gzip(&other, 6);
    let (_, foreign) = make_index(&other, 150_000);
    crafted(&file, &index, &data, 0, |i| i.checkpoints[0] = foreign.checkpoints[0].clone());
}

#[test]
fn a_cut_or_damaged_file_is_an_error_never_a_short_read() {
    let data = text(30_000);
    let file = gzip(&data, 6);
    let (_, index) = make_index(&file, 100_000);
    let index = Arc::new(index);
    let cut = &file[..file.len() - 1000];
    let mut damaged = file.clone();
    let middle = damaged.len() / 2;
    damaged[middle..middle + 64].fill(0xff);
    for bad in [cut, &damaged[..]] {
        let mut out = Vec::new();
        assert!(Indexer::new(bad, 100_000).read_to_end(&mut out).is_err());
        for threads in [1, 2, 4] {
            let spans = gzip_index_spans(&index, bad.len() as u64);
            let mut out = Vec::new();
            let read =
                SpanDecoded::spawn(Compression::Gzip, src(bad), bad.len() as u64, spans, threads)
                    .read_to_end(&mut out);
            assert!(read.is_err(), "{threads} threads: {} bytes read", out.len());
        }
    }
}

//! The gzip index, imported and used: the input's text is gzipped (full
//! flushes every few hundred bytes, so blocks end often), indexed with a
//! small spacing, written as a sidecar and read back, then the sidecar's
//! text is damaged (a byte changed, a line dropped) or a checkpoint
//! changed (bit, offsets, CRC, a window byte), and the file decoded by the
//! spans of what reads back, on 1-3 threads. It must give the bytes of
//! decoding the file front to back, whatever the index says; a sidecar
//! that does not read is refused, never a panic.
//!
//! `cargo fuzz run gzip_index` (from `fuzz/`). The first byte chooses the
//! damage, the second the flush size and the threads; the rest is the text.

#![no_main]

use std::io::{Read, Write};
use std::sync::Arc;

use swath::decompress::gzip_index::Indexer;
use swath::decompress::spans::gzip_index_spans;
use swath::decompress::SpanDecoded;
use swath::index::format::{read_index, write_index};
use swath::index::{FileIdentity, Index, IndexKind};
use swath::Compression;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check(data));

fn check(data: &[u8]) {
    let [damage, shape, text @ ..] = data else { return };
    let flush = 64 + usize::from(shape & 0x3f) * 16;
    let threads = 1 + usize::from(shape >> 6) % 3;
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    for piece in text.chunks(flush) {
        enc.write_all(piece).unwrap();
        enc.flush().unwrap();
    }
    let file = enc.finish().unwrap();
    let mut indexer = Indexer::new(&file[..], 1);
    let mut want = Vec::new();
    indexer.read_to_end(&mut want).unwrap();
    assert_eq!(want, text);
    let gzip = indexer.finish().unwrap();

    let identity = FileIdentity {
        len: file.len() as u64,
        mtime_sec: 0,
        mtime_nsec: 0,
        ctime_sec: 0,
        ctime_nsec: 0,
        inode: 0,
        hash: 0,
    };
    let index = Index {
        kind: IndexKind::Lines,
        identity,
        dialect: String::new(),
        records: 1,
        checkpoints: vec![swath::index::Checkpoint { byte: 0, record: 1, line: 1 }],
        gzip: Some(gzip),
    };
    let mut sidecar = Vec::new();
    write_index(&index, &mut sidecar).unwrap();
    let back = read_index(&sidecar[..]).unwrap();
    assert_eq!(back, index);

    // Damage the sidecar's text or one checkpoint.
    let mut gzip = back.gzip.unwrap();
    let n = gzip.checkpoints.len();
    let k = usize::from(*damage >> 3) % n.max(1);
    match (damage & 7, gzip.checkpoints.get_mut(k)) {
        (1, Some(c)) => c.bit ^= 1 << (damage >> 5),
        (2, Some(c)) => c.out = c.out.wrapping_add(u64::from(damage >> 3) + 1),
        (3, Some(c)) => c.crc ^= 1 << (damage >> 3),
        (4, Some(c)) => c.member_out = c.member_out.wrapping_sub(1),
        (5, Some(c)) => {
            let mut w = c.window.inflate().unwrap();
            if let Some(b) = w.last_mut() {
                *b ^= damage | 1;
            }
            let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(&w).unwrap();
            c.window = swath::decompress::gzip_index::Window::from_deflated(&e.finish().unwrap());
        }
        (6, _) => {
            // A byte of the sidecar's text changed: it reads or is refused.
            let mut text = sidecar.clone();
            let at = usize::from(*damage) * 7 % text.len();
            text[at] = text[at].wrapping_add(1);
            match read_index(&text[..]) {
                Ok(i) => gzip = i.gzip.unwrap_or_default(),
                Err(_) => return,
            }
        }
        (7, _) if n > 1 => {
            gzip.checkpoints.remove(k);
        }
        _ => {}
    }
    if gzip.checkpoints.is_empty() {
        return;
    }
    let len = file.len() as u64;
    let spans = gzip_index_spans(&Arc::new(gzip), len);
    let src: Arc<dyn swath::ReadAt> = Arc::new(file);
    let mut got = Vec::new();
    SpanDecoded::spawn(Compression::Gzip, src, len, spans, threads).read_to_end(&mut got).unwrap();
    assert!(got == want, "the spans gave other bytes than the file holds");
}

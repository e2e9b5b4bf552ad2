//! The text decoders against `encoding_rs` decoding the whole input at
//! once: any bytes, any of the encodings swath cuts, read by the
//! streaming reader (`DecodeReader`, fed and drained in pieces of the
//! input's choosing) and by the pieces decoded on 1-3 threads
//! (`TextSpans`, pieces of 1 to 64 bytes). Strict, both must give the
//! whole-input text when it has no malformed sequence, and otherwise fail
//! at the first malformed sequence's byte; lossy, both must give the
//! text with U+FFFD where encoding_rs puts one.
//!
//! `cargo fuzz run text_decode` (from `fuzz/`). The first byte chooses the
//! encoding and lossy or strict, the next three the feed, the room and
//! the piece size with the threads; the rest is the text.

#![no_main]

use std::io::{self, Read};
use std::sync::Arc;

use swath::text::{DecodeError, DecodeReader, TextDecoder, TextEncoding, TextOf, TextSpans};
use swath::ReadAt;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check(data));

const ENCODINGS: [&encoding_rs::Encoding; 8] = [
    encoding_rs::WINDOWS_1252,
    encoding_rs::UTF_8,
    encoding_rs::UTF_16LE,
    encoding_rs::UTF_16BE,
    encoding_rs::GB18030,
    encoding_rs::SHIFT_JIS,
    encoding_rs::EUC_KR,
    encoding_rs::BIG5,
];

/// All of `r`, read `room` bytes at a time.
fn drain(mut r: impl Read, room: usize) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; room];
    loop {
        match r.read(&mut buf)? {
            0 => return Ok(out),
            n => out.extend_from_slice(&buf[..n]),
        }
    }
}

/// The first malformed sequence's byte, by encoding_rs all at once.
fn first_malformed(e: &'static encoding_rs::Encoding, text: &[u8]) -> Option<u64> {
    let mut dec = e.new_decoder_without_bom_handling();
    let mut out = vec![0u8; text.len() * 3 + 16];
    let (r, read, _) = dec.decode_to_utf8_without_replacement(text, &mut out, true);
    match r {
        encoding_rs::DecoderResult::Malformed(bad, after) => {
            Some((read - after as usize - bad as usize) as u64)
        }
        _ => None,
    }
}

fn check(data: &[u8]) {
    let [choice, feed, room, piece, text @ ..] = data else { return };
    let e = ENCODINGS[(*choice as usize) % ENCODINGS.len()];
    let lossy = choice & 0x80 != 0;
    let encoding =
        if e == encoding_rs::UTF_8 { TextEncoding::Utf8 } else { TextEncoding::Whatwg(e) };
    let feed = (*feed as usize % 64) + 1;
    let room = (*room as usize % 64) + 1;
    let threads = (*piece as usize % 3) + 1;
    let piece = (*piece as u64 / 3 % 64) + 1;
    let (whole, _) = e.decode_without_bom_handling(text);
    let bad = first_malformed(e, text);

    let dec = TextDecoder::without_bom(encoding);
    let streamed = drain(
        DecodeReader::new(swath_testkit::Chunked::new(text, feed), dec, 0, lossy, None),
        room,
    );
    let src: Arc<dyn ReadAt> = Arc::new(text.to_vec());
    let of = TextOf { encoding, lossy, name: None };
    let spans =
        TextSpans::spawn(src, text.len() as u64, 0, of, piece, threads).map(|s| drain(s, room));
    for (how, got) in [("streamed", Some(streamed)), ("pieces", spans)] {
        let Some(got) = got else { continue };
        match (lossy, bad, got) {
            (true, _, Ok(bytes)) | (false, None, Ok(bytes)) => {
                assert_eq!(String::from_utf8(bytes).unwrap(), whole, "{how} {}", e.name());
            }
            (false, Some(at), Err(err)) => {
                let d = err.get_ref().and_then(|x| x.downcast_ref::<DecodeError>());
                let d = d.unwrap_or_else(|| panic!("{how}: not a DecodeError: {err}"));
                assert_eq!(d.byte, at, "{how} {}: {err}", e.name());
            }
            (lossy, bad, got) => {
                panic!("{how} {} lossy {lossy}, malformed at {bad:?}: {got:?}", e.name())
            }
        }
    }
}

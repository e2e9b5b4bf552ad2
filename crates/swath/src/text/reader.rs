//! [`DecodeReader`]: any `Read` of text in some encoding, as a `Read` of
//! UTF-8, with flat memory.

use std::fmt;
use std::io::{self, Read};
use std::path::PathBuf;

use super::decoder::{Step, TextDecoder};
use super::replacements::Replaced;
use super::TextEncoding;

/// Bytes read from the source at a time.
const RAW: usize = 256 << 10;

/// Below this room, a read decodes into the reader's own small buffer
/// first: a decoder may need a few bytes to make progress.
const SPILL: usize = 32;

/// Text that does not decode, carried inside the `io::Error`
/// (`ErrorKind::InvalidData`) the reader returns.
#[derive(Debug)]
pub struct DecodeError {
    /// The encoding being decoded.
    pub encoding: TextEncoding,
    /// The offset of the first bad byte in the original input.
    pub byte: u64,
    /// The bad bytes (those still at hand: at most 4).
    pub bytes: Vec<u8>,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex: Vec<String> = self.bytes.iter().map(|b| format!("{b:02X}")).collect();
        let shown = if hex.is_empty() { String::new() } else { format!(" ({})", hex.join(" ")) };
        write!(
            f,
            "not valid {} at byte {}{shown}; `--encoding auto` says what the file is, \
             `--encoding {}:lossy` replaces what does not decode with U+FFFD",
            self.encoding.name(),
            self.byte,
            self.encoding.name().to_ascii_lowercase(),
        )
    }
}

impl std::error::Error for DecodeError {}

/// A reader of UTF-8 decoded from `R`'s bytes. A sequence that does not
/// decode is an error naming its offset in `R`'s bytes ([`DecodeError`]),
/// or with `lossy`, U+FFFD, counted ([`super::take_replacements`]).
pub struct DecodeReader<R> {
    inner: R,
    dec: TextDecoder,
    raw: Box<[u8]>,
    lo: usize,
    hi: usize,
    eof: bool,
    /// Decoding is complete (the last call with `last` returned).
    done: bool,
    /// Offset in the original input of `raw[hi]`.
    fed: u64,
    /// A U+FFFD decoded but not yet handed out (no room for it).
    owed_fffd: bool,
    /// Decoded bytes not yet handed out: a small read's.
    spill: [u8; SPILL],
    spill_lo: usize,
    spill_hi: usize,
    lossy: Option<Replaced>,
    /// The first error, returned again on every later read.
    failed: Option<(io::ErrorKind, String)>,
}

impl<R: Read> DecodeReader<R> {
    /// Decode `inner`, whose first byte is at `base` of the original input
    /// (for positions in errors), with `dec`. `lossy`: replace instead of
    /// failing, counting under the input's `name`.
    pub fn new(
        inner: R,
        dec: TextDecoder,
        base: u64,
        lossy: bool,
        name: Option<PathBuf>,
    ) -> DecodeReader<R> {
        DecodeReader {
            inner,
            dec,
            raw: vec![0u8; RAW].into_boxed_slice(),
            lo: 0,
            hi: 0,
            eof: false,
            done: false,
            fed: base,
            owed_fffd: false,
            spill: [0; SPILL],
            spill_lo: 0,
            spill_hi: 0,
            lossy: lossy.then(|| Replaced::new(name, super::replacements::read_id())),
            failed: None,
        }
    }

    /// The encoding decoded (the BOM's, where one chose it).
    pub fn encoding(&self) -> TextEncoding {
        self.dec.encoding()
    }

    /// Offset in the original input of the next byte to decode.
    fn offset(&self) -> u64 {
        self.fed - (self.hi - self.lo) as u64
    }

    fn fill(&mut self) -> io::Result<()> {
        loop {
            match self.inner.read(&mut self.raw) {
                Ok(0) => {
                    self.eof = true;
                    self.lo = 0;
                    self.hi = 0;
                    return Ok(());
                }
                Ok(n) => {
                    self.lo = 0;
                    self.hi = n;
                    self.fed += n as u64;
                    return Ok(());
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Decode into `dst` (at least [`SPILL`] bytes): bytes written, 0
    /// only at the end.
    fn decode_into(&mut self, dst: &mut [u8]) -> io::Result<usize> {
        const FFFD: &[u8] = "\u{FFFD}".as_bytes();
        let mut written = 0;
        if self.owed_fffd {
            dst[..3].copy_from_slice(FFFD);
            written = 3;
            self.owed_fffd = false;
        }
        loop {
            if self.lo == self.hi && !self.eof {
                self.fill()?;
            }
            let (step, read, w) =
                self.dec.decode(&self.raw[self.lo..self.hi], &mut dst[written..], self.eof);
            self.lo += read;
            written += w;
            match step {
                Step::InputEmpty if self.eof => {
                    self.done = true;
                    return Ok(written);
                }
                Step::InputEmpty | Step::OutputFull if written > 0 => return Ok(written),
                Step::InputEmpty => {}
                Step::OutputFull => {
                    let msg = format!("decoder made no progress with {} bytes of room", dst.len());
                    return Err(io::Error::other(msg));
                }
                Step::Malformed { bad, after } => {
                    let end = self.offset() - after as u64;
                    let at = end.saturating_sub(bad as u64);
                    // The bad bytes, where they are still in `raw`.
                    let in_raw = self.lo.checked_sub(after + bad).map(|s| &self.raw[s..s + bad]);
                    let bytes = in_raw.map(<[u8]>::to_vec).unwrap_or_default();
                    let Some(replaced) = &mut self.lossy else {
                        let encoding = self.dec.encoding();
                        let e = DecodeError { encoding, byte: at, bytes };
                        return Err(io::Error::new(io::ErrorKind::InvalidData, e));
                    };
                    replaced.note(at, &bytes);
                    if dst.len() - written >= FFFD.len() {
                        dst[written..written + 3].copy_from_slice(FFFD);
                        written += 3;
                    } else {
                        self.owed_fffd = true;
                    }
                    return Ok(written);
                }
            }
        }
    }

    fn serve_spill(&mut self, dst: &mut [u8]) -> usize {
        let n = (self.spill_hi - self.spill_lo).min(dst.len());
        dst[..n].copy_from_slice(&self.spill[self.spill_lo..self.spill_lo + n]);
        self.spill_lo += n;
        n
    }
}

impl<R: Read> Read for DecodeReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if let Some((kind, msg)) = &self.failed {
            return Err(io::Error::new(*kind, msg.clone()));
        }
        if buf.is_empty() {
            return Ok(0);
        }
        if self.spill_lo < self.spill_hi {
            return Ok(self.serve_spill(buf));
        }
        if self.done && !self.owed_fffd {
            return Ok(0);
        }
        let got = if buf.len() < SPILL {
            // A small read: decode into the spill and serve from it.
            let mut spill = [0u8; SPILL];
            self.decode_into(&mut spill).map(|n| {
                self.spill = spill;
                self.spill_lo = 0;
                self.spill_hi = n;
                self.serve_spill(buf)
            })
        } else {
            self.decode_into(buf)
        };
        got.inspect_err(|e| self.failed = Some((e.kind(), e.to_string())))
    }
}

impl<R> Drop for DecodeReader<R> {
    fn drop(&mut self) {
        if let Some(r) = self.lossy.take() {
            r.report(self.dec.encoding().name());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(
        enc: TextEncoding,
        src: &[u8],
        trickle: usize,
        room: usize,
    ) -> io::Result<Vec<u8>> {
        let dec = TextDecoder::new(enc, true);
        let mut r =
            DecodeReader::new(swath_testkit::Chunked::new(src, trickle), dec, 0, false, None);
        let mut out = Vec::new();
        let mut buf = vec![0u8; room];
        loop {
            let n = r.read(&mut buf)?;
            if n == 0 {
                return Ok(out);
            }
            out.extend_from_slice(&buf[..n]);
        }
    }

    #[test]
    fn any_feed_and_any_room_give_what_encoding_rs_gives_at_once() {
        let text = "id,name,city\n1,José,München\n2,Zoë,Łódź €\n3,東京,서울\n";
        for enc in [
            TextEncoding::WINDOWS_1252,
            TextEncoding::UTF_16LE,
            TextEncoding::UTF_16BE,
            TextEncoding::Whatwg(encoding_rs::GB18030),
            TextEncoding::Whatwg(encoding_rs::SHIFT_JIS),
            TextEncoding::Whatwg(encoding_rs::EUC_KR),
        ] {
            let TextEncoding::Whatwg(e) = enc else { unreachable!() };
            // encoding_rs encodes UTF-16 as UTF-8 (the web's rule).
            let bytes: Vec<u8> = match enc.name() {
                "UTF-16LE" => text.encode_utf16().flat_map(u16::to_le_bytes).collect(),
                "UTF-16BE" => text.encode_utf16().flat_map(u16::to_be_bytes).collect(),
                _ => e.encode(text).0.into_owned(),
            };
            let (want, _) = e.decode_without_bom_handling(&bytes);
            assert!(!want.contains('\u{FFFD}'), "{enc}");
            for (trickle, room) in [(1 << 20, 1 << 16), (1, 1), (3, 2), (7, 33), (2, 5)] {
                let got = decode_all(enc, &bytes, trickle, room)
                    .unwrap_or_else(|e| panic!("{enc} {trickle} {room}: {e}"));
                assert_eq!(String::from_utf8(got).unwrap(), want, "{enc} {trickle} {room}");
            }
        }
    }

    #[test]
    fn a_bad_sequence_is_an_error_at_its_byte_in_the_original() {
        // Shift_JIS: 0x81 needs a trail byte; 0x81 0x0A is malformed.
        let src = b"a,b\nxy,\x81\nz\n";
        let e = decode_all(TextEncoding::Whatwg(encoding_rs::SHIFT_JIS), src, 1 << 20, 1 << 16)
            .unwrap_err();
        let d = e.get_ref().and_then(|e| e.downcast_ref::<DecodeError>()).expect("a DecodeError");
        assert_eq!(d.byte, 7, "{e}");
        assert!(e.to_string().contains("not valid Shift_JIS at byte 7"), "{e}");
        // The same through a trickle: the offset does not depend on reads.
        let e = decode_all(TextEncoding::Whatwg(encoding_rs::SHIFT_JIS), src, 1, 1).unwrap_err();
        assert!(e.to_string().contains("at byte 7"), "{e}");
    }

    #[test]
    fn lossy_replaces_each_bad_sequence_and_goes_on() {
        let src = b"ok\xFF,\xC3(\n\xE2\x82";
        for (trickle, room) in [(1 << 20, 1 << 16), (1, 1), (2, 3)] {
            let dec = TextDecoder::new(TextEncoding::Utf8, true);
            let mut r =
                DecodeReader::new(swath_testkit::Chunked::new(src, trickle), dec, 0, true, None);
            let mut out = Vec::new();
            let mut buf = vec![0u8; room];
            loop {
                let n = r.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&buf[..n]);
            }
            let want = String::from_utf8_lossy(src).into_owned();
            assert_eq!(String::from_utf8(out).unwrap(), want, "{trickle} {room}");
            let replaced = r.lossy.as_ref().unwrap();
            assert_eq!(replaced.count(), 3);
            assert_eq!(replaced.first_offsets(), vec![2, 4, 7]);
        }
    }
}

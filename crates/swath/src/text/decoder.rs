//! One decoder over every encoding swath reads: `encoding_rs`'s for the
//! WHATWG ones, and two of its own (ISO-8859-1 as Python reads it, and
//! UTF-32), behind the streaming contract of `encoding_rs`.

use encoding_rs::DecoderResult;

use super::TextEncoding;

/// Why a [`TextDecoder::decode`] call stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Every input byte was taken (with `last`: decoding is complete).
    InputEmpty,
    /// `dst` has no room for the next character.
    OutputFull,
    /// A byte sequence that does not decode: `bad` bytes long, ending
    /// `after` bytes before the end of what this call read (it may have
    /// begun in an earlier call's input).
    Malformed {
        /// Its length (1 to 4).
        bad: usize,
        /// Bytes read after it.
        after: usize,
    },
}

/// A streaming decoder to UTF-8.
pub struct TextDecoder {
    encoding: TextEncoding,
    kind: Kind,
}

enum Kind {
    Whatwg(encoding_rs::Decoder),
    Latin1,
    /// A code unit cut by the end of an input, kept for the next.
    Utf32 {
        little_endian: bool,
        carry: [u8; 4],
        carried: usize,
    },
}

impl TextDecoder {
    /// A decoder of `encoding`. `sniff_bom`: a byte order mark at the start
    /// chooses the encoding (UTF-8, UTF-16LE/BE) whatever `encoding` says,
    /// and is removed; otherwise only `encoding`'s own BOM is removed.
    pub fn new(encoding: TextEncoding, sniff_bom: bool) -> TextDecoder {
        let kind = match encoding {
            TextEncoding::Latin1 => Kind::Latin1,
            TextEncoding::Utf32 { little_endian } => {
                Kind::Utf32 { little_endian, carry: [0; 4], carried: 0 }
            }
            TextEncoding::Utf8 => Kind::Whatwg(if sniff_bom {
                encoding_rs::UTF_8.new_decoder()
            } else {
                encoding_rs::UTF_8.new_decoder_with_bom_removal()
            }),
            TextEncoding::Whatwg(e) => Kind::Whatwg(if sniff_bom {
                e.new_decoder()
            } else {
                e.new_decoder_with_bom_removal()
            }),
        };
        TextDecoder { encoding, kind }
    }

    /// A decoder with no byte order mark handling, for a piece of a file
    /// that starts past its first byte.
    pub fn without_bom(encoding: TextEncoding) -> TextDecoder {
        let kind = match encoding {
            TextEncoding::Latin1 => Kind::Latin1,
            TextEncoding::Utf32 { little_endian } => {
                Kind::Utf32 { little_endian, carry: [0; 4], carried: 0 }
            }
            TextEncoding::Utf8 => {
                Kind::Whatwg(encoding_rs::UTF_8.new_decoder_without_bom_handling())
            }
            TextEncoding::Whatwg(e) => Kind::Whatwg(e.new_decoder_without_bom_handling()),
        };
        TextDecoder { encoding, kind }
    }

    /// The encoding being decoded: after a byte order mark chose one, that
    /// one.
    pub fn encoding(&self) -> TextEncoding {
        match &self.kind {
            Kind::Whatwg(d) if d.encoding() == encoding_rs::UTF_8 => TextEncoding::Utf8,
            Kind::Whatwg(d) => TextEncoding::Whatwg(d.encoding()),
            _ => self.encoding,
        }
    }

    /// Decode `src` into `dst` as `encoding_rs` does without replacement:
    /// `(why it stopped, bytes read, bytes written)`. `last`: `src` ends the
    /// input (a cut sequence there is malformed). `dst` should have room
    /// for 16 bytes at least, or the call may make no progress.
    pub fn decode(&mut self, src: &[u8], dst: &mut [u8], last: bool) -> (Step, usize, usize) {
        match &mut self.kind {
            Kind::Whatwg(d) => {
                let (r, read, written) = d.decode_to_utf8_without_replacement(src, dst, last);
                let step = match r {
                    DecoderResult::InputEmpty => Step::InputEmpty,
                    DecoderResult::OutputFull => Step::OutputFull,
                    DecoderResult::Malformed(bad, after) => {
                        Step::Malformed { bad: bad as usize, after: after as usize }
                    }
                };
                (step, read, written)
            }
            Kind::Latin1 => {
                let (read, written) = encoding_rs::mem::convert_latin1_to_utf8_partial(src, dst);
                let step = if read == src.len() { Step::InputEmpty } else { Step::OutputFull };
                (step, read, written)
            }
            Kind::Utf32 { little_endian, carry, carried } => {
                utf32(*little_endian, carry, carried, src, dst, last)
            }
        }
    }
}

/// UTF-32 to UTF-8, a unit at a time (rare input: simple over fast).
fn utf32(
    le: bool,
    carry: &mut [u8; 4],
    carried: &mut usize,
    src: &[u8],
    dst: &mut [u8],
    last: bool,
) -> (Step, usize, usize) {
    let (mut read, mut written) = (0, 0);
    loop {
        // Complete the unit in `carry` from `src`.
        while *carried < 4 && read < src.len() {
            carry[*carried] = src[read];
            *carried += 1;
            read += 1;
        }
        if *carried < 4 {
            if last && *carried > 0 {
                let bad = std::mem::take(carried);
                return (Step::Malformed { bad, after: 0 }, read, written);
            }
            return (Step::InputEmpty, read, written);
        }
        let n = if le { u32::from_le_bytes(*carry) } else { u32::from_be_bytes(*carry) };
        let Some(c) = char::from_u32(n) else {
            *carried = 0;
            return (Step::Malformed { bad: 4, after: 0 }, read, written);
        };
        if dst.len() - written < c.len_utf8() {
            // The unit stays carried (its bytes are read): written first
            // next time.
            return (Step::OutputFull, read, written);
        }
        written += c.encode_utf8(&mut dst[written..]).len();
        *carried = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Decode all of `src` through a `dst` of `room` bytes, fed `feed`
    /// bytes at a time; malformed sequences become U+FFFD.
    fn run(enc: TextEncoding, src: &[u8], feed: usize, room: usize) -> String {
        let mut d = TextDecoder::new(enc, true);
        let mut out = Vec::new();
        let mut dst = vec![0u8; room];
        let mut at = 0;
        loop {
            let end = (at + feed).min(src.len());
            let last = end == src.len();
            let (step, r, w) = d.decode(&src[at..end], &mut dst, last);
            out.extend_from_slice(&dst[..w]);
            at += r;
            match step {
                Step::Malformed { .. } => out.extend_from_slice("\u{FFFD}".as_bytes()),
                Step::InputEmpty if last => break,
                _ => {}
            }
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn latin1_maps_every_byte_to_its_code_point() {
        let all: Vec<u8> = (0..=255).collect();
        let want: String = all.iter().map(|&b| b as char).collect();
        for (feed, room) in [(256, 1024), (7, 16), (1, 16)] {
            assert_eq!(run(TextEncoding::Latin1, &all, feed, room), want);
        }
    }

    #[test]
    fn utf32_decodes_in_any_pieces_and_flags_bad_units() {
        let text = "a,é\n€😀";
        let le: Vec<u8> = text.chars().flat_map(|c| (c as u32).to_le_bytes()).collect();
        let be: Vec<u8> = text.chars().flat_map(|c| (c as u32).to_be_bytes()).collect();
        for (feed, room) in [(100, 100), (3, 16), (1, 16), (5, 4)] {
            assert_eq!(run(TextEncoding::Utf32 { little_endian: true }, &le, feed, room), text);
            assert_eq!(run(TextEncoding::Utf32 { little_endian: false }, &be, feed, room), text);
        }
        let mut bad = le.clone();
        bad.extend_from_slice(&0xD800u32.to_le_bytes());
        bad.extend_from_slice(&[b'x', 0]);
        assert_eq!(
            run(TextEncoding::Utf32 { little_endian: true }, &bad, 3, 16),
            format!("{text}\u{FFFD}\u{FFFD}")
        );
    }

    #[test]
    fn a_bom_chooses_the_encoding_when_sniffed() {
        let mut d = TextDecoder::new(TextEncoding::WINDOWS_1252, true);
        let mut dst = [0u8; 32];
        let (_, _, w) = d.decode(b"\xFF\xFEa\0", &mut dst, true);
        assert_eq!(&dst[..w], b"a");
        assert_eq!(d.encoding(), TextEncoding::UTF_16LE);
    }
}

//! Text in any encoding, decoded to UTF-8 at the source (DESIGN.md item
//! 12), so that the formats above only ever see UTF-8.
//!
//! - [`TextEncoding`]: every WHATWG encoding (by `encoding_rs`), plus
//!   ISO-8859-1 as Python reads it and UTF-32.
//! - [`Decoding`]: how an input's encoding is chosen (`--encoding NAME`,
//!   `auto`, the default UTF-8-unless-a-BOM-says-otherwise) and whether
//!   bytes that do not decode stop the run or become U+FFFD (`lossy`).
//! - [`detect()`]: `auto`, from samples of the file, with its evidence.
//! - [`DecodeReader`]: the streaming decoder: flat memory, an error that
//!   names the bad bytes' offset in the original file.
//! - [`TextSpans`]: a regular file in an encoding a line feed can cut,
//!   decoded in pieces on every core and handed out in order.
//! - [`DecodedFile`]: a file in a single-byte encoding seen by ranges of
//!   its text, for the readers that plan and read a file on every core.
//!
//! UTF-8 is never decoded (unless lossy): the default costs one `pread`
//! of four bytes.

mod decoded_file;
mod decoder;
pub mod detect;
mod encoding;
mod notes;
mod reader;
mod replacements;
mod spans;

pub use decoded_file::DecodedFile;
pub use decoder::{Step, TextDecoder};
pub use detect::{detect, Detected};
pub use encoding::{Decoding, EncodingChoice, TextEncoding, ENCODING_HELP};
pub(crate) use notes::note;
pub use notes::take_doubts;
pub use reader::{DecodeError, DecodeReader};
pub use replacements::{take_replacements, Replacements};
pub use spans::{TextOf, TextSpans};

use crate::read_at::{read_full_at, ReadAt};

/// Bytes `auto` reads from the head of a file.
pub const AUTO_HEAD: usize = 64 << 10;

/// Further places `auto` samples in a file it can read by ranges, and the
/// bytes of each: a file whose head is plain ASCII may have its first
/// accented name a gigabyte in.
const AUTO_PLACES: u64 = 16;
const AUTO_PLACE_BYTES: usize = 16 << 10;

/// Detect the encoding of a file read by ranges, `len` bytes: its head
/// and 16 places spread over the rest (16 KiB each).
///
/// # Errors
///
/// The I/O error of a read.
pub fn detect_file(src: &dyn ReadAt, len: u64) -> std::io::Result<Detected> {
    let mut head = vec![0u8; AUTO_HEAD.min(len as usize)];
    let n = read_full_at(src, &mut head, 0)?;
    head.truncate(n);
    let mut samples = vec![head];
    let mut offsets = vec![0u64];
    let rest = len.saturating_sub(AUTO_HEAD as u64);
    if rest > 0 {
        let step = rest / AUTO_PLACES;
        for i in 1..=AUTO_PLACES {
            let at = AUTO_HEAD as u64 + (i * step).min(rest.saturating_sub(1));
            let want = (AUTO_PLACE_BYTES as u64).min(len - at) as usize;
            let mut buf = vec![0u8; want];
            let n = read_full_at(src, &mut buf, at)?;
            buf.truncate(n);
            if !buf.is_empty() && offsets.last() != Some(&at) {
                samples.push(buf);
                offsets.push(at);
            }
        }
    }
    let views: Vec<&[u8]> = samples.iter().map(Vec::as_slice).collect();
    let complete = len as usize <= AUTO_HEAD;
    let mut found = detect(&views, complete);
    // Where UTF-8 first fails, in bytes of the file.
    if let Some(rest) = found.evidence.strip_prefix("not UTF-8") {
        let first_bad = views.iter().zip(&offsets).enumerate().find_map(|(i, (s, &at))| {
            let skip = if i == 0 {
                0
            } else {
                s.iter().take(3).take_while(|&&b| b & 0xC0 == 0x80).count()
            };
            let e = std::str::from_utf8(&s[skip..]).err()?;
            let bad = match e.error_len() {
                Some(n) => n,
                None if i == 0 && complete => s.len() - skip - e.valid_up_to(),
                None => return None,
            };
            let from = skip + e.valid_up_to();
            Some((at + from as u64, s[from..from + bad.min(4)].to_vec()))
        });
        if let Some((at, bytes)) = first_bad {
            let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02X}")).collect();
            found.evidence = format!("not UTF-8 (byte {at}: {}){rest}", hex.join(" "));
        }
    }
    Ok(found)
}

/// `bytes`, a whole text in `encoding` (without its byte order mark), as
/// UTF-8, with U+FFFD for what does not decode (not counted): for
/// looking at a head already read (sniffing), not for reading a file.
pub fn decode_slice(bytes: &[u8], encoding: TextEncoding) -> Vec<u8> {
    let mut dec = TextDecoder::without_bom(encoding);
    let mut out = vec![0u8; bytes.len() * 3 + 16];
    let (mut read, mut written) = (0, 0);
    loop {
        let (step, r, w) = dec.decode(&bytes[read..], &mut out[written..], true);
        read += r;
        written += w;
        match step {
            Step::InputEmpty => break,
            Step::OutputFull => out.resize(out.len() * 2, 0),
            Step::Malformed { .. } => {
                if out.len() - written < 3 {
                    out.resize(out.len() + 16, 0);
                }
                out[written..written + 3].copy_from_slice("\u{FFFD}".as_bytes());
                written += 3;
            }
        }
    }
    out.truncate(written);
    out
}

//! Byte order marks and UTF-8: what a file's bytes are, before any CSV.

use swath::text::TextEncoding;

/// The text encoding found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 (plain ASCII included) in every byte sampled; `bom` when the
    /// file starts with EF BB BF.
    Utf8 {
        /// The file starts with a UTF-8 byte order mark.
        bom: bool,
    },
    /// Another encoding, from its byte order mark, detected
    /// ([`swath::text::detect()`]) or named (`--encoding`): the samples were
    /// decoded to UTF-8 and sniffed as such.
    Decoded {
        /// The encoding.
        encoding: TextEncoding,
        /// Why it was chosen, in words.
        evidence: String,
        /// The file starts with its byte order mark.
        bom: bool,
    },
    /// Not UTF-8: the first invalid sequence among the bytes sampled.
    NotUtf8 {
        /// Its offset in the file.
        byte: u64,
        /// Its bytes (at most 4).
        bytes: Vec<u8>,
        /// The file starts with a UTF-8 byte order mark all the same.
        bom: bool,
    },
}

impl Encoding {
    /// A name for people: `UTF-8`, `UTF-8 with BOM`, `UTF-16LE (byte
    /// order mark)`, `windows-1252 (not UTF-8; ...)`, `not UTF-8 (byte 12:
    /// E9 74)`.
    pub fn describe(&self) -> String {
        match self {
            Encoding::Utf8 { bom: false } => "UTF-8".to_string(),
            Encoding::Utf8 { bom: true } => "UTF-8 with BOM".to_string(),
            Encoding::Decoded { encoding, evidence, .. } => format!("{encoding} ({evidence})"),
            Encoding::NotUtf8 { byte, bytes, .. } => {
                let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02X}")).collect();
                format!("not UTF-8 (byte {byte}: {})", hex.join(" "))
            }
        }
    }

    /// The encoding to read the file with, when it is not UTF-8 and that
    /// is known.
    pub fn decoded(&self) -> Option<TextEncoding> {
        match self {
            Encoding::Decoded { encoding, .. } => Some(*encoding),
            _ => None,
        }
    }
}

/// The length of the byte order mark `head` starts with (0: none).
pub fn bom_len(head: &[u8]) -> usize {
    swath::text::detect::bom(head).map_or(0, |(_, n)| n)
}

/// What the first bytes say: an encoding other than UTF-8 by its byte
/// order mark, or none, and the BOM's length (3 for UTF-8's).
pub fn bom(head: &[u8]) -> (Option<TextEncoding>, usize) {
    match swath::text::detect::bom(head) {
        Some((TextEncoding::Utf8, n)) => (None, n),
        Some((e, n)) => (Some(e), n),
        None => (None, 0),
    }
}

/// The first invalid UTF-8 sequence of `sample` (which starts at file
/// offset `at`), as its offset and bytes. A sequence cut by the end of a
/// sample that is not the end of the file (`complete` false) is not one.
pub fn first_invalid(sample: &[u8], at: u64, complete: bool) -> Option<(u64, Vec<u8>)> {
    let err = std::str::from_utf8(sample).err()?;
    let start = err.valid_up_to();
    let len = match err.error_len() {
        Some(n) => n,
        None if !complete => return None,
        None => sample.len() - start,
    };
    Some((at + start as u64, sample[start..start + len.min(4)].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boms_and_invalid_bytes() {
        assert_eq!(bom(b"\xEF\xBB\xBFa"), (None, 3));
        assert_eq!(bom(b"\xFF\xFEa\0"), (Some(TextEncoding::UTF_16LE), 2));
        let le32 = TextEncoding::Utf32 { little_endian: true };
        assert_eq!(bom(b"\xFF\xFE\0\0a\0\0\0"), (Some(le32), 4));
        assert_eq!(bom(b"a,b"), (None, 0));
        assert_eq!(first_invalid("é,a".as_bytes(), 10, true), None);
        assert_eq!(first_invalid(b"ab\xE9t", 10, true), Some((12, vec![0xE9])));
        // Cut in the middle of a character at the end of a sample: fine,
        // unless the file ends there.
        assert_eq!(first_invalid(b"a\xC3", 0, false), None);
        assert_eq!(first_invalid(b"a\xC3", 0, true), Some((1, vec![0xC3])));
        let e = Encoding::NotUtf8 { byte: 12, bytes: vec![0xE9, 0x74], bom: false };
        assert_eq!(e.describe(), "not UTF-8 (byte 12: E9 74)");
    }
}

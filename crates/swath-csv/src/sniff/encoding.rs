//! Byte order marks and UTF-8: what a file's bytes are, before any CSV.

/// The text encoding found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// UTF-8 (plain ASCII included) in every byte sampled; `bom` when the
    /// file starts with EF BB BF.
    Utf8 {
        /// The file starts with a UTF-8 byte order mark.
        bom: bool,
    },
    /// UTF-16 with a byte order mark (FF FE little-endian, FE FF
    /// big-endian). The dialect was sniffed on the head, decoded; swath's
    /// readers take UTF-8 only (convert first, e.g. with `iconv`).
    Utf16 {
        /// Little-endian (FF FE), else big-endian.
        little_endian: bool,
    },
    /// UTF-32 with a byte order mark (FF FE 00 00, 00 00 FE FF); as
    /// UTF-16.
    Utf32 {
        /// Little-endian, else big-endian.
        little_endian: bool,
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
    /// A name for people: `UTF-8`, `UTF-8 with BOM`, `UTF-16LE (BOM)`,
    /// `not UTF-8 (byte 12: E9 74)`.
    pub fn describe(&self) -> String {
        match self {
            Encoding::Utf8 { bom: false } => "UTF-8".to_string(),
            Encoding::Utf8 { bom: true } => "UTF-8 with BOM".to_string(),
            Encoding::Utf16 { little_endian } => {
                format!("UTF-16{} (BOM)", if *little_endian { "LE" } else { "BE" })
            }
            Encoding::Utf32 { little_endian } => {
                format!("UTF-32{} (BOM)", if *little_endian { "LE" } else { "BE" })
            }
            Encoding::NotUtf8 { byte, bytes, .. } => {
                let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02X}")).collect();
                format!("not UTF-8 (byte {byte}: {})", hex.join(" "))
            }
        }
    }
}

/// What the first bytes say: a wide encoding ([`Encoding::Utf16`],
/// [`Encoding::Utf32`]) or none, and the BOM's length (3 for UTF-8's).
pub fn bom(head: &[u8]) -> (Option<Encoding>, usize) {
    match head {
        [0xEF, 0xBB, 0xBF, ..] => (None, 3),
        [0xFF, 0xFE, 0, 0, ..] => (Some(Encoding::Utf32 { little_endian: true }), 4),
        [0, 0, 0xFE, 0xFF, ..] => (Some(Encoding::Utf32 { little_endian: false }), 4),
        [0xFF, 0xFE, ..] => (Some(Encoding::Utf16 { little_endian: true }), 2),
        [0xFE, 0xFF, ..] => (Some(Encoding::Utf16 { little_endian: false }), 2),
        _ => (None, 0),
    }
}

/// The text after a wide encoding's BOM, as UTF-8 (bad units become
/// U+FFFD; a cut last unit is dropped).
pub fn decode_wide(bytes: &[u8], enc: &Encoding) -> Vec<u8> {
    match *enc {
        Encoding::Utf16 { little_endian } => utf16_to_utf8(bytes, little_endian),
        Encoding::Utf32 { little_endian } => bytes
            .chunks_exact(4)
            .map(|q| {
                let q = [q[0], q[1], q[2], q[3]];
                let n = if little_endian { u32::from_le_bytes(q) } else { u32::from_be_bytes(q) };
                char::from_u32(n).unwrap_or(char::REPLACEMENT_CHARACTER)
            })
            .collect::<String>()
            .into_bytes(),
        _ => bytes.to_vec(),
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

/// UTF-16 code units (after the BOM) as UTF-8; a lone surrogate becomes
/// U+FFFD, an odd last byte is dropped.
fn utf16_to_utf8(bytes: &[u8], little_endian: bool) -> Vec<u8> {
    let units = bytes.chunks_exact(2).map(|p| {
        let pair = [p[0], p[1]];
        if little_endian {
            u16::from_le_bytes(pair)
        } else {
            u16::from_be_bytes(pair)
        }
    });
    char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect::<String>()
        .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boms_invalid_bytes_and_utf16() {
        assert_eq!(bom(b"\xEF\xBB\xBFa"), (None, 3));
        assert_eq!(bom(b"\xFF\xFEa\0"), (Some(Encoding::Utf16 { little_endian: true }), 2));
        let le32 = Encoding::Utf32 { little_endian: true };
        assert_eq!(bom(b"\xFF\xFE\0\0a\0\0\0"), (Some(le32.clone()), 4));
        assert_eq!(decode_wide(b"a\0\0\0,\0\0\0", &le32), b"a,");
        assert_eq!(bom(b"a,b"), (None, 0));
        assert_eq!(first_invalid("é,a".as_bytes(), 10, true), None);
        assert_eq!(first_invalid(b"ab\xE9t", 10, true), Some((12, vec![0xE9])));
        // Cut in the middle of a character at the end of a sample: fine,
        // unless the file ends there.
        assert_eq!(first_invalid(b"a\xC3", 0, false), None);
        assert_eq!(first_invalid(b"a\xC3", 0, true), Some((1, vec![0xC3])));
        assert_eq!(utf16_to_utf8(b"a\0,\0\xe9\0", true), "a,é".as_bytes());
        assert_eq!(utf16_to_utf8(b"\0a\0,", false), b"a,");
        let e = Encoding::NotUtf8 { byte: 12, bytes: vec![0xE9, 0x74], bom: false };
        assert_eq!(e.describe(), "not UTF-8 (byte 12: E9 74)");
    }
}

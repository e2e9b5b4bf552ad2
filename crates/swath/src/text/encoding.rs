//! The encodings swath decodes, by name, and how an input's is chosen.

use std::fmt;
use std::str::FromStr;

/// A text encoding swath decodes to UTF-8.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum TextEncoding {
    /// UTF-8: never decoded, read as it is (unless lossy).
    Utf8,
    /// ISO-8859-1 as Python, iconv and DuckDB read it: every byte is the
    /// code point of its value (0x80-0x9F are C1 controls). The WHATWG
    /// standard maps the label `latin1` to windows-1252 instead; swath
    /// follows the tools a file's author is likely to have used.
    Latin1,
    /// UTF-32, little- or big-endian (not a WHATWG encoding).
    Utf32 {
        /// Little-endian.
        little_endian: bool,
    },
    /// Any other WHATWG encoding, by `encoding_rs`.
    Whatwg(&'static encoding_rs::Encoding),
}

impl TextEncoding {
    /// Windows-1252, Excel's "ANSI" in the West.
    pub const WINDOWS_1252: TextEncoding = TextEncoding::Whatwg(encoding_rs::WINDOWS_1252);
    /// UTF-16 little-endian (PowerShell's "Unicode").
    pub const UTF_16LE: TextEncoding = TextEncoding::Whatwg(encoding_rs::UTF_16LE);
    /// UTF-16 big-endian.
    pub const UTF_16BE: TextEncoding = TextEncoding::Whatwg(encoding_rs::UTF_16BE);

    /// The encoding named `label`: a WHATWG label (`windows-1252`,
    /// `shift_jis`, `gb18030`, `utf-16le`, ...), Python's names for the
    /// same (`cp1252`, `cp932`, `latin-1`), or `utf-32le`/`utf-32be`.
    /// Case, `-` and `_` do not matter.
    pub fn for_label(label: &str) -> Option<TextEncoding> {
        let key: String = label
            .trim()
            .chars()
            .map(|c| if c == '_' { '-' } else { c.to_ascii_lowercase() })
            .collect();
        let own = match key.as_str() {
            "utf-8" | "utf8" => Some(TextEncoding::Utf8),
            "latin1" | "latin-1" | "iso-8859-1" | "iso8859-1" | "iso-8859-1:1987" | "l1"
            | "cp819" | "iso-ir-100" => Some(TextEncoding::Latin1),
            "utf-32le" | "utf32le" => Some(TextEncoding::Utf32 { little_endian: true }),
            "utf-32be" | "utf32be" => Some(TextEncoding::Utf32 { little_endian: false }),
            // Python's code page names the WHATWG list spells otherwise.
            "cp932" | "ms932" | "shift-jis" | "sjis" => {
                Some(TextEncoding::Whatwg(encoding_rs::SHIFT_JIS))
            }
            "cp936" => Some(TextEncoding::Whatwg(encoding_rs::GBK)),
            "cp949" | "uhc" => Some(TextEncoding::Whatwg(encoding_rs::EUC_KR)),
            "cp950" => Some(TextEncoding::Whatwg(encoding_rs::BIG5)),
            "utf16le" => Some(TextEncoding::UTF_16LE),
            "utf16be" => Some(TextEncoding::UTF_16BE),
            _ => None,
        };
        if own.is_some() {
            return own;
        }
        // The WHATWG labels use `-` and `_` as they like (`shift_jis`,
        // `euc-kr`): try the label as given, then with either.
        let tries = [label.trim().to_ascii_lowercase(), key.clone(), key.replace('-', "_")];
        tries.iter().find_map(|t| encoding_rs::Encoding::for_label(t.as_bytes())).map(|e| {
            if e == encoding_rs::UTF_8 {
                TextEncoding::Utf8
            } else {
                TextEncoding::Whatwg(e)
            }
        })
    }

    /// Its name: the WHATWG name (`windows-1252`, `UTF-16LE`, `Shift_JIS`),
    /// `ISO-8859-1`, or `UTF-32LE`/`UTF-32BE`.
    pub fn name(self) -> &'static str {
        match self {
            TextEncoding::Utf8 => "UTF-8",
            TextEncoding::Latin1 => "ISO-8859-1",
            TextEncoding::Utf32 { little_endian: true } => "UTF-32LE",
            TextEncoding::Utf32 { little_endian: false } => "UTF-32BE",
            TextEncoding::Whatwg(e) => e.name(),
        }
    }

    /// Every byte is one character, and ASCII is itself: a file can be
    /// cut anywhere, and a line feed is a line feed.
    pub fn is_single_byte(self) -> bool {
        match self {
            TextEncoding::Latin1 => true,
            TextEncoding::Whatwg(e) => e.is_single_byte(),
            TextEncoding::Utf8 | TextEncoding::Utf32 { .. } => false,
        }
    }

    /// The bytes of a line feed, and the alignment it sits at: `[0x0A]`
    /// for the ASCII-compatible encodings, `0A 00` at an even offset for
    /// UTF-16LE. `None` where a line feed does not cut the text into
    /// pieces that decode alone (ISO-2022-JP keeps a shift state across
    /// lines; UTF-32 is not cut: rare, and read on one thread).
    pub fn line_feed(self) -> Option<(&'static [u8], usize)> {
        match self {
            TextEncoding::Utf8 | TextEncoding::Latin1 => Some((b"\n", 1)),
            TextEncoding::Utf32 { .. } => None,
            TextEncoding::Whatwg(e) if e == encoding_rs::UTF_16LE => Some((b"\n\0", 2)),
            TextEncoding::Whatwg(e) if e == encoding_rs::UTF_16BE => Some((b"\0\n", 2)),
            TextEncoding::Whatwg(e) if e == encoding_rs::ISO_2022_JP => None,
            // GB18030, Shift_JIS, EUC-KR, Big5, EUC-JP and the single-byte
            // ones: 0x0A is never a trail byte.
            TextEncoding::Whatwg(e) if e.is_ascii_compatible() => Some((b"\n", 1)),
            TextEncoding::Whatwg(_) => None,
        }
    }
}

impl fmt::Debug for TextEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for TextEncoding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How an input's encoding is chosen (`--encoding`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EncodingChoice {
    /// UTF-8, unless a byte order mark says UTF-16 or UTF-32 (the
    /// default: a BOM leaves no doubt).
    #[default]
    Utf8OrBom,
    /// This encoding (a byte order mark of another still wins, as the
    /// WHATWG decode algorithm says).
    Named(TextEncoding),
    /// Decided from the first bytes ([`crate::text::detect()`]).
    Auto,
}

/// How an input's text is decoded: the encoding, and what to do with
/// bytes that do not decode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Decoding {
    /// The encoding, or how to choose it.
    pub choice: EncodingChoice,
    /// Replace what does not decode with U+FFFD (counted, the first
    /// places kept: [`crate::text::take_replacements`]) instead of
    /// stopping with an error.
    pub lossy: bool,
}

impl Decoding {
    /// UTF-8 read as it is (a BOM of UTF-16 or UTF-32 still decoded).
    pub const DEFAULT: Decoding = Decoding { choice: EncodingChoice::Utf8OrBom, lossy: false };

    /// The encoding `e`, strict.
    pub fn named(e: TextEncoding) -> Decoding {
        Decoding { choice: EncodingChoice::Named(e), lossy: false }
    }
}

/// The words `--encoding` takes, for help and errors.
pub const ENCODING_HELP: &str = "NAME (windows-1252, latin-1, utf-16le, gb18030, shift_jis, \
    ...: any WHATWG label), auto, lossy (UTF-8, U+FFFD for what does not decode), or NAME:lossy";

impl FromStr for Decoding {
    type Err = String;

    /// `NAME`, `auto`, `lossy` (UTF-8), or either followed by `:lossy`.
    fn from_str(s: &str) -> Result<Decoding, String> {
        let (name, lossy) = match s.trim().rsplit_once(':') {
            Some((n, l)) if l.eq_ignore_ascii_case("lossy") => (n, true),
            _ => (s.trim(), false),
        };
        if name.eq_ignore_ascii_case("lossy") {
            return Ok(Decoding { choice: EncodingChoice::Named(TextEncoding::Utf8), lossy: true });
        }
        let choice = if name.eq_ignore_ascii_case("auto") {
            EncodingChoice::Auto
        } else {
            match TextEncoding::for_label(name) {
                Some(e) => EncodingChoice::Named(e),
                None => return Err(format!("unknown encoding {name:?}: give {ENCODING_HELP}")),
            }
        };
        Ok(Decoding { choice, lossy })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_of_whatwg_python_and_swath_name_the_same_encodings() {
        let name = |l: &str| TextEncoding::for_label(l).map(TextEncoding::name);
        assert_eq!(name("windows-1252"), Some("windows-1252"));
        assert_eq!(name("CP1252"), Some("windows-1252"));
        assert_eq!(name("latin-1"), Some("ISO-8859-1"));
        assert_eq!(name("ISO_8859-1"), Some("ISO-8859-1"));
        assert_eq!(name("utf_16le"), Some("UTF-16LE"));
        assert_eq!(name("UTF-16BE"), Some("UTF-16BE"));
        assert_eq!(name("shift_jis"), Some("Shift_JIS"));
        assert_eq!(name("shift-jis"), Some("Shift_JIS"));
        assert_eq!(name("cp932"), Some("Shift_JIS"));
        assert_eq!(name("gb18030"), Some("gb18030"));
        assert_eq!(name("euc-kr"), Some("EUC-KR"));
        assert_eq!(name("euc_kr"), Some("EUC-KR"));
        assert_eq!(name("big5"), Some("Big5"));
        assert_eq!(name("utf-8"), Some("UTF-8"));
        assert_eq!(name("utf-32le"), Some("UTF-32LE"));
        assert_eq!(name("klingon"), None);
    }

    #[test]
    fn the_choice_parses_names_auto_and_lossy() {
        let d: Decoding = "auto".parse().unwrap();
        assert_eq!(d, Decoding { choice: EncodingChoice::Auto, lossy: false });
        let d: Decoding = "lossy".parse().unwrap();
        assert_eq!(d, Decoding { choice: EncodingChoice::Named(TextEncoding::Utf8), lossy: true });
        let d: Decoding = "cp1252:lossy".parse().unwrap();
        assert_eq!(
            d,
            Decoding { choice: EncodingChoice::Named(TextEncoding::WINDOWS_1252), lossy: true }
        );
        let e = "ebcdic-ish".parse::<Decoding>().unwrap_err();
        assert!(e.contains("unknown encoding \"ebcdic-ish\""), "{e}");
    }

    #[test]
    fn line_feeds_are_cut_points_where_the_encoding_allows() {
        assert_eq!(TextEncoding::WINDOWS_1252.line_feed(), Some((&b"\n"[..], 1)));
        assert_eq!(TextEncoding::UTF_16LE.line_feed(), Some((&b"\n\0"[..], 2)));
        assert_eq!(TextEncoding::Whatwg(encoding_rs::GB18030).line_feed(), Some((&b"\n"[..], 1)));
        assert_eq!(TextEncoding::Whatwg(encoding_rs::ISO_2022_JP).line_feed(), None);
        assert!(TextEncoding::Latin1.is_single_byte());
        assert!(!TextEncoding::Whatwg(encoding_rs::SHIFT_JIS).is_single_byte());
    }
}

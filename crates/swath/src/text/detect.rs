//! `--encoding auto`: what a file's text is, from samples of its bytes,
//! and how sure that is.
//!
//! In order: a byte order mark decides; else the pattern of zero bytes
//! (text in UTF-16 or UTF-32 without a BOM is full of them, every other
//! text has none); else UTF-8 when every sample is valid UTF-8; else one
//! of the East Asian multi-byte encodings when the bytes come in pairs
//! that decode cleanly to that language's script; else windows-1252 or
//! ISO-8859-1, told apart by the bytes 0x80-0x9F (printable in the first,
//! control codes in the second).

use super::TextEncoding;

/// What [`detect()`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Detected {
    /// The encoding.
    pub encoding: TextEncoding,
    /// The length of its byte order mark at the start (0: none).
    pub bom: usize,
    /// Why, in words ("byte order mark", "every sampled byte is ASCII").
    pub evidence: String,
    /// False when the samples leave a doubt the evidence says.
    pub certain: bool,
}

impl Detected {
    fn new(encoding: TextEncoding, bom: usize, evidence: impl Into<String>, certain: bool) -> Self {
        Detected { encoding, bom, evidence: evidence.into(), certain }
    }

    /// The evidence, and the doubt where there is one.
    pub fn describe(&self) -> String {
        let doubt = if self.certain { "" } else { "; not certain: name it with --encoding" };
        format!("{}{doubt}", self.evidence)
    }
}

/// The byte order mark at the start of `head`: its encoding and length.
pub fn bom(head: &[u8]) -> Option<(TextEncoding, usize)> {
    match head {
        [0xEF, 0xBB, 0xBF, ..] => Some((TextEncoding::Utf8, 3)),
        [0xFF, 0xFE, 0, 0, ..] => Some((TextEncoding::Utf32 { little_endian: true }, 4)),
        [0, 0, 0xFE, 0xFF, ..] => Some((TextEncoding::Utf32 { little_endian: false }, 4)),
        [0xFF, 0xFE, ..] => Some((TextEncoding::UTF_16LE, 2)),
        [0xFE, 0xFF, ..] => Some((TextEncoding::UTF_16BE, 2)),
        _ => None,
    }
}

/// Detect the encoding of a file from `samples`: the first is its head
/// (from byte 0), the others come from further on and may start or end
/// inside a character. `complete`: the head is the whole file.
pub fn detect(samples: &[&[u8]], complete: bool) -> Detected {
    let head = samples.first().copied().unwrap_or_default();
    if let Some((encoding, len)) = bom(head) {
        return Detected::new(encoding, len, "byte order mark", true);
    }
    if let Some(found) = wide(head) {
        return found;
    }
    let total: usize = samples.iter().map(|s| s.len()).sum();
    let places = if samples.len() > 1 {
        format!("{} bytes from {} places", total, samples.len())
    } else {
        format!("the first {total} bytes")
    };
    let utf8_ok = samples.iter().enumerate().all(|(i, s)| {
        let s = if i == 0 { *s } else { trim_utf8_edges(s) };
        valid_utf8(s, i == 0 && complete)
    });
    if utf8_ok {
        let ascii = samples.iter().all(|s| s.is_ascii());
        let why = if ascii {
            format!("ASCII only in {places}: any ASCII-compatible encoding reads it the same")
        } else {
            format!("valid UTF-8 in {places}")
        };
        return Detected::new(TextEncoding::Utf8, 0, why, true);
    }
    if let Some(found) = east_asian(samples, complete) {
        return found;
    }
    single_byte(samples)
}

/// UTF-16 or UTF-32 without a byte order mark, from where the zero bytes
/// fall (text of any script has digits, separators and line feeds, whose
/// high bytes are zero).
fn wide(head: &[u8]) -> Option<Detected> {
    let n = head.len() & !3;
    if n < 16 {
        return None;
    }
    let mut zeros = [0usize; 4];
    for q in head[..n].chunks_exact(4) {
        for (z, &b) in zeros.iter_mut().zip(q) {
            *z += usize::from(b == 0);
        }
    }
    let units = n / 4;
    let most = |z: usize| z * 10 >= units * 9;
    let few = |z: usize| z * 10 <= units;
    let (encoding, why) = if most(zeros[2]) && most(zeros[3]) && few(zeros[0]) {
        (TextEncoding::Utf32 { little_endian: true }, "UTF-32LE")
    } else if most(zeros[0]) && most(zeros[1]) && few(zeros[3]) {
        (TextEncoding::Utf32 { little_endian: false }, "UTF-32BE")
    } else if (zeros[1] + zeros[3]) * 10 >= units * 2 * 3 && few(zeros[0] + zeros[2]) {
        (TextEncoding::UTF_16LE, "UTF-16LE")
    } else if (zeros[0] + zeros[2]) * 10 >= units * 2 * 3 && few(zeros[1] + zeros[3]) {
        (TextEncoding::UTF_16BE, "UTF-16BE")
    } else {
        return None;
    };
    let evidence = format!("no byte order mark; the zero bytes of the first {n} fall as in {why}");
    Some(Detected::new(encoding, 0, evidence, true))
}

/// A sample from the middle of a file, without the pieces of characters
/// cut at either end.
fn trim_utf8_edges(s: &[u8]) -> &[u8] {
    let start = s.iter().take(3).take_while(|&&b| b & 0xC0 == 0x80).count();
    &s[start..]
}

/// Valid UTF-8, but for a sequence cut by the end of the sample (unless
/// the sample is the end of the file).
fn valid_utf8(s: &[u8], complete: bool) -> bool {
    match std::str::from_utf8(s) {
        Ok(_) => true,
        Err(e) => e.error_len().is_none() && !complete,
    }
}

/// The East Asian encodings `auto` considers. On a tie the first wins:
/// EUC-KR's Hangul syllables are byte for byte GB2312's commonest Hanzi,
/// but Chinese text also uses lead bytes past 0xC8, which EUC-KR does not
/// count as common.
const EAST_ASIAN: [&encoding_rs::Encoding; 6] = [
    encoding_rs::EUC_KR,
    encoding_rs::GB18030,
    encoding_rs::BIG5,
    encoding_rs::SHIFT_JIS,
    encoding_rs::EUC_JP,
    encoding_rs::GBK,
];

/// One of [`EAST_ASIAN`], when the samples decode in it without error and
/// at least half of their characters over ASCII are among its common ones
/// (kana, the first level of kanji or Hanzi, Hangul syllables): western
/// text with accents rarely decodes cleanly in these encodings, and when
/// it does, its pairs of bytes land on rare characters. The encoding with
/// the most common characters wins.
fn east_asian(samples: &[&[u8]], complete: bool) -> Option<Detected> {
    let mut scored: Vec<(usize, usize, &'static encoding_rs::Encoding)> = Vec::new();
    for enc in EAST_ASIAN.into_iter().filter(|&e| e != encoding_rs::GBK) {
        let mut chars = 0;
        let mut common = 0;
        let mut clean = true;
        for (i, s) in samples.iter().enumerate() {
            let s = between_line_feeds(s, i, complete);
            if enc.decode_without_bom_handling_and_without_replacement(s).is_none() {
                clean = false;
                break;
            }
            let (c, k) = common_chars(enc, s);
            chars += c;
            common += k;
        }
        if clean && common >= 8 && common * 2 >= chars {
            scored.push((common, chars, enc));
        }
    }
    // Highest first; a tie keeps the table's order (the sort is stable).
    scored.sort_by_key(|&(common, _, _)| std::cmp::Reverse(common));
    let &(common, chars, enc) = scored.first()?;
    let runner_up = scored.get(1).map_or(0, |s| s.0);
    let evidence = format!(
        "not UTF-8; the samples decode without error, {common} of {chars} characters over \
         ASCII among its common ones"
    );
    // A close second is a doubt worth saying.
    let certain = runner_up * 10 < common * 8;
    Some(Detected::new(TextEncoding::Whatwg(enc), 0, evidence, certain))
}

/// A sample read from line feed to line feed (0x0A is never part of a
/// character in these encodings): one from the middle (`i > 0`) may start
/// on a trail byte, and any but a whole file's head may end on a lead.
fn between_line_feeds(s: &[u8], i: usize, complete: bool) -> &[u8] {
    let mut s = s;
    if i > 0 {
        s = &s[memchr::memchr(b'\n', s).map_or(s.len(), |p| p + 1)..];
    }
    if !(i == 0 && complete) {
        s = &s[..memchr::memrchr(b'\n', s).map_or(0, |p| p + 1)];
    }
    s
}

/// The characters over ASCII in `s` (which decodes cleanly in `enc`), and
/// how many are common, told by their lead byte: kana and the first level
/// of kanji (Shift_JIS 82-83 and 88-98, half-width kana; EUC-JP A4-A5,
/// B0-CF), GB2312's first level of Hanzi (B0-D7 with a trail over A0),
/// Big5's frequent characters (A4-C6), Hangul syllables (EUC-KR B0-C8).
fn common_chars(enc: &'static encoding_rs::Encoding, s: &[u8]) -> (usize, usize) {
    let (mut chars, mut common) = (0, 0);
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        if b < 0x80 {
            i += 1;
            continue;
        }
        let trail = s.get(i + 1).copied().unwrap_or(0);
        chars += 1;
        let (len, is_common) = if enc == encoding_rs::SHIFT_JIS {
            match b {
                // Half-width kana: rare, and where a Chinese text's bytes
                // land when read as Shift_JIS.
                0xA1..=0xDF => (1, false),
                _ => (2, matches!(b, 0x82 | 0x83 | 0x88..=0x98)),
            }
        } else if enc == encoding_rs::EUC_JP {
            match b {
                0x8E => (2, true),
                0x8F => (3, false),
                _ => (2, matches!(b, 0xA4 | 0xA5 | 0xB0..=0xCF)),
            }
        } else if enc == encoding_rs::EUC_KR {
            (2, (0xB0..=0xC8).contains(&b) && trail >= 0xA1)
        } else if enc == encoding_rs::BIG5 {
            (2, (0xA4..=0xC6).contains(&b))
        } else if trail.is_ascii_digit() {
            // GB18030's four-byte form: rare characters.
            (4, false)
        } else {
            (2, (0xB0..=0xD7).contains(&b) && trail >= 0xA1)
        };
        common += usize::from(is_common);
        i += len;
    }
    (chars, common)
}

/// windows-1252 or ISO-8859-1, by the bytes 0x80-0x9F.
fn single_byte(samples: &[&[u8]]) -> Detected {
    let c1 = |b: u8| (0x80..=0x9F).contains(&b);
    // Unassigned in windows-1252: a file that has them is ISO-8859-1's.
    let unassigned = |b: u8| matches!(b, 0x81 | 0x8D | 0x8F | 0x90 | 0x9D);
    let mut seen_c1 = 0usize;
    let mut seen_unassigned = 0usize;
    // Western text's accented letters stand between ASCII ones; bytes over
    // 0x7F side by side look like a multi-byte encoding `auto` did not
    // recognise.
    let (mut high, mut beside_high) = (0usize, 0usize);
    for s in samples {
        for (i, &b) in s.iter().enumerate() {
            seen_c1 += usize::from(c1(b));
            seen_unassigned += usize::from(unassigned(b));
            if b >= 0x80 {
                high += 1;
                let next = s.get(i + 1).is_some_and(|&n| n >= 0x80);
                let prev = i > 0 && s[i - 1] >= 0x80;
                beside_high += usize::from(next || prev);
            }
        }
    }
    let western = beside_high * 3 <= high;
    let doubt = if western {
        String::new()
    } else {
        format!(
            "; {beside_high} of {high} bytes over 0x7F stand side by side, as in a multi-byte \
             encoding"
        )
    };
    if seen_unassigned > 0 {
        let why = format!(
            "not UTF-8; {seen_unassigned} bytes in 0x80-0x9F that windows-1252 leaves unassigned{doubt}"
        );
        return Detected::new(TextEncoding::Latin1, 0, why, western);
    }
    if seen_c1 > 0 {
        let why = format!(
            "not UTF-8; {seen_c1} bytes in 0x80-0x9F, printable in windows-1252 (€ ‘ ’ “ ” …), \
             control codes in ISO-8859-1{doubt}"
        );
        return Detected::new(TextEncoding::WINDOWS_1252, 0, why, western);
    }
    let why = format!("not UTF-8; no byte in 0x80-0x9F, so ISO-8859-1 reads the same text{doubt}");
    Detected::new(TextEncoding::WINDOWS_1252, 0, why, western)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(e: &'static encoding_rs::Encoding, s: &str) -> Vec<u8> {
        let (b, _, bad) = e.encode(s);
        assert!(!bad, "{s} in {}", e.name());
        b.into_owned()
    }

    fn utf16(s: &str, le: bool) -> Vec<u8> {
        s.encode_utf16().flat_map(|u| if le { u.to_le_bytes() } else { u.to_be_bytes() }).collect()
    }

    fn utf32(s: &str, le: bool) -> Vec<u8> {
        s.chars()
            .flat_map(|c| if le { (c as u32).to_le_bytes() } else { (c as u32).to_be_bytes() })
            .collect()
    }

    fn found(bytes: &[u8]) -> String {
        detect(&[bytes], true).encoding.name().to_string()
    }

    const WEST: &str =
        "id,name,city,amount\n1,José,München,3\n2,Zoë,Zürich,4\n3,Renée,Besançon,5\n";
    const JAPANESE: &str = "番号,名前,都市\n1,山田太郎,東京都\n2,佐藤花子,大阪府\n3,鈴木一郎,名古屋市\n4,たなか,ひらがな\n";
    const CHINESE: &str =
        "编号,姓名,城市\n1,张伟,北京市\n2,王芳,上海市\n3,李娜,广州市\n4,刘洋,深圳市\n";
    const KOREAN: &str =
        "번호,이름,도시\n1,김민준,서울특별시\n2,이서연,부산광역시\n3,박지훈,인천광역시\n";

    #[test]
    fn a_bom_decides() {
        assert_eq!(found(b"\xEF\xBB\xBFa,b\n"), "UTF-8");
        assert_eq!(found(b"\xFF\xFEa\0"), "UTF-16LE");
        assert_eq!(found(b"\xFE\xFF\0a"), "UTF-16BE");
        assert_eq!(found(b"\xFF\xFE\0\0a\0\0\0"), "UTF-32LE");
        assert_eq!(detect(&[b"\xFF\xFEa\0"], true).bom, 2);
    }

    #[test]
    fn zero_bytes_tell_utf16_and_utf32_without_a_bom() {
        for text in [WEST, JAPANESE, KOREAN] {
            assert_eq!(found(&utf16(text, true)), "UTF-16LE", "{text}");
            assert_eq!(found(&utf16(text, false)), "UTF-16BE", "{text}");
            assert_eq!(found(&utf32(text, true)), "UTF-32LE", "{text}");
            assert_eq!(found(&utf32(text, false)), "UTF-32BE", "{text}");
        }
    }

    #[test]
    fn utf8_and_ascii_are_utf8() {
        assert_eq!(found(WEST.as_bytes()), "UTF-8");
        assert_eq!(found(JAPANESE.as_bytes()), "UTF-8");
        let d = detect(&[b"a,b\n1,2\n"], true);
        assert!(d.evidence.contains("ASCII only"), "{}", d.evidence);
        // A sequence cut by the end of the head is not a fault.
        let cut = &"a,é".as_bytes()[..3];
        assert_eq!(detect(&[cut], false).encoding, TextEncoding::Utf8);
        assert_ne!(detect(&[cut], true).encoding, TextEncoding::Utf8);
    }

    #[test]
    fn western_text_is_windows_1252_or_latin1_by_the_c1_bytes() {
        assert_eq!(found(&encode(encoding_rs::WINDOWS_1252, WEST)), "windows-1252");
        let quotes = format!("{WEST}4,“quoted” – €5,x\n");
        let d = detect(&[&encode(encoding_rs::WINDOWS_1252, &quotes)], true);
        assert_eq!(d.encoding, TextEncoding::WINDOWS_1252);
        assert!(d.evidence.contains("0x80-0x9F"), "{}", d.evidence);
        let mut latin1 = encode(encoding_rs::WINDOWS_1252, WEST);
        latin1.extend_from_slice(b"9,\x81\x8d,x\n");
        assert_eq!(found(&latin1), "ISO-8859-1");
    }

    #[test]
    fn western_text_is_not_taken_for_east_asian() {
        // Accents before letters decode cleanly in GBK and Big5, to rare
        // characters.
        for text in
            ["Müller,Äpfel,Grüße\nMöbel,Ärger,Öl\n", "Ça va,Élise,Ångström\nnaïve,Zoë,Åse\n"]
        {
            let bytes = encode(encoding_rs::WINDOWS_1252, &text.repeat(20));
            assert_eq!(found(&bytes), "windows-1252", "{text}");
        }
    }

    #[test]
    fn east_asian_text_is_told_by_its_script() {
        for _ in 0..2 {
            let jp = JAPANESE.repeat(3);
            let cn = CHINESE.repeat(3);
            let kr = KOREAN.repeat(3);
            assert_eq!(found(&encode(encoding_rs::SHIFT_JIS, &jp)), "Shift_JIS");
            assert_eq!(found(&encode(encoding_rs::EUC_JP, &jp)), "EUC-JP");
            assert_eq!(found(&encode(encoding_rs::GB18030, &cn)), "gb18030");
            assert_eq!(found(&encode(encoding_rs::EUC_KR, &kr)), "EUC-KR");
            // Big5's trail bytes may be ASCII (許 is B3 5C).
            let tw = "編號,姓名,城市\n1,張偉,臺北市\n2,許功蓋,高雄市\n3,王小明,台中市\n".repeat(3);
            assert_eq!(found(&encode(encoding_rs::BIG5, &tw)), "Big5");
        }
    }
}

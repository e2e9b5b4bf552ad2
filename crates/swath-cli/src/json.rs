//! JSON string literals, for every command that prints JSON (`count
//! --json`, `csv to-json`, `csv stats --json`).

/// Append `s` as a JSON string.
pub fn push_string(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    // Most strings need no escape: one scan, one copy.
    let plain = |b: u8| b >= 0x20 && b != b'"' && b != b'\\';
    if bytes.iter().all(|&b| plain(b)) {
        out.reserve(bytes.len() + 2);
        out.push(b'"');
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    out.push(b'"');
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        if esc.is_empty() {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[usize::from(b >> 4)]);
            out.push(HEX[usize::from(b & 15)]);
        } else {
            out.extend_from_slice(esc);
        }
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// `s` as a JSON string literal.
pub fn string(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len() + 2);
    push_string(&mut out, s);
    // Only ASCII escapes were added to valid UTF-8.
    String::from_utf8(out).expect("JSON escaping keeps UTF-8 valid")
}

#[cfg(test)]
mod tests {
    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(super::string("a\"b\\c\nd\u{1}é"), r#""a\"b\\c\nd\u0001é""#);
    }
}

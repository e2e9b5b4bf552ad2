//! JSON string literals, for every command that prints JSON (`count
//! --json`, `csv to-json`, `csv stats --json`).

use swath::swar::{half, nonzero_bytes, splat, word, HIGH};

/// Whether every byte of `bytes` is plain ASCII, which a JSON string holds
/// as it is: 0x20 to 0x7f, but not `"` or `\`. Then `bytes` is valid
/// UTF-8 and goes into a JSON string as it is, so the caller can skip both
/// the UTF-8 check and the escape loop (a third of `csv to-json`). SSE2 on
/// x86_64 (part of its baseline), eight bytes at a time elsewhere; most CSV
/// fields are shorter than 16 bytes and are read as two overlapping words.
#[inline]
pub fn is_plain_ascii(bytes: &[u8]) -> bool {
    let n = bytes.len();
    if n < 16 {
        let Some((a, b)) = two_words(bytes) else {
            return true;
        };
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::_mm_set_epi64x;
            // SAFETY: SSE2 is in the x86_64 baseline; no memory is touched.
            return sse2::plain(unsafe { _mm_set_epi64x(b as i64, a as i64) });
        }
        #[cfg(not(target_arch = "x86_64"))]
        return word_plain(a) & word_plain(b);
    }
    #[cfg(target_arch = "x86_64")]
    {
        // The last 16 bytes overlap the chunk before: testing a byte twice
        // is harmless.
        bytes.chunks_exact(16).all(sse2::chunk_plain) && sse2::chunk_plain(&bytes[n - 16..])
    }
    #[cfg(not(target_arch = "x86_64"))]
    is_plain_ascii_words(bytes)
}

/// [`is_plain_ascii`] eight bytes at a time, without SIMD: the path of
/// other architectures, tested on every one.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn is_plain_ascii_words(bytes: &[u8]) -> bool {
    let n = bytes.len();
    if n < 16 {
        return two_words(bytes).is_none_or(|(a, b)| word_plain(a) & word_plain(b));
    }
    let mut at = 0;
    while at + 8 <= n {
        if !word_plain(word(bytes, at)) {
            return false;
        }
        at += 8;
    }
    word_plain(word(bytes, n - 8))
}

/// A string shorter than 16 bytes as two words that cover it, each byte at
/// least once (and only its bytes); `None` when it is empty.
#[inline(always)]
fn two_words(bytes: &[u8]) -> Option<(u64, u64)> {
    let n = bytes.len();
    Some(if n >= 8 {
        (word(bytes, 0), word(bytes, n - 8))
    } else if n >= 4 {
        let w = u64::from(half(bytes, 0)) | u64::from(half(bytes, n - 4)) << 32;
        (w, w)
    } else if n > 0 {
        // Three bytes (first, middle, last) cover any length below 4.
        let w = u64::from_le_bytes([bytes[0], bytes[n / 2], bytes[n - 1], bytes[0], 0, 0, 0, 0]);
        (w | w << 32, w | w << 32)
    } else {
        return None;
    })
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::*;

    /// Whether all 16 bytes of `v` are plain ASCII.
    #[inline(always)]
    pub(super) fn plain(v: __m128i) -> bool {
        // SAFETY: SSE2 is in the x86_64 baseline; no memory is touched.
        unsafe {
            // Signed, bytes of 0x80 and up are negative: below 0x20 too.
            let low = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
            let quote = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8));
            let backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8));
            _mm_movemask_epi8(_mm_or_si128(low, _mm_or_si128(quote, backslash))) == 0
        }
    }

    /// Whether the first 16 bytes of `chunk` are plain ASCII.
    #[inline(always)]
    pub(super) fn chunk_plain(chunk: &[u8]) -> bool {
        assert!(chunk.len() >= 16);
        // SAFETY: SSE2 is in the x86_64 baseline; the unaligned load reads
        // the first 16 bytes of `chunk`, which has at least 16 (checked).
        plain(unsafe { _mm_loadu_si128(chunk.as_ptr() as *const __m128i) })
    }
}

/// Whether the eight bytes of `w` are plain ASCII (SWAR).
#[inline(always)]
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn word_plain(w: u64) -> bool {
    let nonzero = nonzero_bytes;
    let ascii = w & HIGH == 0;
    // With every byte below 0x80, adding 0x60 sets the high bit exactly
    // in the bytes at or above 0x20, without carries.
    let printable = w.wrapping_add(splat(0x60)) & HIGH == HIGH;
    let no_quote = nonzero(w ^ splat(b'"')) == HIGH;
    let no_backslash = nonzero(w ^ splat(b'\\')) == HIGH;
    ascii & printable & no_quote & no_backslash
}

/// Append `bytes`, which [`is_plain_ascii`] accepted, as a JSON string.
#[inline]
pub fn push_plain(out: &mut Vec<u8>, bytes: &[u8]) {
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    out.extend_from_slice(bytes);
    out.push(b'"');
}

/// Append `s` as a JSON string.
pub fn push_string(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    // Most strings need no escape: one scan, one copy.
    if is_plain_ascii(bytes) {
        push_plain(out, bytes);
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

    /// The 16-byte test against the byte loop, for every length to 40 and
    /// every position of every kind of byte.
    #[test]
    fn plain_ascii_matches_the_byte_loop() {
        for len in 0..40 {
            for pos in 0..len {
                for b in 0..=255u8 {
                    let mut v = vec![b'a'; len];
                    v[pos] = b;
                    let want =
                        v.iter().all(|&b| (0x20..0x80).contains(&b) && b != b'"' && b != b'\\');
                    assert_eq!(super::is_plain_ascii(&v), want, "{len} {pos} {b:#x}");
                    assert_eq!(super::is_plain_ascii_words(&v), want, "{len} {pos} {b:#x}");
                }
            }
            assert!(super::is_plain_ascii(&vec![b'a'; len]));
        }
        // Mixes of the bytes at the edges of each test, several at once
        // (SWAR goes wrong through carries between bytes, if anywhere).
        let edges = [0x00, 0x1f, 0x20, 0x21, 0x22, 0x23, 0x5b, 0x5c, 0x5d, 0x7e, 0x7f, 0x80, 0xff];
        let mut rng = swath_testkit::Rng::new(0x2545_f491_4f6c_dd1d);
        for _ in 0..50_000 {
            let seed = rng.next_u64();
            let len = (seed % 40) as usize;
            let v: Vec<u8> = (0..len)
                .map(|i| {
                    let r = (seed >> (i % 48)) as usize;
                    if r % 5 == 0 {
                        edges[r / 5 % edges.len()]
                    } else {
                        b'a' + (r % 26) as u8
                    }
                })
                .collect();
            let want = v.iter().all(|&b| (0x20..0x80).contains(&b) && b != b'"' && b != b'\\');
            assert_eq!(super::is_plain_ascii(&v), want, "{v:?}");
            assert_eq!(super::is_plain_ascii_words(&v), want, "{v:?}");
        }
    }
}

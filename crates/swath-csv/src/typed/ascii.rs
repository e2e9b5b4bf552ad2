//! ASCII checks for short fields, cheaper than `from_utf8` on them.

/// `&str` of a field, skipping full validation for ASCII: most fields are
/// ASCII, and an ASCII check is much cheaper than `from_utf8` on short
/// fields (which was 17% of a typed scan).
#[inline]
pub(crate) fn ascii_str(f: &[u8]) -> std::result::Result<&str, std::str::Utf8Error> {
    if is_ascii(f) {
        // SAFETY: ASCII bytes are valid UTF-8.
        return Ok(unsafe { std::str::from_utf8_unchecked(f) });
    }
    std::str::from_utf8(f)
}

/// Whether a field is UTF-8, as `&str`'s [`FromField`](super::FromField)
/// checks it (ASCII first, full validation only past it).
#[inline]
pub fn is_utf8(f: &[u8]) -> bool {
    is_ascii(f) || std::str::from_utf8(f).is_ok()
}

/// `<[u8]>::is_ascii` (its slow twin in the tests) for short fields: a few
/// overlapping word loads instead of a byte loop below 8 bytes and a
/// head/body/tail split above.
#[inline]
pub(crate) fn is_ascii(f: &[u8]) -> bool {
    const HI: u64 = 0x8080_8080_8080_8080;
    let n = f.len();
    let word = |i: usize| u64::from_le_bytes(f[i..i + 8].try_into().unwrap_or([0; 8]));
    let half = |i: usize| u32::from_le_bytes(f[i..i + 4].try_into().unwrap_or([0; 4]));
    if n >= 8 {
        // Whole words, then the last 8 bytes (overlapping the last word).
        let mut acc = word(n - 8);
        let mut i = 0;
        while i + 8 <= n {
            acc |= word(i);
            i += 8;
        }
        acc & HI == 0
    } else if n >= 4 {
        (half(0) | half(n - 4)) & 0x8080_8080 == 0
    } else {
        f.iter().all(|&b| b < 0x80)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ascii_check_equals_the_standard_one() {
        let mut rng = swath_testkit::Rng::new(0x9e3779b97f4a7c15);
        let mut buf = [b'a'; 80];
        for n in 0..=80 {
            for hi in 0..=n {
                // No high byte, then one at each place, over shifting
                // starts so loads see every alignment.
                let f = &mut buf[..n];
                f.fill(b'a' + (n % 26) as u8);
                if hi < n {
                    f[hi] = 0x80 | (rng.next_u64() as u8);
                }
                assert_eq!(is_ascii(f), f.is_ascii(), "n {n} hi {hi}");
                for lead in 0..n.min(8) {
                    assert_eq!(is_ascii(&f[lead..]), f[lead..].is_ascii(), "{n} {hi} {lead}");
                }
            }
        }
    }
}

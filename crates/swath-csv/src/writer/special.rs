//! Does a field hold a byte that forces quoting? Eight bytes at a time
//! (SWAR), with the plain byte-table loop as its slow twin.
//!
//! The table loop was the largest cost of `write_row` in the profile (one
//! load, compare and branch per byte); this looks at a word per step.

use swath::swar::{half, nonzero_bytes, splat, word, HIGH, LO, LOW7};

/// The bytes that force quoting: delimiter, quote and escape exactly, plus
/// `\r` and `\n`, which the word test covers with "any byte below 0x0e"
/// (cheaper than two more equality tests; the other control bytes it also
/// flags are sent to the exact byte loop, and are rare in text).
#[derive(Clone, Debug)]
pub(crate) struct Specials {
    /// Delimiter, quote, escape (or the quote again), each in every byte.
    splats: [u64; 3],
    /// The same three bytes and 0x0d, each in every byte of a vector, for
    /// the SSE2 test (built once: splatting per call was a third of it).
    #[cfg(target_arch = "x86_64")]
    vectors: [std::arch::x86_64::__m128i; 4],
    /// The exact set, for the byte loop.
    table: [bool; 256],
}

impl Specials {
    pub(crate) fn new(delimiter: u8, quote: u8, escape: Option<u8>) -> Specials {
        let mut table = [false; 256];
        for b in [delimiter, quote, b'\r', b'\n'] {
            table[b as usize] = true;
        }
        if let Some(e) = escape {
            table[e as usize] = true;
        }
        let e = escape.unwrap_or(quote);
        Specials {
            splats: [splat(delimiter), splat(quote), splat(e)],
            #[cfg(target_arch = "x86_64")]
            vectors: splat16([delimiter, quote, e, 0x0d]),
            table,
        }
    }

    /// High bit set in each byte of `word` that may be special: every
    /// special byte is flagged; control bytes below 0x0e are too. Exact
    /// per byte: `(y & LOW7) + LOW7` never carries into the next byte.
    #[inline(always)]
    fn candidates(&self, word: u64) -> u64 {
        let mut nonzero_all = HIGH;
        for &s in &self.splats {
            let y = word ^ s;
            nonzero_all &= nonzero_bytes(y);
        }
        // High bit set where the byte is 0x0e or more.
        let not_low = ((word & LOW7) + LO * (0x80 - 0x0e)) | word;
        !(nonzero_all & not_low) & HIGH
    }

    /// Whether `buf[start..]` holds a special byte. Reads whole words of
    /// `buf`, including bytes before `start` when the field is shorter than
    /// a word (their flags are masked off); a flagged word is confirmed by
    /// the exact byte loop.
    #[inline(always)]
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    pub(crate) fn any_in_tail_swar(&self, buf: &[u8], start: usize) -> bool {
        let end = buf.len();
        let len = end - start;
        let flagged = if len >= 8 {
            let mut flags = 0;
            let mut i = start;
            while i + 8 <= end {
                flags |= self.candidates(word(buf, i));
                i += 8;
            }
            // The last, overlapping word: all of it is field.
            if i != end {
                flags |= self.candidates(word(buf, end - 8));
            }
            flags != 0
        } else if len == 0 {
            false
        } else if end >= 8 {
            // The word ending at `end`; its low `8 - len` bytes (little
            // endian: the first ones) are not the field.
            self.candidates(word(buf, end - 8)) >> ((8 - len) * 8) != 0
        } else {
            true
        };
        flagged && self.any_slow(&buf[start..])
    }

    /// Whether `buf[start..]` holds a special byte: SSE2 on x86_64 (part of
    /// its baseline, so no detection), SWAR elsewhere.
    #[inline(always)]
    pub(crate) fn any_in_tail(&self, buf: &[u8], start: usize) -> bool {
        #[cfg(target_arch = "x86_64")]
        return self.any_in_tail_sse2(buf, start);
        #[cfg(not(target_arch = "x86_64"))]
        return self.any_in_tail_swar(buf, start);
    }

    /// Bit i set when byte i of `chunk` may be special (as `candidates`).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn candidates16(&self, chunk: &[u8]) -> u32 {
        use std::arch::x86_64::*;
        assert!(chunk.len() >= 16);
        // SAFETY: SSE2 is in the x86_64 baseline; the unaligned load reads
        // the first 16 bytes of `chunk`, which has at least 16 (checked).
        let v = unsafe { _mm_loadu_si128(chunk.as_ptr() as *const __m128i) };
        self.candidates_vector(v)
    }

    /// Bit i set when byte i of `v` may be special (as `candidates`).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn candidates_vector(&self, v: std::arch::x86_64::__m128i) -> u32 {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is in the x86_64 baseline; no memory is touched.
        unsafe {
            let [d, q, e, cr] = self.vectors;
            let d = _mm_cmpeq_epi8(v, d);
            let q = _mm_cmpeq_epi8(v, q);
            let e = _mm_cmpeq_epi8(v, e);
            // Unsigned byte < 0x0e: min(byte, 0x0d) == byte.
            let low = _mm_cmpeq_epi8(_mm_min_epu8(v, cr), v);
            let any = _mm_or_si128(_mm_or_si128(d, q), _mm_or_si128(e, low));
            _mm_movemask_epi8(any) as u32
        }
    }

    /// As `any_in_tail_swar`, sixteen bytes at a time.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(crate) fn any_in_tail_sse2(&self, buf: &[u8], start: usize) -> bool {
        let end = buf.len();
        let len = end - start;
        let flagged = if len >= 16 {
            let mut flags = 0;
            let mut i = start;
            while i + 16 <= end {
                flags |= self.candidates16(&buf[i..]);
                i += 16;
            }
            if i != end {
                flags |= self.candidates16(&buf[end - 16..]);
            }
            flags != 0
        } else if len == 0 {
            false
        } else if end >= 16 {
            // The 16 bytes ending at `end`; the first `16 - len` are not
            // the field.
            self.candidates16(&buf[end - 16..]) >> (16 - len) != 0
        } else {
            return self.any_in_tail_swar(buf, start);
        };
        flagged && self.any_slow(&buf[start..])
    }

    /// Whether `field` (a slice the caller is about to copy) holds a special
    /// byte. Preferred over `any_in_tail` when the source exists: loading
    /// 16 bytes of the buffer right after writing them in smaller pieces
    /// stalls on store forwarding (half of `write_field` in the profile of
    /// `csv select`). Reads only inside `field`: short fields are covered
    /// by two overlapping words.
    #[inline(always)]
    pub(crate) fn any_in(&self, field: &[u8]) -> bool {
        let n = field.len();
        let flagged = if n >= 16 {
            #[cfg(target_arch = "x86_64")]
            {
                let mut flags = 0;
                let mut i = 0;
                while i + 16 <= n {
                    flags |= self.candidates16(&field[i..]);
                    i += 16;
                }
                if i != n {
                    flags |= self.candidates16(&field[n - 16..]);
                }
                flags != 0
            }
            #[cfg(not(target_arch = "x86_64"))]
            {
                self.any_in_tail_swar(field, 0)
            }
        } else {
            let (a, b) = if n >= 8 {
                (word(field, 0), word(field, n - 8))
            } else if n >= 4 {
                let x = half(field, 0) as u64;
                let y = half(field, n - 4) as u64;
                (x | y << 32, x | y << 32)
            } else if n > 0 {
                let w = u64::from_le_bytes([
                    field[0],
                    field[n / 2],
                    field[n - 1],
                    field[0],
                    field[0],
                    field[0],
                    field[0],
                    field[0],
                ]);
                (w, w)
            } else {
                return false;
            };
            self.candidates_pair(a, b)
        };
        flagged && self.any_slow(field)
    }

    /// Whether either word may hold a special byte. On x86_64 the two
    /// words go into one SSE2 vector: a dozen instructions, where the SWAR
    /// test of both took about fifty (a fifth of `csv select`'s profile,
    /// whose fields are mostly shorter than 16 bytes).
    #[inline(always)]
    fn candidates_pair(&self, a: u64, b: u64) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::_mm_set_epi64x;
            // SAFETY: SSE2 is in the x86_64 baseline; no memory is touched.
            let v = unsafe { _mm_set_epi64x(b as i64, a as i64) };
            self.candidates_vector(v) != 0
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self.candidates(a) | self.candidates(b) != 0
        }
    }

    /// The slow twin: one byte at a time, exact.
    pub(crate) fn any_slow(&self, field: &[u8]) -> bool {
        field.iter().any(|&b| self.table[b as usize])
    }
}

#[cfg(target_arch = "x86_64")]
fn splat16(bytes: [u8; 4]) -> [std::arch::x86_64::__m128i; 4] {
    // SAFETY: SSE2 is in the x86_64 baseline.
    bytes.map(|b| unsafe { std::arch::x86_64::_mm_set1_epi8(b as i8) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field length 0..40 at every start 0..20, with each byte
    /// position holding a special byte, a neighbour of one (the classic
    /// SWAR false positives: value ^ 1, 0x80) or a plain byte, and a
    /// special byte just before the field: fast and slow agree.
    #[test]
    fn swar_matches_the_byte_loop() {
        let sets: [(u8, u8, Option<u8>); 4] = [
            (b',', b'"', None),
            (b';', b'\'', Some(b'\\')),
            (b'\0', b'\xff', Some(b'\r')),
            (b'\t', b'"', None),
        ];
        for (d, q, e) in sets {
            let sp = Specials::new(d, q, e);
            let set = [d, q, e.unwrap_or(q), b'\r', b'\n', b'\t', 0];
            let probes: Vec<u8> = set
                .iter()
                .flat_map(|&b| [b, b ^ 1, b.wrapping_add(1), b | 0x80])
                .chain([b'a', 0x80, 0x7f, 0x01, 0x0e, 0x0d, 0x8d])
                .collect();
            for start in (0..18).chain([31, 33]) {
                for len in 0..40 {
                    let mut buf = vec![b'x'; start];
                    if start > 0 {
                        buf[start - 1] = set[0];
                    }
                    buf.resize(start + len, b'a');
                    for pos in 0..len.max(1) {
                        for &p in &probes {
                            if len > 0 {
                                buf[start + pos] = p;
                            }
                            let want = sp.any_slow(&buf[start..]);
                            // Messages are formatted only on failure.
                            let swar = sp.any_in_tail_swar(&buf, start);
                            assert!(swar == want, "swar: {set:?} {start} {len} {pos} {p:#x}");
                            let src = sp.any_in(&buf[start..]);
                            assert!(src == want, "source: {set:?} {start} {len} {pos} {p:#x}");
                            #[cfg(target_arch = "x86_64")]
                            {
                                let sse2 = sp.any_in_tail_sse2(&buf, start);
                                assert!(sse2 == want, "sse2: {set:?} {start} {len} {pos} {p:#x}");
                            }
                        }
                        if len > 0 {
                            buf[start + pos] = b'a';
                        }
                    }
                }
            }
        }
    }
}

//! One pass over a chunk under both hypotheses of where it starts.
//!
//! A worker handed a byte range in the middle of a file does not know
//! whether its first byte is inside a quoted field. With double-quote
//! escaping, quote state is the parity of quote bytes seen so far, so one
//! pass can answer for both starts at once: a terminator byte is outside
//! quotes under "starts outside" exactly when it is inside under "starts
//! inside". A short serial chain over the chunks' final parities then picks
//! the real answer for each (DESIGN.md, core idea 4; issue 6 builds on it).
//!
//! Exact for input that strict mode accepts with no escape byte: a bare
//! quote inside an unquoted field (lenient mode's literal quote) or an
//! escape byte breaks the parity model, so such input must take the serial
//! reader.

use crate::classify::{Kernel, BLOCK};

/// What one chunk holds under both hypotheses. Index 0 is "the chunk starts
/// outside quotes", index 1 "the chunk starts inside a quoted field".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChunkQuotes {
    /// Terminator bytes (`\r` or `\n`) outside quotes. A `\r\n` pair counts
    /// twice; empty lines count too. It is an upper bound on records and
    /// exact for files with `\n` endings and no empty lines.
    pub ends: [u64; 2],
    /// Offset of the first terminator byte outside quotes: where the first
    /// record that starts in the next chunk can begin, after it.
    pub first_end: [Option<usize>; 2],
    /// True when the chunk holds an odd number of quote bytes, so the next
    /// chunk starts in the opposite state.
    pub odd_quotes: bool,
}

/// Scan `chunk` with `kernel`, for quote byte `quote`.
pub fn scan_both(kernel: Kernel, chunk: &[u8], quote: u8) -> ChunkQuotes {
    let mut out = ChunkQuotes::default();
    // All ones while the current position is inside quotes under hypothesis 0.
    let mut inside = 0u64;
    for (b, block) in chunk.chunks(BLOCK).enumerate() {
        let [q, cr, lf] = kernel.masks_partial(block, &[quote, b'\r', b'\n']);
        let inq = prefix_xor(q) ^ inside;
        let term = cr | lf;
        for (h, ends) in [term & !inq, term & inq].into_iter().enumerate() {
            out.ends[h] += u64::from(ends.count_ones());
            if out.first_end[h].is_none() && ends != 0 {
                out.first_end[h] = Some(b * BLOCK + ends.trailing_zeros() as usize);
            }
        }
        if q.count_ones() % 2 == 1 {
            inside = !inside;
        }
    }
    out.odd_quotes = inside != 0;
    out
}

/// The scalar twin of [`scan_both`]: a byte loop with a flag.
pub fn scan_both_scalar(chunk: &[u8], quote: u8) -> ChunkQuotes {
    let mut out = ChunkQuotes::default();
    let mut inside = false;
    for (i, &b) in chunk.iter().enumerate() {
        if b == quote {
            inside = !inside;
        } else if b == b'\r' || b == b'\n' {
            let h = usize::from(inside);
            out.ends[h] += 1;
            out.first_end[h].get_or_insert(i);
        }
    }
    out.odd_quotes = inside;
    out
}

/// Bit `i` of the result is the XOR of bits `0..=i` of `x`: which bytes are
/// inside quotes, counting each quote as opening or closing.
#[inline]
fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vector_scan_matches_the_scalar_twin() {
        let mut seed = 0x9e3779b97f4a7c15u64;
        let alphabet = b"a,\"\r\n bc";
        let mut data = vec![0u8; 3000];
        for b in data.iter_mut() {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            *b = alphabet[(seed % alphabet.len() as u64) as usize];
        }
        for k in Kernel::available() {
            for lead in 0..64 {
                for len in (0..200).chain([500, 1000, 2900]) {
                    let c = &data[lead..lead + len];
                    assert_eq!(
                        scan_both(k, c, b'"'),
                        scan_both_scalar(c, b'"'),
                        "{} {lead} {len}",
                        k.name()
                    );
                }
            }
        }
    }

    #[test]
    fn both_hypotheses_on_a_known_chunk() {
        // Outside: `a"b\nc"\n` has one end (the last). Inside: the first.
        let r = scan_both(Kernel::detect(), b"a\"b\nc\"\nd", b'"');
        assert_eq!(r.ends, [1, 1]);
        assert_eq!(r.first_end, [Some(6), Some(3)]);
        assert!(!r.odd_quotes);
        assert!(scan_both(Kernel::detect(), b"x\"", b'"').odd_quotes);
    }
}

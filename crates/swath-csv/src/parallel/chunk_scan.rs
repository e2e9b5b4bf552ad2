//! Phase 1: one SIMD pass over a chunk under both quote hypotheses.
//!
//! With double-quote escaping, quote state is the parity of the quote bytes
//! seen so far, so one pass answers for both starts at once. Beside the
//! quote parity at the end, it keeps what the serial chain needs to number
//! records and lines exactly: for each hypothesis the first
//! record boundary (the byte after a terminator outside quotes, `\r\n`
//! counted once), the `\n` bytes before it, and the record starts in the
//! chunk as the reader would find them (empty lines skipped or kept). The
//! counts are a prediction under the quote-parity model; phase 2 checks
//! each one against the real reader.

use super::bits::prefix_xor;
use crate::classify::{Classify, Kernel, BLOCK};

/// What one chunk holds. Index 0 of each pair is "the chunk starts outside
/// quotes", index 1 "the chunk starts inside a quoted field".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ChunkScan {
    /// The first boundary at or after the chunk's start, relative to it
    /// (`0..=len`); `None` when there is none in the chunk.
    pub(crate) first: [Option<usize>; 2],
    /// `\n` bytes before `first` (all of them when there is no boundary).
    pub(crate) lf_before: [u64; 2],
    /// Record starts in the chunk.
    pub(crate) starts: [u64; 2],
    /// `\n` bytes in the chunk.
    pub(crate) lf: u64,
    /// An odd number of quote bytes: the next chunk starts in the other state.
    pub(crate) odd_quotes: bool,
    /// Set when only a first piece of the chunk was searched for
    /// boundaries (the rest only counted): its length, `\n` bytes and
    /// quote parity. A `None` in `first` then means "none in the piece".
    pub(crate) piece: Option<(usize, u64, bool)>,
}

/// How to scan: the quote byte (`None` when quoting is off) and whether
/// empty lines are skipped.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScanOpts {
    pub(crate) quote: Option<u8>,
    pub(crate) skip_empty: bool,
    /// Count record starts. Without them, the scan stops looking at
    /// terminators once both first boundaries are found, and counts the
    /// rest of the chunk's quotes and `\n` bytes with a plain SIMD byte
    /// count: three times less work (record numbers are then computed from
    /// phase 2's counts, see `ParallelReader::relative_numbers`).
    pub(crate) starts: bool,
}

/// The bytes around a chunk: the one before it (`b'\n'` for the first
/// chunk, a virtual terminator) and the one after it (`None` at the end of
/// the input).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edges {
    pub(crate) prev: u8,
    pub(crate) next: Option<u8>,
}

/// Scan `chunk` with `kernel`.
pub(crate) fn scan(kernel: Kernel, chunk: &[u8], edges: Edges, opts: ScanOpts) -> ChunkScan {
    let mut out = ChunkScan::default();
    let prev_term = edges.prev == b'\r' || edges.prev == b'\n';
    // Carries from the previous byte, per hypothesis: "was a terminator
    // outside quotes". A terminator is not a quote, so its state is the
    // chunk's starting state.
    let mut tout_carry = [u64::from(prev_term), 0];
    let mut cr_carry = u64::from(edges.prev == b'\r');
    // All ones while inside quotes under hypothesis 0.
    let mut inside = 0u64;
    let needles = [opts.quote.unwrap_or(0), b'\r', b'\n'];
    for (b, block) in chunk.chunks(BLOCK).enumerate() {
        let [mut q, cr, lf] = kernel.masks_partial(block, &needles);
        if opts.quote.is_none() {
            q = 0;
        }
        let valid = if block.len() == BLOCK { !0u64 } else { (1u64 << block.len()) - 1 };
        let in0 = prefix_xor(q) ^ inside;
        let term = cr | lf;
        let prev_cr = (cr << 1) | cr_carry;
        let last = (block.len() - 1) as u32;
        for (h, inq) in [in0, !in0].into_iter().enumerate() {
            let tout = term & !inq & valid;
            let prev_tout = (tout << 1) | tout_carry[h];
            let boundary = prev_tout & !(prev_cr & lf) & valid;
            let start = if opts.skip_empty { prev_tout & !term } else { boundary } & valid;
            out.starts[h] += u64::from(start.count_ones());
            if out.first[h].is_none() && boundary != 0 {
                let at = boundary.trailing_zeros();
                out.first[h] = Some(b * BLOCK + at as usize);
                out.lf_before[h] = out.lf + u64::from((lf & ((1u64 << at) - 1)).count_ones());
            }
            tout_carry[h] = (tout >> last) & 1;
        }
        cr_carry = (cr >> last) & 1;
        out.lf += u64::from(lf.count_ones());
        if q.count_ones() % 2 == 1 {
            inside = !inside;
        }
        if !opts.starts && out.first[0].is_some() && out.first[1].is_some() {
            // Only parity and lines are left to find.
            let rest = &chunk[((b + 1) * BLOCK).min(chunk.len())..];
            out.lf += swath::count::count_byte(rest, b'\n');
            if let Some(q) = opts.quote {
                if swath::count::count_byte(rest, q) % 2 == 1 {
                    inside = !inside;
                }
            }
            out.odd_quotes = inside != 0;
            out.starts = [0, 0];
            return out;
        }
    }
    if chunk.is_empty() {
        // Nothing scanned: the carries are the edge byte's.
        tout_carry = [u64::from(prev_term), 0];
        cr_carry = u64::from(edges.prev == b'\r');
    }
    // A boundary right after the chunk's last byte, unless it splits `\r\n`.
    let split = cr_carry == 1 && edges.next == Some(b'\n');
    for (h, carry) in tout_carry.into_iter().enumerate() {
        if out.first[h].is_none() {
            out.lf_before[h] = out.lf;
            if carry == 1 && !split {
                out.first[h] = Some(chunk.len());
            }
        }
    }
    out.odd_quotes = inside != 0;
    if !opts.starts {
        out.starts = [0, 0];
    }
    out
}

/// The scalar twin of [`scan`]: a byte loop with a flag per hypothesis.
#[cfg(test)]
pub(crate) fn scan_scalar(chunk: &[u8], edges: Edges, opts: ScanOpts) -> ChunkScan {
    let mut out = ChunkScan::default();
    let is_term = |b: u8| b == b'\r' || b == b'\n';
    for h in 0..2 {
        let mut inside = h == 1;
        let mut prev = edges.prev;
        let mut prev_tout = is_term(prev) && h == 0;
        let mut lf = 0u64;
        for (i, &b) in chunk.iter().enumerate() {
            let boundary = prev_tout && !(prev == b'\r' && b == b'\n');
            let start = if opts.skip_empty { prev_tout && !is_term(b) } else { boundary };
            out.starts[h] += u64::from(start);
            if boundary && out.first[h].is_none() {
                out.first[h] = Some(i);
                out.lf_before[h] = lf;
            }
            if Some(b) == opts.quote {
                inside = !inside;
            }
            prev_tout = is_term(b) && !inside;
            prev = b;
            lf += u64::from(b == b'\n');
        }
        if out.first[h].is_none() {
            out.lf_before[h] = lf;
            if prev_tout && !(prev == b'\r' && edges.next == Some(b'\n')) {
                out.first[h] = Some(chunk.len());
            }
        }
        out.lf = lf;
        if h == 0 {
            out.odd_quotes = inside;
        }
    }
    if !opts.starts {
        out.starts = [0, 0];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::bits::noise;

    #[test]
    fn vector_scan_matches_the_scalar_twin() {
        let data = noise(3000, b"a,\"\r\n\n\r bc", 0x9e3779b97f4a7c15);
        for k in Kernel::available() {
            for lead in 1..66 {
                for len in (0..70).chain([130, 500, 2900]) {
                    let c = &data[lead..lead + len];
                    for prev in [data[lead - 1], b'\r'] {
                        for next in [data.get(lead + len).copied(), Some(b'\n')] {
                            for quote in [Some(b'"'), None] {
                                for (skip_empty, starts) in
                                    [(true, true), (false, true), (true, false)]
                                {
                                    let e = Edges { prev, next };
                                    let o = ScanOpts { quote, skip_empty, starts };
                                    assert_eq!(
                                        scan(k, c, e, o),
                                        scan_scalar(c, e, o),
                                        "{} {lead} {len} {prev} {next:?} {quote:?} {skip_empty} {starts}",
                                        k.name()
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn known_chunk() {
        let opts = ScanOpts { quote: Some(b'"'), skip_empty: true, starts: true };
        let edges = Edges { prev: b'x', next: None };
        // Outside: the quote at 1 opens, so the first boundary is after the
        // `\n` at 6; inside: it closes, and the `\n` at 3 ends a record
        // (then the quote at 5 opens a field that runs to the end).
        let r = scan(Kernel::detect(), b"a\"b\nc\"\nd\r\n\r\ne", edges, opts);
        assert_eq!(r.first, [Some(7), Some(4)]);
        assert_eq!(r.lf_before, [2, 1]);
        assert_eq!(r.starts, [2, 1]);
        assert_eq!(r.lf, 4);
        assert!(!r.odd_quotes);
        // `\r` last with `\n` next: no boundary inside this chunk.
        let r = scan(Kernel::detect(), b"ab\r", Edges { prev: b'x', next: Some(b'\n') }, opts);
        assert_eq!(r.first, [None, None]);
        let r = scan(Kernel::detect(), b"ab\r", Edges { prev: b'x', next: Some(b'c') }, opts);
        assert_eq!(r.first, [Some(3), None]);
    }
}

//! The validating count's chunk scan: one SIMD pass over a chunk under both
//! quote hypotheses that counts records and checks them, without building
//! fields.
//!
//! With doubled-quote escaping, a quote byte opens a quoted field when the
//! quote parity before it is even, and closes one otherwise (a doubled
//! quote closes and reopens). Strict CSV then reads as bit masks: an
//! opening quote must follow a delimiter, a terminator or a closing quote
//! (the doubled case), and a closing quote must be followed by a
//! delimiter, a terminator or a quote. Records start after terminators
//! outside quotes; a record's fields are the delimiters outside quotes up
//! to the next record start, plus one.
//!
//! For each hypothesis the scan keeps the first and the last record start
//! of the chunk, the record starts between them, and whether everything
//! from the first start on is clean: no misplaced quote, and every record
//! between the first and last start with the expected field count and
//! within the limits. The records before the first start and from the
//! last start on straddle the seams; the real reader reads those (see
//! `count.rs`). A check that fails is not an error here: it sends the
//! whole count to the reader, which reports the exact error.

use super::bits::prefix_xor;
#[cfg(target_arch = "x86_64")]
use super::bits::prefix_xor_clmul;
use crate::classify::{Classify, Kernel, BLOCK};
use crate::reader::config::Config;
use crate::FieldCount;

/// What the scan checks against.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CountOpts {
    pub(crate) delim: u8,
    /// `None` when quoting is off.
    pub(crate) quote: Option<u8>,
    pub(crate) skip_empty: bool,
    /// `""` inside quotes is a quote (otherwise a quote right after a
    /// closing quote is text after it: a problem).
    pub(crate) double_quote: bool,
    /// The field count every record must have, if any.
    pub(crate) fields: Option<u64>,
    pub(crate) max_fields: u64,
    pub(crate) max_record: u64,
}

impl CountOpts {
    /// The checks `cfg` asks for, with the field count the first records
    /// taught (`expected`; no check when it is unknown).
    pub(crate) fn new(cfg: &Config, expected: Option<usize>) -> CountOpts {
        CountOpts {
            delim: cfg.delim,
            quote: cfg.quoting.then_some(cfg.quote),
            skip_empty: cfg.skip_empty_lines,
            double_quote: cfg.double_quote,
            fields: match cfg.fields {
                FieldCount::Any => None,
                _ => expected.map(|n| n as u64),
            },
            max_fields: cfg.max_fields as u64,
            max_record: cfg.max_record as u64,
        }
    }
}

/// A record start: its absolute byte offset and the `\n` bytes between the
/// chunk's start and it.
pub(crate) type At = (u64, u64);

/// One hypothesis' findings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Hypothesis {
    /// Nothing wrong from the first record start on (the scan stops
    /// following a hypothesis once it is not clean; `first` is then set
    /// and the rest is meaningless).
    pub(crate) clean: bool,
    /// A quote broke a rule somewhere, before the first record start
    /// included (where `clean` does not look: those bytes are the seam's,
    /// read by the real reader). The quote rules need only the quote
    /// state, which the hypothesis fixes, so on valid CSV the true
    /// hypothesis never has one (`settle.rs`).
    pub(crate) misquoted: bool,
    pub(crate) first: Option<At>,
    pub(crate) last: Option<At>,
    /// Record starts in the chunk, `first` and `last` included.
    pub(crate) starts: u64,
    /// Delimiters outside quotes before the current block.
    delims: u64,
    /// Delimiters outside quotes before `last`.
    delims_at_last: u64,
    /// Terminators outside quotes before the current block, and before
    /// `last`: between two record starts, they are the first record's
    /// terminator and the empty lines after it.
    terms: u64,
    terms_at_last: u64,
    /// Last byte of the previous block: a terminator outside quotes, a
    /// closing quote (one bit each).
    tout: u64,
    close: u64,
}

/// The findings for a whole chunk. Index 0 of `hyp` is "the chunk starts
/// outside quotes", index 1 "inside a quoted field".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct CountScan {
    pub(crate) hyp: [Hypothesis; 2],
    /// `\n` bytes in the chunk.
    pub(crate) lf: u64,
    /// An odd number of quote bytes: the next chunk starts in the other state.
    pub(crate) odd_quotes: bool,
}

/// The scan of one chunk, fed in pieces whose lengths are multiples of 64
/// bytes (the last one excepted).
pub(crate) struct Validator {
    kernel: Kernel,
    /// Run the AVX2 build of the scan (see `feed_wide`).
    #[cfg(target_arch = "x86_64")]
    wide: bool,
    opts: CountOpts,
    needles: [u8; 4],
    /// Absolute offset of the next byte.
    pos: u64,
    /// All ones while inside quotes under hypothesis 0.
    inside: u64,
    /// Last byte of the previous block: `\r`; delimiter or terminator.
    cr: u64,
    sep: u64,
    out: CountScan,
}

impl Validator {
    /// A scan of the chunk that starts at absolute offset `at`, whose
    /// previous byte is `prev` (`b'\n'` for a known record start).
    pub(crate) fn new(kernel: Kernel, opts: CountOpts, at: u64, prev: u8) -> Validator {
        let is_term = prev == b'\r' || prev == b'\n';
        let mut out = CountScan::default();
        out.hyp[0].clean = true;
        out.hyp[1].clean = true;
        // Before the chunk, hypothesis 0 is outside quotes, so a quote just
        // before was a closing one; under hypothesis 1 nothing before it
        // was outside.
        out.hyp[0].tout = u64::from(is_term);
        out.hyp[0].close = u64::from(opts.quote == Some(prev));
        #[cfg(target_arch = "x86_64")]
        let wide = kernel.name() == "avx2"
            && std::is_x86_feature_detected!("popcnt")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("pclmulqdq");
        Validator {
            kernel,
            #[cfg(target_arch = "x86_64")]
            wide,
            opts,
            needles: [opts.delim, opts.quote.unwrap_or(0), b'\r', b'\n'],
            pos: at,
            inside: 0,
            cr: u64::from(prev == b'\r'),
            sep: u64::from(is_term || prev == opts.delim),
            out,
        }
    }

    /// Scan the next bytes of the chunk.
    pub(crate) fn feed(&mut self, data: &[u8]) {
        #[cfg(target_arch = "x86_64")]
        if self.wide {
            // SAFETY: `wide` is set only when the CPU has these features.
            return unsafe { self.feed_wide(data) };
        }
        self.feed_body::<false>(data);
    }

    /// [`feed`](Self::feed) compiled for AVX2 CPUs: the classifier inlined,
    /// and the many bit counts one `popcnt` each (the x86_64 baseline has
    /// no such instruction; `count_ones` is then a dozen).
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2, POPCNT, BMI1 and PCLMULQDQ (`wide` is set
    /// only when it does).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,popcnt,bmi1,pclmulqdq")]
    unsafe fn feed_wide(&mut self, data: &[u8]) {
        self.feed_body::<true>(data);
    }

    /// `WIDE`: compiled into `feed_wide`, where carry-less multiplication
    /// is available.
    #[inline(always)]
    fn feed_body<const WIDE: bool>(&mut self, data: &[u8]) {
        let mut at = 0;
        while at < data.len() {
            if !self.out.hyp[0].clean && !self.out.hyp[1].clean {
                self.count_rest(&data[at..]);
                return;
            }
            // A full block has its length as a constant: masks and shifts
            // by 63 rather than by a variable.
            match data.get(at..at + BLOCK) {
                Some(full) => self.block::<WIDE, BLOCK>(full),
                None => self.block::<WIDE, 0>(&data[at..]),
            }
            at += BLOCK;
        }
    }

    /// Nothing left to check: only lines and quote parity.
    fn count_rest(&mut self, rest: &[u8]) {
        self.out.lf += swath::count::count_byte(rest, b'\n');
        if let Some(q) = self.opts.quote {
            if swath::count::count_byte(rest, q) % 2 == 1 {
                self.inside = !self.inside;
            }
        }
        self.pos += rest.len() as u64;
    }

    /// The findings so far (all but `odd_quotes`).
    pub(crate) fn findings(&self) -> &CountScan {
        &self.out
    }

    /// The findings.
    pub(crate) fn finish(mut self) -> CountScan {
        self.out.odd_quotes = self.inside != 0;
        self.out
    }

    /// One block of up to 64 bytes; `LEN` is 64 when the caller knows it
    /// is full, 0 otherwise.
    #[inline(always)]
    fn block<const WIDE: bool, const LEN: usize>(&mut self, block: &[u8]) {
        let len = if LEN == BLOCK { BLOCK } else { block.len() };
        // Full blocks straight to `masks`, which then inlines into
        // `feed_wide`.
        let [d, mut q, cr, lf] = match <&[u8; BLOCK]>::try_from(block) {
            Ok(full) => self.kernel.masks(full, &self.needles),
            Err(_) => self.kernel.masks_partial(block, &self.needles),
        };
        if self.opts.quote.is_none() {
            q = 0;
        }
        let m = Masks {
            d,
            q,
            lf,
            term: cr | lf,
            prev_cr: (cr << 1) | self.cr,
            prev_sep: ((d | cr | lf) << 1) | self.sep,
            valid: if len == BLOCK { !0u64 } else { (1u64 << len) - 1 },
            last: (len - 1) as u32,
        };
        // Bit i: inside quotes after byte i, under hypothesis 0.
        #[cfg(target_arch = "x86_64")]
        let in0 = if WIDE {
            // SAFETY: `WIDE` code runs in `feed_wide` only.
            unsafe { prefix_xor_clmul(q) }
        } else {
            prefix_xor(q)
        } ^ self.inside;
        #[cfg(not(target_arch = "x86_64"))]
        let in0 = prefix_xor(q) ^ self.inside;
        let [h0, h1] = &mut self.out.hyp;
        hypothesis(h0, &self.opts, &m, in0, self.pos, self.out.lf);
        hypothesis(h1, &self.opts, &m, !in0, self.pos, self.out.lf);
        self.cr = (cr >> m.last) & 1;
        self.sep = ((d | m.term) >> m.last) & 1;
        self.out.lf += u64::from(lf.count_ones());
        if q.count_ones() % 2 == 1 {
            self.inside = !self.inside;
        }
        self.pos += len as u64;
    }
}

/// One block's masks, shared by both hypotheses.
struct Masks {
    d: u64,
    q: u64,
    lf: u64,
    /// `\r` or `\n`.
    term: u64,
    /// The byte before is `\r`; a delimiter or a terminator.
    prev_cr: u64,
    prev_sep: u64,
    /// The bytes of the block, and the index of its last one.
    valid: u64,
    last: u32,
}

/// Follow one hypothesis through a block, `inq` being its inside-quotes
/// mask, `pos` the block's offset and `lf` the `\n` bytes before it in
/// the chunk.
#[inline(always)]
fn hypothesis(hy: &mut Hypothesis, opts: &CountOpts, m: &Masks, inq: u64, pos: u64, lf: u64) {
    if !hy.clean {
        return;
    }
    if inq == !0 && m.q == 0 {
        // Inside one quoted field all along (the wrong hypothesis of a
        // block without quotes, usually): nothing to see.
        (hy.tout, hy.close) = (0, 0);
        return;
    }
    let tout = m.term & !inq;
    let prev_tout = (tout << 1) | hy.tout;
    let start = if opts.skip_empty { prev_tout & !m.term } else { prev_tout & !(m.prev_cr & m.lf) }
        & m.valid;
    let open = m.q & inq;
    let close = m.q & !inq;
    let prev_close = (close << 1) | hy.close;
    let doubled = if opts.double_quote { prev_close } else { 0 };
    let after_close = m.d | m.term | if opts.double_quote { m.q } else { 0 };
    let mut bad = (open & !(m.prev_sep | doubled)) | (prev_close & !after_close & m.valid);
    hy.misquoted |= bad != 0;
    if hy.first.is_none() {
        // What comes before the first record start is the seam's.
        bad &= if start == 0 { 0 } else { !0u64 << start.trailing_zeros() };
    }
    if bad != 0 {
        // Not clean from the first start on: the chain must see the start
        // to know it cannot skip this chunk.
        hy.first = hy.first.or(Some((pos + u64::from(start.trailing_zeros()), 0)));
        hy.clean = false;
        return;
    }
    let dout = m.d & !inq;
    let mut s = start;
    while s != 0 {
        let p = s.trailing_zeros();
        let below = (1u64 << p) - 1;
        let delims = hy.delims + u64::from((dout & below).count_ones());
        let terms = hy.terms + u64::from((tout & below).count_ones());
        let at = (pos + u64::from(p), lf + u64::from((m.lf & below).count_ones()));
        if let Some((prev_at, _)) = hy.last {
            let fields = delims - hy.delims_at_last + 1;
            let bytes = at.0 - prev_at - (terms - hy.terms_at_last);
            if fields > opts.max_fields
                || opts.fields.is_some_and(|f| f != fields)
                || bytes > opts.max_record
            {
                hy.clean = false;
                return;
            }
        } else {
            hy.first = Some(at);
        }
        hy.last = Some(at);
        hy.delims_at_last = delims;
        hy.terms_at_last = terms;
        hy.starts += 1;
        s &= s - 1;
    }
    hy.delims += u64::from(dout.count_ones());
    hy.terms += u64::from(tout.count_ones());
    hy.tout = (tout >> m.last) & 1;
    hy.close = (close >> m.last) & 1;
}

/// The scalar twin of [`Validator`]: a byte loop per hypothesis, following
/// it to the end even when it is not clean (compare `first`, `last` and
/// `starts` only for clean hypotheses).
#[cfg(test)]
pub(crate) fn scan_scalar(chunk: &[u8], at: u64, prev: u8, opts: CountOpts) -> CountScan {
    let is_term = |b: u8| b == b'\r' || b == b'\n';
    let mut out = CountScan::default();
    for h in 0..2 {
        let hy = &mut out.hyp[h];
        hy.clean = true;
        let mut inside = h == 1;
        let mut prev = prev;
        let mut prev_tout = is_term(prev) && h == 0;
        let mut prev_close = Some(prev) == opts.quote && h == 0;
        let (mut lf, mut delims, mut delims_at_last) = (0u64, 0u64, 0u64);
        // The first record's bytes since the last start: up to its
        // terminator.
        let mut bytes = 0u64;
        let mut ended = false;
        for (i, &b) in chunk.iter().enumerate() {
            let here = at + i as u64;
            let start = if opts.skip_empty {
                prev_tout && !is_term(b)
            } else {
                prev_tout && !(prev == b'\r' && b == b'\n')
            };
            if start {
                if hy.last.is_some() {
                    let fields = delims - delims_at_last + 1;
                    if fields > opts.max_fields
                        || opts.fields.is_some_and(|f| f != fields)
                        || bytes > opts.max_record
                    {
                        hy.clean = false;
                    }
                } else {
                    hy.first = Some((here, lf));
                }
                hy.last = Some((here, lf));
                hy.starts += 1;
                delims_at_last = delims;
                bytes = 0;
                ended = false;
            }
            ended |= is_term(b) && !inside;
            bytes += u64::from(!ended);
            let sep = |c: u8| c == opts.delim || is_term(c);
            let bad = if Some(b) == opts.quote {
                inside = !inside;
                // An opening quote must start a field (or double a quote).
                // (A closing quote never follows a closing quote.)
                inside && !(sep(prev) || (prev_close && opts.double_quote))
            } else {
                prev_close && !sep(b)
            };
            if bad && hy.first.is_some() {
                hy.clean = false;
            }
            hy.misquoted |= bad;
            delims += u64::from(b == opts.delim && !inside);
            prev_close = Some(b) == opts.quote && !inside;
            prev_tout = is_term(b) && !inside;
            prev = b;
            lf += u64::from(b == b'\n');
        }
        out.lf = lf;
        if h == 0 {
            out.odd_quotes = inside;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::bits::noise;

    /// Only what a clean hypothesis reports is meaningful.
    fn comparable(mut s: CountScan) -> CountScan {
        for hy in &mut s.hyp {
            if !hy.clean {
                *hy = Hypothesis::default();
            } else {
                *hy = Hypothesis {
                    clean: true,
                    misquoted: hy.misquoted,
                    first: hy.first,
                    last: hy.last,
                    starts: hy.starts,
                    ..Hypothesis::default()
                };
            }
        }
        s
    }

    fn vector(k: Kernel, c: &[u8], at: u64, prev: u8, opts: CountOpts, piece: usize) -> CountScan {
        let mut v = Validator::new(k, opts, at, prev);
        for p in c.chunks(piece) {
            v.feed(p);
        }
        v.finish()
    }

    #[test]
    fn vector_scan_matches_the_scalar_twin() {
        // Mostly well-formed CSV, so that the clean paths get exercised,
        // and raw noise, so that the checks do.
        let mut well = Vec::new();
        for (i, cell) in noise(4000, b"abcq", 7).into_iter().enumerate() {
            match (cell, i % 3) {
                (b'q', _) => well.extend_from_slice(b"\"x,\"\"y\nz\""),
                (c, 0) => well.extend_from_slice(&[c, b'\n']),
                (c, 1) => well.extend_from_slice(&[c, b',']),
                (c, _) => well.extend_from_slice(&[c, c, b'\r', b'\n', b',']),
            }
        }
        let raw = noise(3000, b"a,\"\r\n\n\r bc", 0x9e3779b97f4a7c15);
        for data in [&well, &raw] {
            for k in Kernel::available() {
                for lead in 1..70 {
                    for len in (0..70).chain([130, 500, 2900]) {
                        let c = &data[lead..lead + len];
                        for prev in [data[lead - 1], b'\r', b'\n'] {
                            for (quote, skip_empty, fields, double_quote) in [
                                (Some(b'"'), true, None, true),
                                (Some(b'"'), false, Some(2), true),
                                (Some(b'"'), true, Some(2), false),
                                (None, true, Some(1), true),
                            ] {
                                let o = CountOpts {
                                    delim: b',',
                                    quote,
                                    skip_empty,
                                    double_quote,
                                    fields,
                                    max_fields: 3,
                                    max_record: 40,
                                };
                                let want = comparable(scan_scalar(c, 100, prev, o));
                                for piece in [64, 128, 4096] {
                                    let got = comparable(vector(k, c, 100, prev, o, piece));
                                    assert_eq!(
                                        got,
                                        want,
                                        "{} {lead} {len} {prev} {quote:?} {skip_empty} {fields:?}",
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
        let o = CountOpts {
            delim: b',',
            quote: Some(b'"'),
            skip_empty: true,
            double_quote: true,
            fields: Some(2),
            max_fields: 10,
            max_record: 100,
        };
        let data = b"a,b\n\"c\n\"\"\",d\r\n\r\ne,f\ng";
        let s = vector(Kernel::detect(), data, 10, b'\n', o, 64);
        // Outside from the top: starts at 0, 4, 17, 21; all records clean.
        let h = s.hyp[0];
        assert!(h.clean);
        assert_eq!((h.first, h.last, h.starts), (Some((10, 0)), Some((30, 5)), 4));
        assert_eq!(s.lf, 5);
        assert!(!s.odd_quotes);
        // A record with three fields between two starts is not clean.
        let s = vector(Kernel::detect(), b"a,b\na,b,c\nd,e\n", 0, b'\n', o, 64);
        assert!(!s.hyp[0].clean);
        // A quote in the middle of a field, or text after a closing quote.
        for bad in [&b"a,b\na,b\"c\nd,e\n"[..], b"a,b\na,\"b\"c\nd,e\n"] {
            assert!(!vector(Kernel::detect(), bad, 0, b'\n', o, 64).hyp[0].clean);
        }
        // Before the first start belongs to the seam: not checked here.
        let s = vector(Kernel::detect(), b"x\"y\"\na,b\n", 0, b'z', o, 64);
        assert!(s.hyp[0].clean);
        assert_eq!(s.hyp[0].first, Some((5, 1)));
    }
}

//! The parity-and-depth chain: where each range of a JSON document starts
//! (inside a string or not, at which depth), found exactly on every core.
//!
//! CSV's ranges are fixed by quote parity alone; a JSON document also
//! nests. Each range is scanned once, on its own thread, for both states
//! it could start in: outside a string (state A) or inside one (state B).
//! A byte after an odd run of backslashes is inert (as in the framer), so
//! a quote either toggles both states or neither: B is inside a string
//! exactly where A is outside. The scan keeps, for each state, the depth
//! the range ends at relative to its start, and where the depth first
//! falls to -1, -2, ... (where an enclosing container closes). A short
//! serial chain then walks the ranges from the records array's start
//! (outside a string, depth 0): each range's real state picks its
//! summary, which gives the next range's state and depth; the range
//! whose depth falls below 0 holds the array's `]`, and no later range
//! holds records.

use swath::swar::prefix_xor;
use swath_csv::classify::{Classify, Kernel, BLOCK};

/// One range's scan, for both starting states.
#[derive(Clone, Debug, Default)]
pub(crate) struct Summary {
    /// An odd number of (non-inert) quotes: the state flips.
    pub flips: bool,
    /// Newlines in the range.
    pub newlines: u64,
    /// Starting outside a string, and inside one.
    pub walks: [Walk; 2],
}

/// The depth through a range from one starting state.
#[derive(Clone, Debug, Default)]
pub(crate) struct Walk {
    /// The depth at the end, relative to the start.
    pub delta: i64,
    /// `falls[k]`: the offset of the byte where the depth first reached
    /// `-(k + 1)`.
    pub falls: Vec<usize>,
}

/// Scan a range whose first byte is escaped or not.
pub(crate) fn summarize(bytes: &[u8], escaped: bool) -> Summary {
    let mut scan = Scan::new(escaped);
    scan.feed(bytes);
    scan.finish()
}

/// [`summarize`] a piece at a time, for a range too large to hold: 64
/// bytes at a time, with the CSV classifier's kernels (one mask per
/// structural byte), the byte loop [`Scan::feed_bytes`] its slow twin.
///
/// A block's escaped bytes come from its backslash mask (simdjson's
/// odd-run trick, carried across blocks), its in-string mask for state A
/// from a prefix XOR of its real quotes; brackets then count by popcount,
/// bit by bit only in a block where the depth may reach a new low.
#[derive(Clone, Debug)]
pub(crate) struct Scan {
    s: Summary,
    /// Depth from state A (index 0) and B (1); `inside` is A's string
    /// state.
    depth: [i64; 2],
    inside: bool,
    esc: bool,
    /// Bytes fed so far.
    at: usize,
    kernel: Kernel,
}

/// The structural bytes, in the order the block code takes their masks.
pub(crate) const NEEDLES: [u8; 7] = [b'"', b'\\', b'{', b'[', b'}', b']', b'\n'];

impl Scan {
    pub fn new(escaped: bool) -> Scan {
        Scan {
            s: Summary::default(),
            depth: [0; 2],
            inside: false,
            esc: escaped,
            at: 0,
            kernel: Kernel::detect(),
        }
    }

    pub fn feed(&mut self, bytes: &[u8]) {
        let mut blocks = bytes.chunks_exact(BLOCK);
        for block in &mut blocks {
            let block: &[u8; BLOCK] = block.try_into().expect("64 bytes");
            let m = self.kernel.masks(block, &NEEDLES);
            self.block(m, BLOCK);
        }
        let rest = blocks.remainder();
        if !rest.is_empty() {
            let m = self.kernel.masks_partial(rest, &NEEDLES);
            self.block(m, rest.len());
        }
    }

    /// One block of `n` bytes, by its masks.
    #[inline]
    fn block(&mut self, m: [u64; 7], n: usize) {
        let [quote, backslash, brace, bracket, brace_end, bracket_end, newline] = m;
        let escaped = escaped_bits(backslash, &mut self.esc);
        let mut inside = prefix_xor(quote & !escaped);
        if self.inside {
            inside = !inside;
        }
        // Bits past `n` are clear in the masks; the state is the last byte's.
        self.inside = (inside >> (n - 1)) & 1 == 1;
        if n < BLOCK {
            // A partial block's carry: the escape of the byte after it.
            self.esc = n > 0 && ends_escaping(backslash, escaped, n);
        }
        self.s.newlines += u64::from(newline.count_ones());
        let open = (brace | bracket) & !escaped;
        let close = (brace_end | bracket_end) & !escaped;
        for (w, outside) in [(0, !inside), (1, inside)] {
            let (o, c) = (open & outside, close & outside);
            let low = -(self.s.walks[w].falls.len() as i64);
            let d = self.depth[w];
            if d - i64::from(c.count_ones()) >= low {
                self.depth[w] = d + i64::from(o.count_ones()) - i64::from(c.count_ones());
                continue;
            }
            // The depth may fall to a new low here: bracket by bracket.
            let mut d = d;
            let mut bits = o | c;
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if o >> i & 1 == 1 {
                    d += 1;
                } else {
                    d -= 1;
                    if d < -(self.s.walks[w].falls.len() as i64) {
                        self.s.walks[w].falls.push(self.at + i);
                    }
                }
            }
            self.depth[w] = d;
        }
        self.at += n;
    }

    /// The slow, obvious twin of [`Scan::feed`]: a byte at a time.
    #[cfg(test)]
    pub fn feed_bytes(&mut self, bytes: &[u8]) {
        let (mut depth, mut inside, mut esc) = (self.depth, self.inside, self.esc);
        let s = &mut self.s;
        for (i, &b) in bytes.iter().enumerate() {
            if esc {
                esc = false;
                s.newlines += u64::from(b == b'\n');
                continue;
            }
            match b {
                b'\\' => esc = true,
                b'"' => inside = !inside,
                b'\n' => s.newlines += 1,
                b'{' | b'[' => depth[usize::from(inside)] += 1,
                b'}' | b']' => {
                    let w = usize::from(inside);
                    depth[w] -= 1;
                    if depth[w] < -(s.walks[w].falls.len() as i64) {
                        s.walks[w].falls.push(self.at + i);
                    }
                }
                _ => {}
            }
        }
        (self.depth, self.inside, self.esc) = (depth, inside, esc);
        self.at += bytes.len();
    }

    pub fn finish(mut self) -> Summary {
        self.s.flips = self.inside;
        self.s.walks[0].delta = self.depth[0];
        self.s.walks[1].delta = self.depth[1];
        self.s
    }
}

/// The bytes after an odd run of backslashes (the run carried in from the
/// block before by `prev`, which becomes this block's carry out).
#[inline]
pub(crate) fn escaped_bits(backslash: u64, prev: &mut bool) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let carried = u64::from(*prev);
    let backslash = backslash & !carried;
    let follows = (backslash << 1) | carried;
    let odd_starts = backslash & !EVEN & !follows;
    let (on_even, overflow) = odd_starts.overflowing_add(backslash);
    *prev = overflow;
    (EVEN ^ (on_even << 1)) & follows
}

/// Whether the byte after a partial block of `n` bytes is escaped: the
/// block's last byte is a backslash that is not itself escaped.
#[inline]
fn ends_escaping(backslash: u64, escaped: u64, n: usize) -> bool {
    let last = 1u64 << (n - 1);
    backslash & last != 0 && escaped & last == 0
}

/// Where a range starts, as the chain found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Start {
    pub in_str: bool,
    pub depth: u32,
}

/// The chain over the ranges' summaries, from the array's start: each
/// range's start, up to and including the range where the depth falls
/// below 0 (the array's end, or a stray closing bracket), and that
/// byte's offset in it.
pub(crate) fn chain(summaries: &[Summary]) -> (Vec<Start>, Option<usize>) {
    let mut starts = Vec::with_capacity(summaries.len());
    let mut at = Start { in_str: false, depth: 0 };
    for s in summaries {
        starts.push(at);
        let w = &s.walks[usize::from(at.in_str)];
        if let Some(&fall) = w.falls.get(at.depth as usize) {
            return (starts, Some(fall));
        }
        let depth = i64::from(at.depth) + w.delta;
        at = Start { in_str: at.in_str ^ s.flips, depth: depth.max(0) as u32 };
    }
    (starts, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The obvious twin: a byte-by-byte walk of the whole input.
    fn walk(bytes: &[u8]) -> Vec<(bool, i64)> {
        let (mut inside, mut depth, mut esc) = (false, 0i64, false);
        let mut out = Vec::new();
        for &b in bytes {
            out.push((inside, depth));
            if esc {
                esc = false;
                continue;
            }
            match b {
                b'\\' => esc = true,
                b'"' => inside = !inside,
                b'{' | b'[' if !inside => depth += 1,
                b'}' | b']' if !inside => depth -= 1,
                _ => {}
            }
        }
        out
    }

    #[test]
    fn blocks_of_64_give_the_byte_loops_summary() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let alphabet = b"\\\\\\\"\"{}[]\n ab,:";
        for len in [0usize, 1, 5, 63, 64, 65, 127, 128, 129, 300, 1000, 5000] {
            for _ in 0..20 {
                let doc: Vec<u8> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        alphabet[(x % alphabet.len() as u64) as usize]
                    })
                    .collect();
                for escaped in [false, true] {
                    for piece in [1usize, 7, 64, 100, 4096] {
                        let mut fast = Scan::new(escaped);
                        let mut slow = Scan::new(escaped);
                        for p in doc.chunks(piece) {
                            fast.feed(p);
                            slow.feed_bytes(p);
                        }
                        let (f, s) = (fast.finish(), slow.finish());
                        let show = |s: &Summary| {
                            (s.flips, s.newlines, s.walks.clone().map(|w| (w.delta, w.falls)))
                        };
                        assert_eq!(show(&f), show(&s), "{len} bytes in pieces of {piece}");
                    }
                }
            }
        }
    }

    #[test]
    fn every_cut_gives_the_state_a_whole_walk_gives() {
        let doc = br#"{"a":"x]\"}","b":[1,{"c":"\\"}],"d":"\\\"["} {"e":[[]]} ]] "#;
        let whole = walk(doc);
        for chunk in 1..doc.len() {
            let mut sums = Vec::new();
            let mut esc_run = 0usize;
            for piece in doc.chunks(chunk) {
                sums.push(summarize(piece, esc_run % 2 == 1));
                let trailing = piece.iter().rev().take_while(|&&b| b == b'\\').count();
                esc_run = if trailing == piece.len() { esc_run + trailing } else { trailing };
            }
            let (starts, fall) = chain(&sums);
            for (k, st) in starts.iter().enumerate() {
                let (inside, depth) = whole[k * chunk];
                assert_eq!((st.in_str, i64::from(st.depth)), (inside, depth), "chunk {chunk}");
            }
            // The first ']' at depth 0 is the fall.
            let first_fall =
                whole.iter().zip(doc).position(|(&(i, d), &b)| !i && d == 0 && b == b']');
            let k = starts.len() - 1;
            assert_eq!(fall.map(|f| k * chunk + f), first_fall, "chunk {chunk}");
        }
    }
}

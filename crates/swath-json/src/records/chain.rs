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

/// [`summarize`] a piece at a time, for a range too large to hold.
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
}

impl Scan {
    pub fn new(escaped: bool) -> Scan {
        Scan { s: Summary::default(), depth: [0; 2], inside: false, esc: escaped, at: 0 }
    }

    pub fn feed(&mut self, bytes: &[u8]) {
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

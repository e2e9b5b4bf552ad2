//! The records of a JSON document, framed byte by byte: the values at the
//! records' level, which is inside the records array (`[{..}, {..}]`, or
//! `{"Records": [..]}` past its prefix) or the top level of a stream of
//! values (`{..} {..}`, pretty-printed or not).
//!
//! The framer only finds where each record starts and ends, and checks
//! the bytes between records (`,` and `]` in an array, whitespace in a
//! stream); the decoder reads each record's bytes as it reads a line, so
//! a record that is not one valid object is the decoder's error, with its
//! own reason. The framer's state at any byte is three things (inside a
//! string or not, the byte escaped or not, the nesting depth), which is
//! what lets a range start anywhere once the parity-and-depth chain
//! (`chain.rs`) gave it those three.
//!
//! A byte after an odd run of backslashes is inert, inside a string or
//! not: in valid JSON a backslash occurs only in a string, and the chain
//! must classify every byte without knowing whether it is in one (a stray
//! backslash outside a string is then still an error, the decoder's).

use swath::line_chunks::Span;
use swath_csv::classify::{Classify, Kernel, BLOCK};

use swath::swar::prefix_xor;

use super::chain::{escaped_bits, NEEDLES};

/// Records in an array (separated by `,`, closed by `]`) or one value
/// after another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Array,
    Values,
}

/// What may come next between records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expect {
    /// After the array's `[`: a record or `]`.
    First,
    /// After `,`: a record.
    Record,
    /// After a record: `,` or `]` in an array, another record in a stream.
    After,
}

/// Why the framer stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The bytes ran out.
    More,
    /// A record starts here at or past the owned end: the next range's.
    NextOwner(usize),
    /// The records array closes here (its `]`).
    Closed(usize),
    /// Not a document of records: where and why.
    Bad { at: usize, reason: &'static str },
}

/// The framer: its state at `pos` of the bytes it is given.
#[derive(Clone, Debug)]
pub(crate) struct Framer {
    mode: Mode,
    in_str: bool,
    esc: bool,
    /// Nesting inside the current record; 0 between records.
    depth: u32,
    expect: Expect,
    /// Inside a record that is a number or a literal (not an object: the
    /// decoder says so); it ends at the next delimiter.
    scalar: bool,
    /// The current record's start, when it is ours (a range that starts
    /// inside a record leaves it to the range that holds its start).
    rec: Option<usize>,
    /// Newlines before `rec`'s start.
    nl_at_rec: u64,
    /// Newlines before `pos`.
    pub nl: u64,
    /// The next byte to read.
    pub pos: usize,
    /// The classifier's kernel, for whole blocks inside a record (none: a
    /// byte at a time, the slow twin the tests compare with).
    kernel: Option<Kernel>,
}

impl Framer {
    /// A framer between records, expecting `expect`.
    pub fn new(mode: Mode, expect: Expect) -> Framer {
        Framer {
            mode,
            in_str: false,
            esc: false,
            depth: 0,
            expect,
            scalar: false,
            rec: None,
            nl_at_rec: 0,
            nl: 0,
            pos: 0,
            kernel: Some(Kernel::detect()),
        }
    }

    /// This framer, reading a byte at a time: the slow twin.
    #[cfg(test)]
    pub fn bytewise(mut self) -> Framer {
        self.kernel = None;
        self
    }

    /// A framer at the records' start, before the first record (the
    /// expectation matters only in an array: a stream of values takes any
    /// value).
    pub fn at_start(mode: Mode) -> Framer {
        Framer::new(mode, Expect::First)
    }

    /// A framer at a range's start, from the chain's state there (inside a
    /// string, at `depth`: inside another range's record when either
    /// holds), whether its first byte is escaped, and the last byte before
    /// it that is not whitespace, with whether it is right before it
    /// (`prev`, `None` back to the records' start): between records that
    /// byte says what may come next, or that the range starts inside
    /// another range's number or literal.
    pub fn at_range(
        mode: Mode,
        in_str: bool,
        esc: bool,
        depth: u32,
        prev: Option<(u8, bool)>,
    ) -> Framer {
        let (expect, scalar) = match prev {
            Some((b',', _)) => (Expect::Record, false),
            // Only whitespace since the records' start.
            None => (Expect::First, false),
            Some((b, true)) if is_scalar_byte(b) => (Expect::After, true),
            _ => (Expect::After, false),
        };
        let mut f = Framer::new(mode, expect);
        f.in_str = in_str;
        f.esc = esc;
        f.depth = depth;
        f.scalar = scalar && !in_str && depth == 0;
        f
    }

    /// Where the record being read started (relative), if it is ours.
    pub fn open_record(&self) -> Option<(usize, u64)> {
        self.rec.map(|r| (r, self.nl_at_rec))
    }

    /// Inside a record (ours or not).
    pub fn in_record(&self) -> bool {
        self.in_str || self.depth > 0 || self.scalar
    }

    /// Move the origin `cut` bytes on (`nl` newlines before it): the bytes
    /// before were handed out.
    pub fn rebase(&mut self, cut: usize, nl: u64) {
        self.pos -= cut;
        self.nl -= nl;
        if let Some(r) = &mut self.rec {
            *r -= cut;
            self.nl_at_rec -= nl;
        }
    }

    /// Frame `bytes` from `pos` on, pushing each record that ends into
    /// `spans`, until the bytes run out, a record starts at or past
    /// `owned_end`, the array closes, or the bytes are not a document of
    /// records.
    pub fn run(&mut self, bytes: &[u8], owned_end: usize, spans: &mut Vec<Span>) -> Stop {
        let len = bytes.len();
        let mut pos = self.pos;
        let stop = 'scan: loop {
            if pos >= len {
                break Stop::More;
            }
            if let Some(kernel) = self.kernel {
                if self.depth > 0 && pos + BLOCK <= len {
                    let block: &[u8; BLOCK] = bytes[pos..pos + BLOCK].try_into().expect("64 bytes");
                    match self.skip_block(kernel, block) {
                        None => pos += BLOCK,
                        Some(i) => {
                            pos += i + 1;
                            self.end_record(pos, spans);
                        }
                    }
                    continue;
                }
            }
            if self.esc {
                self.esc = false;
                self.nl += u64::from(bytes[pos] == b'\n');
                pos += 1;
                continue;
            }
            if self.in_str {
                match memchr::memchr3(b'"', b'\\', b'\n', &bytes[pos..]) {
                    None => {
                        pos = len;
                        break Stop::More;
                    }
                    Some(i) => {
                        pos += i;
                        match bytes[pos] {
                            b'"' => {
                                self.in_str = false;
                                pos += 1;
                                if self.depth == 0 {
                                    self.end_record(pos, spans);
                                }
                            }
                            b'\\' => {
                                self.esc = true;
                                pos += 1;
                            }
                            _ => {
                                self.nl += 1;
                                pos += 1;
                            }
                        }
                    }
                }
                continue;
            }
            if self.depth > 0 {
                // Inside a record: only quotes, brackets, backslashes and
                // newlines matter.
                let rest = &bytes[pos..];
                let Some(i) = rest.iter().position(|&b| CLASS[b as usize] != 0) else {
                    pos = len;
                    break Stop::More;
                };
                pos += i;
                let c = bytes[pos];
                pos += 1;
                match c {
                    b'"' => self.in_str = true,
                    b'\\' => self.esc = true,
                    b'\n' => self.nl += 1,
                    b'{' | b'[' => self.depth += 1,
                    _ => {
                        self.depth -= 1;
                        if self.depth == 0 {
                            self.end_record(pos, spans);
                        }
                    }
                }
                continue;
            }
            // Between records, or in a record that is a number or literal.
            let c = bytes[pos];
            match c {
                b' ' | b'\t' | b'\r' | b'\n' => {
                    if self.scalar {
                        self.end_record(pos, spans);
                    }
                    self.nl += u64::from(c == b'\n');
                    pos += 1;
                }
                b'"' | b'{' | b'[' => {
                    if let Some(stop) = self.start_record(pos, owned_end, spans) {
                        break 'scan stop;
                    }
                    if c == b'"' {
                        self.in_str = true;
                    } else {
                        self.depth = 1;
                    }
                    pos += 1;
                }
                b',' => {
                    if self.scalar {
                        self.end_record(pos, spans);
                    }
                    match (self.mode, self.expect) {
                        (Mode::Array, Expect::After) => self.expect = Expect::Record,
                        (Mode::Array, _) => {
                            break Stop::Bad { at: pos, reason: "expected a record, found ','" }
                        }
                        (Mode::Values, _) => {
                            break Stop::Bad {
                                at: pos,
                                reason: "a ',' between records (outside an array, records \
                                         follow one another)",
                            }
                        }
                    }
                    pos += 1;
                }
                b'}' | b']' => {
                    if self.scalar {
                        self.end_record(pos, spans);
                    }
                    break match (self.mode, c, self.expect) {
                        (Mode::Array, b']', Expect::First | Expect::After) => Stop::Closed(pos),
                        (Mode::Array, b']', Expect::Record) => Stop::Bad {
                            at: pos,
                            reason: "a ',' before the array's ']' (a trailing comma)",
                        },
                        (Mode::Array, _, _) => {
                            Stop::Bad { at: pos, reason: "expected ',' or ']' after a record" }
                        }
                        (Mode::Values, _, _) => {
                            Stop::Bad { at: pos, reason: "a closing bracket that closes nothing" }
                        }
                    };
                }
                _ => {
                    if !self.scalar {
                        if let Some(stop) = self.start_record(pos, owned_end, spans) {
                            break 'scan stop;
                        }
                        self.scalar = true;
                    }
                    if c == b'\\' {
                        self.esc = true;
                    }
                    pos += 1;
                }
            }
        };
        self.pos = pos;
        stop
    }

    /// Cross a block inside a record from its masks (as `chain.rs` reads
    /// a block): `None` when the record goes on past it, the state then
    /// the state after it; `Some(i)` when the record ends at its byte `i`
    /// (a closing bracket), the state then the state after that byte.
    #[inline]
    fn skip_block(&mut self, kernel: Kernel, block: &[u8; BLOCK]) -> Option<usize> {
        let m = kernel.masks(block, &NEEDLES);
        let [quote, backslash, brace, bracket, brace_end, bracket_end, newline] = m;
        let mut esc = self.esc;
        let escaped = escaped_bits(backslash, &mut esc);
        let mut inside = prefix_xor(quote & !escaped);
        if self.in_str {
            inside = !inside;
        }
        let outside = !inside & !escaped;
        let open = (brace | bracket) & outside;
        let close = (brace_end | bracket_end) & outside;
        if self.depth > close.count_ones() {
            self.depth = self.depth + open.count_ones() - close.count_ones();
            self.in_str = inside >> 63 == 1;
            self.esc = esc;
            self.nl += u64::from(newline.count_ones());
            return None;
        }
        // The depth may reach 0 here: bracket by bracket.
        let mut depth = self.depth;
        let mut bits = open | close;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if open >> i & 1 == 1 {
                depth += 1;
                continue;
            }
            depth -= 1;
            if depth == 0 {
                // A closing bracket outside a string, not escaped: after
                // it, outside a string and not escaping.
                let upto = if i == 63 { !0 } else { (2u64 << i) - 1 };
                self.depth = 0;
                self.in_str = false;
                self.esc = false;
                self.nl += u64::from((newline & upto).count_ones());
                return Some(i);
            }
        }
        self.depth = depth;
        self.in_str = inside >> 63 == 1;
        self.esc = esc;
        self.nl += u64::from(newline.count_ones());
        None
    }

    /// The input ended at `len`: a record still open is handed out as it
    /// is (the decoder names what it lacks); an array not closed is an
    /// error there.
    pub fn finish(&mut self, len: usize, spans: &mut Vec<Span>) -> Option<Stop> {
        if let Some(start) = self.rec.take() {
            spans.push(Span { start, end: len, line: self.nl_at_rec });
            return None;
        }
        match self.mode {
            Mode::Array if !self.in_record() => {
                Some(Stop::Bad { at: len, reason: "the input ends before the records array's ']'" })
            }
            _ => None,
        }
    }

    /// A value starts at `pos` between records: the next record, or the
    /// next range's, or out of place.
    fn start_record(
        &mut self,
        pos: usize,
        owned_end: usize,
        spans: &mut Vec<Span>,
    ) -> Option<Stop> {
        if self.scalar {
            self.end_record(pos, spans);
        }
        if self.mode == Mode::Array && self.expect == Expect::After {
            return Some(Stop::Bad { at: pos, reason: "expected ',' or ']' after a record" });
        }
        if pos >= owned_end {
            return Some(Stop::NextOwner(pos));
        }
        self.rec = Some(pos);
        self.nl_at_rec = self.nl;
        None
    }

    fn end_record(&mut self, end: usize, spans: &mut Vec<Span>) {
        if let Some(start) = self.rec.take() {
            spans.push(Span { start, end, line: self.nl_at_rec });
        }
        self.scalar = false;
        self.expect = Expect::After;
    }
}

/// The bytes that matter inside a record: quotes, backslashes, brackets
/// and newlines.
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'"' as usize] = 1;
    t[b'\\' as usize] = 1;
    t[b'\n' as usize] = 1;
    t[b'{' as usize] = 1;
    t[b'[' as usize] = 1;
    t[b'}' as usize] = 1;
    t[b']' as usize] = 1;
    t
};

/// A byte that can be part of a number or literal (or a stray byte the
/// decoder refuses): none of whitespace, quotes, brackets and commas.
fn is_scalar_byte(b: u8) -> bool {
    !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'"' | b'{' | b'}' | b'[' | b']' | b',')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frame `doc` in pieces of `piece` bytes (the buffer grows, as the
    /// drivers' do): every span and the stop.
    fn frame(mut f: Framer, doc: &[u8], piece: usize) -> (Vec<Span>, Stop, u64) {
        let mut spans = Vec::new();
        let mut end = 0;
        loop {
            end = (end + piece).min(doc.len());
            let stop = f.run(&doc[..end], usize::MAX, &mut spans);
            if stop != Stop::More || end == doc.len() {
                let stop = match stop {
                    Stop::More => f.finish(doc.len(), &mut spans).unwrap_or(Stop::More),
                    s => s,
                };
                return (spans, stop, f.nl);
            }
        }
    }

    #[test]
    fn blocks_inside_records_frame_as_the_byte_loop_does() {
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let parts: &[&str] = &[
            "{\"a\":",
            "\"x]}\"",
            "[1,{\"b\":[]}]",
            "\"\\\\\"",
            "\"\\\"}\"",
            ",",
            " ",
            "\n",
            "}",
            "{",
            "\"long string with no structure at all, long enough to fill blocks\"",
            "[",
            "]",
        ];
        for _ in 0..400 {
            let mut doc = String::from("[");
            let n = (x % 40) as usize;
            for _ in 0..n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                doc.push_str(parts[(x % parts.len() as u64) as usize]);
            }
            doc.push(']');
            for mode in [Mode::Array, Mode::Values] {
                let bytes = if mode == Mode::Array { doc.as_bytes() } else { &doc.as_bytes()[1..] };
                for piece in [1, 13, 64, 65, 200, 10_000] {
                    let fast = frame(Framer::at_start(mode), bytes, piece);
                    let slow = frame(Framer::at_start(mode).bytewise(), bytes, piece);
                    assert_eq!(fast, slow, "{doc:?} in pieces of {piece}");
                }
            }
        }
    }
}

//! The record state machine: csv-core's reading automaton, driven by
//! classifier masks so that plain bytes are skipped 64 at a time.
//!
//! The states are csv-core's NFA states folded together: `Field` is
//! `StartField` + `InField` (a field is at its start when the position is
//! its first byte), `Quoted` is `InQuotedField`, `AfterQuote` is
//! `InDoubleEscapedQuote` and `Escaped` is `InEscapedQuote`. The record
//! start states (terminators, comments, BOM) are handled by the reader,
//! outside this hot loop. The machine never looks at a byte twice and keeps
//! its state across buffer refills, so a record spanning many refills costs
//! O(its length).
//!
//! # Changing this file safely
//!
//! What is clever, and what breaks if you touch it:
//!
//! - **Masks outlive a record.** The cursor (`cursor.rs`) keeps the masks
//!   of 16 classified blocks, addressed by absolute input offset, from one
//!   record to the next. A refill moves the buffer's bytes, so the reader
//!   calls `Cursor::invalidate` after every refill; a new path that refills
//!   without it reads stale masks: wrong fields, no crash.
//! - **Spans written through a raw pointer.** `fast_fields` reserves 64
//!   spans per block and writes one span per set bit of that block's mask.
//!   Every `SAFETY` comment counts on that bound: write a span that is not
//!   one bit's, or move the `reserve`, and it is undefined behaviour.
//! - **The field limit checked late.** Delimiters of a block end fields
//!   without a check each; the limit is checked after them, so that the
//!   fast path stops at field `max + 1` exactly where the general machine
//!   does, with the same error and position.
//! - **State across refills.** Every `Step::More` leaves `s.pos` at the
//!   first unread byte and the open field's start in `s.seg`; the quoted
//!   fast path adds the newlines it saw to `s.lines` only when it succeeds
//!   (it gives the field back to the general machine otherwise). Line
//!   numbers in errors depend on both.
//! - **One byte, one look.** No path reads a byte a second time; a change
//!   that does (a look-behind at the previous byte, say) breaks on a
//!   record that spans a refill, where that byte is gone.
//!
//! Which tests tell you: the unit test below (the fast path against the
//! general machine, every kernel); `tests/differential.rs` (the reader
//! against the `csv` crate on generated documents, every kernel and
//! buffer size down to a few bytes); `tests/bad_inputs.rs` (every bad
//! input through every reading path, with positions); miri on
//! `tests/classify_unsafe.rs` in CI; and the fuzz targets `csv_vs_oracle`
//! and `csv_chunked` (`docs/fuzzing.md`).

use super::config::Config;
use super::cursor::Cursor;
use super::record::{Span, SCRATCH};
use crate::classify::{ReaderClassifier, BLOCK};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    Field,
    Quoted,
    AfterQuote,
    Escaped,
}

/// A strict-mode problem found while scanning (reading goes on leniently).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)] // named after the ErrorKinds they become
pub(crate) enum Problem {
    BareQuote,
    TextAfterQuote,
    UnterminatedQuote,
}

/// How a scan stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// The record ends before the terminator byte at this index.
    End(usize),
    /// All bytes were consumed; the record goes on.
    More,
    /// The record has more fields than allowed.
    TooManyFields,
}

/// The scan state of one record, relative to its first byte. It survives
/// buffer refills because the reader never consumes a partial record.
#[derive(Clone, Debug)]
pub(crate) struct Progress {
    pub(crate) state: State,
    /// Next byte to examine.
    pub(crate) pos: usize,
    /// First byte of the current field (its opening quote, if quoted).
    field_start: usize,
    /// Start of the current field's pending content segment.
    seg: usize,
    /// The closing quote of the current quoted field, in `AfterQuote`.
    close: usize,
    /// Where in the scratch buffer the current field starts, once it needs
    /// unescaping.
    scratch_from: Option<usize>,
    /// The opening quote of the current quoted field, and the number of
    /// `\n` seen before it.
    pub(crate) quote_open: (usize, u64),
    /// `\n` bytes seen inside the record so far.
    pub(crate) lines: u64,
    /// The first strict-mode problem: what, where, `\n` before it.
    pub(crate) problem: Option<(Problem, usize, u64)>,
}

impl Progress {
    pub(crate) fn new() -> Progress {
        Progress {
            state: State::Field,
            pos: 0,
            field_start: 0,
            seg: 0,
            close: 0,
            scratch_from: None,
            quote_open: (0, 0),
            lines: 0,
            problem: None,
        }
    }

    fn note(&mut self, p: Problem, at: usize) {
        if self.problem.is_none() {
            self.problem = Some((p, at, self.lines));
        }
    }

    /// Start unescaping the current field: copy its pending segment (up to
    /// `upto`) into scratch.
    #[inline]
    fn spill(&mut self, data: &[u8], upto: usize, scratch: &mut Vec<u8>) {
        if self.scratch_from.is_none() {
            self.scratch_from = Some(scratch.len());
        }
        scratch.extend_from_slice(&data[self.seg..upto]);
    }

    /// End the current field at `end`; false when it would be one too many.
    #[inline]
    fn push(
        &mut self,
        data: &[u8],
        end: usize,
        spans: &mut Vec<Span>,
        scratch: &mut Vec<u8>,
        max: usize,
    ) -> bool {
        if spans.len() >= max {
            return false;
        }
        let span = match self.scratch_from.take() {
            None => Span { start: self.seg, end },
            Some(from) => {
                scratch.extend_from_slice(&data[self.seg..end]);
                Span { start: from | SCRATCH, end: scratch.len() }
            }
        };
        spans.push(span);
        true
    }

    fn start_field(&mut self, at: usize) {
        self.state = State::Field;
        self.pos = at;
        self.field_start = at;
        self.seg = at;
    }

    /// End the record at end of input: whatever is open is closed.
    pub(crate) fn finish_at_eof(
        &mut self,
        data: &[u8],
        spans: &mut Vec<Span>,
        scratch: &mut Vec<u8>,
        max: usize,
    ) -> bool {
        let end = match self.state {
            State::Field => data.len(),
            State::Quoted | State::Escaped => {
                let (at, lines) = self.quote_open;
                if self.problem.is_none() {
                    self.problem = Some((Problem::UnterminatedQuote, at, lines));
                }
                data.len()
            }
            State::AfterQuote => self.close,
        };
        self.push(data, end, spans, scratch, max)
    }
}

/// What the hot loop needs from the configuration, laid out flat.
#[derive(Clone, Debug)]
pub(crate) struct Machine {
    /// The kernel and needles the cursor classifies with.
    classifier: ReaderClassifier,
    delim: u8,
    quote: u8,
    double_quote: bool,
    pub(crate) max_fields: usize,
    /// Take [`Machine::fast_fields`] for unquoted fields (off only in the tests
    /// that compare it with the general machine, its slow twin).
    fast: bool,
}

impl Machine {
    pub(crate) fn new(cfg: &Config) -> Machine {
        let quote = if cfg.quoting { cfg.quote } else { b'\n' };
        let escape = cfg.escape.filter(|_| cfg.quoting).unwrap_or(quote);
        Machine {
            classifier: ReaderClassifier::new(cfg.kernel, [cfg.delim, quote, b'\r', b'\n', escape]),
            delim: cfg.delim,
            quote,
            double_quote: cfg.double_quote,
            max_fields: cfg.max_fields,
            fast: true,
        }
    }

    /// The fast path for unquoted fields, from the start of a field at
    /// `s.pos` on: every set bit of the outside mask is a delimiter, a
    /// terminator or a quote, so a record without quotes costs one step per
    /// field and no state bookkeeping. A quoted field without escapes is
    /// taken here too ([`Machine::quoted_field`]), its newlines counted in
    /// `s.lines`. `None` at
    /// any other quote (left at `s.pos`, with the field it is in started
    /// there), for the general machine.
    #[inline(always)]
    pub(crate) fn fast_fields(
        &self,
        s: &mut Progress,
        cur: &mut Cursor,
        data: &[u8],
        off: u64,
        spans: &mut Vec<Span>,
        scratch: &mut Vec<u8>,
    ) -> Option<Step> {
        let mut seg = s.seg;
        let mut at = s.pos;
        loop {
            let Some((mask, delims, covered)) = cur.outside_at(&self.classifier, data, off, at)
            else {
                s.start_field(seg);
                s.pos = data.len();
                return Some(Step::More);
            };
            // At most 64 fields end in one block: make room for them all
            // first, so that the loop writes spans without a capacity check
            // and keeps the count in a register.
            spans.reserve(BLOCK);
            let mut n = spans.len();
            let out = spans.as_mut_ptr();
            // Every delimiter before the first other byte that matters (a
            // terminator or a quote) ends a field: no byte is loaded, and
            // the field limit is checked once after them (the general
            // machine stops at field `max + 1`; so do we, below).
            let other = mask & !delims;
            let mut ends = delims & other.wrapping_sub(1) & !other;
            while ends != 0 {
                let i = at + ends.trailing_zeros() as usize;
                // SAFETY: `n < len + 64 <= capacity`: one span per set bit
                // of this block's mask at most.
                unsafe { out.add(n).write(Span { start: seg, end: i }) };
                n += 1;
                seg = i + 1;
                ends &= ends - 1;
            }
            if n > self.max_fields {
                // SAFETY: the first `n > max_fields` spans are written.
                unsafe { spans.set_len(self.max_fields) };
                return Some(Step::TooManyFields);
            }
            if other == 0 {
                // SAFETY: the first `n` spans are written.
                unsafe { spans.set_len(n) };
                at += covered;
                continue;
            }
            // SAFETY: as above.
            unsafe { spans.set_len(n) };
            let i = at + other.trailing_zeros() as usize;
            let b = data[i];
            if b == b'\n' || b == b'\r' {
                if n >= self.max_fields {
                    return Some(Step::TooManyFields);
                }
                // SAFETY: `n < capacity` as above; then the first `n + 1`
                // are written.
                unsafe {
                    out.add(n).write(Span { start: seg, end: i });
                    spans.set_len(n + 1);
                }
                return Some(Step::End(i));
            }
            // A quote.
            let Some((span, j)) = self.quoted_field(cur, data, off, seg, i, scratch, &mut s.lines)
            else {
                s.start_field(seg);
                s.pos = i;
                return None;
            };
            if n >= self.max_fields {
                return Some(Step::TooManyFields);
            }
            // SAFETY: as above (the quote's bit had no span); then the
            // first `n + 1` are written.
            unsafe {
                out.add(n).write(span);
                spans.set_len(n + 1);
            }
            if data[j] != self.delim {
                return Some(Step::End(j));
            }
            seg = j + 1;
            at = j + 1;
        }
    }

    /// A quoted field that opens at `i` (the first byte of the field that
    /// starts at `seg`) and closes before a delimiter or terminator, with no
    /// escape byte inside: its span and the index of that delimiter or
    /// terminator, with the newlines inside added to `lines`. `None` for
    /// anything else (a bare quote, an escape, text after the closing
    /// quote, the end of the data), which the general machine reads from
    /// the field's start; `lines` is then as it was. About 10% of the
    /// bench's records quote a name, half of them with `""` inside; the
    /// general machine took about 400 instructions for each (callgrind),
    /// and as much again for a field with a newline.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn quoted_field(
        &self,
        cur: &mut Cursor,
        data: &[u8],
        off: u64,
        seg: usize,
        i: usize,
        scratch: &mut Vec<u8>,
        lines: &mut u64,
    ) -> Option<(Span, usize)> {
        if i != seg {
            return None;
        }
        let mut newlines = 0;
        let mut close = cur.next(&self.classifier, data, off, i + 1, true)?;
        if data[close] != self.quote {
            // Kept out of line: the common quoted field has no newline,
            // and the loop inlined here cost the plain records 1.5%.
            close = self.newlines_then_quote(cur, data, off, close, &mut newlines)?;
        }
        let &after = data.get(close + 1)?;
        if after == self.delim || after == b'\n' || after == b'\r' {
            *lines += newlines;
            return Some((Span { start: i + 1, end: close }, close + 1));
        }
        let found = self.doubled_quotes(cur, data, off, i, close, scratch, &mut newlines)?;
        *lines += newlines;
        Some(found)
    }

    /// [`closing_quote`](Self::closing_quote) from `at`, a byte inside
    /// quotes that the mask stopped at.
    #[inline(never)]
    fn newlines_then_quote(
        &self,
        cur: &mut Cursor,
        data: &[u8],
        off: u64,
        at: usize,
        newlines: &mut u64,
    ) -> Option<usize> {
        if data[at] != b'\n' {
            return (data[at] == self.quote).then_some(at);
        }
        *newlines += 1;
        self.closing_quote(cur, data, off, at + 1, newlines)
    }

    /// The next quote inside a quoted field from `pos` on, counting the
    /// newlines before it; `None` at an escape byte or the end of the data.
    #[inline(always)]
    fn closing_quote(
        &self,
        cur: &mut Cursor,
        data: &[u8],
        off: u64,
        mut pos: usize,
        newlines: &mut u64,
    ) -> Option<usize> {
        loop {
            // Inside quotes the mask stops at quotes, newlines and escapes.
            let j = cur.next(&self.classifier, data, off, pos, true)?;
            match data[j] {
                b if b == self.quote => return Some(j),
                b'\n' => {
                    *newlines += 1;
                    pos = j + 1;
                }
                _ => return None,
            }
        }
    }

    /// The rest of [`quoted_field`](Self::quoted_field) when a quote
    /// follows the first closing one: `""` kept as one quote, the field
    /// unescaped into `scratch` as the general machine does. On `None`,
    /// `scratch` is as it was.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn doubled_quotes(
        &self,
        cur: &mut Cursor,
        data: &[u8],
        off: u64,
        i: usize,
        mut close: usize,
        scratch: &mut Vec<u8>,
        newlines: &mut u64,
    ) -> Option<(Span, usize)> {
        let from = scratch.len();
        let mut seg = i + 1;
        loop {
            // `data[close]` is a quote and `data[close + 1]` exists.
            let after = data[close + 1];
            if after == self.delim || after == b'\n' || after == b'\r' {
                scratch.extend_from_slice(&data[seg..close]);
                return Some((Span { start: from | SCRATCH, end: scratch.len() }, close + 1));
            }
            let next = (after == self.quote && self.double_quote)
                .then(|| self.closing_quote(cur, data, off, close + 2, newlines))
                .flatten()
                .filter(|&j| j + 1 < data.len());
            let Some(next) = next else {
                scratch.truncate(from);
                return None;
            };
            // Keep the part before the pair and go on from its second
            // quote, which is data.
            scratch.extend_from_slice(&data[seg..close]);
            seg = close + 1;
            close = next;
        }
    }

    /// Unquoted fields in the general machine; `Some` when the run stops.
    #[inline]
    fn unquoted_fields(
        &self,
        s: &mut Progress,
        cur: &mut Cursor,
        data: &[u8],
        off: u64,
        spans: &mut Vec<Span>,
        scratch: &mut Vec<u8>,
    ) -> Option<Step> {
        // Loop here rather than dispatch on the state again for every field.
        let mut pos = s.pos;
        loop {
            let Some(i) = cur.next(&self.classifier, data, off, pos, false) else {
                s.pos = data.len();
                return Some(Step::More);
            };
            let b = data[i];
            if b == self.delim {
                if !s.push(data, i, spans, scratch, self.max_fields) {
                    return Some(Step::TooManyFields);
                }
                s.start_field(i + 1);
                pos = i + 1;
            } else if b == b'\n' || b == b'\r' {
                if !s.push(data, i, spans, scratch, self.max_fields) {
                    return Some(Step::TooManyFields);
                }
                return Some(Step::End(i));
            } else if i == s.field_start {
                // The quote opens a field only as its first byte.
                s.state = State::Quoted;
                s.quote_open = (i, s.lines);
                s.seg = i + 1;
                s.pos = i + 1;
                return None;
            } else {
                s.note(Problem::BareQuote, i);
                pos = i + 1;
            }
        }
    }

    /// Run the machine over `data` (the record's bytes so far; `off` is the
    /// absolute offset of `data[0]`) from `s.pos` on.
    #[inline]
    pub(crate) fn run(
        &self,
        s: &mut Progress,
        cur: &mut Cursor,
        data: &[u8],
        off: u64,
        spans: &mut Vec<Span>,
        scratch: &mut Vec<u8>,
    ) -> Step {
        loop {
            match s.state {
                State::Field if self.fast && s.scratch_from.is_none() && s.seg == s.field_start => {
                    match self.fast_fields(s, cur, data, off, spans, scratch) {
                        Some(step) => return step,
                        // A quote at `s.pos`: the general machine goes on.
                        None => {
                            if let Some(step) =
                                self.unquoted_fields(s, cur, data, off, spans, scratch)
                            {
                                return step;
                            }
                        }
                    }
                }
                State::Field => {
                    if let Some(step) = self.unquoted_fields(s, cur, data, off, spans, scratch) {
                        return step;
                    }
                }
                State::Quoted => {
                    let Some(i) = cur.next(&self.classifier, data, off, s.pos, true) else {
                        s.pos = data.len();
                        return Step::More;
                    };
                    let b = data[i];
                    if b == self.quote {
                        s.close = i;
                        s.state = State::AfterQuote;
                    } else if b == b'\n' {
                        s.lines += 1;
                    } else {
                        // The escape byte: drop it, keep the next byte.
                        s.spill(data, i, scratch);
                        s.seg = i + 1;
                        s.state = State::Escaped;
                    }
                    s.pos = i + 1;
                }
                State::Escaped => {
                    let Some(&b) = data.get(s.pos) else {
                        return Step::More;
                    };
                    s.lines += u64::from(b == b'\n');
                    s.pos += 1;
                    s.state = State::Quoted;
                }
                State::AfterQuote => {
                    let i = s.pos;
                    let Some(&b) = data.get(i) else {
                        return Step::More;
                    };
                    if b == self.quote && self.double_quote {
                        // `""`: keep the second quote as data.
                        s.spill(data, s.close, scratch);
                        s.seg = i;
                        s.state = State::Quoted;
                        s.pos = i + 1;
                    } else if b == self.delim {
                        if !s.push(data, s.close, spans, scratch, self.max_fields) {
                            return Step::TooManyFields;
                        }
                        s.start_field(i + 1);
                    } else if b == b'\n' || b == b'\r' {
                        if !s.push(data, s.close, spans, scratch, self.max_fields) {
                            return Step::TooManyFields;
                        }
                        return Step::End(i);
                    } else {
                        // As csv-core: drop the closing quote, go on unquoted.
                        s.note(Problem::TextAfterQuote, i);
                        s.spill(data, s.close, scratch);
                        s.seg = i;
                        s.state = State::Field;
                        s.pos = i;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ReaderBuilder;

    /// Everything a run over `input` produces, record by record: how each
    /// ended, its fields (unescaped), its line count and strict problem.
    type Trace = Vec<(Step, Vec<Vec<u8>>, u64, Option<(Problem, usize, u64)>)>;

    /// Read `input` record by record as the reader does, handing the
    /// machine growing prefixes `step` bytes longer each time (refills).
    fn trace(m: &Machine, input: &[u8], step: usize) -> Trace {
        let mut out = Trace::new();
        let mut cur = Cursor::default();
        let (mut spans, mut scratch) = (Vec::new(), Vec::new());
        let mut start = 0;
        while start < input.len() {
            let mut s = Progress::new();
            spans.clear();
            scratch.clear();
            let mut have = (start + step).min(input.len());
            let end = loop {
                let data = &input[start..have];
                let st = m.run(&mut s, &mut cur, data, start as u64, &mut spans, &mut scratch);
                match st {
                    Step::More if have < input.len() => {
                        have = (have + step).min(input.len());
                        cur.invalidate();
                    }
                    Step::More => {
                        let ok = s.finish_at_eof(data, &mut spans, &mut scratch, m.max_fields);
                        break (if ok { st } else { Step::TooManyFields }, input.len());
                    }
                    Step::End(i) => break (st, start + i + 1),
                    Step::TooManyFields => break (st, input.len()),
                }
            };
            let fields = spans
                .iter()
                .map(|sp| {
                    if sp.start & SCRATCH != 0 {
                        scratch[sp.start & !SCRATCH..sp.end].to_vec()
                    } else {
                        input[start + sp.start..start + sp.end].to_vec()
                    }
                })
                .collect();
            out.push((end.0, fields, s.lines, s.problem));
            start = end.1;
        }
        out
    }

    #[test]
    fn the_plain_fast_path_matches_the_general_machine() {
        let mut rng = swath_testkit::Rng::new(0x2545f4914f6cdd1d);
        let mut next = move || rng.next_u64();
        let mut checked = 0;
        for case in 0..600 {
            // Few structural bytes in some cases (long plain runs across
            // blocks), many in others.
            let alphabet: &[u8] = match case % 3 {
                0 => b",\"\r\n\\ab",
                1 => b",\nabcdefghijklmnop",
                _ => b",\"\nabcdefghijklmnopqrstuvwxyz0123456789",
            };
            let len = (next() % 300) as usize;
            let input: Vec<u8> =
                (0..len).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]).collect();
            let mut b = ReaderBuilder::new();
            if case % 4 == 1 {
                b.escape(Some(b'\\'));
            }
            if case % 5 == 2 {
                b.max_fields(3);
            }
            if case % 7 == 3 {
                b.quoting(false);
            }
            for k in crate::classify::Kernel::available() {
                b.kernel(k);
                let fast = Machine::new(b.config());
                let slow = Machine { fast: false, ..fast.clone() };
                for step in [1, 7, 64, 1000] {
                    let want = trace(&slow, &input, step);
                    assert_eq!(trace(&fast, &input, step), want, "{:?} step {step}", input);
                    checked += want.len();
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }
}

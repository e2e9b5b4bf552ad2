//! Where the records are in a sniffed text: an Excel `sep=X` first line,
//! preamble lines before the first stable block of records (records of
//! one field count, read from that line on), and footer lines after it
//! (the last records, of another count).
//!
//! A preamble is found by reading records from each of the first lines
//! in turn, with each delimiter: the first line from which they read as
//! one field count (at least 2, 90% of the records read, the first of
//! them too) starts the records. The delimiter whose block holds the most
//! records wins. So a title with a comma ("Sales report, all regions")
//! or a stray quote (`Source: system "X`) is a preamble, and a file whose
//! records start at its top has none.

use super::candidate::{Candidate, DELIMITERS};
use super::score::builder;
use crate::preamble::{excel_sep, Skip};

/// The most preamble lines looked for.
const MAX_PREAMBLE: usize = 40;
/// The most footer records looked for.
const MAX_FOOTER: usize = 5;
/// Records read from a candidate start.
const RECORDS: usize = 300;

/// The line starts of `text` (its first line at 0), and the end of its
/// last complete line.
fn line_starts(text: &[u8], complete: bool) -> (Vec<usize>, usize) {
    let mut starts = vec![0];
    starts.extend(memchr::memchr_iter(b'\n', text).map(|i| i + 1));
    let end = if complete { text.len() } else { *starts.last().unwrap_or(&0) };
    starts.retain(|&s| s < end);
    (starts, end)
}

/// A line's text, without its line end (or a byte order mark on line 0).
fn line_text<'t>(text: &'t [u8], starts: &[usize], i: usize, end: usize) -> &'t [u8] {
    let stop = starts.get(i + 1).copied().unwrap_or(end);
    let mut t = &text[starts[i]..stop];
    t = t.strip_suffix(b"\n").unwrap_or(t);
    t = t.strip_suffix(b"\r").unwrap_or(t);
    if i == 0 {
        t = t.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(t);
    }
    t
}

/// Line 0's Excel `sep=X`, if it is one.
pub(crate) fn sep_line(text: &[u8]) -> Option<u8> {
    let (starts, end) = line_starts(text, true);
    if starts.is_empty() {
        return None;
    }
    excel_sep(line_text(text, &starts, 0, end.min(text.len())))
}

/// The lines `skip` leaves out of `text` (a head), counting a `sep=` line
/// as one of them when `skip` does not reach past it. `None` when the
/// head does not hold the line `skip` looks for.
pub(crate) fn skipped(text: &[u8], complete: bool, skip: &Skip) -> Option<usize> {
    let (starts, end) = line_starts(text, complete);
    let sep = usize::from(sep_line(text).is_some());
    match skip {
        Skip::Lines(n) => Some((*n as usize).max(sep)),
        Skip::Until(m) => {
            (sep..starts.len()).find(|&i| m.matches(line_text(text, &starts, i, end)))
        }
        _ => Some(sep),
    }
}

/// Preamble lines found in `text` (a head) from line `from` on, read with
/// `delimiter` when it is known (a `sep=` line), else each candidate.
pub(crate) fn preamble(text: &[u8], complete: bool, from: usize, delimiter: Option<u8>) -> usize {
    let (starts, end) = line_starts(text, complete);
    let delimiters: Vec<u8> = match delimiter {
        Some(d) => vec![d],
        None => DELIMITERS.to_vec(),
    };
    // (records of the block, its first line), best first.
    let mut best: Option<(usize, usize)> = None;
    for d in delimiters {
        // Quotes doubled, or escaped with a backslash.
        let cands =
            [None, Some(b'\\')].map(|escape| Candidate { delimiter: d, quote: Some(b'"'), escape });
        for k in from..starts.len().min(from + MAX_PREAMBLE + 1) {
            if line_text(text, &starts, k, end).iter().all(|&b| b == b' ' || b == b'\t') {
                continue;
            }
            let bytes = &text[starts[k]..end];
            let Some(block) = cands.iter().filter_map(|c| block_from(bytes, c)).max() else {
                continue;
            };
            // Lines left out need a block of records after them to be sure.
            if k > from && block < 3 {
                continue;
            }
            if best.is_none_or(|(n, _)| block > n) {
                best = Some((block, k));
            }
            break;
        }
    }
    best.map_or(from, |(_, k)| k)
}

/// How many records read as one block from the top of `text` with `cand`:
/// at least 2 fields each, the first record's count, 90% of them; `None`
/// when they do not.
fn block_from(text: &[u8], cand: &Candidate) -> Option<usize> {
    let mut rdr = builder(cand).from_reader(text).ok()?;
    let mut counts = Vec::new();
    while counts.len() < RECORDS {
        match rdr.next_record() {
            Ok(Some(r)) => counts.push(r.len()),
            Ok(None) => break,
            // A quote that does not close in the head ends a sample; a
            // quoting error early says this is no start of records.
            Err(_) if counts.len() >= 5 => break,
            Err(_) => return None,
        }
    }
    let first = *counts.first()?;
    let same = counts.iter().filter(|&&c| c == first).count();
    (first >= 2 && same * 10 >= counts.len() * 9 && (same >= 2 || counts.len() == 1))
        .then_some(same)
}

/// Footer lines at the end of `tail` (the last bytes of the text; the
/// whole text when `whole`): the last records, single lines of another
/// field count than `fields`, after records of that count.
pub(crate) fn footer(tail: &[u8], whole: bool, cand: &Candidate, fields: usize) -> u64 {
    let (starts, _) = line_starts(tail, true);
    // A tail cut anywhere starts in the middle of a line.
    let first = usize::from(!whole);
    for &s in starts.iter().skip(first).take(50) {
        let Ok(mut rdr) = builder(cand).from_reader(&tail[s..]) else { return 0 };
        let mut recs: Vec<(usize, usize)> = Vec::new();
        let clean = loop {
            match rdr.next_record() {
                Ok(Some(r)) => recs.push((r.position().byte as usize, r.len())),
                Ok(None) => break true,
                Err(_) => break false,
            }
        };
        if !clean {
            continue;
        }
        let Some(&(_, count)) = recs.first() else { return 0 };
        if count != fields {
            continue;
        }
        let odd = recs.iter().rev().take_while(|r| r.1 != fields).count();
        if odd == 0 || odd > MAX_FOOTER || odd == recs.len() {
            return 0;
        }
        let body = &recs[..recs.len() - odd];
        if body.iter().filter(|r| r.1 == fields).count() * 10 < body.len() * 8 {
            continue;
        }
        let from = s + recs[recs.len() - odd].0;
        // The footer's lines, as --skip-last counts them (not empty ones).
        return tail[from..].split(|&b| b == b'\n').filter(|l| l.iter().any(|&b| b != b'\r')).count()
            as u64;
    }
    0
}

impl super::Layout {
    /// `text` (a head of the text, all of it when `complete`) as a reader
    /// told this layout reads it: the preamble's lines masked as empty
    /// lines, and, when complete, the footer's lines gone.
    pub fn apply(&self, text: &[u8], complete: bool) -> Vec<u8> {
        let mut out = text.to_vec();
        let mut end = 0;
        for _ in 0..self.skip_lines {
            if end >= out.len() {
                break;
            }
            end = memchr::memchr(b'\n', &out[end..]).map_or(out.len(), |i| end + i + 1);
        }
        for b in &mut out[..end] {
            if *b != b'\n' {
                *b = b'\r';
            }
        }
        if complete && self.footer_lines > 0 {
            let mut counted = 0;
            let mut cut = out.len();
            let mut filled = false;
            for i in (end..out.len()).rev() {
                match out[i] {
                    b'\n' => {
                        if filled {
                            counted += 1;
                            cut = i + 1;
                            if counted == self.footer_lines {
                                break;
                            }
                        }
                        filled = false;
                    }
                    b'\r' => {}
                    _ => filled = true,
                }
            }
            if counted < self.footer_lines {
                cut = end;
            }
            out.truncate(cut);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORDS_TEXT: &str =
        "id,name,qty\n1,ann,\"a\nb\"\n2,bob,3\n3,cy,4\n4,dan,5\n5,eve,6\n6,fay,7\n";

    #[test]
    fn a_preamble_is_the_lines_before_the_first_block_of_records() {
        let comma = Candidate { delimiter: b',', quote: Some(b'"'), escape: None };
        for pre in ["", "Report\n", "Sales, all regions\nSource: \"X\n\n", "a;b;c;d;e\nx,y\n"] {
            let text = format!("{pre}{RECORDS_TEXT}");
            let lines = pre.matches('\n').count();
            assert_eq!(preamble(text.as_bytes(), true, 0, None), lines, "{pre:?}");
        }
        let semi = "Title\nx;y;z\n1;2;3\n4;5;6\n";
        assert_eq!(preamble(semi.as_bytes(), true, 0, None), 1);
        // A footer of another shape, and one of the same.
        let text = format!("{RECORDS_TEXT}Totals,21\n(6 rows)\n\n");
        // A preamble with a stray quote before them is read past.
        let quoted = format!("Title \"odd\nSource: x, y\n\n{RECORDS_TEXT}(6 rows)\n");
        assert_eq!(footer(quoted.as_bytes(), true, &comma, 3), 1);
        assert_eq!(footer(text.as_bytes(), true, &comma, 3), 2);
        assert_eq!(footer(RECORDS_TEXT.as_bytes(), true, &comma, 3), 0);
        // Cut anywhere: the first partial line is not read.
        let cut = &text.as_bytes()[5..];
        assert_eq!(footer(cut, false, &comma, 3), 2);
    }

    #[test]
    fn skip_rules_in_a_head() {
        let text = b"sep=;\nTitle\nid;x\n1;2\n3;4\n5;6\n";
        assert_eq!(sep_line(text), Some(b';'));
        assert_eq!(skipped(text, true, &Skip::Nothing), Some(1));
        assert_eq!(skipped(text, true, &Skip::Lines(2)), Some(2));
        let m = crate::preamble::LineMatch::new("id;", |t: &[u8]| t.starts_with(b"id;"));
        assert_eq!(skipped(text, true, &Skip::Until(m)), Some(2));
        assert_eq!(preamble(text, true, 1, Some(b';')), 2);
    }
}

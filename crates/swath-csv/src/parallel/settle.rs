//! A record start near a place in the file, from the bytes at that place
//! alone: what inference samples from, without the pass over the whole
//! file that exact starts need (`plan.rs`).
//!
//! From the place on, both quote hypotheses ("outside quotes", "inside")
//! are scanned by the validating scan (`validator.rs`), a window at a
//! time. The place is settled when one hypothesis has broken a rule of
//! the dialect (a quote in the middle of a field, text after a closing
//! quote, a wrong field count, a record over the limit) and the other is
//! still clean with a record start. In a file that is valid CSV the true
//! hypothesis never breaks a rule, so the broken one is false and the
//! clean one's first record start is exact. That is stronger than phase
//! 1's guess (`speculate.rs`), which also takes a hypothesis that merely
//! found a start first, and must be verified; a place that is not settled
//! within [`SETTLE_LIMIT`] bytes is left out. In a file that is not valid
//! CSV a start may be wrong; a reader of the whole file meets the error.

use swath::{Buffer, ReadAt};

use super::plan::{read_after, read_into};
use super::validator::{CountOpts, Hypothesis, Validator};
use crate::classify::Kernel;

/// Bytes scanned at a time. A multiple of 64.
const WINDOW: u64 = 64 << 10;

/// Bytes scanned at most from a place before it is left out.
const SETTLE_LIMIT: u64 = 1 << 20;

/// The first record start at or after `at` (and after the file's first
/// byte past the byte order mark `bom`) of `file` (length `len`), when the
/// bytes from there settle it.
///
/// # Errors
///
/// An I/O error, or the file shrinking while it is read.
pub(crate) fn settled_start(
    file: &dyn ReadAt,
    len: u64,
    bom: u64,
    at: u64,
    buf: &mut Buffer,
    kernel: Kernel,
    opts: CountOpts,
) -> swath::Result<Option<u64>> {
    // Past the top: the first record there (the header row, most often)
    // is not a place's.
    let a = at.max(bom + 1);
    let stop = (a + SETTLE_LIMIT).min(len);
    let mut end = (a + WINDOW).min(stop);
    if a >= end {
        return Ok(None);
    }
    let (prev, body) = read_after(file, len, bom, a, end, buf)?;
    // Only a quote can break the "inside quotes" hypothesis: a first
    // window without one will not settle (a file without quotes; the
    // caller has the exact plan for that).
    let quoted = opts.quote.is_none_or(|q| body.contains(&q));
    let mut v = Validator::new(kernel, opts, a, prev);
    v.feed(body);
    loop {
        let [out, inside] = &v.findings().hyp;
        if opts.quote.is_none() {
            // Without quoting every terminator ends a record.
            return Ok(out.first.map(|f| f.0));
        }
        if !quoted {
            return Ok(None);
        }
        match (settled(out, inside), settled(inside, out)) {
            (Some(start), _) | (_, Some(start)) => return Ok(Some(start)),
            // Both broken: not valid CSV here; nothing to sample.
            _ if (!out.clean || out.misquoted) && (!inside.clean || inside.misquoted) => {
                return Ok(None)
            }
            _ if end == stop => return Ok(None),
            _ => {}
        }
        let next = (end + WINDOW).min(stop);
        read_into(file, len, end, next, buf)?;
        v.feed(buf.data());
        end = next;
    }
}

/// `h`'s first record start, when `h` broke no rule and `other` did.
fn settled(h: &Hypothesis, other: &Hypothesis) -> Option<u64> {
    let broken = |h: &Hypothesis| !h.clean || h.misquoted;
    if !broken(h) && broken(other) {
        h.first.map(|f| f.0)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reader::config::Config;

    /// `settled_start` at `at` of `data` (a file), with the default
    /// dialect and three fields a record.
    fn at(data: &[u8], at: u64) -> Option<u64> {
        let mut f = tempfile::tempfile().unwrap();
        std::io::Write::write_all(&mut f, data).unwrap();
        let opts = CountOpts::new(&Config::default(), Some(3));
        let mut buf = Buffer::with_capacity(WINDOW as usize + 1);
        settled_start(&f, data.len() as u64, 0, at, &mut buf, Kernel::detect(), opts).unwrap()
    }

    #[test]
    fn quotes_settle_a_place_and_a_window_without_any_does_not() {
        let mut quoted = b"a,b,c\n".to_vec();
        for i in 0..10_000 {
            quoted.extend_from_slice(format!("{i},\"x\ny\",z\n").as_bytes());
        }
        // Records start after `z\n`; after the `\n` inside a quoted field,
        // `y",z` would be a start of the wrong hypothesis.
        for place in [1000, 1003, 1005, 50_000] {
            let start = at(&quoted, place).expect("settled") as usize;
            assert!(start > place as usize && &quoted[start - 2..start] == b"z\n", "{place}");
        }
        // Quotes that open and close on one line: the wrong hypothesis
        // then sees every newline inside quotes, so no record start, and
        // only its misplaced quotes give it away.
        let mut one_line = b"a,b,c\n".to_vec();
        for i in 0..10_000 {
            one_line.extend_from_slice(format!("{i},\"Smith, J\",z\n").as_bytes());
        }
        for place in [1000, 1003, 1005, 1010, 50_000] {
            let start = at(&one_line, place).expect("settled") as usize;
            assert!(start > place as usize && &one_line[start - 2..start] == b"z\n", "{place}");
        }
        let mut plain = b"a,b,c\n".to_vec();
        for i in 0..10_000 {
            plain.extend_from_slice(format!("{i},x,z\n").as_bytes());
        }
        assert_eq!(at(&plain, 1000), None);
    }
}

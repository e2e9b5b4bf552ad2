//! How well a candidate dialect reads a sample: the field count of each
//! record, and whether the sample reads without a quoting error.
//!
//! A dialect reads a file well when its records have one field count
//! (consistency) and more than one field; a wrong quote byte shows as an
//! error or as records that split where a quoted field holds a delimiter.

use super::candidate::Candidate;
use crate::{ErrorKind, ReaderBuilder};

/// Bytes of a file read as one sample.
#[derive(Clone, Debug)]
pub struct Sample {
    /// Where the sample starts in the file (an exact record start).
    pub at: u64,
    /// Its bytes (cut after the last line end when the file goes on).
    pub bytes: Vec<u8>,
    /// The sample runs to the end of the file.
    pub complete: bool,
}

/// The field counts a candidate reads in a sample.
#[derive(Clone, Debug, Default)]
pub struct Shape {
    /// Each record's number of fields.
    pub counts: Vec<usize>,
    /// A quoting error (not one the sample's cut made).
    pub failed: bool,
}

/// A reader of `c`'s dialect, headers off, any field count.
pub fn builder(c: &Candidate) -> ReaderBuilder {
    let mut b = ReaderBuilder::new();
    b.delimiter(c.delimiter)
        .quoting(c.quote.is_some())
        .quote(c.quote.unwrap_or(b'"'))
        .escape(c.escape)
        .has_headers(false)
        .flexible(true);
    b
}

/// Read up to `max` records of `s` with `c`.
pub fn shape(s: &Sample, c: &Candidate, max: usize) -> Shape {
    let mut out = Shape::default();
    let Ok(mut rdr) = builder(c).from_reader(&s.bytes[..]) else {
        out.failed = true;
        return out;
    };
    while out.counts.len() < max {
        match rdr.next_record() {
            Ok(Some(rec)) => out.counts.push(rec.len()),
            Ok(None) => break,
            // A quoted field cut by the sample's end is not the dialect's
            // fault: the record is dropped.
            Err(e) if !s.complete && matches!(e.kind(), ErrorKind::UnterminatedQuote) => break,
            Err(_) => {
                out.failed = true;
                break;
            }
        }
    }
    out
}

/// The most common field count (the larger of equally common ones).
pub fn modal<'a>(shapes: impl Iterator<Item = &'a Shape>) -> usize {
    let mut freq = std::collections::HashMap::<usize, usize>::new();
    for s in shapes {
        for &n in &s.counts {
            *freq.entry(n).or_default() += 1;
        }
    }
    freq.into_iter().max_by_key(|&(n, f)| (f, n)).map_or(1, |(n, _)| n)
}

/// The share of `s`'s records with `m` fields (0 when it failed); `None`
/// for a sample with no record.
pub fn consistency(s: &Shape, m: usize) -> Option<f64> {
    if s.failed {
        return Some(0.0);
    }
    if s.counts.is_empty() {
        return None;
    }
    let hits = s.counts.iter().filter(|&&n| n == m).count();
    Some(hits as f64 / s.counts.len() as f64)
}

/// A score in [0, 1): consistency, sharpened so that a few odd records
/// weigh, times m/(m+1) so that splitting beats not splitting.
pub fn score(consistency: f64, m: usize) -> f64 {
    consistency.powi(8) * m as f64 / (m as f64 + 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(b: &[u8], complete: bool) -> Sample {
        Sample { at: 0, bytes: b.to_vec(), complete }
    }

    #[test]
    fn the_right_dialect_reads_consistently() {
        let s = sample(b"a,b,c\n1,\"x,y\",3\n4,5,6\n", true);
        let q = Candidate { delimiter: b',', quote: Some(b'"'), escape: None };
        let none = Candidate { quote: None, ..q };
        let sq = shape(&s, &q, 100);
        assert_eq!((modal([&sq].into_iter()), consistency(&sq, 3)), (3, Some(1.0)));
        let sn = shape(&s, &none, 100);
        assert!(consistency(&sn, modal([&sn].into_iter())).unwrap() < 1.0);
        // A cut quoted field at the end of a partial sample is no failure.
        let cut = sample(b"a,b\n1,\"open\n", false);
        assert!(!shape(&cut, &q, 100).failed);
        assert!(shape(&sample(b"a,b\n1,\"open\n", true), &q, 100).failed);
        assert!(score(1.0, 3) > score(1.0, 1) && score(0.9, 5) < score(1.0, 3));
    }
}

//! The prefilter: byte strings of which every match of the pattern holds
//! one, searched for in a file's raw bytes, fields unparsed.
//!
//! Soundness: a field's text is its raw bytes with the enclosing quotes
//! taken off and each doubled quote made one (strict quoting, no escape
//! byte: the only rules under which this is used). So a stretch of the
//! text with no quote byte in it is, byte for byte, a stretch of the raw
//! record. Every needle here is free of the quote byte (and of CR and LF,
//! so that an occurrence in the raw bytes lies inside one record): when a
//! field matches, the needle its match begins (or ends) with is in the raw
//! bytes of the match's record. A record with no needle in its raw bytes
//! cannot match. A needle found is only a "maybe": the record's fields are
//! still matched one by one.

use memchr::memmem;
use regex::bytes::Regex;
use regex_syntax::hir::literal::{ExtractKind, Extractor, Seq};

/// Where a needle may start in raw bytes.
#[derive(Clone, Debug)]
pub enum Needles {
    /// One byte string (memchr's `memmem`).
    One(Box<memmem::Finder<'static>>),
    /// Several (an alternation of them, which the regex crate searches
    /// with its own literal engines).
    Many(Regex),
}

/// Shortest needle worth a prefilter: shorter ones are found in most
/// records (then the per-record path is faster).
const MIN_LEN: usize = 2;

impl Needles {
    /// The needles of plain text `pattern` (case-sensitive), or `None`.
    pub fn literal(pattern: &[u8], quote: Option<u8>) -> Option<Needles> {
        usable(pattern, quote)
            .then(|| Needles::One(Box::new(memmem::Finder::new(pattern).into_owned())))
    }

    /// The needles every match of the regex `source` (compiled with these
    /// flags, as [`Matcher`](super::Matcher) does) begins or ends with, or
    /// `None` when there is no finite set of usable ones.
    pub fn regex(source: &str, ignore_case: bool, quote: Option<u8>) -> Option<Needles> {
        let hir = regex_syntax::ParserBuilder::new()
            .case_insensitive(ignore_case)
            .unicode(true)
            .utf8(false)
            .build()
            .parse(source)
            .ok()?;
        // The regex crate's own optimization of these sets is tuned for its
        // engines (it cut `Par(is|ma)|[0-9]{3}\.5,` down to single bytes);
        // `needles_of` cuts them for this use.
        let prefixes = Extractor::new().kind(ExtractKind::Prefix).extract(&hir);
        let suffixes = Extractor::new().kind(ExtractKind::Suffix).extract(&hir);
        let best = [(prefixes, true), (suffixes, false)]
            .into_iter()
            .filter_map(|(s, prefix)| needles_of(&s, prefix, quote))
            .max_by_key(|n| (n.iter().map(Vec::len).min(), std::cmp::Reverse(n.len())))?;
        Some(Needles::from_set(best))
    }

    fn from_set(mut set: Vec<Vec<u8>>) -> Needles {
        if set.len() == 1 {
            let one = set.pop().expect("one needle");
            return Needles::One(Box::new(memmem::Finder::new(&one).into_owned()));
        }
        let alternation: Vec<String> = set.iter().map(|n| escape_bytes(n)).collect();
        let re = regex::bytes::RegexBuilder::new(&alternation.join("|"))
            .unicode(false)
            .size_limit(1 << 24)
            .build()
            // Escaped bytes always compile; a set too large for the limit
            // cannot be: 250 needles at most.
            .expect("an alternation of escaped bytes");
        Needles::Many(re)
    }

    /// Every place a needle starts in `hay`, left to right, not
    /// overlapping.
    pub fn each_start(&self, hay: &[u8], mut f: impl FnMut(usize) -> bool) {
        match self {
            Needles::One(finder) => {
                for at in finder.find_iter(hay) {
                    if !f(at) {
                        return;
                    }
                }
            }
            Needles::Many(re) => {
                for m in re.find_iter(hay) {
                    if !f(m.start()) {
                        return;
                    }
                }
            }
        }
    }
}

/// Most needles searched for at once (the regex crate's Teddy takes up
/// to 64; fewer and longer ones find fewer false candidates).
const MAX_NEEDLES: usize = 16;

/// A small set of usable needles from `seq` (every match of the pattern
/// starts with one of its literals, or ends with one: `prefix` says
/// which), if there is one. Each literal may be cut to its first (last)
/// `k` bytes: a part of a literal is in every place the literal is, so the
/// set stays sound. The longest `k` that leaves at most [`MAX_NEEDLES`]
/// distinct usable needles wins.
fn needles_of(seq: &Seq, prefix: bool, quote: Option<u8>) -> Option<Vec<Vec<u8>>> {
    let lits = seq.literals()?;
    if lits.is_empty() {
        // No match at all is possible; a needle that is never found says
        // so, but keep the obvious path for such a pattern.
        return None;
    }
    let longest = lits.iter().map(|l| l.as_bytes().len()).max()?;
    for k in (MIN_LEN..=longest).rev() {
        let mut set: Vec<Vec<u8>> = lits
            .iter()
            .map(|l| {
                let b = l.as_bytes();
                let cut = b.len().min(k);
                if prefix {
                    b[..cut].to_vec()
                } else {
                    b[b.len() - cut..].to_vec()
                }
            })
            .collect();
        set.sort_unstable();
        set.dedup();
        if set.len() <= MAX_NEEDLES && set.iter().all(|n| usable(n, quote)) {
            return Some(set);
        }
    }
    None
}

/// Whether `needle` may be searched for in raw bytes (see the module
/// documentation).
fn usable(needle: &[u8], quote: Option<u8>) -> bool {
    needle.len() >= MIN_LEN && !needle.iter().any(|&b| b == b'\n' || b == b'\r' || Some(b) == quote)
}

/// `bytes` as a regex (Unicode off) that matches exactly them.
fn escape_bytes(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 4);
    for &b in bytes {
        s.push_str(&format!("\\x{b:02x}"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::Needles;

    fn starts(n: &Needles, hay: &[u8]) -> Vec<usize> {
        let mut v = Vec::new();
        n.each_start(hay, |at| {
            v.push(at);
            true
        });
        v
    }

    #[test]
    fn literal_needles() {
        let n = Needles::literal(b"ab", Some(b'"')).unwrap();
        assert_eq!(starts(&n, b"xxab,ab"), vec![2, 5]);
        // A quote, a newline, or too short: no prefilter.
        assert!(Needles::literal(b"a\"b", Some(b'"')).is_none());
        assert!(Needles::literal(b"a\nb", Some(b'"')).is_none());
        assert!(Needles::literal(b"a", Some(b'"')).is_none());
        // Without quoting, a quote byte is data like any other.
        assert!(Needles::literal(b"a\"b", None).is_some());
    }

    #[test]
    fn regex_needles() {
        let n = Needles::regex("Par(is|ma)", false, Some(b'"')).unwrap();
        assert_eq!(starts(&n, b"Paris,Parma,Paru"), vec![0, 6]);
        // Case folded: the needles are the case variants.
        let n = Needles::regex("paris", true, Some(b'"')).unwrap();
        assert_eq!(starts(&n, b"PARIS paris PaRiS"), vec![0, 6, 12]);
        // No usable literal: anything, a quote in every match, a class.
        assert!(Needles::regex(".*", false, Some(b'"')).is_none());
        assert!(Needles::regex("a\"b", false, Some(b'"')).is_none());
        assert!(Needles::regex("[a-z]+", false, Some(b'"')).is_none());
        assert!(Needles::regex("(", false, Some(b'"')).is_none());
        // Too many literals at full length: cut to a few shorter ones
        // (here the suffixes `aris`, `arma`, `0.5,` to `9.5,`).
        let n = Needles::regex("Par(is|ma)|[0-9]{3}\\.5,", false, Some(b'"')).unwrap();
        assert_eq!(starts(&n, b"Paris,x,12.5,Parma,123.4,"), vec![1, 9, 14]);
        // A quote cut away from the end of the literal it is in.
        let n = Needles::regex("a\"bcd", false, Some(b'"')).unwrap();
        assert_eq!(starts(&n, b"\"a\"\"bcd\""), vec![4]);
    }
}

//! What `csv search` looks for in a field: a regex (the `regex` crate), or
//! plain text (`--literal`, found with memchr's `memmem`).

use memchr::memmem;
use regex::bytes::{Regex, RegexBuilder};

/// A compiled pattern; cheap to share between threads.
#[derive(Clone, Debug)]
pub enum Matcher {
    /// Plain text, case-sensitive.
    Literal(Box<memmem::Finder<'static>>),
    /// A regular expression (also plain text with `-i`, escaped).
    Regex(Regex),
}

impl Matcher {
    /// Compile `pattern`: plain text when `literal`, else a regex;
    /// `ignore_case` for both.
    pub fn new(pattern: &str, literal: bool, ignore_case: bool) -> anyhow::Result<Matcher> {
        if literal && !ignore_case {
            return Ok(Matcher::Literal(Box::new(
                memmem::Finder::new(pattern.as_bytes()).into_owned(),
            )));
        }
        let source = if literal { regex::escape(pattern) } else { pattern.to_string() };
        let re = RegexBuilder::new(&source)
            .case_insensitive(ignore_case)
            // Fields are bytes: `.` and classes match any byte sequence,
            // Unicode-aware where the field is UTF-8.
            .unicode(true)
            .build()
            .map_err(|e| anyhow::anyhow!("bad pattern {pattern:?}: {e}"))?;
        Ok(Matcher::Regex(re))
    }

    /// Whether `field` holds a match.
    #[inline]
    pub fn is_match(&self, field: &[u8]) -> bool {
        match self {
            Matcher::Literal(f) => f.find(field).is_some(),
            Matcher::Regex(re) => re.is_match(field),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Matcher;

    #[test]
    fn literal_regex_and_case() {
        let lit = Matcher::new("a.b", true, false).unwrap();
        assert!(lit.is_match(b"xa.by") && !lit.is_match(b"axb"));
        let re = Matcher::new("a.b", false, false).unwrap();
        assert!(re.is_match(b"axb"));
        let ci = Matcher::new("A.B", true, true).unwrap();
        assert!(ci.is_match(b"xa.by") && !ci.is_match(b"axb"));
        let uni = Matcher::new("é", false, true).unwrap();
        assert!(uni.is_match("CAFÉ".as_bytes()));
        assert!(Matcher::new("(", false, false).unwrap_err().to_string().contains("bad pattern"));
        // The empty pattern matches every field.
        assert!(Matcher::new("", true, false).unwrap().is_match(b""));
    }
}

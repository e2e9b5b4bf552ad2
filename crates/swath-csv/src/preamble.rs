//! The lines around a CSV file's records: a preamble before the header
//! (a title, "Source: system X", Excel's `sep=;`) and a footer after the
//! data ("Totals;1.234,50"). [`Skip`] and
//! [`ReaderBuilder::footer_lines`](crate::ReaderBuilder::footer_lines) say
//! where the records are; every reader of a path then reads only them
//! (`swath::preamble`: the preamble's bytes read as empty lines, the file
//! ends at its footer), and every position is still the file's.
//!
//! Excel's `sep=X` first line names the delimiter: it is never a record.
//! Read with delimiter X, it is skipped; read with another, it is an
//! error that says so (a reader that chose its delimiter from it, as the
//! CLI does, never meets that).

use std::io;
use std::sync::Arc;

/// A test of a line's text, shared between threads.
type LineTest = Arc<dyn Fn(&[u8]) -> bool + Send + Sync>;

/// A test of a line's text, with the pattern it came from for messages:
/// what [`Skip::Until`] looks for (the CLI and Python build it from a
/// regular expression).
#[derive(Clone)]
pub struct LineMatch {
    pattern: String,
    test: LineTest,
}

impl LineMatch {
    /// A test named `pattern` in messages.
    pub fn new(
        pattern: impl Into<String>,
        test: impl Fn(&[u8]) -> bool + Send + Sync + 'static,
    ) -> LineMatch {
        LineMatch { pattern: pattern.into(), test: Arc::new(test) }
    }

    /// The pattern, as given.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Whether `text` matches.
    pub fn matches(&self, text: &[u8]) -> bool {
        (self.test)(text)
    }
}

impl std::fmt::Debug for LineMatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LineMatch({:?})", self.pattern)
    }
}

impl PartialEq for LineMatch {
    fn eq(&self, other: &LineMatch) -> bool {
        self.pattern == other.pattern
    }
}

/// Which lines before the records to skip.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub enum Skip {
    /// None (but an Excel `sep=X` first line).
    #[default]
    Nothing,
    /// The first N lines (`--skip-rows N`; `--header-row N` is N - 1).
    Lines(u64),
    /// Every line before the first that matches (`--skip-until REGEX`):
    /// that line is the header row (or the first record).
    Until(LineMatch),
}

impl Skip {
    /// In words, for an index's settings and messages (`lines=3`,
    /// `until=^Date`); empty for [`Skip::Nothing`].
    pub fn describe(&self) -> String {
        match self {
            Skip::Nothing => String::new(),
            Skip::Lines(n) => format!("lines={n}"),
            Skip::Until(m) => format!("until={}", m.pattern()),
        }
    }
}

/// The delimiter a `sep=X` line names (`X` one byte, `\t` for a tab), if
/// `text` is one.
pub fn excel_sep(text: &[u8]) -> Option<u8> {
    match text.strip_prefix(b"sep=")? {
        [b] => Some(*b),
        b"\\t" => Some(b'\t'),
        _ => None,
    }
}

/// The delimiter the first line of the file or object at `path` names by
/// Excel's `sep=X`, if it does: its first bytes read by range, decoded as
/// `how` says. Not looked for in a stream (which cannot be read twice)
/// or compressed input (which would start decoding): their readers meet
/// the line and say so if it disagrees with the delimiter.
///
/// # Errors
///
/// The open error, or an I/O error reading the first bytes.
pub fn excel_sep_of(
    path: impl AsRef<std::path::Path>,
    how: swath::text::Decoding,
) -> swath::Result<Option<u8>> {
    let path = path.as_ref();
    // Never a stream: opening a FIFO to look would take its writer's bytes.
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    if !(regular || swath::remote::is_url(path)) {
        return Ok(None);
    }
    let mut src = swath::Source::open_raw(path)?;
    let Some(file) = src.ranged_source() else { return Ok(None) };
    let mut head = [0u8; 64];
    let n = swath::range::read_full_at(file, &mut head, 0)
        .map_err(|e| swath::Error::from(e).with_path(path))?;
    let head = &head[..n];
    if swath::Compression::detect(head) != swath::Compression::None {
        return Ok(None);
    }
    let text = match src.text_to_decode(how)? {
        Some(e) => {
            let bom = swath::text::detect::bom(head).map_or(0, |(_, n)| n);
            // The last character may be cut: only the first line counts.
            swath::text::decode_slice(&head[bom..], e)
        }
        None => head.to_vec(),
    };
    let line = match text.iter().position(|&b| b == b'\n') {
        Some(i) => &text[..i],
        // The whole input is shorter than what was read.
        None if n < 64 => &text[..],
        // A first line longer than that is no `sep=` line.
        None => return Ok(None),
    };
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    Ok(excel_sep(line))
}

/// The preamble as `swath::preamble` asks it: `sep=` on line 1, then the
/// skip rule.
pub(crate) struct Rules {
    pub(crate) skip: Skip,
    /// The delimiter records are read with (a `sep=` line must agree).
    pub(crate) delimiter: u8,
}

impl swath::preamble::Preamble for Rules {
    fn starts_body(&mut self, number: u64, text: &[u8]) -> io::Result<bool> {
        if number == 1 {
            if let Some(named) = excel_sep(text) {
                if named != self.delimiter {
                    let show = |b: u8| std::ascii::escape_default(b).to_string();
                    let msg = format!(
                        "line 1 is Excel's sep={}, but the delimiter is '{}': read it with \
                         -d '{}' (or without -d, which reads the delimiter the line names)",
                        show(named),
                        show(self.delimiter),
                        show(named)
                    );
                    return Err(io::Error::new(io::ErrorKind::InvalidData, msg));
                }
                return Ok(false);
            }
        }
        Ok(match &self.skip {
            Skip::Nothing => true,
            Skip::Lines(n) => number > *n,
            Skip::Until(m) => m.matches(text),
        })
    }

    fn not_found(&self, lines: u64) -> Option<String> {
        match &self.skip {
            Skip::Until(m) => Some(format!(
                "no line matches --skip-until {:?} (all {lines} lines read)",
                m.pattern()
            )),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excel_sep_lines() {
        assert_eq!(excel_sep(b"sep=;"), Some(b';'));
        assert_eq!(excel_sep(b"sep=\\t"), Some(b'\t'));
        assert_eq!(excel_sep(b"sep=|"), Some(b'|'));
        assert_eq!(excel_sep(b"sep=;;"), None);
        assert_eq!(excel_sep(b"sep="), None);
        assert_eq!(excel_sep(b"a,sep=;"), None);
    }
}

//! The dialects worth trying on a sample: the delimiters, quote bytes and
//! escape styles that its bytes make possible, in order of preference
//! (the first of equally good ones wins).

/// Delimiters tried, most common first.
pub const DELIMITERS: &[u8] = b",\t;|:^~ ";

/// One dialect to try.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The field delimiter.
    pub delimiter: u8,
    /// The quote byte; `None`: no quoting.
    pub quote: Option<u8>,
    /// Backslash-style escape inside quotes; `None`: doubled quotes.
    pub escape: Option<u8>,
}

/// Whether `quote` opens a field somewhere in `bytes` (right after a
/// delimiter or a line start): a quote inside words (`O'Brien`, `5"`) does
/// not make a quoting dialect.
pub fn opens_fields(bytes: &[u8], quote: u8, delimiters: &[u8]) -> bool {
    memchr::memchr_iter(quote, bytes).any(|i| {
        i == 0 || matches!(bytes[i - 1], b'\n' | b'\r') || delimiters.contains(&bytes[i - 1])
    })
}

/// The candidates for a sample: every delimiter that occurs in it (`,`
/// always); `"`, no quoting, and `'` when a `'` opens a field; a backslash
/// escape when `\` occurs before a quote.
pub fn candidates(bytes: &[u8]) -> Vec<Candidate> {
    let delimiters: Vec<u8> = DELIMITERS
        .iter()
        .copied()
        .filter(|&d| d == b',' || memchr::memchr(d, bytes).is_some())
        .collect();
    let mut quotes = vec![Some(b'"'), None];
    if opens_fields(bytes, b'\'', &delimiters) {
        quotes.push(Some(b'\''));
    }
    let mut out = Vec::new();
    for &delimiter in &delimiters {
        for &quote in &quotes {
            out.push(Candidate { delimiter, quote, escape: None });
            if let Some(q) = quote {
                if memchr::memmem::find(bytes, &[b'\\', q]).is_some() {
                    out.push(Candidate { delimiter, quote, escape: Some(b'\\') });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_what_the_bytes_allow() {
        let c = candidates(b"a;b\n1;2\n");
        assert!(c.iter().all(|c| c.delimiter == b',' || c.delimiter == b';'));
        assert!(c.iter().all(|c| c.quote != Some(b'\'') && c.escape.is_none()));
        let c = candidates(b"a,'b c',\"d \\\" e\"\n");
        assert!(c.contains(&Candidate { delimiter: b',', quote: Some(b'\''), escape: None }));
        assert!(c.contains(&Candidate { delimiter: b',', quote: Some(b'"'), escape: Some(b'\\') }));
        assert!(!opens_fields(b"O'Brien,x", b'\'', b","));
    }
}

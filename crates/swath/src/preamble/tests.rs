//! Both ways of reading a body against the obvious model: split the text
//! into lines, count them off the top and the bottom.

use std::io::{self, Read};
use std::sync::Arc;

use super::*;
use crate::range::read_full_at;

/// Skip `n` lines.
struct Skip(u64);

impl Preamble for Skip {
    fn starts_body(&mut self, number: u64, _: &[u8]) -> io::Result<bool> {
        Ok(number > self.0)
    }
    fn not_found(&self, _: u64) -> Option<String> {
        None
    }
}

/// The first line whose text is `want`.
struct Until(&'static [u8]);

impl Preamble for Until {
    fn starts_body(&mut self, _: u64, text: &[u8]) -> io::Result<bool> {
        Ok(text == self.0)
    }
    fn not_found(&self, lines: u64) -> Option<String> {
        Some(format!("no line of {lines}"))
    }
}

/// The model: `swath_testkit::body::body_model`, the lines counted off.
fn model(text: &[u8], starts: &mut dyn FnMut(u64, &[u8]) -> bool, footer: u64) -> Vec<u8> {
    swath_testkit::body::body_model(text, starts, footer)
}

fn texts() -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = vec![
        b"".to_vec(),
        b"a".to_vec(),
        b"\n".to_vec(),
        b"title\r\n\r\nname,age\r\nann,3\r\nTotals,3\r\n\r\n".to_vec(),
        b"\xEF\xBB\xBFsep=;\nx;y\n1;2\n3;4\nend".to_vec(),
        b"\"quoted\ntitle\"\nh\n1\n\n\n".to_vec(),
    ];
    // Pseudo-random texts of a, \r, \n and quotes.
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    for len in 0..60 {
        let mut t = Vec::new();
        for _ in 0..len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            t.push(b"aab\r\n\n\""[(x % 7) as usize]);
        }
        out.push(t);
    }
    out
}

fn masked(text: &[u8], body: Body) -> io::Result<Vec<u8>> {
    let src: Arc<dyn crate::ReadAt> = Arc::new(text.to_vec());
    let found = Masked::find(&*src, text.len() as u64, body)?;
    let m = Masked::new(src, text.len() as u64, found);
    assert_eq!(found.end, Some(m.len()));
    let mut got = vec![0u8; m.len() as usize];
    // Read in odd pieces, at every offset.
    let mut at = 0;
    while at < got.len() {
        let to = (at + 3).min(got.len());
        let n = read_full_at(&m, &mut got[at..to], at as u64)?;
        assert!(n > 0);
        at += n;
    }
    Ok(got)
}

fn streamed(text: &[u8], body: Body, step: usize) -> io::Result<Vec<u8>> {
    let owned: &'static [u8] = Box::leak(text.to_vec().into_boxed_slice());
    let mut s = MaskedStream::new(Box::new(swath_testkit::Chunked::new(owned, step)), body);
    let mut got = Vec::new();
    let mut buf = [0u8; 5];
    loop {
        let n = s.read(&mut buf)?;
        if n == 0 {
            return Ok(got);
        }
        got.extend_from_slice(&buf[..n]);
    }
}

fn body(preamble: Option<Box<dyn Preamble>>, footer: u64, max_line: usize) -> Body {
    Body { preamble, footer_lines: footer, max_line, max_footer: 1 << 20 }
}

#[test]
fn skipped_lines_and_footers_match_the_model() {
    for text in texts() {
        for skip in 0..5u64 {
            for footer in 0..4u64 {
                let want = model(&text, &mut |n, _| n > skip, footer);
                let pre = || (skip > 0).then(|| Box::new(Skip(skip)) as Box<dyn Preamble>);
                let got = masked(&text, body(pre(), footer, 1 << 20)).unwrap();
                assert_eq!(got, want, "{text:?} skip {skip} footer {footer}");
                for step in [1, 2, 3, 7, 64] {
                    let got = streamed(&text, body(pre(), footer, 1 << 20), step).unwrap();
                    assert_eq!(got, want, "{text:?} skip {skip} footer {footer} step {step}");
                }
            }
        }
    }
}

#[test]
fn a_line_found_by_its_text_starts_the_body() {
    for text in texts() {
        for want_line in [&b"a"[..], b"", b"ab", b"x;y", b"name,age", b"sep=;"] {
            let leaked: &'static [u8] = Box::leak(want_line.to_vec().into_boxed_slice());
            let mut hit = false;
            let want = model(
                &text,
                &mut |_, t| {
                    hit |= t == want_line;
                    t == want_line
                },
                0,
            );
            let pre = || Some(Box::new(Until(leaked)) as Box<dyn Preamble>);
            let got = masked(&text, body(pre(), 0, 1 << 20));
            let streamed_got = streamed(&text, body(pre(), 0, 1 << 20), 2);
            if hit {
                assert_eq!(got.unwrap(), want, "{text:?} {want_line:?}");
                assert_eq!(streamed_got.unwrap(), want, "{text:?} {want_line:?}");
            } else {
                let err = got.unwrap_err().to_string();
                assert!(err.starts_with("no line of"), "{err}");
                assert!(streamed_got.is_err());
            }
        }
    }
}

#[test]
fn a_long_line_is_asked_about_by_its_first_bytes() {
    let text = b"0123456789abcdef\nhead\n1\n";
    let starts_with = |want: &'static [u8]| {
        struct Prefix(&'static [u8]);
        impl Preamble for Prefix {
            fn starts_body(&mut self, _: u64, text: &[u8]) -> io::Result<bool> {
                assert!(text.len() <= 4);
                Ok(text == self.0)
            }
            fn not_found(&self, _: u64) -> Option<String> {
                None
            }
        }
        Some(Box::new(Prefix(want)) as Box<dyn Preamble>)
    };
    assert_eq!(masked(text, body(starts_with(b"0123"), 0, 4)).unwrap(), text.to_vec());
    let want = b"\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\r\nhead\n1\n".to_vec();
    assert_eq!(masked(text, body(starts_with(b"head"), 0, 4)).unwrap(), want);
    for step in [1, 3, 100] {
        assert_eq!(streamed(text, body(starts_with(b"head"), 0, 4), step).unwrap(), want);
    }
}

#[test]
fn a_footer_longer_than_the_limit_is_an_error_on_a_stream() {
    let text = vec![b'x'; 300_000];
    let b = Body { preamble: None, footer_lines: 1, max_line: 10, max_footer: 1000 };
    let err = streamed(&text, b, 1 << 16).unwrap_err().to_string();
    assert!(err.contains("footer") && err.contains("1000 bytes"), "{err}");
}

//! Quoting decisions and the in-place quoting of a field that needs it.
//!
//! A field's raw bytes are appended to the output buffer first; only when
//! one of them needs quoting (rare) is the field rewritten in place, from
//! the back, so the common field costs one copy and one table scan.

use super::config::Config;
use super::to_field::FieldKind;

/// The byte a spreadsheet formula can start with (OWASP "CSV injection").
#[inline]
pub(crate) fn is_formula_start(byte: u8) -> bool {
    matches!(byte, b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r')
}

/// Whether `field` must be quoted to read back unchanged (the empty sole
/// field of a record is the caller's business: it needs the whole record).
#[inline]
pub(crate) fn needs_quotes(cfg: &Config, field: &[u8], kind: FieldKind) -> bool {
    if kind == FieldKind::Number && cfg.numbers_plain {
        return false;
    }
    if let (Some(c), Some(&first)) = (cfg.comment, field.first()) {
        if first == c {
            return true;
        }
    }
    field.iter().any(|&b| cfg.special[b as usize])
}

/// Whether raw bytes read as a number, for `QuoteStyle::NonNumeric`: as
/// the `csv` crate decides, an integer or a float that Rust parses.
pub(crate) fn looks_numeric(field: &[u8]) -> bool {
    match std::str::from_utf8(field) {
        Ok(s) => s.parse::<i128>().is_ok() || s.parse::<u128>().is_ok() || s.parse::<f64>().is_ok(),
        Err(_) => false,
    }
}

/// Quote `buf[start..]` in place: a quote on each side, each escaped byte
/// preceded by the escape byte (or doubled, when escaping by doubling).
#[cold]
pub(crate) fn quote_in_place(cfg: &Config, buf: &mut Vec<u8>, start: usize) {
    let end = buf.len();
    let escapes = buf[start..].iter().filter(|&&b| cfg.escaped[b as usize]).count();
    buf.resize(end + escapes + 2, 0);
    let esc = cfg.escape.unwrap_or(cfg.quote);
    // Walk from the back so every byte moves once and nothing is
    // overwritten before it is read (the write index stays >= the read one).
    let mut w = buf.len() - 1;
    buf[w] = cfg.quote;
    for r in (start..end).rev() {
        let b = buf[r];
        w -= 1;
        buf[w] = b;
        if cfg.escaped[b as usize] {
            w -= 1;
            buf[w] = esc;
        }
    }
    w -= 1;
    buf[w] = cfg.quote;
    debug_assert_eq!(w, start);
}

/// Replace `buf[start..]`, a copy of `src`, by `src` quoted: the forward
/// twin of [`quote_in_place`] for callers that still have the source,
/// copying the runs between escaped bytes whole (found with `memchr`).
#[cold]
pub(crate) fn quote_from(cfg: &Config, buf: &mut Vec<u8>, start: usize, src: &[u8]) {
    debug_assert_eq!(&buf[start..], src);
    buf.truncate(start);
    buf.reserve(src.len() + 2);
    buf.push(cfg.quote);
    let esc = cfg.escape.unwrap_or(cfg.quote);
    let mut rest = src;
    loop {
        let next = match cfg.escape {
            None => memchr::memchr(cfg.quote, rest),
            Some(e) => memchr::memchr2(cfg.quote, e, rest),
        };
        let Some(i) = next else {
            buf.extend_from_slice(rest);
            break;
        };
        buf.extend_from_slice(&rest[..i]);
        buf.push(esc);
        buf.push(rest[i]);
        rest = &rest[i + 1..];
    }
    buf.push(cfg.quote);
}

/// Put `byte` in front of `buf[start..]`.
pub(crate) fn prefix_in_place(buf: &mut Vec<u8>, start: usize, byte: u8) {
    buf.insert(start, byte);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::writer::config::Options;

    #[test]
    fn quoting_from_the_source_equals_quoting_in_place() {
        let mut rng = swath_testkit::Rng::new(0x2545f4914f6cdd1d);
        let alphabet = b"ab\"\\,\n'x";
        for escape in [None, Some(b'\\')] {
            for quote in [b'"', b'\''] {
                let cfg = Config::new(&Options { quote, escape, ..Options::default() });
                for len in 0..40 {
                    let src = rng.bytes(len, alphabet);
                    let mut a = b"prefix,".to_vec();
                    a.extend_from_slice(&src);
                    let mut b = a.clone();
                    quote_in_place(&cfg, &mut a, 7);
                    quote_from(&cfg, &mut b, 7, &src);
                    assert_eq!(a, b, "{:?} {escape:?} {}", String::from_utf8_lossy(&src), quote);
                }
            }
        }
    }
}

//! Numbers as exports write them: a decimal comma (`3,5`, Excel's
//! European exports) and thousands separators (`1,299.99`, `1.299,99`,
//! `1 299`, `1'299`). A field is turned into the standard text of the
//! number it is (`1299.99`) before the usual parse; a text column keeps
//! what was written.
//!
//! Strict, so that a date or a code is never taken for a number: the
//! groups after the first are three digits each, and under a decimal
//! comma a `.` that is not the thousands separator makes the field no
//! number at all (`3.5` is not three and a half there).

/// How numbers are written; [`Numbers::default`] is the standard
/// (a decimal point, no thousands separator).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Numbers {
    decimal: u8,
    thousands: Option<u8>,
}

impl Default for Numbers {
    fn default() -> Numbers {
        Numbers { decimal: b'.', thousands: None }
    }
}

/// What a field is under [`Numbers`].
#[derive(Debug, PartialEq, Eq)]
pub enum Number<'a> {
    /// Read it as it is: it uses neither separator.
    Same,
    /// A number, as its standard text.
    Is(&'a [u8]),
    /// Not a number under these rules (a number parse must fail).
    Not,
}

impl Numbers {
    /// A decimal comma (else a point) and a thousands separator.
    ///
    /// # Errors
    ///
    /// A thousands separator that is the decimal mark, a digit, a sign or
    /// not ASCII.
    pub fn new(decimal_comma: bool, thousands: Option<char>) -> Result<Numbers, String> {
        let decimal = if decimal_comma { b',' } else { b'.' };
        let thousands = match thousands {
            None => None,
            Some(c)
                if !c.is_ascii() || c.is_ascii_digit() || matches!(c, '+' | '-' | 'e' | 'E') =>
            {
                return Err(format!("{c:?} cannot separate thousands"));
            }
            Some(c) if c as u8 == decimal => {
                return Err(format!(
                    "{c:?} cannot separate thousands: it is the decimal mark ({})",
                    if decimal_comma { "--decimal-comma" } else { "without --decimal-comma" }
                ));
            }
            Some(c) => Some(c as u8),
        };
        Ok(Numbers { decimal, thousands })
    }

    /// The standard: nothing to turn.
    #[inline]
    pub fn is_standard(&self) -> bool {
        self.decimal == b'.' && self.thousands.is_none()
    }

    /// The decimal mark.
    pub fn decimal(&self) -> char {
        self.decimal as char
    }

    /// The thousands separator.
    pub fn thousands(&self) -> Option<char> {
        self.thousands.map(char::from)
    }

    /// What `f` is; a number's standard text goes to `out`.
    #[inline]
    pub fn read<'a>(&self, f: &[u8], out: &'a mut Vec<u8>) -> Number<'a> {
        if self.is_standard() {
            return Number::Same;
        }
        let sep = self.thousands;
        let special = |b: &u8| *b == self.decimal || Some(*b) == sep || *b == b'.';
        if !f.iter().any(special) {
            return Number::Same;
        }
        match self.standard(f, out) {
            true => Number::Is(out),
            false if self.decimal == b'.' && sep.is_some_and(|s| !f.contains(&s)) => Number::Same,
            false => Number::Not,
        }
    }

    /// `f` as a standard number's text into `out`; false when it is not
    /// one under these rules.
    fn standard(&self, f: &[u8], out: &mut Vec<u8>) -> bool {
        out.clear();
        let mut rest = f;
        if let Some((&s @ (b'+' | b'-'), tail)) = rest.split_first() {
            out.push(s);
            rest = tail;
        }
        // The integer part: digits, grouped by the separator if it is used.
        let int_len = rest.iter().position(|&b| b == self.decimal || b == b'e' || b == b'E');
        let (int, tail) = rest.split_at(int_len.unwrap_or(rest.len()));
        if int.is_empty() {
            return false;
        }
        match self.thousands.filter(|s| int.contains(s)) {
            Some(s) => {
                let mut groups = int.split(|&b| b == s);
                let first = groups.next().unwrap_or_default();
                if first.is_empty() || first.len() > 3 || !all_digits(first) {
                    return false;
                }
                out.extend_from_slice(first);
                for g in groups {
                    if g.len() != 3 || !all_digits(g) {
                        return false;
                    }
                    out.extend_from_slice(g);
                }
            }
            None if all_digits(int) => out.extend_from_slice(int),
            None => return false,
        }
        // The fraction, then an exponent.
        let mut rest = tail;
        if let Some((&d, frac)) = rest.split_first() {
            if d == self.decimal {
                let n = frac.iter().take_while(|b| b.is_ascii_digit()).count();
                if n == 0 {
                    return false;
                }
                out.push(b'.');
                out.extend_from_slice(&frac[..n]);
                rest = &frac[n..];
            }
        }
        if let Some((&(b'e' | b'E'), exp)) = rest.split_first() {
            let digits = exp.strip_prefix(b"-").or_else(|| exp.strip_prefix(b"+")).unwrap_or(exp);
            if digits.is_empty() || !all_digits(digits) {
                return false;
            }
            out.push(b'e');
            out.extend_from_slice(exp);
            rest = &[];
        }
        rest.is_empty()
    }
}

fn all_digits(b: &[u8]) -> bool {
    b.iter().all(u8::is_ascii_digit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(n: Numbers, f: &str) -> Option<String> {
        let mut out = Vec::new();
        match n.read(f.as_bytes(), &mut out) {
            Number::Same => Some(f.to_string()),
            Number::Is(t) => Some(String::from_utf8(t.to_vec()).unwrap()),
            Number::Not => None,
        }
    }

    #[test]
    fn european_numbers() {
        let eu = Numbers::new(true, Some('.')).unwrap();
        for (f, want) in [
            ("1.299,99", Some("1299.99")),
            ("-1.299.000,5", Some("-1299000.5")),
            ("3,5", Some("3.5")),
            ("12", Some("12")),
            ("1.299", Some("1299")),
            ("1,5e3", Some("1.5e3")),
            ("12.34", None),
            ("1.29,9", None),
            ("1,", None),
            ("31.10.2023", None),
            ("abc", Some("abc")),
            (",5", None),
        ] {
            assert_eq!(read(eu, f).as_deref(), want, "{f}");
        }
        let comma_only = Numbers::new(true, None).unwrap();
        assert_eq!(read(comma_only, "3,5").as_deref(), Some("3.5"));
        assert_eq!(read(comma_only, "3.5"), None, "a point under a decimal comma");
        assert_eq!(read(comma_only, "1 299,5"), None, "no thousands separator given");
    }

    #[test]
    fn thousands_with_a_decimal_point() {
        let us = Numbers::new(false, Some(',')).unwrap();
        assert_eq!(read(us, "1,299.99").as_deref(), Some("1299.99"));
        assert_eq!(read(us, "1,299").as_deref(), Some("1299"));
        assert_eq!(read(us, "12.5").as_deref(), Some("12.5"));
        assert_eq!(read(us, "1,29"), None);
        let space = Numbers::new(false, Some(' ')).unwrap();
        assert_eq!(read(space, "1 299 000").as_deref(), Some("1299000"));
        let swiss = Numbers::new(false, Some('\'')).unwrap();
        assert_eq!(read(swiss, "1'299.5").as_deref(), Some("1299.5"));
        assert_eq!(read(Numbers::default(), "1,299").as_deref(), Some("1,299"));
    }

    #[test]
    fn a_separator_that_cannot_be() {
        assert!(Numbers::new(true, Some(',')).is_err());
        assert!(Numbers::new(false, Some('.')).is_err());
        assert!(Numbers::new(false, Some('1')).is_err());
        assert!(Numbers::new(false, Some('€')).is_err());
    }
}

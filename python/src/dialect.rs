//! The CSV dialect as keyword arguments, named as the CLI's options
//! (`swath csv --help`): delimiter, quote, escape, comment, no_headers,
//! flexible, lenient, max_record_size, encoding, skip_rows, header_row,
//! skip_until, skip_last.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use swath_csv::ReaderBuilder;

/// The keyword arguments every function takes, in the CLI's words.
pub const NAMES: [&str; 13] = [
    "delimiter",
    "quote",
    "escape",
    "comment",
    "no_headers",
    "flexible",
    "lenient",
    "max_record_size",
    "encoding",
    "skip_rows",
    "header_row",
    "skip_until",
    "skip_last",
];

/// A CSV dialect: the CLI's defaults (`,`, `"`, no escape, no comment,
/// headers on, strict, 64 MiB records).
#[derive(Clone, Debug)]
pub struct Dialect {
    delimiter: u8,
    quote: u8,
    escape: Option<u8>,
    comment: Option<u8>,
    no_headers: bool,
    flexible: bool,
    lenient: bool,
    max_record_size: usize,
    encoding: swath::text::Decoding,
    /// Lines before the records (`skip_rows`, `header_row`, `skip_until`)
    /// and after them (`skip_last`).
    skip: swath_csv::preamble::Skip,
    skip_last: u64,
}

impl Default for Dialect {
    fn default() -> Dialect {
        Dialect {
            delimiter: b',',
            quote: b'"',
            escape: None,
            comment: None,
            no_headers: false,
            flexible: false,
            lenient: false,
            max_record_size: 64 << 20,
            encoding: swath::text::Decoding::DEFAULT,
            skip: swath_csv::preamble::Skip::Nothing,
            skip_last: 0,
        }
    }
}

impl Dialect {
    /// Read the dialect from `**kwargs`; any other key is a `TypeError`,
    /// as Python says of an unexpected keyword.
    pub fn from_kwargs(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Dialect> {
        let mut d = Dialect::default();
        let Some(kwargs) = kwargs else { return Ok(d) };
        let skips = ["skip_rows", "header_row", "skip_until"];
        let given: Vec<&str> =
            skips.into_iter().filter(|k| kwargs.contains(k).unwrap_or(false)).collect();
        if given.len() > 1 {
            return Err(PyValueError::new_err(format!(
                "{} cannot be used together: each says where the header row is",
                given.join(" and ")
            )));
        }
        for (key, value) in kwargs.iter() {
            let key: String = key.extract()?;
            match key.as_str() {
                "delimiter" => d.delimiter = one_byte(&key, &value)?,
                "quote" => d.quote = one_byte(&key, &value)?,
                "escape" => d.escape = optional_byte(&key, &value)?,
                "comment" => d.comment = optional_byte(&key, &value)?,
                "no_headers" => d.no_headers = value.is_truthy()?,
                "flexible" => d.flexible = value.is_truthy()?,
                "lenient" => d.lenient = value.is_truthy()?,
                "max_record_size" => d.max_record_size = size(&key, &value)?,
                "encoding" => d.encoding = encoding(&key, &value)?,
                "skip_rows" => {
                    d.skip = swath_csv::preamble::Skip::Lines(count(&key, &value, 0)?);
                }
                "header_row" => {
                    d.skip = swath_csv::preamble::Skip::Lines(count(&key, &value, 1)? - 1);
                }
                "skip_until" => d.skip = line_match(&key, &value)?,
                "skip_last" => d.skip_last = count(&key, &value, 0)?,
                _ => {
                    return Err(PyTypeError::new_err(format!(
                        "unexpected keyword argument {key:?} (the CSV options are {})",
                        NAMES.join(", ")
                    )))
                }
            }
        }
        Ok(d)
    }

    /// A reader builder with this dialect.
    pub fn builder(&self) -> ReaderBuilder {
        let mut b = ReaderBuilder::new();
        b.delimiter(self.delimiter)
            .quote(self.quote)
            .escape(self.escape)
            .comment(self.comment)
            .has_headers(!self.no_headers)
            .lenient(self.lenient)
            .flexible(self.flexible)
            .max_record_bytes(self.max_record_size)
            .encoding(self.encoding)
            .skip(self.skip.clone())
            .footer_lines(self.skip_last);
        b
    }
}

/// A whole number of lines, at least `least`.
fn count(key: &str, value: &Bound<'_, PyAny>, least: u64) -> PyResult<u64> {
    match value.extract::<u64>() {
        Ok(n) if n >= least => Ok(n),
        _ => Err(PyValueError::new_err(format!("{key} must be an int of at least {least}"))),
    }
}

/// The CLI's `--skip-until`: a regular expression (Rust's `regex`
/// syntax, which Python's `re` shares for the usual patterns), searched
/// in each line.
fn line_match(key: &str, value: &Bound<'_, PyAny>) -> PyResult<swath_csv::preamble::Skip> {
    let s: String =
        value.extract().map_err(|_| PyTypeError::new_err(format!("{key} must be a str")))?;
    let re =
        regex::bytes::Regex::new(&s).map_err(|e| PyValueError::new_err(format!("{key}: {e}")))?;
    let m = swath_csv::preamble::LineMatch::new(s, move |line: &[u8]| re.is_match(line));
    Ok(swath_csv::preamble::Skip::Until(m))
}

/// The CLI's `--encoding`: a name (`"windows-1252"`, `"utf-16le"`),
/// `"auto"`, `"lossy"`, or `"NAME:lossy"`.
fn encoding(key: &str, value: &Bound<'_, PyAny>) -> PyResult<swath::text::Decoding> {
    let s: String =
        value.extract().map_err(|_| PyTypeError::new_err(format!("{key} must be a str")))?;
    s.parse().map_err(|m: String| PyValueError::new_err(format!("{key}: {m}")))
}

/// One ASCII character; `"tab"` and `"\\t"` for a TAB, as the CLI.
fn one_byte(key: &str, value: &Bound<'_, PyAny>) -> PyResult<u8> {
    let s: String = value
        .extract()
        .map_err(|_| PyTypeError::new_err(format!("{key} must be a one-character str")))?;
    parse_byte(&s).map_err(|m| PyValueError::new_err(format!("{key}: {m}")))
}

fn optional_byte(key: &str, value: &Bound<'_, PyAny>) -> PyResult<Option<u8>> {
    if value.is_none() {
        return Ok(None);
    }
    one_byte(key, value).map(Some)
}

/// The CLI's `parse_byte`: one ASCII character, or `tab` / `\t`.
fn parse_byte(s: &str) -> Result<u8, String> {
    match s {
        "tab" | "\t" | "\\t" => return Ok(b'\t'),
        _ => {}
    }
    match s.as_bytes() {
        [b] if b.is_ascii() => Ok(*b),
        _ => Err(format!(
            "{s:?} is not one ASCII character (multi-byte delimiters are not supported)"
        )),
    }
}

/// A positive byte count: an int, or a str with an optional K, M or G
/// suffix (powers of 1024), as the CLI's `--max-record-size 64M`.
pub fn size(key: &str, value: &Bound<'_, PyAny>) -> PyResult<usize> {
    let bad = || {
        PyValueError::new_err(format!(
            "{key} must be a positive size (like 4096, \"512K\", \"64M\"), not {value}"
        ))
    };
    if let Ok(n) = value.extract::<u64>() {
        return usize::try_from(n).ok().filter(|&n| n > 0).ok_or_else(bad);
    }
    let s: String = value.extract().map_err(|_| bad())?;
    parse_size(&s).ok_or_else(bad)
}

fn parse_size(s: &str) -> Option<usize> {
    let s = s.trim();
    let (digits, shift) = match s.as_bytes().last()? {
        b'k' | b'K' => (&s[..s.len() - 1], 10),
        b'm' | b'M' => (&s[..s.len() - 1], 20),
        b'g' | b'G' => (&s[..s.len() - 1], 30),
        _ => (s, 0),
    };
    let n: u64 = digits.parse().ok()?;
    let n = n.checked_mul(1u64 << shift)?;
    usize::try_from(n).ok().filter(|&n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_and_sizes_parse_as_the_cli_parses_them() {
        assert_eq!(parse_byte("tab"), Ok(b'\t'));
        assert_eq!(parse_byte("\t"), Ok(b'\t'));
        assert_eq!(parse_byte(";"), Ok(b';'));
        assert!(parse_byte("£").is_err());
        assert!(parse_byte("ab").is_err());
        assert_eq!(parse_size("64M"), Some(64 << 20));
        assert_eq!(parse_size("512k"), Some(512 << 10));
        assert_eq!(parse_size("100"), Some(100));
        assert_eq!(parse_size("0"), None);
        assert_eq!(parse_size("x"), None);
    }
}

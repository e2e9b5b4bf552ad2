//! The column-spec language of `swath csv select` (and of every command
//! that takes columns): parsed once, resolved against the header row.
//!
//! Grammar, comma-separated items:
//!
//! - `name`: the first column with that header; `name[k]` its k-th
//!   occurrence (0-based, for duplicate headers). A name with `,`, `-`,
//!   `!`, `[` or `"` in it, or made of digits, is written in double quotes
//!   (`"a,b"`, `"2"`; `""` is a quote inside). A bare item that is exactly
//!   a header name wins over reading it as a range (`first-name`).
//! - `N`: column N, 1-based.
//! - ranges: `A-B` (A to B, either way round, so `4-2` is 4,3,2), `A-`
//!   (A to the last), `-B` (the first to B); A and B are indexes or names.
//! - negation: `!item` leaves the item's columns out. Negated items are
//!   applied after the others; a spec of only negations starts from all
//!   columns.
//!
//! Columns may repeat and come in any order: the output follows the spec.

use std::fmt;

/// One end of a range, or a single column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Column {
    /// 1-based index.
    Index(usize),
    /// Header name and which occurrence (0-based).
    Name(String, usize),
}

/// What one item selects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    One(Column),
    /// `None` ends are open: the first / the last column.
    Range(Option<Column>, Option<Column>),
}

/// One comma-separated item of the spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    pub negated: bool,
    pub target: Target,
    /// The item as written (without `!`): a header with exactly this name
    /// wins over the parse (`first-name` is a name, not a range).
    pub raw: String,
}

/// A parsed column spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    pub items: Vec<Item>,
}

/// A bad spec, or one that does not fit the file.
#[derive(Debug, PartialEq, Eq)]
pub struct SpecError(String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column spec: {}", self.0)
    }
}

impl std::error::Error for SpecError {}

fn err<T>(msg: impl Into<String>) -> Result<T, SpecError> {
    Err(SpecError(msg.into()))
}

impl Spec {
    /// Parse the text of `-c`.
    pub fn parse(text: &str) -> Result<Spec, SpecError> {
        if text.trim().is_empty() {
            return err("empty: give columns like `name,3,5-7,!id`");
        }
        let mut items = Vec::new();
        for (n, raw) in split_items(text)?.into_iter().enumerate() {
            let item = parse_item(&raw)
                .map_err(|SpecError(m)| SpecError(format!("item {} `{raw}`: {m}", n + 1)))?;
            items.push(item);
        }
        Ok(Spec { items })
    }

    /// The 0-based columns to write, in order, for a file whose first row
    /// is `headers` (`None` without a header row) and has `width` fields.
    pub fn resolve(
        &self,
        headers: Option<&[&[u8]]>,
        width: usize,
    ) -> Result<Vec<usize>, SpecError> {
        let mut keep: Vec<usize> = Vec::new();
        let any_positive = self.items.iter().any(|it| !it.negated);
        if !any_positive {
            keep.extend(0..width);
        }
        let mut drop = vec![false; width];
        for item in &self.items {
            let cols = resolve_item(item, headers, width)?;
            if item.negated {
                for c in cols {
                    drop[c] = true;
                }
            } else {
                keep.extend(cols);
            }
        }
        keep.retain(|&c| !drop[c]);
        if keep.is_empty() {
            return err("selects no column");
        }
        Ok(keep)
    }
}

/// Split on commas outside double quotes, keeping the quotes.
fn split_items(text: &str) -> Result<Vec<String>, SpecError> {
    let mut items = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for ch in text.chars() {
        match ch {
            '"' => {
                quoted = !quoted;
                cur.push(ch);
            }
            ',' if !quoted => items.push(std::mem::take(&mut cur)),
            _ => cur.push(ch),
        }
    }
    if quoted {
        return err(format!("unclosed double quote in `{text}`"));
    }
    items.push(cur);
    for (n, it) in items.iter().enumerate() {
        if it.trim().is_empty() {
            return err(format!(
                "item {} is empty (two commas in a row, or a comma at an end)",
                n + 1
            ));
        }
    }
    Ok(items)
}

fn parse_item(raw: &str) -> Result<Item, SpecError> {
    let (negated, body) = match raw.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, raw),
    };
    if body.is_empty() {
        return err("`!` needs a column after it");
    }
    // Find a `-` outside quotes: that makes a range.
    let mut quoted = false;
    let mut dash = None;
    for (i, ch) in body.char_indices() {
        match ch {
            '"' => quoted = !quoted,
            '-' if !quoted => {
                if dash.is_some() {
                    return err("more than one `-` (quote names that contain `-`)");
                }
                dash = Some(i);
            }
            _ => {}
        }
    }
    let target = match dash {
        None => Target::One(parse_column(body)?),
        Some(i) => {
            let (a, b) = (&body[..i], &body[i + 1..]);
            if a.is_empty() && b.is_empty() {
                return err("a range needs at least one end");
            }
            let a = if a.is_empty() { None } else { Some(parse_column(a)?) };
            let b = if b.is_empty() { None } else { Some(parse_column(b)?) };
            Target::Range(a, b)
        }
    };
    Ok(Item { negated, target, raw: body.to_string() })
}

/// `3`, `name`, `name[1]`, `"quoted, name"`, `"x"[2]`.
fn parse_column(text: &str) -> Result<Column, SpecError> {
    let (name_part, occurrence) = match text.strip_suffix(']') {
        Some(head) => match head.rfind('[') {
            Some(open) => {
                let k = &head[open + 1..];
                let k: usize = k.parse().map_err(|_| {
                    SpecError(format!("`[{k}]` is not an occurrence number like `[0]`"))
                })?;
                (&head[..open], Some(k))
            }
            None => return err("`]` without `[`"),
        },
        None => (text, None),
    };
    if let Some(inner) = name_part.strip_prefix('"') {
        let Some(inner) = inner.strip_suffix('"') else {
            return err(format!("`{name_part}`: text after a closing quote"));
        };
        if inner.replace("\"\"", "").contains('"') {
            return err(format!("`{name_part}`: a quote inside a quoted name is written `\"\"`"));
        }
        return Ok(Column::Name(inner.replace("\"\"", "\""), occurrence.unwrap_or(0)));
    }
    if name_part.is_empty() {
        return err("empty column name");
    }
    if name_part.contains('"') {
        return err(format!("`{name_part}`: quote the whole name, like `\"a\"\"b\"`"));
    }
    if name_part.bytes().all(|b| b.is_ascii_digit()) {
        if occurrence.is_some() {
            return err("an index takes no `[k]` (quote a name made of digits)");
        }
        return match name_part.parse::<usize>() {
            Ok(0) => err("column indexes start at 1"),
            Ok(n) => Ok(Column::Index(n)),
            Err(_) => err(format!("index `{name_part}` is too large")),
        };
    }
    Ok(Column::Name(name_part.to_string(), occurrence.unwrap_or(0)))
}

fn resolve_item(
    item: &Item,
    headers: Option<&[&[u8]]>,
    width: usize,
) -> Result<Vec<usize>, SpecError> {
    // A header spelled exactly like the item wins: `first-name`, `a[1]`.
    if let Some(hs) = headers {
        if matches!(item.target, Target::Range(..)) || item.raw.contains('[') {
            if let Some(i) = hs.iter().position(|h| *h == item.raw.as_bytes()) {
                return Ok(vec![i]);
            }
        }
    }
    match &item.target {
        Target::One(c) => Ok(vec![resolve_column(c, headers, width)?]),
        Target::Range(a, b) => {
            if width == 0 {
                return err("the file has no columns");
            }
            let a = match a {
                Some(c) => resolve_column(c, headers, width)?,
                None => 0,
            };
            let b = match b {
                Some(c) => resolve_column(c, headers, width)?,
                None => width - 1,
            };
            Ok(if a <= b { (a..=b).collect() } else { (b..=a).rev().collect() })
        }
    }
}

fn resolve_column(c: &Column, headers: Option<&[&[u8]]>, width: usize) -> Result<usize, SpecError> {
    match c {
        Column::Index(n) => {
            if *n > width {
                err(format!("column {n} is out of range: the file has {width} columns"))
            } else {
                Ok(n - 1)
            }
        }
        Column::Name(name, k) => {
            let Some(hs) = headers else {
                return err(format!(
                    "`{name}` is a name, but there is no header row (--no-headers): use indexes"
                ));
            };
            match hs.iter().enumerate().filter(|(_, h)| **h == name.as_bytes()).nth(*k) {
                Some((i, _)) => Ok(i),
                None if *k > 0 => err(format!("no occurrence [{k}] of column `{name}`")),
                None => {
                    let names: Vec<_> = hs.iter().map(|h| String::from_utf8_lossy(h)).collect();
                    err(format!("no column named `{name}` (columns: {})", names.join(", ")))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADERS: &[&[u8]] = &[b"id", b"name", b"first-name", b"score", b"name", b"2", b"a,b"];

    fn sel(spec: &str) -> Result<Vec<usize>, String> {
        Spec::parse(spec)
            .and_then(|s| s.resolve(Some(HEADERS), HEADERS.len()))
            .map(|v| v.into_iter().map(|i| i + 1).collect())
            .map_err(|e| e.to_string())
    }

    #[test]
    fn selections() {
        let cases: &[(&str, &[usize])] = &[
            ("1", &[1]),
            ("id", &[1]),
            ("name", &[2]),
            ("name[1]", &[5]),
            ("score,id", &[4, 1]),
            ("1,1,1", &[1, 1, 1]),
            ("2-4", &[2, 3, 4]),
            ("4-2", &[4, 3, 2]),
            ("5-", &[5, 6, 7]),
            ("-2", &[1, 2]),
            ("id-score", &[1, 2, 3, 4]),
            ("first-name", &[3]),
            ("\"2\"", &[6]),
            ("2", &[2]),
            ("\"a,b\",id", &[7, 1]),
            ("!1", &[2, 3, 4, 5, 6, 7]),
            ("!2-6", &[1, 7]),
            ("!name", &[1, 3, 4, 5, 6, 7]),
            ("1-4,!2", &[1, 3, 4]),
            ("!1,3,1", &[3]),
            ("\"first-name\"-score", &[3, 4]),
        ];
        for (spec, want) in cases {
            assert_eq!(sel(spec).as_deref(), Ok(*want), "spec {spec}");
        }
    }

    #[test]
    fn errors_say_what_is_wrong() {
        let cases: &[(&str, &str)] = &[
            ("", "empty"),
            ("1,,2", "item 2 is empty"),
            ("1,", "item 2 is empty"),
            ("0", "start at 1"),
            ("8", "column 8 is out of range: the file has 7 columns"),
            ("nope", "no column named `nope` (columns: id, name, first-name"),
            ("name[2]", "no occurrence [2] of column `name`"),
            ("!", "`!` needs a column"),
            ("-", "at least one end"),
            ("1-2-3", "more than one `-`"),
            ("\"ab", "unclosed double quote"),
            ("\"a\"b", "text after a closing quote"),
            ("a\"b", "unclosed double quote"),
            ("a\"b\"", "quote the whole name"),
            ("x[y]", "is not an occurrence number"),
            ("3[1]", "an index takes no"),
            ("!1-7", "selects no column"),
            ("99999999999999999999999", "too large"),
        ];
        for (spec, want) in cases {
            let got = sel(spec).unwrap_err();
            assert!(got.contains(want), "spec {spec:?}: {got:?} lacks {want:?}");
        }
    }

    #[test]
    fn names_need_a_header_row() {
        let spec = Spec::parse("2,id").unwrap();
        let e = spec.resolve(None, 3).unwrap_err().to_string();
        assert!(e.contains("no header row"), "{e}");
        assert_eq!(Spec::parse("3-,1").unwrap().resolve(None, 4), Ok(vec![2, 3, 0]));
    }

    #[test]
    fn parse_shape() {
        let spec = Spec::parse("!\"x\"\"y\"[1]-3").unwrap();
        assert_eq!(
            spec.items,
            vec![Item {
                negated: true,
                target: Target::Range(Some(Column::Name("x\"y".into(), 1)), Some(Column::Index(3))),
                raw: "\"x\"\"y\"[1]-3".into(),
            }]
        );
    }
}

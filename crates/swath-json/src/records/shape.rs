//! Where a JSON input's records are: its lines, one value after another,
//! or the elements of an array (top-level or inside wrapper objects), as
//! the user says or as the first bytes show.

use crate::scan::{unescape, Cursor, Syntax};

/// Where the records are, as asked (`--records`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Records {
    /// Decided from the first bytes: a top-level array; an object whose
    /// one member is an array (`{"Records": [..]}`), or whose first bytes
    /// end inside an array member; pretty-printed objects one after
    /// another; else lines.
    #[default]
    Auto,
    /// One object a line (JSON lines).
    Lines,
    /// Objects one after another, pretty-printed or not.
    Values,
    /// The elements of the array at this path of keys (empty: the
    /// top-level array, `$`).
    Array(Vec<String>),
}

impl std::str::FromStr for Records {
    type Err = String;

    /// `auto`, `lines`, `values`, `$` (a top-level array), or a path of
    /// keys: `Records`, `features`, `data.items`, `$.data.items`.
    fn from_str(s: &str) -> Result<Records, String> {
        Ok(match s {
            "auto" => Records::Auto,
            "lines" => Records::Lines,
            "values" => Records::Values,
            "$" | "." => Records::Array(Vec::new()),
            _ => {
                let path = s.strip_prefix("$.").or_else(|| s.strip_prefix('.')).unwrap_or(s);
                let keys: Vec<String> = path.split('.').map(str::to_string).collect();
                if keys.iter().any(String::is_empty) {
                    return Err(format!(
                        "{s:?}: a records path is keys joined by '.' (data.items), or $"
                    ));
                }
                Records::Array(keys)
            }
        })
    }
}

impl std::fmt::Display for Records {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Records::Auto => f.write_str("auto"),
            Records::Lines => f.write_str("lines"),
            Records::Values => f.write_str("values"),
            Records::Array(p) if p.is_empty() => f.write_str("$"),
            Records::Array(p) => f.write_str(&p.join(".")),
        }
    }
}

/// Where the records are, found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// One object a line.
    Lines,
    /// Values one after another from byte `start` (after a BOM).
    Values {
        /// The first byte.
        start: u64,
    },
    /// The elements of the array at `path`, from byte `start` (after its
    /// `[`).
    Array {
        /// The keys down to the array (empty: the top-level array).
        path: Vec<String>,
        /// The byte after the array's `[`.
        start: u64,
    },
}

impl Shape {
    /// Where the records start.
    pub fn start(&self) -> u64 {
        match self {
            Shape::Lines => 0,
            Shape::Values { start } | Shape::Array { start, .. } => *start,
        }
    }

    /// What it is, for `-v` and `json schema`.
    pub fn describe(&self) -> String {
        match self {
            Shape::Lines => "one object a line".into(),
            Shape::Values { .. } => "objects one after another".into(),
            Shape::Array { path, .. } if path.is_empty() => {
                "the elements of the top-level array ($)".into()
            }
            Shape::Array { path, .. } => format!("the elements of the array at {}", path.join(".")),
        }
    }
}

/// Why no shape was found in the bytes seen: more are needed, or the
/// input is not what was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum NotYet {
    More,
    Bad(Syntax),
    /// Where, and what is missing.
    Missing(usize, String),
}

/// Find where the records are in `head` (the input's first bytes; `eof`:
/// all of it). `More` when the answer lies past `head`.
pub(crate) fn find(want: &Records, head: &[u8], eof: bool) -> Result<Shape, NotYet> {
    if !eof && head.len() < swath::UTF8_BOM.len() && swath::UTF8_BOM.starts_with(head) {
        // Maybe a BOM, cut short.
        return Err(NotYet::More);
    }
    let body = if head.starts_with(swath::UTF8_BOM) { swath::UTF8_BOM.len() } else { 0 };
    match want {
        Records::Lines => Ok(Shape::Lines),
        Records::Values => Ok(Shape::Values { start: body as u64 }),
        Records::Array(path) => locate(head, body, path, eof),
        Records::Auto => detect(head, body, eof),
    }
}

/// Ran out of bytes (not at the input's end): say so, else the error.
fn more_or(e: Syntax, head: &[u8], eof: bool) -> NotYet {
    if !eof && near_end(e, head) {
        NotYet::More
    } else {
        NotYet::Bad(e)
    }
}

/// An error this close to the end of the bytes seen may be bytes cut
/// short (a literal, an escape, a UTF-8 character): more bytes decide.
fn near_end(e: Syntax, head: &[u8]) -> bool {
    e.at + 16 >= head.len()
}

fn key_text(raw: &[u8], escaped: bool) -> String {
    if escaped {
        let mut out = Vec::new();
        unescape(raw, &mut out);
        String::from_utf8_lossy(&out).into_owned()
    } else {
        String::from_utf8_lossy(raw).into_owned()
    }
}

/// The array at `path`: the byte after its `[`.
fn locate(head: &[u8], body: usize, path: &[String], eof: bool) -> Result<Shape, NotYet> {
    let mut c = Cursor::new(head);
    c.seek(body);
    let found = (|| -> Result<Result<usize, (usize, String)>, Syntax> {
        for (level, want) in path.iter().enumerate() {
            let here =
                if level == 0 { "the top level".to_string() } else { path[..level].join(".") };
            if c.peek() != Some(b'{') {
                if c.peek().is_none() {
                    return c.fail("the input ends before the records' array");
                }
                return Ok(Err((
                    c.at(),
                    format!("{here} is not an object, so it has no member {want:?}"),
                )));
            }
            c.bump();
            let mut first = true;
            loop {
                if first && c.peek() == Some(b'}') {
                    return Ok(Err((c.at(), format!("{here} has no member {want:?}"))));
                }
                first = false;
                let k = c.key()?;
                if key_text(k.raw, k.escaped) == *want {
                    break;
                }
                c.skip_value(level + 1)?;
                let end = c.at();
                if !c.next_member()? {
                    return Ok(Err((end, format!("{here} has no member {want:?}"))));
                }
            }
        }
        match c.peek() {
            Some(b'[') => Ok(Ok(c.at() + 1)),
            None => c.fail("the input ends before the records' array"),
            Some(_) => Ok(Err((
                c.at(),
                format!(
                    "{} is not an array",
                    if path.is_empty() {
                        "the top-level value".to_string()
                    } else {
                        path.join(".")
                    }
                ),
            ))),
        }
    })();
    match found {
        Ok(Ok(start)) => Ok(Shape::Array { path: path.to_vec(), start: start as u64 }),
        Ok(Err((at, missing))) => Err(NotYet::Missing(at, missing)),
        Err(e) => Err(more_or(e, head, eof)),
    }
}

/// Auto: see [`Records::Auto`].
fn detect(head: &[u8], body: usize, eof: bool) -> Result<Shape, NotYet> {
    let mut c = Cursor::new(head);
    c.seek(body);
    let values = Shape::Values { start: body as u64 };
    match c.peek() {
        None if !eof => Err(NotYet::More),
        Some(b'[') => Ok(Shape::Array { path: Vec::new(), start: (c.at() + 1) as u64 }),
        Some(b'{') => {
            let first = c.at();
            let first_line_end = memchr::memchr(b'\n', &head[first..]).map(|i| first + i);
            match c.skip_value(0) {
                Ok(()) => {
                    let end = c.at();
                    let pretty = first_line_end.is_some_and(|nl| nl < end);
                    c.ws();
                    if c.at() < head.len() || !eof {
                        // Another value follows (or may).
                        if c.at() >= head.len() {
                            return Err(NotYet::More);
                        }
                        return Ok(if pretty { values } else { Shape::Lines });
                    }
                    // The whole input is this one object.
                    if let Some((key, start)) = sole_array_member(head, first) {
                        return Ok(Shape::Array { path: vec![key], start: start as u64 });
                    }
                    Ok(if pretty { values } else { Shape::Lines })
                }
                Err(e) if !eof && near_end(e, head) => {
                    // The first object goes on past these bytes: the caller
                    // reads more, up to its window, then asks `big`.
                    Err(NotYet::More)
                }
                Err(e) => {
                    // A syntax error: the reader reports it in its terms.
                    let on_first_line = first_line_end.is_none_or(|nl| e.at < nl);
                    Ok(if on_first_line { Shape::Lines } else { values })
                }
            }
        }
        _ => Ok(Shape::Lines),
    }
}

/// The first object is longer than the detection window `head`: records
/// in the array member that the window ends inside, if it does; else
/// objects one after another (or lines, when the window holds no
/// newline).
pub(crate) fn big(head: &[u8]) -> Shape {
    let body = if head.starts_with(swath::UTF8_BOM) { swath::UTF8_BOM.len() } else { 0 };
    let mut c = Cursor::new(head);
    c.seek(body);
    let pretty = memchr::memchr(b'\n', &head[body..]).is_some();
    let fallback = if pretty { Shape::Values { start: body as u64 } } else { Shape::Lines };
    if c.peek() != Some(b'{') {
        return fallback;
    }
    c.bump();
    loop {
        let Ok(k) = c.key() else { return fallback };
        let key = key_text(k.raw, k.escaped);
        // `peek` steps over the whitespace before the value: the array's
        // first byte is known only after it.
        let is_array = c.peek() == Some(b'[') && {
            let mut first = c.clone();
            first.bump();
            first.peek() == Some(b'{')
        };
        let start = c.at() + 1;
        match c.skip_value(1) {
            Ok(()) => {}
            Err(e) if near_end(e, head) && is_array => {
                return Shape::Array { path: vec![key], start: start as u64 }
            }
            Err(_) => return fallback,
        }
        if !matches!(c.next_member(), Ok(true)) {
            return fallback;
        }
    }
}

/// The object at `first` has one member, and it is an array: its key and
/// the byte after its `[`.
fn sole_array_member(head: &[u8], first: usize) -> Option<(String, usize)> {
    let mut c = Cursor::new(head);
    c.seek(first + 1);
    let k = c.key().ok()?;
    if c.peek() != Some(b'[') {
        return None;
    }
    let start = c.at() + 1;
    // Its elements are objects (a record that holds one list of lists or
    // numbers stays one record).
    let mut first = c.clone();
    first.bump();
    if first.peek() != Some(b'{') {
        return None;
    }
    c.skip_value(1).ok()?;
    if c.next_member().ok()? {
        return None;
    }
    Some((key_text(k.raw, k.escaped), start))
}

/// After the records array's `]` (at `bytes[0]`'s left): the rest of the
/// `levels` objects around it, then only whitespace.
pub(crate) fn check_after(bytes: &[u8], levels: usize) -> Result<(), Syntax> {
    let mut c = Cursor::new(bytes);
    for level in 0..levels {
        while c.next_member()? {
            c.key()?;
            c.skip_value(levels - level)?;
        }
    }
    match c.peek() {
        None => Ok(()),
        Some(_) => c.fail("text after the document that holds the records"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auto(s: &str) -> Shape {
        find(&Records::Auto, s.as_bytes(), true).unwrap()
    }

    #[test]
    fn auto_detection() {
        assert_eq!(auto("{\"a\":1}\n{\"a\":2}\n"), Shape::Lines);
        assert_eq!(auto("{\"a\":1}"), Shape::Lines);
        assert_eq!(auto(" [ {\"a\":1} ]"), Shape::Array { path: vec![], start: 2 });
        assert_eq!(
            auto("{\"Records\":[{\"a\":1}]}"),
            Shape::Array { path: vec!["Records".into()], start: 12 }
        );
        // A record whose one member holds lists, not objects, is one record.
        assert_eq!(auto("{\"o\":[[1]]}\n"), Shape::Lines);
        // An object with an array among other members is one record.
        assert_eq!(auto("{\"n\":1,\"xs\":[{\"a\":1}]}"), Shape::Lines);
        assert_eq!(auto("{\n \"a\": 1\n}\n{\"a\": 2}"), Shape::Values { start: 0 });
        assert_eq!(auto("{\"Records\":[]}\n{\"a\":1}"), Shape::Lines);
        // Not at the end yet: more bytes decide.
        assert_eq!(find(&Records::Auto, b"{\"a\":1}", false), Err(NotYet::More));
        assert_eq!(find(&Records::Auto, b"{\"a\":[1,", false), Err(NotYet::More));
        assert_eq!(
            big(b"{\"type\":\"F\",\"features\":[{\"a\":1},{\"a\""),
            Shape::Array { path: vec!["features".into()], start: 24 }
        );
        assert_eq!(big(b"{\"type\":\"F\",\"s\":\"xxxxx"), Shape::Lines);
        // Spaces before the array (Python's json.dumps): the start is after `[`.
        assert_eq!(
            big(b"{\"Records\": [{\"a\": 1}, {\"a\""),
            Shape::Array { path: vec!["Records".into()], start: 13 }
        );
        assert_eq!(
            auto("{\"Records\":  [{\"a\": 1}]}"),
            Shape::Array { path: vec!["Records".into()], start: 14 }
        );
    }

    #[test]
    fn paths() {
        let data = "{\"meta\":{\"n\":[1,2]},\"data\":{\"items\":[{\"a\":1}],\"x\":2}}";
        let want: Records = "data.items".parse().unwrap();
        let s = find(&want, data.as_bytes(), true).unwrap();
        assert_eq!(&data[..s.start() as usize], "{\"meta\":{\"n\":[1,2]},\"data\":{\"items\":[");
        let missing: Records = "data.nope".parse().unwrap();
        assert_eq!(
            find(&missing, data.as_bytes(), true),
            Err(NotYet::Missing(51, "data has no member \"nope\"".into()))
        );
        let not_array: Records = "meta".parse().unwrap();
        assert_eq!(
            find(&not_array, data.as_bytes(), true),
            Err(NotYet::Missing(8, "meta is not an array".into()))
        );
        assert_eq!(find(&not_array, &data.as_bytes()[..5], false), Err(NotYet::More));
        assert!("a..b".parse::<Records>().is_err());
        assert_eq!("$".parse::<Records>(), Ok(Records::Array(vec![])));
        assert_eq!(check_after(b" ,\"x\":2}}  ", 2), Ok(()));
        assert!(check_after(b" }} x", 2).is_err());
        assert!(check_after(b" } ", 2).is_err());
    }
}

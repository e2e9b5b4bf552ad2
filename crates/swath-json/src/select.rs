//! Fields by path, straight from the line's bytes: `json select` and
//! `json to-csv` need no schema and no Arrow, only where each selected
//! value's text is. The whole line is still checked as JSON.

use crate::scan::{key_hash, unescape, Cursor, Keys, Str, Syntax, MAX_DEPTH};

/// A selected value: a string (its body, escapes as written), or any
/// other value's JSON text. A null or a missing key is `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Picked<'a> {
    /// A string.
    Str(Str<'a>),
    /// A number, `true`, `false`, an object or an array, as written.
    Raw(&'a [u8]),
}

impl Picked<'_> {
    /// The value as text: a string's value (escapes resolved), anything
    /// else its JSON text.
    pub fn text_into(&self, out: &mut Vec<u8>) {
        match self {
            Picked::Str(s) if s.escaped => unescape(s.raw, out),
            Picked::Str(s) => out.extend_from_slice(s.raw),
            Picked::Raw(r) => crate::scan::push_compact(out, r),
        }
    }

    /// The value as JSON text (a string with its quotes and escapes).
    pub fn json_into(&self, out: &mut Vec<u8>) {
        match self {
            Picked::Str(s) => {
                out.push(b'"');
                out.extend_from_slice(s.raw);
                out.push(b'"');
            }
            Picked::Raw(r) => crate::scan::push_compact(out, r),
        }
    }
}

#[derive(Debug, Default)]
struct Node {
    name: Box<[u8]>,
    /// The output slot of this path, when it is selected itself.
    out: Option<usize>,
    children: Vec<Node>,
}

/// The paths to pick, as a tree of their components.
#[derive(Debug)]
pub struct Selector {
    root: Node,
    slots: usize,
    scratch: Vec<u8>,
}

impl Selector {
    /// Select `paths`, each a list of keys from the top (`["req", "status"]`);
    /// slot `i` of the answer is `paths[i]`.
    pub fn new(paths: &[Vec<String>]) -> Selector {
        let mut root = Node::default();
        for (slot, path) in paths.iter().enumerate() {
            let mut node = &mut root;
            for key in path {
                let i = match node.children.iter().position(|c| *c.name == *key.as_bytes()) {
                    Some(i) => i,
                    None => {
                        node.children.push(Node { name: key.as_bytes().into(), ..Node::default() });
                        node.children.len() - 1
                    }
                };
                node = &mut node.children[i];
            }
            // The same path twice: the first slot gets it, the others stay
            // empty (the command refuses repeats before this).
            node.out.get_or_insert(slot);
        }
        Selector { root, slots: paths.len(), scratch: Vec::new() }
    }

    /// Pick the selected values of one line into `out` (one slot per path,
    /// `None` for missing or null). `Ok(false)` for a blank line.
    ///
    /// # Errors
    ///
    /// The line is not one JSON object, or one of its objects has a key
    /// twice ([`crate::scan::DUPLICATE_KEY`]: at any depth, selected or
    /// not, as every reader refuses it).
    pub fn pick<'a>(
        &mut self,
        line: &'a [u8],
        out: &mut Vec<Option<Picked<'a>>>,
    ) -> Result<bool, Syntax> {
        out.clear();
        out.resize(self.slots, None);
        let mut c = Cursor::new(line);
        match c.peek() {
            None => return Ok(false),
            Some(b'{') => c.bump(),
            Some(_) => {
                crate::scan::validate_object(line)?;
                unreachable!("validate_object accepts only objects");
            }
        }
        walk(&self.root, &mut c, 1, out, &mut self.scratch)?;
        c.end()?;
        Ok(true)
    }

    /// The number of slots (paths given).
    pub fn slots(&self) -> usize {
        self.slots
    }
}

/// After `{`: the members of an object, picking those under `node`.
fn walk<'a>(
    node: &Node,
    c: &mut Cursor<'a>,
    depth: usize,
    out: &mut [Option<Picked<'a>>],
    scratch: &mut Vec<u8>,
) -> Result<(), Syntax> {
    if depth > MAX_DEPTH {
        return c.fail("nested deeper than 256 levels");
    }
    if c.peek() == Some(b'}') {
        c.bump();
        return Ok(());
    }
    let mut keys = Keys::new(c.at());
    loop {
        c.ws();
        let key_at = c.at();
        let k = c.key()?;
        keys.add(key_hash(k), c.line(), key_at)?;
        let key: &[u8] = if k.escaped {
            scratch.clear();
            unescape(k.raw, scratch);
            scratch
        } else {
            k.raw
        };
        match node.children.iter().find(|n| *n.name == *key) {
            None => c.skip_value(depth)?,
            Some(child) => {
                let first = c.peek();
                let value_at = c.at();
                match first {
                    Some(b'{') if !child.children.is_empty() => {
                        c.bump();
                        walk(child, c, depth + 1, out, scratch)?;
                    }
                    Some(b'"') => {
                        c.bump();
                        let s = c.string()?;
                        if let Some(slot) = child.out {
                            out[slot] = Some(Picked::Str(s));
                        }
                        if !c.next_member()? {
                            return Ok(());
                        }
                        continue;
                    }
                    _ => c.skip_value(depth)?,
                }
                if let Some(slot) = child.out {
                    let raw = &c.line()[value_at..c.at()];
                    out[slot] = if raw == b"null" { None } else { Some(Picked::Raw(raw)) };
                }
            }
        }
        if !c.next_member()? {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A key twice in one object is refused at any depth, whether the
    /// path is selected, passes through it, or is skipped; the error is
    /// at the second key's quote. (Merging `{"a":{"b":1},"a":{"c":2}}`
    /// into `a.b`, `a.c` was a wrong answer.)
    #[test]
    fn a_key_twice_is_refused_at_every_depth() {
        let paths: Vec<Vec<String>> = [["a", "b"], ["a", "c"]]
            .iter()
            .map(|p| p.iter().map(|s| s.to_string()).collect())
            .collect();
        let mut sel = Selector::new(&paths);
        let mut out = Vec::new();
        // Each line, and its repeated key as it is written the second time.
        for (line, second) in [
            (r#"{"a":{"b":1},"a":{"c":2}}"#, r#""a":{"c""#),
            (r#"{"a":{"b":1},"a":null}"#, r#""a":null"#),
            (r#"{"a":{"b":1,"b":2}}"#, r#""b":2"#),
            (r#"{"x":{"y":1,"y":2},"a":{}}"#, r#""y":2"#),
            (r#"{"x":1, "x":2}"#, r#""x":2"#),
            (r#"{"x":[{"y":1,"y":2}]}"#, r#""y":2"#),
            (r#"{"a":{"b":1,"\u0062":2}}"#, r#""\u0062""#),
            (r#"{"\u0078":1,"x":2}"#, r#""x":2"#),
        ] {
            let at = line.rfind(second).unwrap();
            let err = sel.pick(line.as_bytes(), &mut out).unwrap_err();
            assert_eq!(err, Syntax { at, reason: crate::scan::DUPLICATE_KEY }, "{line}");
            assert_eq!(crate::scan::validate_object(line.as_bytes()), Err(err), "{line}");
        }
        // Many keys (past the 16 hashed on the stack) and no repeat: fine.
        let many: Vec<String> = (0..100).map(|i| format!("\"k{i}\":{i}")).collect();
        let line = format!("{{{}}}", many.join(","));
        assert_eq!(sel.pick(line.as_bytes(), &mut out), Ok(true));
        let line = format!("{{{},\"k77\":0}}", many.join(","));
        let err = sel.pick(line.as_bytes(), &mut out).unwrap_err();
        assert_eq!(err.reason, crate::scan::DUPLICATE_KEY);
        assert_eq!(err.at, line.len() - 8);
    }

    fn texts(paths: &[&str], line: &str) -> Vec<Option<String>> {
        let paths: Vec<Vec<String>> =
            paths.iter().map(|p| p.split('.').map(str::to_string).collect()).collect();
        let mut sel = Selector::new(&paths);
        let mut out = Vec::new();
        sel.pick(line.as_bytes(), &mut out).unwrap();
        out.iter()
            .map(|p| {
                p.map(|p| {
                    let mut v = Vec::new();
                    p.text_into(&mut v);
                    String::from_utf8(v).unwrap()
                })
            })
            .collect()
    }

    #[test]
    fn picks_by_path_at_any_depth() {
        let line = r#"{"a":1,"b":{"c":"x\"y","d":[1, 2],"e":{"f":true}},"g":null,"h":"\u00e9"}"#;
        let s = |x: &str| Some(x.to_string());
        assert_eq!(
            texts(&["a", "b.c", "b.d", "b.e.f", "g", "h", "nope", "b.nope", "a.x"], line),
            // Values as compact JSON text, whatever the spacing written.
            [s("1"), s("x\"y"), s("[1,2]"), s("true"), None, s("é"), None, None, None]
        );
        assert_eq!(
            texts(&["b", "b.c"], line)[0].as_deref(),
            Some(r#"{"c":"x\"y","d":[1,2],"e":{"f":true}}"#)
        );
    }

    #[test]
    fn the_whole_line_is_still_checked() {
        let mut sel = Selector::new(&[vec!["a".to_string()]]);
        let mut out = Vec::new();
        assert!(sel.pick(br#"{"a":1,"b":[1,}"#, &mut out).is_err());
        assert!(sel.pick(br#"{"a":1} x"#, &mut out).is_err());
        assert_eq!(sel.pick(b"  ", &mut out), Ok(false));
        assert_eq!(
            sel.pick(br#"{"a":1,"b":2,"a":3}"#, &mut out).unwrap_err(),
            Syntax { at: 13, reason: crate::scan::DUPLICATE_KEY }
        );
    }
}

//! The JSON grammar over one line (RFC 8259), byte by byte with a SWAR
//! loop through string bodies: no allocation, no recursion past
//! [`MAX_DEPTH`], every error a byte offset and a short reason.
//!
//! [`Cursor::skip_value`] validates a value without keeping it (`json
//! count` and `check`, keys the schema does not have); the decoder
//! (`decode.rs`) walks the same grammar with [`Cursor::string`],
//! [`Cursor::number`] and the literals, and writes into builders as it goes.

use swath::swar::{nonzero_bytes, splat, word, HIGH, LOW7};

/// Objects and arrays nested deeper than this are an error (as
/// `serde_json`'s limit of 128, doubled): the decoder and the validator
/// recurse, and a line of 100 MB of `[` must not overflow the stack.
pub const MAX_DEPTH: usize = 256;

// A schema of data this deep must read back from its schema file: a
// struct nests the file two levels, and the file's own object and list
// add a few.
const _: () = assert!(2 * MAX_DEPTH + 8 <= swath_arrow::schema_file::MAX_DEPTH);

/// A syntax error: where in the line (0-based byte) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Syntax {
    /// Byte offset in the line.
    pub at: usize,
    /// A short reason: "expected ':' after a key", "invalid escape", ...
    pub reason: &'static str,
}

/// The kind of a number's text: an integer (`-12`) or not (`1.5`, `1e3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Num {
    /// Digits only, with an optional minus.
    Int,
    /// With a fraction or an exponent.
    Float,
}

/// A string's body: the bytes between the quotes, and whether they hold
/// an escape (then [`unescape`] gives the value; without, they are it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Str<'a> {
    /// The raw body, escapes as written.
    pub raw: &'a [u8],
    /// Whether `raw` holds a backslash.
    pub escaped: bool,
}

/// Bytes to match at the cursor ([`Cursor::eat`]), with their first 16
/// bytes as masked words.
#[derive(Clone, Debug)]
pub struct Literal {
    bytes: Box<[u8]>,
    words: [u64; 2],
    masks: [u64; 2],
}

impl Literal {
    /// A literal of `bytes`.
    pub fn new(bytes: &[u8]) -> Literal {
        let mut padded = [0u8; 16];
        let n = bytes.len().min(16);
        padded[..n].copy_from_slice(&bytes[..n]);
        let mut mask = [0u8; 16];
        mask[..n].fill(0xff);
        Literal {
            bytes: bytes.into(),
            words: [word(&padded, 0), word(&padded, 8)],
            masks: [word(&mask, 0), word(&mask, 8)],
        }
    }
}

/// A position in one line.
#[derive(Clone, Debug)]
pub struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

type R<T> = Result<T, Syntax>;

impl<'a> Cursor<'a> {
    /// A cursor at the start of `line`.
    pub fn new(line: &'a [u8]) -> Cursor<'a> {
        Cursor { b: line, i: 0 }
    }

    /// The byte offset of the cursor.
    #[inline]
    pub fn at(&self) -> usize {
        self.i
    }

    /// Move to byte `at` of the line.
    pub fn seek(&mut self, at: usize) {
        self.i = at;
    }

    /// The line.
    #[inline]
    pub fn line(&self) -> &'a [u8] {
        self.b
    }

    /// An error here.
    #[inline]
    pub fn fail<T>(&self, reason: &'static str) -> R<T> {
        Err(Syntax { at: self.i, reason })
    }

    /// Skip JSON whitespace: spaces, tabs, carriage returns and newlines.
    /// A line handed in holds no `\n` (the framing cut it there), so a
    /// newline is met only in a document that is not cut into lines.
    #[inline]
    pub fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            if c == b' ' || c == b'\t' || c == b'\r' || c == b'\n' {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    /// The next byte after whitespace, not consumed.
    #[inline]
    pub fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.i).copied()
    }

    /// Consume `c` (after whitespace) or fail with `reason`.
    #[inline]
    pub fn expect(&mut self, c: u8, reason: &'static str) -> R<()> {
        if self.peek() == Some(c) {
            self.i += 1;
            Ok(())
        } else {
            self.fail(reason)
        }
    }

    /// After the value of a line: only whitespace may follow.
    pub fn end(&mut self) -> R<()> {
        match self.peek() {
            None => Ok(()),
            Some(_) => self.fail("text after the object (one object a line)"),
        }
    }

    /// Consume a byte known to be there (the caller peeked it).
    #[inline]
    pub fn bump(&mut self) {
        self.i += 1;
    }

    /// Validate one value of any kind, without keeping it.
    pub fn skip_value(&mut self, depth: usize) -> R<()> {
        match self.peek() {
            Some(b'{') => {
                self.bump();
                self.skip_object_body(depth + 1)
            }
            Some(b'[') => {
                self.bump();
                self.skip_array_body(depth + 1)
            }
            Some(b'"') => {
                self.bump();
                self.string().map(|_| ())
            }
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number().map(|_| ()),
            Some(_) => self.fail("not a JSON value"),
            None => self.fail("a value is missing"),
        }
    }

    /// After `{`: the members and the closing `}`; a key given twice is an
    /// error at its second opening quote ([`DUPLICATE_KEY`]).
    pub fn skip_object_body(&mut self, depth: usize) -> R<()> {
        if depth > MAX_DEPTH {
            return self.fail("nested deeper than 256 levels");
        }
        if self.peek() == Some(b'}') {
            self.bump();
            return Ok(());
        }
        let mut keys = Keys::new(self.i);
        loop {
            self.ws();
            let key_at = self.i;
            let k = self.key()?;
            keys.add(key_hash(k), self.b, key_at)?;
            self.skip_value(depth)?;
            if !self.next_member()? {
                return Ok(());
            }
        }
    }

    /// After `[`: the elements and the closing `]`.
    pub fn skip_array_body(&mut self, depth: usize) -> R<()> {
        if depth > MAX_DEPTH {
            return self.fail("nested deeper than 256 levels");
        }
        if self.peek() == Some(b']') {
            self.bump();
            return Ok(());
        }
        loop {
            self.skip_value(depth)?;
            if !self.next_element()? {
                return Ok(());
            }
        }
    }

    /// After whitespace, consume `lit` if the line goes on with it (a key
    /// as written, quotes included: the decoder's guess of the next key,
    /// checked without scanning the string).
    #[inline]
    pub fn eat(&mut self, lit: &Literal) -> bool {
        self.ws();
        let i = self.i;
        let hit = if lit.bytes.len() <= 16 && i + 16 <= self.b.len() {
            // Two masked word compares instead of a memcmp call (which was
            // 10% of a decode for keys of a few bytes).
            ((word(self.b, i) ^ lit.words[0]) & lit.masks[0])
                | ((word(self.b, i + 8) ^ lit.words[1]) & lit.masks[1])
                == 0
        } else {
            self.b[i..].starts_with(&lit.bytes)
        };
        if hit {
            self.i += lit.bytes.len();
        }
        hit
    }

    /// A member's key and its colon: `"name" :`.
    #[inline]
    pub fn key(&mut self) -> R<Str<'a>> {
        self.expect(b'"', "expected a key in double quotes")?;
        let k = self.string()?;
        self.expect(b':', "expected ':' after a key")?;
        Ok(k)
    }

    /// After a member: `,` (true: another follows) or `}` (false).
    #[inline]
    pub fn next_member(&mut self) -> R<bool> {
        match self.peek() {
            Some(b',') => {
                self.bump();
                Ok(true)
            }
            Some(b'}') => {
                self.bump();
                Ok(false)
            }
            _ => self.fail("expected ',' or '}' after a member"),
        }
    }

    /// After an element: `,` (true) or `]` (false).
    #[inline]
    pub fn next_element(&mut self) -> R<bool> {
        match self.peek() {
            Some(b',') => {
                self.bump();
                Ok(true)
            }
            Some(b']') => {
                self.bump();
                Ok(false)
            }
            _ => self.fail("expected ',' or ']' after an element"),
        }
    }

    /// `true`, `false` or `null`, spelled exactly.
    #[inline]
    pub fn literal(&mut self, word: &'static [u8]) -> R<()> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(())
        } else {
            self.fail("not a JSON value")
        }
    }

    /// After the opening quote: the body up to the closing quote (which is
    /// consumed). Checks escapes (surrogates paired), control characters
    /// and UTF-8.
    #[inline]
    pub fn string(&mut self) -> R<Str<'a>> {
        let start = self.i;
        let mut escaped = false;
        let b = self.b;
        loop {
            // Eight bytes at a time to the next byte that needs a look: a
            // quote, a backslash, a control character or a non-ASCII byte.
            // (SSE2, sixteen at a time, was slower on these short strings:
            // decode 720 -> 670 MB/s, validation 1070 -> 790.)
            while self.i + 8 <= b.len() {
                let w = word(b, self.i);
                let quote = !nonzero_bytes(w ^ splat(b'"'));
                let slash = !nonzero_bytes(w ^ splat(b'\\'));
                // High bit of (w & 0x7f) + 0x60 is set where the byte's low
                // seven bits are >= 0x20; a control byte has neither that
                // nor its own high bit.
                let control = !(((w & LOW7) + splat(0x60)) | w);
                let special = (quote | slash | control | w) & HIGH;
                if special == 0 {
                    self.i += 8;
                } else {
                    self.i += (special.trailing_zeros() / 8) as usize;
                    break;
                }
            }
            let Some(&c) = b.get(self.i) else {
                return self.fail("a string is not closed");
            };
            match c {
                b'"' => {
                    let raw = &b[start..self.i];
                    self.i += 1;
                    return Ok(Str { raw, escaped });
                }
                b'\\' => {
                    escaped = true;
                    self.escape()?;
                }
                0..=0x1f => return self.fail("a control character in a string (escape it)"),
                0x80.. => self.utf8_char()?,
                _ => self.i += 1,
            }
        }
    }

    /// One escape at the backslash: `\"`, `\\`, `\/`, `\b`, `\f`, `\n`,
    /// `\r`, `\t` or `\uXXXX` (a high surrogate followed by a low one).
    fn escape(&mut self) -> R<()> {
        match self.b.get(self.i + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => {
                self.i += 2;
                Ok(())
            }
            Some(b'u') => {
                let Some(u) = hex4(self.b, self.i + 2) else {
                    return self.fail("\\u must be followed by four hex digits");
                };
                match u {
                    0xD800..=0xDBFF => {
                        let low = (self.b.get(self.i + 6..self.i + 8) == Some(b"\\u"))
                            .then(|| hex4(self.b, self.i + 8))
                            .flatten();
                        match low {
                            Some(0xDC00..=0xDFFF) => {
                                self.i += 12;
                                Ok(())
                            }
                            _ => self.fail("a high surrogate \\u escape without its low half"),
                        }
                    }
                    0xDC00..=0xDFFF => {
                        self.fail("a low surrogate \\u escape without its high half")
                    }
                    _ => {
                        self.i += 6;
                        Ok(())
                    }
                }
            }
            _ => self.fail("invalid escape"),
        }
    }

    /// One UTF-8 character at a byte >= 0x80.
    #[cold]
    fn utf8_char(&mut self) -> R<()> {
        let width = match self.b[self.i] {
            0xC2..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF4 => 4,
            _ => 0,
        };
        let ch = self.b.get(self.i..self.i + width);
        match ch.map(std::str::from_utf8) {
            Some(Ok(_)) if width > 0 => {
                self.i += width;
                Ok(())
            }
            _ => self.fail("invalid UTF-8"),
        }
    }

    /// A number, its text checked against the JSON grammar
    /// (`-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?`): its kind; the
    /// text is `line()[start..at()]`.
    #[inline]
    pub fn number(&mut self) -> R<Num> {
        let b = self.b;
        if b.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        match b.get(self.i) {
            Some(b'0') => self.i += 1,
            Some(b'1'..=b'9') => self.digits(),
            _ => return self.fail("a number needs a digit"),
        }
        let mut kind = Num::Int;
        if b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if !matches!(b.get(self.i), Some(b'0'..=b'9')) {
                return self.fail("a digit must follow the decimal point");
            }
            self.digits();
            kind = Num::Float;
        }
        if let Some(b'e' | b'E') = b.get(self.i) {
            self.i += 1;
            if let Some(b'+' | b'-') = b.get(self.i) {
                self.i += 1;
            }
            if !matches!(b.get(self.i), Some(b'0'..=b'9')) {
                return self.fail("a digit must follow the exponent");
            }
            self.digits();
            kind = Num::Float;
        }
        if let Some(b'0'..=b'9') = b.get(self.i) {
            // "01": a leading zero followed by digits.
            return self.fail("a number may not have a leading zero");
        }
        Ok(kind)
    }

    #[inline]
    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.b.get(self.i) {
            self.i += 1;
        }
    }
}

/// The reason of a key given twice in one object (every reader refuses
/// such a line, whether it reads the key or skips it: which value would
/// be the answer?). [`duplicate_key_reason`] names the key.
pub const DUPLICATE_KEY: &str = "a key twice in one object";

/// The keys of one object seen so far, to refuse a key given twice
/// without allocating for the objects lines usually hold: a 32-bit hash
/// of each of the first [`INLINE_KEYS`] keys on the stack, behind a 64-bit
/// filter (one AND a key: a scan of the hashes was 9% of `json count`);
/// past them, a set of hashes on the heap (one allocation per object that
/// wide, so that a 500-key object costs no quadratic work). A hash seen
/// before is checked by reading the object's keys again from its start and
/// comparing them (rare: a real repeat, or a collision).
#[derive(Debug)]
pub struct Keys {
    /// Where the object's members start (after `{`).
    body: usize,
    n: usize,
    filter: u64,
    hashes: [u32; INLINE_KEYS],
    wide: Option<std::collections::HashSet<u32, BuildIdentity>>,
}

/// Keys of one object hashed on the stack before [`Keys`] moves to a set.
pub const INLINE_KEYS: usize = 16;

/// The set of a wide object's key hashes: the hash is the key.
type BuildIdentity = std::hash::BuildHasherDefault<Identity>;

#[derive(Default)]
struct Identity(u64);

impl std::hash::Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u32(&mut self, h: u32) {
        // Spread over the high bits too, which hashbrown's groups read.
        self.0 = u64::from(h).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

impl Keys {
    /// No keys yet, for the object whose members start at byte `body`.
    #[inline]
    pub fn new(body: usize) -> Keys {
        Keys { body, n: 0, filter: 0, hashes: [0; INLINE_KEYS], wide: None }
    }

    /// Note the key whose [`key_hash`] is `h` and whose opening quote is
    /// at byte `key_at` of `line`.
    ///
    /// # Errors
    ///
    /// [`DUPLICATE_KEY`] at `key_at`, when an earlier key of this object is
    /// the same (escapes resolved: `"\u0061"` is `"a"`).
    #[inline(always)]
    pub fn add(&mut self, h: u32, line: &[u8], key_at: usize) -> R<()> {
        // The common case, inline: room on the stack, and a filter bit
        // no key of this object has set.
        let bit = 1u64 << (h & 63);
        if self.n < INLINE_KEYS && self.filter & bit == 0 {
            self.hashes[self.n] = h;
            self.filter |= bit;
            self.n += 1;
            return Ok(());
        }
        self.add_slow(h, bit, line, key_at)
    }

    #[inline(never)]
    fn add_slow(&mut self, h: u32, bit: u64, line: &[u8], key_at: usize) -> R<()> {
        let dup = || Err(Syntax { at: key_at, reason: DUPLICATE_KEY });
        if let Some(set) = &mut self.wide {
            if !set.insert(h) && seen_before(line, self.body, key_at) {
                return dup();
            }
            return Ok(());
        }
        if self.filter & bit != 0
            && self.hashes[..self.n].contains(&h)
            && seen_before(line, self.body, key_at)
        {
            return dup();
        }
        if self.n == INLINE_KEYS {
            self.spill(h);
        } else {
            self.hashes[self.n] = h;
            self.filter |= bit;
            self.n += 1;
        }
        Ok(())
    }

    #[cold]
    fn spill(&mut self, h: u32) {
        let mut set: std::collections::HashSet<u32, BuildIdentity> =
            self.hashes.iter().copied().collect();
        set.insert(h);
        self.wide = Some(set);
    }
}

/// A hash of a key's value (escapes resolved, so that every spelling of
/// one key hashes alike).
#[inline]
pub fn key_hash(k: Str<'_>) -> u32 {
    if k.escaped {
        return escaped_key_hash(k.raw);
    }
    hash_bytes(k.raw)
}

#[cold]
fn escaped_key_hash(raw: &[u8]) -> u32 {
    let mut v = Vec::with_capacity(raw.len());
    unescape(raw, &mut v);
    hash_bytes(&v)
}

/// A hash of bytes, a word at a time, the last word overlapping the one
/// before it, and a short key's bytes gathered by shifts: no copy into a
/// padded word (that `memcpy` call was 40% of `json count`'s key check).
/// Equal bytes hash alike; a collision only costs a rescan.
#[inline]
pub fn hash_bytes(b: &[u8]) -> u32 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mix = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(K);
    let n = b.len();
    let mut h = n as u64;
    if n >= 8 {
        let mut i = 0;
        while i + 8 <= n {
            h = mix(h, word(b, i));
            i += 8;
        }
        if i < n {
            h = mix(h, word(b, n - 8));
        }
    } else if n >= 4 {
        let lo = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let hi = u32::from_le_bytes([b[n - 4], b[n - 3], b[n - 2], b[n - 1]]);
        h = mix(h, u64::from(lo) | u64::from(hi) << 32);
    } else if n > 0 {
        h = mix(h, u64::from(b[0]) | u64::from(b[n / 2]) << 8 | u64::from(b[n - 1]) << 16);
    }
    (h >> 32) as u32
}

/// Whether the key at `key_at` (its opening quote) equals a key before it
/// in the object whose members start at `body`: the slow, sure check
/// behind [`Keys`]' hashes. The members before `key_at` were read once
/// already, so they parse.
#[cold]
fn seen_before(line: &[u8], body: usize, key_at: usize) -> bool {
    let mut c = Cursor::new(line);
    c.seek(key_at);
    let Ok(key) = c.key() else { return false };
    c.seek(body);
    loop {
        c.ws();
        if c.at() >= key_at {
            return false;
        }
        let Ok(k) = c.key() else { return false };
        if same_key(k, key) {
            return true;
        }
        if c.skip_value(0).is_err() || !matches!(c.next_member(), Ok(true)) {
            return false;
        }
    }
}

/// Two keys' values are equal (escapes resolved).
fn same_key(a: Str<'_>, b: Str<'_>) -> bool {
    if !a.escaped && !b.escaped {
        return a.raw == b.raw;
    }
    let (mut x, mut y) = (Vec::new(), Vec::new());
    unescape(a.raw, &mut x);
    unescape(b.raw, &mut y);
    x == y
}

/// The reason for a [`DUPLICATE_KEY`] error at byte `at` of `line`, with
/// the key: `the key "a" twice in one object`.
pub fn duplicate_key_reason(line: &[u8], at: usize) -> String {
    let mut c = Cursor::new(line);
    c.seek(at);
    let name = match c.key() {
        Ok(k) => {
            let mut v = Vec::new();
            unescape(k.raw, &mut v);
            String::from_utf8_lossy(&v).into_owned()
        }
        Err(_) => String::new(),
    };
    format!("the key {name:?} twice in one object")
}

/// Four hex digits at `at`, as a number.
#[inline]
fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let h = b.get(at..at + 4)?;
    let mut v = 0u32;
    for &c in h {
        v = v * 16 + (c as char).to_digit(16)?;
    }
    Some(v)
}

/// Append the value of a string body checked by [`Cursor::string`] to
/// `out`: escapes resolved, surrogate pairs joined.
pub fn unescape(raw: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while let Some(off) = memchr::memchr(b'\\', &raw[i..]) {
        out.extend_from_slice(&raw[i..i + off]);
        i += off;
        let c = match raw[i + 1] {
            b'b' => 0x08,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let u = hex4(raw, i + 2).unwrap_or(0xFFFD);
                let (cp, len) = if (0xD800..=0xDBFF).contains(&u) {
                    let low = hex4(raw, i + 8).unwrap_or(0xDC00);
                    (0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00), 12)
                } else {
                    (u, 6)
                };
                let ch = char::from_u32(cp).unwrap_or('\u{FFFD}');
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                i += len;
                continue;
            }
            other => other, // '"', '\\', '/'
        };
        out.push(c);
        i += 2;
    }
    out.extend_from_slice(&raw[i..]);
}

/// Append a valid JSON value's text without its whitespace outside
/// strings: a value's text is the same whether its record was one line or
/// pretty-printed (and a value picked from a pretty record stays on one
/// line of JSON-lines output).
pub fn push_compact(out: &mut Vec<u8>, text: &[u8]) {
    let spaced = |b: &u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    if !text.iter().any(spaced) {
        out.extend_from_slice(text);
        return;
    }
    let (mut in_str, mut esc) = (false, false);
    for &b in text {
        if in_str {
            if esc {
                esc = false;
            } else if b == b'\\' {
                esc = true;
            } else if b == b'"' {
                in_str = false;
            }
        } else if b == b'"' {
            in_str = true;
        } else if spaced(&b) {
            continue;
        }
        out.push(b);
    }
}

/// Validate one line as one JSON object (whitespace around it allowed).
///
/// # Errors
///
/// The first syntax error, with its byte offset in the line.
pub fn validate_object(line: &[u8]) -> Result<(), Syntax> {
    let mut c = Cursor::new(line);
    match c.peek() {
        Some(b'{') => {
            c.bump();
            c.skip_object_body(1)?;
        }
        Some(b'[' | b'"' | b't' | b'f' | b'n' | b'-' | b'0'..=b'9') => {
            c.skip_value(0)?;
            return Err(Syntax { at: 0, reason: "not an object (one object a line)" });
        }
        _ => return c.fail("not JSON"),
    }
    c.end()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> bool {
        validate_object(s.as_bytes()).is_ok()
    }

    /// The slow, obvious twin of [`Keys`]: the first key (at any depth,
    /// in document order of its second appearance) that an earlier key of
    /// its own object equals, by a set of unescaped names per object.
    fn first_repeat(line: &str) -> Option<usize> {
        // serde_json keeps the last of a repeated key, so the twin reads
        // the line itself: a stack of sets, one per open object.
        let b = line.as_bytes();
        let mut sets: Vec<Option<std::collections::HashSet<Vec<u8>>>> = Vec::new();
        let mut i = 0;
        let mut expect_key = false;
        while i < b.len() {
            match b[i] {
                b'{' => {
                    sets.push(Some(Default::default()));
                    expect_key = true;
                }
                b'[' => {
                    sets.push(None);
                    expect_key = false;
                }
                b'}' | b']' => {
                    sets.pop();
                }
                b',' => expect_key = matches!(sets.last(), Some(Some(_))),
                b'"' => {
                    let start = i;
                    i += 1;
                    while b[i] != b'"' {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                    if expect_key {
                        let mut name = Vec::new();
                        unescape(&b[start + 1..i], &mut name);
                        let set = sets.last_mut().unwrap().as_mut().unwrap();
                        if !set.insert(name) {
                            return Some(start);
                        }
                        expect_key = false;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        None
    }

    /// Keys' hashes and the rescans behind them find exactly the repeats
    /// the twin finds, on random objects: few names (many repeats), names
    /// spelled with escapes, objects of up to 80 keys (past the 16 hashed
    /// ones), nested in objects and arrays.
    #[test]
    fn repeated_keys_found_as_the_slow_twin_finds_them() {
        let mut rng = swath_testkit::Rng::new(0x9e37_79b9_7f4a_7c15);
        let mut next = |n: u64| rng.below(n);
        fn object(next: &mut dyn FnMut(u64) -> u64, depth: u32, out: &mut String) {
            let few = next(2) == 0;
            let names = 1 + next(if few { 4 } else { 120 });
            // Wide objects at the top only: nested ones multiply.
            let wide = depth == 0 && next(3) == 0;
            let n = next(if wide { 80 } else { 6 });
            out.push('{');
            for j in 0..n {
                if j > 0 {
                    out.push(',');
                }
                let k = next(names);
                // Sometimes the same name spelled with an escape.
                if next(5) == 0 {
                    out.push_str(&format!("\"\\u006b{k}\":"));
                } else {
                    out.push_str(&format!("\"k{k}\":"));
                }
                match next(6) {
                    0 if depth < 4 => object(next, depth + 1, out),
                    1 if depth < 4 => {
                        out.push('[');
                        object(next, depth + 1, out);
                        out.push(']');
                    }
                    _ => out.push_str(&next(100).to_string()),
                }
            }
            out.push('}');
        }
        let mut repeats = 0;
        for _ in 0..3000 {
            let mut line = String::new();
            object(&mut next, 0, &mut line);
            // Valid JSON but for the repeats (serde_json takes the last).
            serde_json::from_str::<serde_json::Value>(&line).unwrap();
            let want = first_repeat(&line);
            let got = validate_object(line.as_bytes());
            match want {
                Some(at) => {
                    repeats += 1;
                    assert_eq!(got, Err(Syntax { at, reason: DUPLICATE_KEY }), "{line}");
                }
                None => assert_eq!(got, Ok(()), "{line}"),
            }
        }
        assert!(repeats > 300 && repeats < 2900, "a mix of both: {repeats}");
    }

    #[test]
    fn compact_text_keeps_strings_whole() {
        let mut out = Vec::new();
        push_compact(&mut out, b"{ \"a b\" : [ 1 ,\n \"x\\\" y\" ] }");
        assert_eq!(out, b"{\"a b\":[1,\"x\\\" y\"]}");
        out.clear();
        push_compact(&mut out, b"[1,2]");
        assert_eq!(out, b"[1,2]");
    }

    #[test]
    fn valid_objects() {
        for s in [
            "{}",
            " { } ",
            r#"{"a":1}"#,
            r#"{"a":-0.5e+10,"b":[1,2,{"c":null}],"d":"x\"y\\\u00e9\ud83d\ude00","e":true,"f":false}"#,
            "{\"é\":\"日本\"}\r",
            r#"{"a":[]}"#,
            r#"{"a":{}}"#,
            r#"{"a":0}"#,
            r#"{"a":1E5}"#,
        ] {
            assert!(ok(s), "{s}");
        }
    }

    #[test]
    fn invalid_lines_say_where() {
        for (s, at, reason) in [
            (r#"{"a":01}"#, 6, "a number may not have a leading zero"),
            (r#"{"a":1.}"#, 7, "a digit must follow the decimal point"),
            (r#"{"a":1e}"#, 7, "a digit must follow the exponent"),
            (r#"{"a" 1}"#, 5, "expected ':' after a key"),
            (r#"{"a":1"#, 6, "expected ',' or '}' after a member"),
            (r#"{"a":1,}"#, 7, "expected a key in double quotes"),
            (r#"{"a":"x"#, 7, "a string is not closed"),
            (r#"{"a":"\x"}"#, 6, "invalid escape"),
            (r#"{"a":"\ud800"}"#, 6, "a high surrogate \\u escape without its low half"),
            (r#"{"a":"\udc00"}"#, 6, "a low surrogate \\u escape without its high half"),
            (r#"{"a":"\u12"}"#, 6, "\\u must be followed by four hex digits"),
            ("{\"a\":\"\t\"}", 6, "a control character in a string (escape it)"),
            (r#"{"a":tru}"#, 5, "not a JSON value"),
            (r#"{"a":1} x"#, 8, "text after the object (one object a line)"),
            ("[1,2]", 0, "not an object (one object a line)"),
            ("hello", 0, "not JSON"),
            (r#"{"a":+1}"#, 5, "not a JSON value"),
        ] {
            assert_eq!(validate_object(s.as_bytes()), Err(Syntax { at, reason }), "{s}");
        }
        let bad_utf8 = b"{\"a\":\"\xff\"}";
        assert_eq!(validate_object(bad_utf8), Err(Syntax { at: 6, reason: "invalid UTF-8" }));
        let overlong = b"{\"a\":\"\xc0\xaf\"}";
        assert!(validate_object(overlong).is_err());
        let surrogate = b"{\"a\":\"\xed\xa0\x80\"}";
        assert!(validate_object(surrogate).is_err());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("{{\"a\":{}{}}}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(
            validate_object(deep.as_bytes()).unwrap_err().reason,
            "nested deeper than 256 levels"
        );
        let fine = format!("{{\"a\":{}{}}}", "[".repeat(200), "]".repeat(200));
        assert!(ok(&fine));
    }

    #[test]
    fn unescape_resolves_every_escape() {
        let mut out = Vec::new();
        unescape(br#"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00z"#, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), "a\"b\\c/d\u{8}\u{c}\n\r\té😀z");
    }

    /// The SWAR string loop against serde_json on every string of one to
    /// twenty bytes drawn from bytes that matter to it.
    #[test]
    fn strings_agree_with_serde_json() {
        let alphabet: &[&[u8]] = &[
            b"a",
            b"\"",
            b"\\",
            b"\\n",
            b"\x01",
            b"\x7f",
            "é".as_bytes(),
            b"\xff",
            b"\\u0041",
            b" ",
        ];
        let mut rng = swath_testkit::Rng::new(0x1234_5678_9abc_def0);
        for _ in 0..20_000 {
            let mut s = b"{\"k\":\"".to_vec();
            let seed = rng.next_u64();
            let n = (seed % 20) as usize;
            let mut x = seed;
            for _ in 0..n {
                s.extend_from_slice(alphabet[(x % alphabet.len() as u64) as usize]);
                x /= alphabet.len() as u64;
                if x == 0 {
                    x = seed.rotate_left(7);
                }
            }
            s.extend_from_slice(b"\"}");
            let ours = validate_object(&s);
            let theirs = serde_json::from_slice::<serde_json::Value>(&s);
            assert_eq!(
                ours.is_ok(),
                theirs.is_ok(),
                "{:?}: {ours:?} {theirs:?}",
                String::from_utf8_lossy(&s)
            );
            if let Ok(v) = theirs {
                let Some(serde_json::Value::String(want)) = v.get("k") else { panic!() };
                let mut c = Cursor::new(&s[5..]);
                c.bump();
                let st = c.string().unwrap();
                let mut got = Vec::new();
                unescape(st.raw, &mut got);
                assert_eq!(got, want.as_bytes());
            }
        }
    }
}

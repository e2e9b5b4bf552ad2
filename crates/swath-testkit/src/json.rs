//! Generated JSON lines for the tests: the shapes that break readers
//! (escapes, surrogate pairs, numbers at the edges, nulls, missing and
//! extra keys, nested objects and arrays, keys in another order), beside
//! [`crate::csv`]'s documents.

use std::fmt::Write as _;

use crate::Rng;

/// Strings that divide JSON readers: escapes of every kind, surrogate
/// pairs, raw UTF-8, an escaped NUL, structural bytes inside.
pub const STRINGS: &[&str] = &[
    "plain",
    "",
    r#"quote \" inside"#,
    r#"back\\slash"#,
    r#"esc \n\t\r\b\f\/"#,
    r#"caf\u00e9"#,
    r#"emoji \ud83d\ude00 pair"#,
    "raw UTF-8: Zürich 日本 ☕",
    r#"\u0000 nul"#,
    "comma, colon: brace { bracket ]",
];

/// Numbers at the edges of `f64`, in every notation.
pub const FLOATS: &[&str] = &[
    "0.5",
    "-0.0",
    "1e308",
    "1.7976931348623157e308",
    "5e-324",
    "2.2250738585072014E-308",
    "123.456",
    "-1.5e-7",
    "3",
    "-12",
    "0.1",
    "1E+2",
];

/// Integers at the edges of `i64`.
pub const INTS: &[&str] =
    &["0", "-1", "9223372036854775807", "-9223372036854775808", "42", "1234567890123"];

fn pick_str<'a>(r: &mut Rng, xs: &[&'a str]) -> &'a str {
    xs[r.below(xs.len() as u64) as usize]
}

/// One object a line: one member `"key":value` per field that is there;
/// nulls, missing keys, extra keys and shuffled order on some lines.
pub fn json_line(r: &mut Rng, n: u64) -> String {
    let mut members: Vec<String> = Vec::new();
    let mut add = |r: &mut Rng, key: &str, value: String| {
        if r.one_in(12) {
            return; // missing
        }
        let v = if r.one_in(10) { "null".to_string() } else { value };
        let sp = if r.one_in(5) { " " } else { "" };
        members.push(format!("\"{key}\"{sp}:{sp}{v}"));
    };
    add(r, "id", n.to_string());
    let s = pick_str(r, STRINGS).to_string();
    add(r, "name", format!("\"{s}\""));
    let f = pick_str(r, FLOATS).to_string();
    add(r, "score", f);
    let i = pick_str(r, INTS).to_string();
    add(r, "big", i);
    let b = if r.one_in(2) { "true" } else { "false" };
    add(r, "ok", b.to_string());
    let ts = format!(
        "\"2024-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z\"",
        1 + r.below(12),
        1 + r.below(28),
        r.below(24),
        r.below(60),
        r.below(60),
        r.below(1000)
    );
    add(r, "ts", ts);
    let day = format!("\"20{:02}-{:02}-{:02}\"", r.below(30), 1 + r.below(12), 1 + r.below(28));
    add(r, "day", day);
    let mut obj = String::from("{");
    let _ = write!(obj, "\"a\":{}", r.below(1000));
    if !r.one_in(4) {
        let k = r.below(4);
        let tags: Vec<String> = (0..k).map(|_| format!("\"{}\"", pick_str(r, STRINGS))).collect();
        let _ = write!(obj, ",\"b\":[{}]", tags.join(","));
    }
    if !r.one_in(3) {
        let inner = if r.one_in(6) {
            "null".to_string()
        } else {
            format!("{{\"d\":{}}}", pick_str(r, FLOATS))
        };
        let _ = write!(obj, ",\"c\":{inner}");
    }
    obj.push('}');
    add(r, "obj", obj);
    let k = r.below(5);
    let arr: Vec<String> = (0..k)
        .map(|_| if r.one_in(8) { "null".into() } else { r.below(100).to_string() })
        .collect();
    add(r, "arr", format!("[{}]", arr.join(",")));
    if r.one_in(7) {
        members.push(r#""extra":{"x":[1,{"y":"z"}],"q":"\ud83d\ude00"}"#.to_string());
    }
    if r.one_in(3) {
        // Keys in another order.
        let k = r.below(members.len().max(1) as u64) as usize;
        members.rotate_left(k);
    }
    format!("{{{}}}", members.join(","))
}

/// `lines` generated lines (see [`json_line`]), `\n`-terminated; the same
/// seed gives the same document.
pub fn json_document(seed: u64, lines: u64) -> String {
    let mut r = Rng::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut out = String::new();
    for n in 1..=lines {
        out.push_str(&json_line(&mut r, n));
        out.push('\n');
    }
    out
}

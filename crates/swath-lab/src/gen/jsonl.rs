//! A JSON-lines application log, deterministic from a seed: one object a
//! line, about 230 bytes, with the shapes real logs have.
//!
//! ```text
//! {"ts":"2024-03-07T11:42:05.123Z","level":"info","service":"api","host":"web-07","req":{"id":1,"method":"GET","path":"/v1/users/4242","status":200,"ms":12.5},"user":{"id":4242,"name":"Alice Martin"},"tags":["cache","edge"],"msg":"request served"}
//! ```
//!
//! Besides the common line: `user` is `null` on about 5% of lines and
//! missing on another 5%; `tags` is empty on about 10%; about 5% of
//! messages hold an escaped quote, a `\n` or a `\u00e9` escape, and 5%
//! raw UTF-8; `error` (an object with a code and a text) is there only
//! on lines with status 500. `req.id` is the line number (from 1), so a
//! reader can check the order.

use std::io::{self, Write};

use super::csv::push_uint;
use super::prng::Prng;

const LEVELS: [&str; 4] = ["info", "info", "warn", "error"];
const SERVICES: [&str; 5] = ["api", "auth", "billing", "search", "web"];
const METHODS: [&str; 4] = ["GET", "GET", "POST", "DELETE"];
const STATUS: [u64; 6] = [200, 200, 200, 201, 404, 500];
const PATHS: [&str; 4] = ["/v1/users/", "/v1/orders/", "/v1/search?q=", "/static/app-"];
const FIRST: [&str; 8] = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi"];
const LAST: [&str; 6] = ["Martin", "Hopper", "Lovelace", "Turing", "Knuth", "Liskov"];
const TAGS: [&str; 6] = ["cache", "edge", "retry", "slow", "beta", "mobile"];
const MESSAGES: [&str; 4] = ["request served", "cache miss", "upstream slow", "user signed in"];
const ODD_MESSAGES: [&str; 4] = [
    r#"quoted \"value\" in query"#,
    r#"line one\nline two"#,
    r#"caf\u00e9 order"#,
    "Zürich café ☕",
];

/// Flush the buffer to the writer once it holds this much.
const FLUSH_AT: usize = 64 * 1024;

/// What was generated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JsonlSummary {
    /// Lines (objects) written.
    pub lines: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Lines with status 500 (they have an `error` object).
    pub errors: u64,
}

/// Write `lines` log lines to `out`.
///
/// # Errors
///
/// The first error of `out`.
pub fn write<W: Write + ?Sized>(out: &mut W, lines: u64, seed: u64) -> io::Result<JsonlSummary> {
    let mut rng = Prng::new(seed);
    let mut buf = Vec::with_capacity(FLUSH_AT + 1024);
    let mut sum = JsonlSummary::default();
    let pick = |rng: &mut Prng, xs: &[&'static str]| xs[rng.below(xs.len() as u64) as usize];
    for n in 1..=lines {
        buf.extend_from_slice(b"{\"ts\":\"2024-");
        push_uint(&mut buf, 1 + rng.below(12), 2);
        buf.push(b'-');
        push_uint(&mut buf, 1 + rng.below(28), 2);
        buf.push(b'T');
        push_uint(&mut buf, rng.below(24), 2);
        buf.push(b':');
        push_uint(&mut buf, rng.below(60), 2);
        buf.push(b':');
        push_uint(&mut buf, rng.below(60), 2);
        buf.push(b'.');
        push_uint(&mut buf, rng.below(1000), 3);
        buf.extend_from_slice(b"Z\",\"level\":\"");
        buf.extend_from_slice(pick(&mut rng, &LEVELS).as_bytes());
        buf.extend_from_slice(b"\",\"service\":\"");
        buf.extend_from_slice(pick(&mut rng, &SERVICES).as_bytes());
        buf.extend_from_slice(b"\",\"host\":\"web-");
        push_uint(&mut buf, rng.below(32), 2);
        buf.extend_from_slice(b"\",\"req\":{\"id\":");
        push_uint(&mut buf, n, 1);
        buf.extend_from_slice(b",\"method\":\"");
        buf.extend_from_slice(pick(&mut rng, &METHODS).as_bytes());
        buf.extend_from_slice(b"\",\"path\":\"");
        buf.extend_from_slice(pick(&mut rng, &PATHS).as_bytes());
        let user = rng.below(100_000);
        push_uint(&mut buf, user, 1);
        let status = STATUS[rng.below(STATUS.len() as u64) as usize];
        buf.extend_from_slice(b"\",\"status\":");
        push_uint(&mut buf, status, 1);
        let ms = rng.below(100_000);
        buf.extend_from_slice(b",\"ms\":");
        push_uint(&mut buf, ms / 10, 1);
        buf.push(b'.');
        push_uint(&mut buf, ms % 10, 1);
        buf.push(b'}');
        match rng.below(20) {
            0 => buf.extend_from_slice(b",\"user\":null"),
            1 => {}
            _ => {
                buf.extend_from_slice(b",\"user\":{\"id\":");
                push_uint(&mut buf, user, 1);
                buf.extend_from_slice(b",\"name\":\"");
                buf.extend_from_slice(pick(&mut rng, &FIRST).as_bytes());
                buf.push(b' ');
                buf.extend_from_slice(pick(&mut rng, &LAST).as_bytes());
                buf.extend_from_slice(b"\"}");
            }
        }
        buf.extend_from_slice(b",\"tags\":[");
        if rng.below(10) != 0 {
            for i in 0..1 + rng.below(3) {
                if i > 0 {
                    buf.push(b',');
                }
                buf.push(b'"');
                buf.extend_from_slice(pick(&mut rng, &TAGS).as_bytes());
                buf.push(b'"');
            }
        }
        buf.extend_from_slice(b"],\"msg\":\"");
        let msg = if rng.below(20) == 0 {
            pick(&mut rng, &ODD_MESSAGES)
        } else {
            pick(&mut rng, &MESSAGES)
        };
        buf.extend_from_slice(msg.as_bytes());
        buf.push(b'"');
        if status == 500 {
            buf.extend_from_slice(b",\"error\":{\"code\":");
            push_uint(&mut buf, 1000 + rng.below(9000), 1);
            buf.extend_from_slice(b",\"text\":\"upstream timed out\"}");
            sum.errors += 1;
        }
        buf.extend_from_slice(b"}\n");
        if buf.len() >= FLUSH_AT {
            out.write_all(&buf)?;
            sum.bytes += buf.len() as u64;
            buf.clear();
        }
    }
    out.write_all(&buf)?;
    sum.bytes += buf.len() as u64;
    sum.lines = lines;
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_is_an_object_serde_json_reads() {
        let mut out = Vec::new();
        let sum = write(&mut out, 2000, 7).unwrap();
        assert_eq!(sum.bytes, out.len() as u64);
        let mut errors = 0;
        for (i, line) in out.split(|&b| b == b'\n').filter(|l| !l.is_empty()).enumerate() {
            let v: serde_json::Value = serde_json::from_slice(line).unwrap();
            assert_eq!(v["req"]["id"], i as u64 + 1);
            errors += u64::from(v.get("error").is_some());
        }
        assert_eq!(errors, sum.errors);
        assert!(errors > 100);
        let mut again = Vec::new();
        write(&mut again, 2000, 7).unwrap();
        assert_eq!(out, again);
    }
}

//! A realistic access log as CSV, deterministic from a seed: 15 columns,
//! about 220 bytes a record, about 5:1 under `gzip -6`. The compressed
//! inputs of the bench and the lab are made from it: its lines repeat
//! agents, paths and addresses the way real logs do, which is what makes a
//! gzip file's back-references reach far (and speculative decoding hard).
//!
//! ```text
//! ts,level,service,host,client_ip,method,path,status,bytes,latency_ms,user_agent,referer,request_id,user_id,message
//! 2024-03-07T00:00:01.123Z,INFO,checkout,web-07,10.12.3.41,GET,/api/v1/orders/48213,200,5123,12.5,"Mozilla/5.0 (X11; Linux x86_64) ...",https://shop.example.com/cart,7f3a9c21e4b05d18,48213,"served ""orders"" from cache"
//! ```
//!
//! Timestamps rise through the file (a line is a few milliseconds after the
//! one before); about 1 message in 50 holds a newline inside its quotes,
//! the way a stack trace lands in a log, so a reader must frame records,
//! not lines. `request_id` is the record number in hexadecimal, mixed, so
//! a reader can check the order.

use std::io::{self, Write};

use super::csv::push_uint;
use super::prng::Prng;

/// The header line.
pub const HEADER: &str = "ts,level,service,host,client_ip,method,path,status,bytes,latency_ms,\
                          user_agent,referer,request_id,user_id,message\n";

const LEVELS: [&str; 8] = ["INFO", "INFO", "INFO", "INFO", "INFO", "WARN", "DEBUG", "ERROR"];
const SERVICES: [&str; 8] =
    ["checkout", "search", "auth", "catalog", "payments", "gateway", "profile", "cart"];
const METHODS: [&str; 8] = ["GET", "GET", "GET", "GET", "POST", "POST", "PUT", "DELETE"];
const PATHS: [&str; 10] = [
    "/api/v1/orders/",
    "/api/v1/users/",
    "/api/v1/products/",
    "/api/v2/search?q=item",
    "/api/v1/cart/",
    "/static/js/app.",
    "/api/v1/payments/",
    "/health",
    "/api/v1/sessions/",
    "/images/products/",
];
const STATUS: [u64; 10] = [200, 200, 200, 200, 200, 201, 204, 304, 404, 500];
const AGENTS: [&str; 8] = [
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
    "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
    "curl/8.4.0",
    "python-requests/2.31.0",
    "Go-http-client/1.1",
    "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
];
const REFERERS: [&str; 6] = [
    "https://shop.example.com/",
    "https://shop.example.com/cart",
    "https://www.google.com/",
    "-",
    "https://shop.example.com/search?q=shoes",
    "https://m.example.com/home",
];
const MESSAGES: [&str; 8] = [
    "request served",
    "served \"\"orders\"\" from cache",
    "cache miss, fetched from origin",
    "upstream slow, retrying",
    "user signed in",
    "rate limit near, 90% used",
    "payment authorised",
    "session refreshed",
];
/// A message with a newline inside its quotes (a stack trace's first lines).
const TRACE: &str = "upstream timed out\n    at Gateway.call (gateway.js:118)";

/// Flush the buffer to the writer once it holds this much.
const FLUSH_AT: usize = 64 * 1024;

/// What was generated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AccessLogSummary {
    /// Data records written (the header not counted).
    pub records: u64,
    /// Newline bytes written (header and quoted newlines included): what
    /// `swath count` finds.
    pub newlines: u64,
    /// Bytes written.
    pub bytes: u64,
}

/// Write the header and `records` records to `out`.
///
/// # Errors
///
/// The first error of `out`.
pub fn write<W: Write + ?Sized>(
    out: &mut W,
    records: u64,
    seed: u64,
) -> io::Result<AccessLogSummary> {
    let mut rng = Prng::new(seed);
    let mut buf = Vec::with_capacity(FLUSH_AT + 1024);
    buf.extend_from_slice(HEADER.as_bytes());
    let mut sum = AccessLogSummary { newlines: 1, ..AccessLogSummary::default() };
    let pick = |rng: &mut Prng, xs: &[&'static str]| xs[rng.below(xs.len() as u64) as usize];
    // Milliseconds since 2024-03-07T00:00:00Z; rises a little each record.
    let mut clock = 0u64;
    // 5,000 client addresses, the first few far more often than the rest.
    let ip = |rng: &mut Prng| {
        let n = if rng.below(4) == 0 { rng.below(5000) } else { rng.below(50) };
        [10, (n >> 8) & 0xff, n & 0xff, 1 + n % 250]
    };
    for n in 1..=records {
        clock += rng.below(40);
        let (secs, ms) = (clock / 1000, clock % 1000);
        let day = 7 + secs / 86_400;
        buf.extend_from_slice(b"2024-03-");
        push_uint(&mut buf, day.min(99), 2);
        buf.push(b'T');
        push_uint(&mut buf, secs / 3600 % 24, 2);
        buf.push(b':');
        push_uint(&mut buf, secs / 60 % 60, 2);
        buf.push(b':');
        push_uint(&mut buf, secs % 60, 2);
        buf.push(b'.');
        push_uint(&mut buf, ms, 3);
        buf.extend_from_slice(b"Z,");
        let level = pick(&mut rng, &LEVELS);
        buf.extend_from_slice(level.as_bytes());
        buf.push(b',');
        buf.extend_from_slice(pick(&mut rng, &SERVICES).as_bytes());
        buf.extend_from_slice(b",web-");
        push_uint(&mut buf, rng.below(24), 2);
        buf.push(b',');
        for (i, part) in ip(&mut rng).into_iter().enumerate() {
            if i > 0 {
                buf.push(b'.');
            }
            push_uint(&mut buf, part, 1);
        }
        buf.push(b',');
        buf.extend_from_slice(pick(&mut rng, &METHODS).as_bytes());
        buf.push(b',');
        let path = pick(&mut rng, &PATHS);
        buf.extend_from_slice(path.as_bytes());
        let user = rng.below(20_000);
        if path.ends_with('/') {
            push_uint(&mut buf, user, 1);
        } else if path.ends_with('.') {
            push_uint(&mut buf, rng.below(16), 1);
            buf.extend_from_slice(b".js");
        }
        buf.push(b',');
        let status = STATUS[rng.below(STATUS.len() as u64) as usize];
        push_uint(&mut buf, status, 1);
        buf.push(b',');
        push_uint(&mut buf, 200 + rng.below(20_000), 1);
        buf.push(b',');
        let latency = rng.below(5000);
        push_uint(&mut buf, latency / 10, 1);
        buf.push(b'.');
        push_uint(&mut buf, latency % 10, 1);
        buf.extend_from_slice(b",\"");
        buf.extend_from_slice(pick(&mut rng, &AGENTS).as_bytes());
        buf.extend_from_slice(b"\",");
        buf.extend_from_slice(pick(&mut rng, &REFERERS).as_bytes());
        buf.push(b',');
        push_hex(&mut buf, n.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        buf.push(b',');
        if rng.below(10) == 0 {
            // An anonymous request: user_id is empty.
        } else {
            push_uint(&mut buf, user, 1);
        }
        buf.extend_from_slice(b",\"");
        if status == 500 && rng.below(5) == 0 {
            buf.extend_from_slice(TRACE.as_bytes());
            sum.newlines += 1;
        } else {
            buf.extend_from_slice(pick(&mut rng, &MESSAGES).as_bytes());
        }
        buf.extend_from_slice(b"\"\n");
        sum.newlines += 1;
        if buf.len() >= FLUSH_AT {
            out.write_all(&buf)?;
            sum.bytes += buf.len() as u64;
            buf.clear();
        }
    }
    out.write_all(&buf)?;
    sum.bytes += buf.len() as u64;
    sum.records = records;
    Ok(sum)
}

/// Append `v` as 16 lower-case hexadecimal digits.
fn push_hex(buf: &mut Vec<u8>, v: u64) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for shift in (0..16).rev() {
        buf.push(DIGITS[(v >> (shift * 4)) as usize & 0xf]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slow, obvious reader: split records on newlines outside quotes.
    fn records(data: &[u8]) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        let (mut row, mut field, mut quoted) = (Vec::new(), Vec::new(), false);
        let mut i = 0;
        while i < data.len() {
            let b = data[i];
            match (quoted, b) {
                (true, b'"') if data.get(i + 1) == Some(&b'"') => {
                    field.push(b'"');
                    i += 1;
                }
                (_, b'"') => quoted = !quoted,
                (false, b',') => row.push(String::from_utf8(std::mem::take(&mut field)).unwrap()),
                (false, b'\n') => {
                    row.push(String::from_utf8(std::mem::take(&mut field)).unwrap());
                    out.push(std::mem::take(&mut row));
                }
                _ => field.push(b),
            }
            i += 1;
        }
        assert!(row.is_empty() && field.is_empty(), "the last record ends with a newline");
        out
    }

    #[test]
    fn every_record_has_15_fields_in_order_and_the_summary_is_right() {
        let mut out = Vec::new();
        let sum = write(&mut out, 5000, 3).unwrap();
        assert_eq!(sum.bytes, out.len() as u64);
        assert_eq!(sum.newlines, out.iter().filter(|&&b| b == b'\n').count() as u64);
        let rows = records(&out);
        assert_eq!(rows.len() as u64, sum.records + 1);
        assert_eq!(rows[0].len(), 15);
        assert!(sum.newlines > sum.records + 1, "some messages hold a newline");
        let mut last_ts = String::new();
        for (i, row) in rows[1..].iter().enumerate() {
            assert_eq!(row.len(), 15, "record {}", i + 1);
            let id = u64::from_str_radix(&row[12], 16).unwrap();
            assert_eq!(id, (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
            assert!(row[0] >= last_ts, "timestamps rise");
            last_ts.clone_from(&row[0]);
        }
        let mut again = Vec::new();
        write(&mut again, 5000, 3).unwrap();
        assert_eq!(out, again);
    }
}

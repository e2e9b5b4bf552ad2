//! The loopback HTTP servers, driven by hand-written requests over plain
//! `TcpStream`s, so what is checked is the bytes on the wire.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use swath_testkit::{FaultProxy, Faults, RangeServer};

/// A parsed response, read to the end of the connection.
#[derive(Debug)]
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    fn content_length(&self) -> usize {
        self.header("content-length").expect("Content-Length").parse().expect("a number")
    }
}

/// Send `raw` as is and read everything until the server closes.
fn exchange(addr: SocketAddr, raw: &[u8]) -> Vec<u8> {
    let mut conn = TcpStream::connect(addr).expect("connect");
    // A broken server fails the test instead of hanging it.
    conn.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    conn.write_all(raw).expect("send");
    let mut out = Vec::new();
    conn.read_to_end(&mut out).expect("read to EOF");
    out
}

fn parse(raw: &[u8]) -> Reply {
    let end = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a whole head");
    let head = std::str::from_utf8(&raw[..end]).expect("an ASCII head");
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap();
    assert!(status_line.starts_with("HTTP/1.1 "), "{status_line}");
    let status = status_line[9..12].parse().unwrap();
    let headers = lines
        .map(|line| {
            let (name, value) = line.split_once(':').expect("name: value");
            (name.to_owned(), value.trim().to_owned())
        })
        .collect();
    Reply { status, headers, body: raw[end + 4..].to_vec() }
}

/// `method path` with a Host header and `extra` header lines.
fn request(addr: SocketAddr, method: &str, path: &str, extra: &[&str]) -> Reply {
    let mut raw = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\n");
    for line in extra {
        raw.push_str(line);
        raw.push_str("\r\n");
    }
    raw.push_str("\r\n");
    parse(&exchange(addr, raw.as_bytes()))
}

fn get_range(addr: SocketAddr, path: &str, range: &str) -> Reply {
    request(addr, "GET", path, &[&format!("Range: {range}")])
}

/// 0, 1, …, 255, 0, 1, … so every offset's byte is known.
fn object(len: usize) -> Vec<u8> {
    (0..len).map(|i| i as u8).collect()
}

fn server_with(name: &str, bytes: Vec<u8>) -> RangeServer {
    let server = RangeServer::start();
    server.put(name, bytes);
    server
}

// --- RangeServer -------------------------------------------------------------

#[test]
fn head_reports_length_and_validators_without_a_body() {
    let server = server_with("dir/a.csv", object(1000));
    let reply = request(server.addr(), "HEAD", "/dir/a.csv", &[]);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.content_length(), 1000);
    assert_eq!(reply.header("accept-ranges"), Some("bytes"));
    assert_eq!(reply.header("connection"), Some("close"));
    let etag = reply.header("etag").unwrap();
    assert!(etag.starts_with("\"v") && etag.ends_with("-1000\""), "{etag}");
    // IMF-fixdate: "Wed, 02 Dec 2026 17:57:36 GMT".
    let date = reply.header("last-modified").unwrap();
    assert_eq!(date.len(), 29, "{date}");
    assert!(date.ends_with(" GMT") && date.as_bytes()[3] == b',', "{date}");
    assert!(reply.body.is_empty());
    assert_eq!(server.url("dir/a.csv"), format!("http://{}/dir/a.csv", server.addr()));
}

#[test]
fn get_without_range_returns_the_whole_object() {
    let server = server_with("a", object(700));
    let reply = request(server.addr(), "GET", "/a?versionId=ignored", &[]);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.content_length(), 700);
    assert_eq!(reply.body, object(700));
    assert!(reply.header("content-range").is_none());
}

#[test]
fn ranged_get_returns_exactly_the_bytes() {
    let data = object(1000);
    let server = server_with("a", data.clone());
    let reply = get_range(server.addr(), "/a", "bytes=300-599");
    assert_eq!(reply.status, 206);
    assert_eq!(reply.header("content-range"), Some("bytes 300-599/1000"));
    assert_eq!(reply.content_length(), 300);
    assert_eq!(reply.body, &data[300..600]);
    assert!(reply.header("etag").is_some());

    // The end is clamped to the last byte.
    let reply = get_range(server.addr(), "/a", "bytes=990-5000");
    assert_eq!(reply.status, 206);
    assert_eq!(reply.header("content-range"), Some("bytes 990-999/1000"));
    assert_eq!(reply.body, &data[990..]);
}

#[test]
fn suffix_and_open_ranges() {
    let data = object(1000);
    let server = server_with("a", data.clone());
    let suffix = get_range(server.addr(), "/a", "bytes=-10");
    assert_eq!((suffix.status, suffix.header("content-range")), (206, Some("bytes 990-999/1000")));
    assert_eq!(suffix.body, &data[990..]);

    let open = get_range(server.addr(), "/a", "bytes=400-");
    assert_eq!((open.status, open.header("content-range")), (206, Some("bytes 400-999/1000")));
    assert_eq!(open.body, &data[400..]);

    // A suffix longer than the object is all of it.
    let all = get_range(server.addr(), "/a", "bytes=-5000");
    assert_eq!((all.status, all.header("content-range")), (206, Some("bytes 0-999/1000")));
    assert_eq!(all.body, data);
}

#[test]
fn ranges_past_the_end_are_unsatisfiable() {
    let server = server_with("a", object(1000));
    server.put("empty", Vec::new());
    for (path, range, len) in
        [("/a", "bytes=1000-", 1000), ("/a", "bytes=2000-2100", 1000), ("/empty", "bytes=0-", 0)]
    {
        let reply = get_range(server.addr(), path, range);
        assert_eq!(reply.status, 416, "{path} {range}");
        assert_eq!(reply.header("content-range"), Some(format!("bytes */{len}").as_str()));
        assert_eq!(reply.content_length(), 0);
        assert!(reply.body.is_empty());
    }
}

#[test]
fn a_malformed_range_is_ignored() {
    let server = server_with("a", object(100));
    let reply = get_range(server.addr(), "/a", "bytes=50-10");
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body, object(100));
}

#[test]
fn unknown_objects_are_404() {
    let server = server_with("a", object(10));
    for method in ["GET", "HEAD"] {
        let reply = request(server.addr(), method, "/b", &[]);
        assert_eq!(reply.status, 404, "{method}");
        assert_eq!(reply.content_length(), 0);
    }
}

#[test]
fn if_match_pins_the_version() {
    let data = object(100);
    let server = server_with("a", data.clone());
    let etag = request(server.addr(), "HEAD", "/a", &[]).header("etag").unwrap().to_owned();

    let stale =
        request(server.addr(), "GET", "/a", &["If-Match: \"v999-100\"", "Range: bytes=0-9"]);
    assert_eq!(stale.status, 412);
    assert!(stale.body.is_empty());

    let pinned =
        request(server.addr(), "GET", "/a", &[&format!("If-Match: {etag}"), "Range: bytes=0-9"]);
    assert_eq!(pinned.status, 206);
    assert_eq!(pinned.body, &data[..10]);

    let any = request(server.addr(), "GET", "/a", &["If-Match: *", "Range: bytes=0-9"]);
    assert_eq!(any.status, 206);

    // The precondition is checked before the range: a stale unsatisfiable
    // range is 412, not 416.
    let both = request(server.addr(), "GET", "/a", &["If-Match: \"x\"", "Range: bytes=500-"]);
    assert_eq!(both.status, 412);
}

#[test]
fn put_replaces_the_object_and_changes_the_etag() {
    let server = server_with("a", b"first".to_vec());
    let before = request(server.addr(), "HEAD", "/a", &[]).header("etag").unwrap().to_owned();
    server.put("a", b"second version".to_vec());
    let after = request(server.addr(), "GET", "/a", &[]);
    assert_eq!(after.body, b"second version");
    assert_ne!(after.header("etag").unwrap(), before);

    // Same length, new version: the ETag still changes.
    server.put("a", b"second VERSION".to_vec());
    let again = request(server.addr(), "HEAD", "/a", &[]);
    assert_ne!(again.header("etag"), after.header("etag"));

    let old = request(server.addr(), "GET", "/a", &[&format!("If-Match: {before}")]);
    assert_eq!(old.status, 412);
}

#[test]
fn other_methods_are_405_with_their_body_read() {
    let server = server_with("a", object(10));
    // A body bigger than one read, so the server must drain it before
    // closing (closing over unread bytes would reset the answer away).
    let body = vec![b'x'; 100_000];
    let mut raw = format!("PUT /a HTTP/1.1\r\nHost: h\r\nContent-Length: {}\r\n\r\n", body.len())
        .into_bytes();
    raw.extend_from_slice(&body);
    let reply = parse(&exchange(server.addr(), &raw));
    assert_eq!(reply.status, 405);
    assert_eq!(reply.header("allow"), Some("GET, HEAD"));
    assert_eq!(request(server.addr(), "DELETE", "/a", &[]).status, 405);
}

#[test]
fn malformed_requests_are_400() {
    let server = server_with("a", object(10));
    for raw in [
        &b"nonsense\r\n\r\n"[..],
        b"GET /a HTTP/1.1\r\nno colon here\r\n\r\n",
        b"GET /a HTTP/1.1\r\nContent-Length: ten\r\n\r\n",
        b"POST /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        b"GET /\xff HTTP/1.1\r\n\r\n",
    ] {
        let reply = parse(&exchange(server.addr(), raw));
        assert_eq!(reply.status, 400, "{}", String::from_utf8_lossy(raw));
    }
    // A head past 64 KiB: 431 (Request Header Fields Too Large), hyper's
    // answer, where the hand-written server said 400.
    let huge = format!("GET /a HTTP/1.1\r\nX-Big: {}\r\n\r\n", "y".repeat(70_000));
    assert_eq!(parse(&exchange(server.addr(), huge.as_bytes())).status, 431);
    // Still serving.
    assert_eq!(request(server.addr(), "GET", "/a", &[]).status, 200);
}

#[test]
fn names_are_paths_without_query_or_authority() {
    let server = server_with("a/b.csv", object(10));
    assert_eq!(request(server.addr(), "GET", "/a/b.csv?x=1", &[]).body, object(10));
    let absolute = format!("http://{}/a/b.csv", server.addr());
    assert_eq!(request(server.addr(), "GET", &absolute, &[]).body, object(10));
    assert_eq!(request(server.addr(), "GET", "/a%2Fb.csv", &[]).status, 404);
}

#[test]
fn requests_counts_every_answer() {
    let server = server_with("a", object(10));
    assert_eq!(server.requests(), 0);
    request(server.addr(), "HEAD", "/a", &[]);
    request(server.addr(), "GET", "/missing", &[]);
    request(server.addr(), "POST", "/a", &[]);
    assert_eq!(server.requests(), 3);
}

#[test]
fn concurrent_clients_are_served() {
    let data = object(50_000);
    let server = server_with("a", data.clone());
    thread::scope(|s| {
        for i in 0..8 {
            let (server, data) = (&server, &data);
            s.spawn(move || {
                let start = i * 5000;
                let reply =
                    get_range(server.addr(), "/a", &format!("bytes={start}-{}", start + 4999));
                assert_eq!(reply.body, &data[start..start + 5000]);
            });
        }
    });
    assert_eq!(server.requests(), 8);
}

// --- FaultProxy --------------------------------------------------------------

fn proxied(len: usize) -> (RangeServer, FaultProxy) {
    let server = server_with("a", object(len));
    let proxy = FaultProxy::start(server.addr());
    (server, proxy)
}

#[test]
fn the_proxy_forwards_a_ranged_get_unchanged() {
    let (server, proxy) = proxied(1000);
    let direct = get_range(server.addr(), "/a", "bytes=100-199");
    let relayed = get_range(proxy.addr(), "/a", "bytes=100-199");
    assert_eq!(relayed.status, 206);
    assert_eq!(relayed.headers, direct.headers);
    assert_eq!(relayed.body, direct.body);
    assert_eq!(proxy.requests(), 1);
    assert_eq!(server.requests(), 2);
    assert_eq!(proxy.base_url(), format!("http://{}", proxy.addr()));
}

#[test]
fn the_proxy_sends_the_request_on_byte_for_byte_but_for_connection() {
    // A hand-made upstream that records the request and answers chunked.
    let upstream = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let upstream_addr = upstream.local_addr().unwrap();
    let answer: &[u8] =
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
    let recorder = thread::spawn(move || {
        let (mut conn, _) = upstream.accept().unwrap();
        conn.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut seen = Vec::new();
        let mut chunk = [0u8; 1024];
        // The head, then the 4-byte body.
        while !seen.ends_with(b"\r\n\r\nbody") {
            let n = conn.read(&mut chunk).unwrap();
            assert!(n > 0, "the proxy closed early: {}", String::from_utf8_lossy(&seen));
            seen.extend_from_slice(&chunk[..n]);
        }
        conn.write_all(answer).unwrap();
        seen
    });
    let proxy = FaultProxy::start(upstream_addr);
    let sent = b"PUT /bucket/key?x-id=PutObject HTTP/1.1\r\nhost: 127.0.0.1:9\r\n\
        x-AMZ-date:20260101T000000Z\r\nConnection: keep-alive\r\n\
        authorization: AWS4-HMAC-SHA256 Credential=k/s, Signature=abc  \r\n\
        Content-Length: 4\r\n\r\nbody";
    let reply = exchange(proxy.addr(), sent);
    let seen = recorder.join().unwrap();
    let expected = b"PUT /bucket/key?x-id=PutObject HTTP/1.1\r\nhost: 127.0.0.1:9\r\n\
        x-AMZ-date:20260101T000000Z\r\nConnection: close\r\n\
        authorization: AWS4-HMAC-SHA256 Credential=k/s, Signature=abc  \r\n\
        Content-Length: 4\r\n\r\nbody";
    assert_eq!(String::from_utf8_lossy(&seen), String::from_utf8_lossy(expected));
    // The chunked response is relayed raw.
    assert_eq!(reply, answer);
}

#[test]
fn the_proxy_adds_connection_close_when_there_is_none() {
    let upstream = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let proxy = FaultProxy::start(upstream.local_addr().unwrap());
    let recorder = thread::spawn(move || {
        let (mut conn, _) = upstream.accept().unwrap();
        conn.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut seen = Vec::new();
        let mut chunk = [0u8; 1024];
        while !seen.ends_with(b"\r\n\r\n") {
            let n = conn.read(&mut chunk).unwrap();
            assert!(n > 0);
            seen.extend_from_slice(&chunk[..n]);
        }
        conn.write_all(b"HTTP/1.1 204 No Content\r\n\r\n").unwrap();
        seen
    });
    let reply = parse(&exchange(proxy.addr(), b"GET /k HTTP/1.1\r\nHost: h\r\n\r\n"));
    assert_eq!(reply.status, 204);
    assert_eq!(
        recorder.join().unwrap(),
        b"GET /k HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
    );
}

#[test]
fn fail_first_answers_without_the_upstream_then_recovers() {
    let (server, proxy) = proxied(1000);
    proxy.set(Faults { fail_first: 2, fail_status: 503, ..Faults::default() });
    for _ in 0..2 {
        let reply = get_range(proxy.addr(), "/a", "bytes=0-9");
        assert_eq!(reply.status, 503);
        assert_eq!(reply.content_length(), 0);
        assert!(reply.body.is_empty());
    }
    assert_eq!(server.requests(), 0);
    let reply = get_range(proxy.addr(), "/a", "bytes=0-9");
    assert_eq!(reply.status, 206);
    assert_eq!(reply.body, &object(1000)[..10]);
    assert_eq!((proxy.requests(), server.requests()), (3, 1));
}

#[test]
fn fail_status_zero_means_500_and_set_restarts_the_counts() {
    let (_server, proxy) = proxied(10);
    proxy.set(Faults { fail_first: 1, ..Faults::default() });
    assert_eq!(get_range(proxy.addr(), "/a", "bytes=0-1").status, 500);
    assert_eq!(get_range(proxy.addr(), "/a", "bytes=0-1").status, 206);
    proxy.set(Faults { fail_first: 1, fail_status: 429, ..Faults::default() });
    assert_eq!(get_range(proxy.addr(), "/a", "bytes=0-1").status, 429);
    assert_eq!(get_range(proxy.addr(), "/a", "bytes=0-1").status, 206);
    proxy.set(Faults::default());
    assert_eq!(get_range(proxy.addr(), "/a", "bytes=0-1").status, 206);
    assert_eq!(proxy.requests(), 5);
}

#[test]
fn a_cut_response_promises_the_whole_body_and_ends_early() {
    let data = object(5000);
    let (_server, proxy) = proxied(5000);
    proxy.set(Faults { cut_after: 10, cut_times: 1, ..Faults::default() });
    let cut = get_range(proxy.addr(), "/a", "bytes=1000-3999");
    assert_eq!(cut.status, 206);
    assert_eq!(cut.content_length(), 3000);
    assert_eq!(cut.header("content-range"), Some("bytes 1000-3999/5000"));
    assert_eq!(cut.body, &data[1000..1010]);
    // Only `cut_times` responses are cut.
    let whole = get_range(proxy.addr(), "/a", "bytes=1000-3999");
    assert_eq!(whole.body, &data[1000..4000]);
}

#[test]
fn cuts_skip_responses_without_a_body() {
    let (_server, proxy) = proxied(100);
    proxy.set(Faults { cut_after: 0, cut_times: 1, ..Faults::default() });
    // HEAD and 416 have no body: untouched, and the cut is still to come.
    let head = request(proxy.addr(), "HEAD", "/a", &[]);
    assert_eq!((head.status, head.content_length()), (200, 100));
    assert_eq!(get_range(proxy.addr(), "/a", "bytes=100-").status, 416);
    let cut = get_range(proxy.addr(), "/a", "bytes=0-49");
    assert_eq!((cut.content_length(), cut.body.len()), (50, 0));
    assert_eq!(get_range(proxy.addr(), "/a", "bytes=0-49").body.len(), 50);
}

#[test]
fn delay_holds_the_next_requests() {
    let (_server, proxy) = proxied(100);
    let delay = Duration::from_millis(400);
    proxy.set(Faults { delay, delay_times: 1, ..Faults::default() });
    let start = Instant::now();
    assert_eq!(get_range(proxy.addr(), "/a", "bytes=0-9").status, 206);
    assert!(start.elapsed() >= delay, "{:?}", start.elapsed());
    let start = Instant::now();
    assert_eq!(get_range(proxy.addr(), "/a", "bytes=0-9").status, 206);
    assert!(start.elapsed() < delay, "the second request was delayed too");
}

#[test]
fn ranged_only_leaves_head_and_whole_gets_alone() {
    let (server, proxy) = proxied(100);
    proxy.set(Faults {
        fail_first: 1,
        fail_status: 503,
        ranged_only: true,
        on_request: Some((1, Arc::new(|| {}))),
        ..Faults::default()
    });
    assert_eq!(request(proxy.addr(), "HEAD", "/a", &[]).status, 200);
    assert_eq!(request(proxy.addr(), "GET", "/a", &[]).status, 200);
    assert_eq!(get_range(proxy.addr(), "/a", "bytes=0-9").status, 503);
    assert_eq!(get_range(proxy.addr(), "/a", "bytes=0-9").status, 206);
    assert_eq!((proxy.requests(), server.requests()), (4, 3));
}

#[test]
fn the_hook_runs_as_request_n_arrives() {
    let server = Arc::new(server_with("a", object(100)));
    let proxy = FaultProxy::start(server.addr());
    let etag = request(proxy.addr(), "HEAD", "/a", &[]).header("etag").unwrap().to_owned();
    let calls = Arc::new(AtomicUsize::new(0));
    let (upstream, counted) = (Arc::clone(&server), Arc::clone(&calls));
    proxy.set(Faults {
        ranged_only: true,
        on_request: Some((
            2,
            Arc::new(move || {
                counted.fetch_add(1, Ordering::SeqCst);
                upstream.put("a", b"replaced".to_vec());
            }),
        )),
        ..Faults::default()
    });
    let pinned = [format!("If-Match: {etag}"), "Range: bytes=0-9".to_owned()];
    let pinned: Vec<&str> = pinned.iter().map(String::as_str).collect();
    // The HEAD is not eligible; the first ranged GET still sees version 1.
    assert_eq!(request(proxy.addr(), "HEAD", "/a", &[]).status, 200);
    assert_eq!(request(proxy.addr(), "GET", "/a", &pinned).status, 206);
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    // The second is replaced under it, before it is forwarded.
    assert_eq!(request(proxy.addr(), "GET", "/a", &pinned).status, 412);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(request(proxy.addr(), "GET", "/a", &pinned).status, 412);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(get_range(proxy.addr(), "/a", "bytes=0-7").body, b"replaced");
}

#[test]
fn the_proxy_answers_malformed_requests_itself() {
    let (server, proxy) = proxied(10);
    let huge = format!("GET /a HTTP/1.1\r\nX-Big: {}\r\n\r\n", "y".repeat(70_000));
    for raw in [&b"nonsense\r\n\r\n"[..], huge.as_bytes()] {
        assert_eq!(parse(&exchange(proxy.addr(), raw)).status, 400);
    }
    assert_eq!((proxy.requests(), server.requests()), (2, 0));
}

#[test]
fn an_unreachable_upstream_is_502() {
    // A port that was free a moment ago and has nobody listening.
    let gone = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap().local_addr().unwrap();
    let proxy = FaultProxy::start(gone);
    assert_eq!(request(proxy.addr(), "GET", "/a", &[]).status, 502);
}

#[test]
fn dropping_returns_promptly_even_with_idle_and_delayed_clients() {
    let (server, proxy) = proxied(100);
    proxy.set(Faults { delay: Duration::from_secs(60), delay_times: 1, ..Faults::default() });
    // Clients that never finish a request, on both servers.
    let idle_server = TcpStream::connect(server.addr()).unwrap();
    let mut idle_proxy = TcpStream::connect(proxy.addr()).unwrap();
    idle_proxy.write_all(b"GET /a HTTP/1.1\r\nHost: h\r\n").unwrap();
    // And one held by the proxy's 60-second delay.
    let delayed = thread::spawn({
        let addr = proxy.addr();
        move || exchange(addr, b"GET /a HTTP/1.1\r\nHost: h\r\n\r\n")
    });
    while proxy.requests() < 1 {
        thread::sleep(Duration::from_millis(5));
    }
    let start = Instant::now();
    drop(proxy);
    drop(server);
    assert!(start.elapsed() < Duration::from_secs(3), "drop took {:?}", start.elapsed());
    // The delayed client is let go (closed without an answer).
    assert!(delayed.join().unwrap().is_empty());
    drop((idle_server, idle_proxy));
}

//! Loopback HTTP/1.1 servers for the remote-input tests, in std alone:
//!
//! - [`RangeServer`]: named objects served with `Range`, `ETag` and
//!   `If-Match`, the subset of HTTP a ranged object reader relies on.
//! - [`FaultProxy`]: sits in front of any upstream (a [`RangeServer`], or an
//!   S3-compatible server) and fails, delays or cuts chosen responses, so the
//!   retry and ETag-pinning paths run on purpose rather than by luck.
//!
//! Both listen on 127.0.0.1 only, answer one request per connection
//! (`Connection: close`), and run a thread per connection. Every wait is
//! bounded: a socket read gives up after [`CLIENT_TIMEOUT`] (or
//! [`UPSTREAM_TIMEOUT`] for the proxy's upstream), and every thread also
//! polls the server's stop flag, so dropping a server returns within a
//! fraction of a second even with idle clients connected, and a test never
//! hangs on it.
//!
//! Request heads must be valid UTF-8 (clients send ASCII), request bodies
//! are delimited by `Content-Length` (a chunked request body gets a 400), and
//! object names are matched as sent, without percent-decoding.

use std::collections::HashMap;
use std::fmt;
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long a client has to send its whole request, and a peer to take a
/// write, before the connection is dropped.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long the proxy waits for its upstream's whole response (an S3
/// emulator's first answer can be slow).
pub const UPSTREAM_TIMEOUT: Duration = Duration::from_secs(30);

/// The socket read timeout: how often a blocked read looks at the stop flag.
const POLL: Duration = Duration::from_millis(50);

/// The largest request head accepted, blank line included.
const MAX_HEAD: usize = 64 * 1024;

/// The largest request body the proxy buffers to forward.
const MAX_BODY: u64 = 256 * 1024 * 1024;

// ---------------------------------------------------------------------------
// RangeServer

/// An HTTP file server on 127.0.0.1 with byte ranges, strong ETags and
/// `If-Match`, holding its objects in memory. Stopped (its threads joined)
/// on drop.
///
/// - `HEAD`: 200 with `Content-Length`, `ETag`, `Last-Modified` and
///   `Accept-Ranges: bytes`.
/// - `GET`: 200 with the whole object; with `Range: bytes=a-b`, `bytes=a-`
///   or `bytes=-n`, 206 and `Content-Range`; 416 when the range starts at or
///   past the end. A `Range` that is not one well-formed byte range is
///   ignored (200), as RFC 9110 allows.
/// - 404 for an unknown object; 412 when `If-Match` names neither the
///   current ETag nor `*` (checked before the range); 405 for other methods;
///   400 for a malformed request.
///
/// ```
/// use std::io::{Read, Write};
/// let server = swath_testkit::RangeServer::start();
/// server.put("a.csv", b"x,y\n1,2\n".to_vec());
/// let mut c = std::net::TcpStream::connect(server.addr()).unwrap();
/// c.write_all(b"GET /a.csv HTTP/1.1\r\nHost: t\r\nRange: bytes=4-6\r\n\r\n").unwrap();
/// let mut reply = String::new();
/// c.read_to_string(&mut reply).unwrap();
/// assert!(reply.starts_with("HTTP/1.1 206 "));
/// assert!(reply.ends_with("\r\n\r\n1,2"));
/// ```
///
/// # Panics
///
/// On drop, when one of its connection threads panicked (so a bug shows up
/// in the test that met it), unless the dropping thread is already
/// panicking.
pub struct RangeServer {
    store: Arc<Store>,
    acceptor: Acceptor,
}

/// The objects and counters a [`RangeServer`]'s threads share.
struct Store {
    objects: Mutex<HashMap<String, Object>>,
    /// Versions handed out so far; the next put's ETag carries the next one.
    versions: AtomicU64,
    requests: AtomicUsize,
    /// Object bytes put in response bodies (what a reader downloaded).
    body_bytes: AtomicU64,
}

/// One version of an object: cloned out of the map, so a slow client never
/// holds the lock.
#[derive(Clone)]
struct Object {
    bytes: Arc<Vec<u8>>,
    etag: String,
    last_modified: String,
}

impl RangeServer {
    /// Bind 127.0.0.1 on a free port and start serving (no objects yet).
    ///
    /// # Panics
    ///
    /// When the socket cannot be bound or the accept thread not spawned.
    pub fn start() -> RangeServer {
        let store = Arc::new(Store {
            objects: Mutex::new(HashMap::new()),
            versions: AtomicU64::new(0),
            requests: AtomicUsize::new(0),
            body_bytes: AtomicU64::new(0),
        });
        let shared = Arc::clone(&store);
        let acceptor = Acceptor::start("swath-range-server", move |stream, stop| {
            shared.serve(&stream, stop);
        });
        RangeServer { store, acceptor }
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.acceptor.addr
    }

    /// The URL of object `name` (a name without a leading `/`).
    pub fn url(&self, name: &str) -> String {
        format!("http://{}/{name}", self.addr())
    }

    /// Insert or replace object `name`. Every put makes a new version with an
    /// ETag no earlier version had, so a reader pinned to the old ETag sees
    /// 412 from then on.
    pub fn put(&self, name: &str, bytes: Vec<u8>) {
        let version = self.store.versions.fetch_add(1, Ordering::Relaxed) + 1;
        let object = Object {
            etag: format!("\"v{version}-{}\"", bytes.len()),
            bytes: Arc::new(bytes),
            last_modified: http_date(SystemTime::now()),
        };
        lock(&self.store.objects).insert(name.to_owned(), object);
    }

    /// Requests answered so far, whatever their method or status.
    pub fn requests(&self) -> usize {
        self.store.requests.load(Ordering::SeqCst)
    }

    /// Object bytes sent in response bodies so far (a whole object's, or a
    /// range's): how much a reader downloaded.
    pub fn body_bytes(&self) -> u64 {
        self.store.body_bytes.load(Ordering::SeqCst)
    }
}

impl fmt::Debug for RangeServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RangeServer").field("addr", &self.addr()).finish_non_exhaustive()
    }
}

impl Store {
    /// Answer the one request on `stream`.
    fn serve(&self, stream: &TcpStream, stop: &AtomicBool) {
        let mut reader = match Patient::accepted(stream, stop) {
            Ok(reader) => reader,
            Err(_) => return,
        };
        let response = match read_head(&mut reader) {
            Incoming::Gone => return,
            Incoming::Bad => Response::new(400),
            Incoming::Head { head, rest } => match Head::parse(&head) {
                None => Response::new(400),
                Some(head) => match head.body_length() {
                    None => Response::new(400),
                    Some(length) => {
                        // The body is read even though no method here uses
                        // one: closing with unread bytes would reset the
                        // connection and could lose the answer.
                        let unread = length.saturating_sub(rest.len() as u64);
                        match io::copy(&mut (&mut reader).take(unread), &mut io::sink()) {
                            Ok(n) if n == unread => self.answer(&head),
                            _ => return,
                        }
                    }
                },
            },
        };
        // Counted before the write, so a client holding the answer already
        // sees it in `requests`.
        self.requests.fetch_add(1, Ordering::SeqCst);
        let _ = response.write_to(stream);
        if response.status == 400 {
            drain(stream, stop);
        }
    }

    fn answer(&self, head: &Head<'_>) -> Response {
        let head_only = match head.method {
            "HEAD" => true,
            "GET" => false,
            _ => return Response::new(405).header("Allow", "GET, HEAD"),
        };
        let Some(object) = lock(&self.objects).get(object_name(head.target)).cloned() else {
            return Response::new(404);
        };
        if let Some(wanted) = head.header("if-match") {
            if !wanted.split(',').map(str::trim).any(|tag| tag == "*" || tag == object.etag) {
                return Response::new(412).header("ETag", object.etag);
            }
        }
        let len = object.bytes.len() as u64;
        let ok = |status| {
            Response::new(status)
                .header("ETag", object.etag.clone())
                .header("Last-Modified", object.last_modified.clone())
                .header("Accept-Ranges", "bytes")
        };
        if head_only {
            return ok(200).length_only(object.bytes.len());
        }
        let sent = |n: u64| self.body_bytes.fetch_add(n, Ordering::SeqCst);
        match head.header("range").map(|range| parse_range(range, len)) {
            None | Some(Ranged::Ignored) => {
                sent(len);
                ok(200).body(object.bytes.to_vec())
            }
            Some(Ranged::Unsatisfiable) => {
                Response::new(416).header("Content-Range", format!("bytes */{len}"))
            }
            Some(Ranged::Bytes(first, last)) => {
                // Both ends are below `len`, which is a `usize`.
                let body = object.bytes[first as usize..=last as usize].to_vec();
                sent(body.len() as u64);
                ok(206).header("Content-Range", format!("bytes {first}-{last}/{len}")).body(body)
            }
        }
    }
}

/// The object name a request target names: its path without the leading
/// `/` and the query, also from an absolute-form target (`http://host/x`).
fn object_name(target: &str) -> &str {
    let path = match target.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("", |slash| &rest[slash..]),
        None => target,
    };
    let path = path.split('?').next().unwrap_or(path);
    path.strip_prefix('/').unwrap_or(path)
}

/// What a `Range` header asks of an object.
#[derive(Debug, PartialEq, Eq)]
enum Ranged {
    /// Not one well-formed byte range: answered with the whole object.
    Ignored,
    /// Starts at or past the end (or a suffix of 0 bytes): 416.
    Unsatisfiable,
    /// Bytes `first..=last`, both inside the object.
    Bytes(u64, u64),
}

fn parse_range(value: &str, len: u64) -> Ranged {
    let Some((unit, spec)) = value.trim().split_once('=') else { return Ranged::Ignored };
    if !unit.trim().eq_ignore_ascii_case("bytes") || spec.contains(',') {
        return Ranged::Ignored;
    }
    let Some((first, last)) = spec.split_once('-') else { return Ranged::Ignored };
    let (first, last) = (first.trim(), last.trim());
    if first.is_empty() {
        return match digits(last) {
            None => Ranged::Ignored,
            Some(0) => Ranged::Unsatisfiable,
            Some(_) if len == 0 => Ranged::Unsatisfiable,
            Some(n) => Ranged::Bytes(len.saturating_sub(n), len - 1),
        };
    }
    let Some(first) = digits(first) else { return Ranged::Ignored };
    let last = if last.is_empty() {
        None
    } else {
        match digits(last) {
            Some(last) if last >= first => Some(last),
            _ => return Ranged::Ignored,
        }
    };
    if first >= len {
        return Ranged::Unsatisfiable;
    }
    Ranged::Bytes(first, last.map_or(len - 1, |last| last.min(len - 1)))
}

/// A decimal number of ASCII digits only (`u64::from_str` also takes `+`).
fn digits(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `time` as an HTTP-date (RFC 7231's IMF-fixdate), such as
/// `Wed, 02 Dec 2026 17:57:36 GMT`; times before 1970 give the epoch.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// let t = UNIX_EPOCH + Duration::from_secs(1_796_234_256);
/// assert_eq!(swath_testkit::http::http_date(t), "Wed, 02 Dec 2026 17:57:36 GMT");
/// ```
pub fn http_date(time: SystemTime) -> String {
    const WEEKDAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] =
        ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's days-to-civil, on years that start on 1 March so the
    // leap day comes last; 719_468 days lead from 0000-03-01 to 1970-01-01.
    let z = days + 719_468;
    let (era, doe) = (z / 146_097, z % 146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = era * 400 + yoe + u64::from(month <= 2);
    format!(
        "{}, {day:02} {} {year:04} {:02}:{:02}:{:02} GMT",
        WEEKDAYS[(days % 7) as usize],
        MONTHS[(month - 1) as usize],
        rest / 3_600,
        rest / 60 % 60,
        rest % 60
    )
}

// ---------------------------------------------------------------------------
// FaultProxy

/// Called by [`FaultProxy`] when a chosen request arrives; see
/// [`Faults::on_request`].
pub type Hook = Arc<dyn Fn() + Send + Sync>;

/// What a [`FaultProxy`] does to the requests after [`FaultProxy::set`].
///
/// Counted over *eligible* requests only: every request, or with
/// [`ranged_only`](Faults::ranged_only) only `GET`s with a `Range`. For each
/// eligible request, in this order: the hook, the delay, the failure, and,
/// when it is forwarded, the cut. The default is a plan that changes
/// nothing.
///
/// ```
/// use swath_testkit::Faults;
/// // Two 503s, then normal service; a HEAD never counts.
/// let faults = Faults { fail_first: 2, fail_status: 503, ranged_only: true, ..Faults::default() };
/// # let _ = faults;
/// ```
#[derive(Clone, Default)]
pub struct Faults {
    /// Answer the first `fail_first` eligible requests with `fail_status` and
    /// an empty body, without contacting the upstream.
    pub fail_first: usize,
    /// The status of those answers, such as 500 or 503; 0 means 500.
    pub fail_status: u16,
    /// For the next `cut_times` forwarded responses that have a non-empty
    /// body: send the upstream's status line and headers unchanged (so
    /// `Content-Length` still promises the whole body), then only the first
    /// `cut_after` body bytes, then close the connection (a FIN: the client
    /// meets the end of the stream mid-body). With a chunked response the
    /// bytes counted are the raw ones, chunk sizes included.
    pub cut_after: u64,
    /// How many responses to cut; see [`cut_after`](Faults::cut_after).
    pub cut_times: usize,
    /// Sleep `delay` before answering each of the next `delay_times`
    /// eligible requests (cut short only when the proxy is dropped).
    pub delay: Duration,
    /// How many requests to delay; see [`delay`](Faults::delay).
    pub delay_times: usize,
    /// Only count and fault `GET` requests that carry a `Range` header, so a
    /// reader's first `HEAD` (or a whole-object `GET`) passes untouched.
    /// When false, every request is eligible.
    pub ranged_only: bool,
    /// Call the hook when eligible request number `n` (1-based, counted from
    /// [`FaultProxy::set`]) arrives, before it is delayed, failed or
    /// forwarded; say, to replace the object upstream under a reader.
    pub on_request: Option<(usize, Hook)>,
}

impl fmt::Debug for Faults {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Faults")
            .field("fail_first", &self.fail_first)
            .field("fail_status", &self.fail_status)
            .field("cut_after", &self.cut_after)
            .field("cut_times", &self.cut_times)
            .field("delay", &self.delay)
            .field("delay_times", &self.delay_times)
            .field("ranged_only", &self.ranged_only)
            .field("on_request", &self.on_request.as_ref().map(|(n, _)| (n, "Fn()")))
            .finish()
    }
}

/// An HTTP proxy on 127.0.0.1 in front of one upstream, injecting the
/// [`Faults`] last [`set`](FaultProxy::set). Stopped (its threads joined) on
/// drop.
///
/// Clients talk to it as if it were the upstream (use
/// [`base_url`](FaultProxy::base_url) as the endpoint). A request goes on
/// byte for byte, `Host` and every signed header included, except that its
/// `Connection` header becomes `Connection: close`; the upstream's response
/// is read to its end and relayed as raw bytes (chunked or not), with the
/// plan's faults applied. An upstream that cannot be reached gives 502, one
/// that does not answer within [`UPSTREAM_TIMEOUT`] 504.
///
/// # Panics
///
/// On drop, when one of its connection threads panicked (a hook's assertion
/// failing, say), unless the dropping thread is already panicking.
pub struct FaultProxy {
    state: Arc<ProxyState>,
    acceptor: Acceptor,
}

/// What a [`FaultProxy`]'s threads share.
struct ProxyState {
    upstream: SocketAddr,
    requests: AtomicUsize,
    plan: Mutex<Plan>,
}

/// A [`Faults`] plan and how much of it has run.
struct Plan {
    faults: Faults,
    /// Which `set` made it, so a request admitted under an earlier plan
    /// never uses up this one's cuts.
    epoch: u64,
    eligible: usize,
    failed: usize,
    delayed: usize,
    cut: usize,
}

/// What the plan does to one request, decided as it arrives.
#[derive(Default)]
struct Fate {
    hook: Option<Hook>,
    delay: Option<Duration>,
    fail: Option<u16>,
    /// The plan's epoch, when the request is eligible (and may be cut).
    epoch: Option<u64>,
}

impl Plan {
    fn new(faults: Faults, epoch: u64) -> Plan {
        Plan { faults, epoch, eligible: 0, failed: 0, delayed: 0, cut: 0 }
    }

    fn admit(&mut self, ranged_get: bool) -> Fate {
        if self.faults.ranged_only && !ranged_get {
            return Fate::default();
        }
        self.eligible += 1;
        let mut fate = Fate { epoch: Some(self.epoch), ..Fate::default() };
        if let Some((n, hook)) = &self.faults.on_request {
            if *n == self.eligible {
                fate.hook = Some(Arc::clone(hook));
            }
        }
        if self.delayed < self.faults.delay_times {
            self.delayed += 1;
            fate.delay = Some(self.faults.delay);
        }
        if self.failed < self.faults.fail_first {
            self.failed += 1;
            fate.fail =
                Some(if self.faults.fail_status == 0 { 500 } else { self.faults.fail_status });
        }
        fate
    }

    /// How many body bytes to let through, when this response is cut.
    fn take_cut(&mut self, epoch: u64) -> Option<u64> {
        if epoch != self.epoch || self.cut >= self.faults.cut_times {
            return None;
        }
        self.cut += 1;
        Some(self.faults.cut_after)
    }
}

impl FaultProxy {
    /// Bind 127.0.0.1 on a free port and start relaying to `upstream`, with
    /// no faults yet.
    ///
    /// # Panics
    ///
    /// When the socket cannot be bound or the accept thread not spawned.
    pub fn start(upstream: SocketAddr) -> FaultProxy {
        let state = Arc::new(ProxyState {
            upstream,
            requests: AtomicUsize::new(0),
            plan: Mutex::new(Plan::new(Faults::default(), 0)),
        });
        let shared = Arc::clone(&state);
        let acceptor = Acceptor::start("swath-fault-proxy", move |stream, stop| {
            shared.serve(&stream, stop);
        });
        FaultProxy { state, acceptor }
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.acceptor.addr
    }

    /// Its base URL, `http://127.0.0.1:PORT`, without a trailing `/`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr())
    }

    /// Replace the fault plan; its counts (eligible requests, failures,
    /// delays, cuts) start from 0 here.
    pub fn set(&self, faults: Faults) {
        let mut plan = lock(&self.state.plan);
        let next = Plan::new(faults, plan.epoch + 1);
        let old = std::mem::replace(&mut *plan, next);
        drop(plan);
        // Dropped unlocked: the old hook may own the last handle on a server
        // whose drop joins threads.
        drop(old);
    }

    /// Requests received since [`start`](FaultProxy::start), eligible or
    /// not, faulted or not.
    pub fn requests(&self) -> usize {
        self.state.requests.load(Ordering::SeqCst)
    }
}

impl fmt::Debug for FaultProxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FaultProxy")
            .field("addr", &self.addr())
            .field("upstream", &self.state.upstream)
            .field("faults", &lock(&self.state.plan).faults)
            .finish_non_exhaustive()
    }
}

impl ProxyState {
    /// Relay the one request on `stream`, faults applied.
    fn serve(&self, stream: &TcpStream, stop: &AtomicBool) {
        let mut reader = match Patient::accepted(stream, stop) {
            Ok(reader) => reader,
            Err(_) => return,
        };
        let (head, mut body) = match read_head(&mut reader) {
            Incoming::Gone => return,
            Incoming::Bad => {
                self.requests.fetch_add(1, Ordering::SeqCst);
                bad_request(stream, stop);
                return;
            }
            Incoming::Head { head, rest } => (head, rest),
        };
        self.requests.fetch_add(1, Ordering::SeqCst);
        let Some(request) = Head::parse(&head) else {
            bad_request(stream, stop);
            return;
        };
        let Some(length) = request.body_length().filter(|&n| n <= MAX_BODY) else {
            bad_request(stream, stop);
            return;
        };
        // `rest` may hold bytes past the body (a pipelined request): only the
        // body goes on.
        body.truncate(length.min(body.len() as u64) as usize);
        let unread = length - body.len() as u64;
        match (&mut reader).take(unread).read_to_end(&mut body) {
            Ok(n) if n as u64 == unread => {}
            _ => return,
        }

        let ranged_get = request.method == "GET" && request.header("range").is_some();
        let fate = lock(&self.plan).admit(ranged_get);
        if let Some(hook) = &fate.hook {
            hook();
        }
        if let Some(delay) = fate.delay {
            if !sleep_unless_stopped(delay, stop) {
                return;
            }
        }
        if let Some(status) = fate.fail {
            let _ = Response::new(status).write_to(stream);
            return;
        }

        let mut upstream_request = upstream_head(&request).into_bytes();
        upstream_request.extend_from_slice(&body);
        let response = match self.exchange(&upstream_request, stop) {
            Ok(response) => response,
            // Stopping: the client is let go without an answer.
            Err(_) if stop.load(Ordering::SeqCst) => return,
            Err(e) => {
                let status = if e.kind() == io::ErrorKind::TimedOut { 504 } else { 502 };
                let _ = Response::new(status).write_to(stream);
                return;
            }
        };
        let body_start = find(&response, b"\r\n\r\n").map(|end| end + 4);
        let cut = match (body_start, fate.epoch) {
            (Some(start), Some(epoch)) if start < response.len() => {
                lock(&self.plan).take_cut(epoch).map(|keep| {
                    let keep = usize::try_from(keep).unwrap_or(usize::MAX);
                    start + keep.min(response.len() - start)
                })
            }
            _ => None,
        };
        let mut out = stream;
        match cut {
            Some(end) => {
                let _ = out.write_all(&response[..end]);
                let _ = stream.shutdown(Shutdown::Both);
            }
            None => {
                let _ = out.write_all(&response);
            }
        }
    }

    /// Send `request` to the upstream and read its response to the end.
    fn exchange(&self, request: &[u8], stop: &AtomicBool) -> io::Result<Vec<u8>> {
        let upstream = TcpStream::connect_timeout(&self.upstream, CLIENT_TIMEOUT)?;
        upstream.set_read_timeout(Some(POLL))?;
        upstream.set_write_timeout(Some(CLIENT_TIMEOUT))?;
        (&upstream).write_all(request)?;
        let mut response = Vec::new();
        Patient::new(&upstream, stop, UPSTREAM_TIMEOUT).read_to_end(&mut response)?;
        Ok(response)
    }
}

/// The request head to send upstream: the client's, line for line, with its
/// `Connection` header (or a new one at the end) saying `close`, since the
/// response is read to the end of the stream.
fn upstream_head(request: &Head<'_>) -> String {
    let mut out = format!("{}\r\n", request.request_line);
    let mut closed = false;
    for line in &request.lines {
        if header_name(line).eq_ignore_ascii_case("connection") {
            if !closed {
                out.push_str("Connection: close\r\n");
                closed = true;
            }
        } else {
            out.push_str(line);
            out.push_str("\r\n");
        }
    }
    if !closed {
        out.push_str("Connection: close\r\n");
    }
    out.push_str("\r\n");
    out
}

/// Sleep for `delay`; false when the server stopped first.
fn sleep_unless_stopped(delay: Duration, stop: &AtomicBool) -> bool {
    let until = Instant::now().checked_add(delay);
    while !stop.load(Ordering::SeqCst) {
        let left = until.map_or(POLL, |until| until.saturating_duration_since(Instant::now()));
        if left.is_zero() {
            return true;
        }
        thread::sleep(left.min(POLL));
    }
    false
}

// ---------------------------------------------------------------------------
// What both share: the accept loop, reading requests, writing responses.

/// A listener on 127.0.0.1 whose accept loop hands each connection to its
/// own thread; dropping it stops the loop and joins every thread.
struct Acceptor {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
    panics: Arc<AtomicUsize>,
    thread: Option<JoinHandle<()>>,
}

impl Acceptor {
    fn start<F>(name: &'static str, serve: F) -> Acceptor
    where
        F: Fn(TcpStream, &AtomicBool) + Send + Sync + 'static,
    {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .unwrap_or_else(|e| panic!("{name}: bind 127.0.0.1: {e}"));
        let addr = listener.local_addr().unwrap_or_else(|e| panic!("{name}: local_addr: {e}"));
        let stop = Arc::new(AtomicBool::new(false));
        let panics = Arc::new(AtomicUsize::new(0));
        let (loop_stop, loop_panics) = (Arc::clone(&stop), Arc::clone(&panics));
        let thread = thread::Builder::new()
            .name(format!("{name}-accept"))
            .spawn(move || accept_loop(name, &listener, &loop_stop, &loop_panics, Arc::new(serve)))
            .unwrap_or_else(|e| panic!("{name}: spawn the accept thread: {e}"));
        Acceptor { addr, stop, panics, thread: Some(thread) }
    }
}

fn accept_loop<F>(
    name: &str,
    listener: &TcpListener,
    stop: &Arc<AtomicBool>,
    panics: &AtomicUsize,
    serve: Arc<F>,
) where
    F: Fn(TcpStream, &AtomicBool) + Send + Sync + 'static,
{
    let mut workers: Vec<JoinHandle<()>> = Vec::new();
    let join = |worker: JoinHandle<()>| {
        if worker.join().is_err() {
            panics.fetch_add(1, Ordering::SeqCst);
        }
    };
    for conn in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let (done, running) = workers.into_iter().partition(|w: &JoinHandle<()>| w.is_finished());
        workers = running;
        done.into_iter().for_each(join);
        let Ok(stream) = conn else {
            // Out of descriptors, say: wait rather than spin.
            thread::sleep(POLL);
            continue;
        };
        let (serve, stop) = (Arc::clone(&serve), Arc::clone(stop));
        // A failed spawn drops the connection, which the client sees closed.
        if let Ok(worker) =
            thread::Builder::new().name(name.to_owned()).spawn(move || serve(stream, &stop))
        {
            workers.push(worker);
        }
    }
    workers.into_iter().for_each(join);
}

impl Drop for Acceptor {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop, blocked in `accept`, so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(thread) = self.thread.take() {
            if thread.join().is_err() {
                self.panics.fetch_add(1, Ordering::SeqCst);
            }
        }
        let panics = self.panics.load(Ordering::SeqCst);
        if panics > 0 && !thread::panicking() {
            panic!("{panics} thread(s) of the test HTTP server at {} panicked", self.addr);
        }
    }
}

/// Reads from a socket whose read timeout is [`POLL`], retrying timeouts
/// until a deadline; gives up early when the server stops.
struct Patient<'a> {
    stream: &'a TcpStream,
    stop: &'a AtomicBool,
    deadline: Instant,
}

impl<'a> Patient<'a> {
    fn new(stream: &'a TcpStream, stop: &'a AtomicBool, timeout: Duration) -> Patient<'a> {
        Patient { stream, stop, deadline: Instant::now() + timeout }
    }

    /// Set up an accepted connection's timeouts and read it with
    /// [`CLIENT_TIMEOUT`] for the whole request.
    fn accepted(stream: &'a TcpStream, stop: &'a AtomicBool) -> io::Result<Patient<'a>> {
        stream.set_read_timeout(Some(POLL))?;
        stream.set_write_timeout(Some(CLIENT_TIMEOUT))?;
        // Heads and bodies go out in separate writes.
        stream.set_nodelay(true)?;
        Ok(Patient::new(stream, stop, CLIENT_TIMEOUT))
    }
}

impl Read for Patient<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return Err(io::Error::new(io::ErrorKind::ConnectionAborted, "server stopping"));
            }
            if Instant::now() >= self.deadline {
                return Err(io::ErrorKind::TimedOut.into());
            }
            let mut stream = self.stream;
            match stream.read(buf) {
                Err(e)
                    if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {}
                result => return result,
            }
        }
    }
}

/// A request head as read off a connection.
enum Incoming {
    /// The head, without its blank line, and whatever was read past it.
    Head { head: String, rest: Vec<u8> },
    /// Too long, or not UTF-8: answered with 400.
    Bad,
    /// The client left (or never spoke) before a whole head: no answer.
    Gone,
}

fn read_head(reader: &mut impl Read) -> Incoming {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    loop {
        let n = match reader.read(&mut chunk) {
            Ok(0) => return Incoming::Gone,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(_) => return Incoming::Gone,
        };
        // The blank line may straddle two reads.
        let from = buf.len().saturating_sub(3);
        buf.extend_from_slice(&chunk[..n]);
        if let Some(end) = find(&buf[from..], b"\r\n\r\n").map(|i| from + i) {
            if end + 4 > MAX_HEAD {
                return Incoming::Bad;
            }
            let rest = buf.split_off(end + 4);
            buf.truncate(end);
            return match String::from_utf8(buf) {
                Ok(head) => Incoming::Head { head, rest },
                Err(_) => Incoming::Bad,
            };
        }
        if buf.len() > MAX_HEAD {
            return Incoming::Bad;
        }
    }
}

/// Answer 400 to a request not read to its end.
fn bad_request(stream: &TcpStream, stop: &AtomicBool) {
    let _ = Response::new(400).write_to(stream);
    drain(stream, stop);
}

/// After answering a request that was not read to its end (a head too
/// long, a body of unknown length): read what the client still sends, for a
/// second at most, before closing. Closing over unread bytes makes the
/// kernel reset the connection, and the client could lose the answer.
fn drain(stream: &TcpStream, stop: &AtomicBool) {
    let _ = stream.shutdown(Shutdown::Write);
    let mut reader = Patient::new(stream, stop, Duration::from_secs(1)).take(16 * 1024 * 1024);
    let _ = io::copy(&mut reader, &mut io::sink());
}

/// A parsed request head, borrowing the text it came from so the proxy can
/// send its lines on unchanged.
struct Head<'a> {
    request_line: &'a str,
    method: &'a str,
    target: &'a str,
    /// The header lines, each without its CRLF.
    lines: Vec<&'a str>,
}

impl<'a> Head<'a> {
    /// `None` for anything malformed: a request line not of three parts or
    /// not HTTP/1.x, a header line without a name and a colon (folded lines
    /// included), a stray CR or LF.
    fn parse(head: &'a str) -> Option<Head<'a>> {
        let mut lines = head.split("\r\n");
        let request_line = lines.next()?;
        let mut parts = request_line.split(' ');
        let (method, target, version) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some()
            || method.is_empty()
            || target.is_empty()
            || !matches!(version, "HTTP/1.0" | "HTTP/1.1")
        {
            return None;
        }
        let lines: Vec<&str> = lines.collect();
        let well_formed = |line: &&str| {
            let name = header_name(line);
            line.contains(':')
                && !name.is_empty()
                && !name.bytes().any(|b| b.is_ascii_whitespace())
                && !line.contains(['\r', '\n'])
        };
        if request_line.contains(['\r', '\n']) || !lines.iter().all(well_formed) {
            return None;
        }
        Some(Head { request_line, method, target, lines })
    }

    /// The values of header `name` (any case), trimmed, in order.
    fn headers(&self, name: &'a str) -> impl Iterator<Item = &'a str> + '_ {
        self.lines.iter().filter_map(move |line| {
            let (key, value) = line.split_once(':')?;
            key.eq_ignore_ascii_case(name).then_some(value.trim())
        })
    }

    /// The first value of header `name`.
    fn header(&self, name: &'a str) -> Option<&'a str> {
        self.headers(name).next()
    }

    /// The length of the request body: 0 without `Content-Length`; `None`
    /// when it is not one decimal number or the body is chunked.
    fn body_length(&self) -> Option<u64> {
        if self.header("transfer-encoding").is_some() {
            return None;
        }
        let mut lengths = self.headers("content-length");
        match (lengths.next(), lengths.next()) {
            (None, _) => Some(0),
            (Some(length), None) => digits(length),
            (Some(_), Some(_)) => None,
        }
    }
}

/// The name part of a header line (all of it when it has no colon).
fn header_name(line: &str) -> &str {
    line.split_once(':').map_or(line, |(name, _)| name)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A response to write: `Content-Length` and `Connection: close` are added.
struct Response {
    status: u16,
    headers: Vec<(&'static str, String)>,
    /// The `Content-Length` sent: the body's, or for `HEAD` the object's.
    length: usize,
    body: Vec<u8>,
}

impl Response {
    /// An empty answer with `status`.
    fn new(status: u16) -> Response {
        Response { status, headers: Vec::new(), length: 0, body: Vec::new() }
    }

    fn header(mut self, name: &'static str, value: impl Into<String>) -> Response {
        self.headers.push((name, value.into()));
        self
    }

    fn body(mut self, body: Vec<u8>) -> Response {
        self.length = body.len();
        self.body = body;
        self
    }

    /// Promise `length` bytes without sending them, as `HEAD` does.
    fn length_only(mut self, length: usize) -> Response {
        self.length = length;
        self.body.clear();
        self
    }

    fn write_to(&self, mut out: &TcpStream) -> io::Result<()> {
        let mut head = format!("HTTP/1.1 {} {}\r\n", self.status, reason(self.status));
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str(&format!("Content-Length: {}\r\nConnection: close\r\n\r\n", self.length));
        out.write_all(head.as_bytes())?;
        out.write_all(&self.body)?;
        out.flush()
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        206 => "Partial Content",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        412 => "Precondition Failed",
        416 => "Range Not Satisfiable",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Injected Fault",
    }
}

/// Lock `mutex` even when a panicking thread poisoned it: the data (a map of
/// objects, a plan) stays consistent between statements, and a server
/// thread must not panic.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_as_rfc_9110_says() {
        assert_eq!(parse_range("bytes=0-0", 10), Ranged::Bytes(0, 0));
        assert_eq!(parse_range("bytes=2-100", 10), Ranged::Bytes(2, 9));
        assert_eq!(parse_range("bytes=7-", 10), Ranged::Bytes(7, 9));
        assert_eq!(parse_range("bytes=-3", 10), Ranged::Bytes(7, 9));
        assert_eq!(parse_range("bytes=-30", 10), Ranged::Bytes(0, 9));
        assert_eq!(parse_range("bytes=10-", 10), Ranged::Unsatisfiable);
        assert_eq!(parse_range("bytes=-0", 10), Ranged::Unsatisfiable);
        assert_eq!(parse_range("bytes=-5", 0), Ranged::Unsatisfiable);
        assert_eq!(parse_range("bytes=0-", 0), Ranged::Unsatisfiable);
        for ignored in ["bytes=5-2", "bytes=0-1,3-4", "items=0-1", "bytes=+1-2", "bytes=", "x"] {
            assert_eq!(parse_range(ignored, 10), Ranged::Ignored, "{ignored}");
        }
    }

    #[test]
    fn object_names_drop_slash_query_and_authority() {
        assert_eq!(object_name("/a/b.csv?x=1"), "a/b.csv");
        assert_eq!(object_name("http://127.0.0.1:1/a.csv"), "a.csv");
        assert_eq!(object_name("http://127.0.0.1:1"), "");
    }

    #[test]
    fn http_dates_across_leap_days_and_the_epoch() {
        let at = |secs| http_date(UNIX_EPOCH + Duration::from_secs(secs));
        assert_eq!(at(0), "Thu, 01 Jan 1970 00:00:00 GMT");
        assert_eq!(at(951_782_400), "Tue, 29 Feb 2000 00:00:00 GMT");
        assert_eq!(at(951_868_799), "Tue, 29 Feb 2000 23:59:59 GMT");
        assert_eq!(at(1_796_234_256), "Wed, 02 Dec 2026 17:57:36 GMT");
        assert_eq!(http_date(UNIX_EPOCH - Duration::from_secs(1)), at(0));
    }

    #[test]
    fn heads_parse_strictly() {
        let head = Head::parse("GET /x HTTP/1.1\r\nHost: a\r\nContent-Length: 3").unwrap();
        assert_eq!((head.method, head.target, head.body_length()), ("GET", "/x", Some(3)));
        assert!(Head::parse("GET /x\r\nHost: a").is_none());
        assert!(Head::parse("GET /x HTTP/2\r\nHost: a").is_none());
        assert!(Head::parse("GET /x HTTP/1.1\r\n folded").is_none());
        assert!(Head::parse("GET /x HTTP/1.1\r\nno colon").is_none());
        let chunked = Head::parse("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked").unwrap();
        assert_eq!(chunked.body_length(), None);
        let twice = Head::parse("POST /x HTTP/1.1\r\ncontent-length: 1\r\nContent-Length: 1");
        assert_eq!(twice.unwrap().body_length(), None);
    }
}

//! [`RangeServer`]: objects in memory served over HTTP/1.1 on 127.0.0.1
//! with byte ranges, strong ETags and `If-Match`. hyper speaks HTTP (on a
//! one-thread tokio runtime of the server's own); this file decides the
//! answers.

use std::collections::HashMap;
use std::convert::Infallible;
use std::fmt;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::sync::oneshot;
use tokio::task::JoinSet;

use super::{digits, CLIENT_TIMEOUT, MAX_HEAD};

/// The longest a connection may live, request and answer: a bound for a
/// client that stops reading (a bench's reader of a large range takes well
/// under it).
const CONNECTION_TIMEOUT: Duration = Duration::from_secs(60);

/// An HTTP file server on 127.0.0.1 with byte ranges, strong ETags and
/// `If-Match`, holding its objects in memory. Stopped (its connections
/// dropped, its thread joined) on drop.
///
/// - `HEAD`: 200 with `Content-Length`, `ETag`, `Last-Modified` and
///   `Accept-Ranges: bytes`.
/// - `GET`: 200 with the whole object; with `Range: bytes=a-b`, `bytes=a-`
///   or `bytes=-n`, 206 and `Content-Range`; 416 when the range starts at or
///   past the end. A `Range` that is not one well-formed byte range is
///   ignored (200), as RFC 9110 allows.
/// - 404 for an unknown object; 412 when `If-Match` names neither the
///   current ETag nor `*` (checked before the range); 405 for other methods;
///   400 for a malformed request or a chunked request body; 431 for a
///   request head over 64 KiB.
///
/// Every answer says `Connection: close` and closes; object names are
/// matched as sent, without percent-decoding.
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
/// On drop, when answering a request panicked (so a bug shows up in the
/// test that met it), unless the dropping thread is already panicking.
pub struct RangeServer {
    store: Arc<Store>,
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    /// Gives how many connections panicked.
    thread: Option<JoinHandle<usize>>,
}

/// The objects and counters the server's connections share.
struct Store {
    objects: Mutex<HashMap<String, Object>>,
    /// Versions handed out so far; the next put's ETag carries the next one.
    versions: AtomicU64,
    requests: AtomicUsize,
    /// Object bytes put in response bodies (what a reader downloaded).
    body_bytes: AtomicU64,
}

/// One version of an object: cloned out of the map (a reference count),
/// so a slow client never holds the lock.
#[derive(Clone)]
struct Object {
    bytes: Bytes,
    etag: HeaderValue,
    last_modified: HeaderValue,
}

impl RangeServer {
    /// Bind 127.0.0.1 on a free port and start serving (no objects yet).
    ///
    /// # Panics
    ///
    /// When the socket cannot be bound or the server's thread not started.
    pub fn start() -> RangeServer {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .and_then(|l| l.set_nonblocking(true).map(|()| l))
            .unwrap_or_else(|e| panic!("range server: bind 127.0.0.1: {e}"));
        let addr = listener.local_addr().unwrap_or_else(|e| panic!("range server: {e}"));
        let store = Arc::new(Store {
            objects: Mutex::new(HashMap::new()),
            versions: AtomicU64::new(0),
            requests: AtomicUsize::new(0),
            body_bytes: AtomicU64::new(0),
        });
        let (stop, stopped) = oneshot::channel();
        let shared = Arc::clone(&store);
        let thread = thread::Builder::new()
            .name("swath-range-server".into())
            .spawn(move || serve(listener, shared, stopped))
            .unwrap_or_else(|e| panic!("range server: spawn its thread: {e}"));
        RangeServer { store, addr, stop: Some(stop), thread: Some(thread) }
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The URL of object `name` (a name without a leading `/`).
    pub fn url(&self, name: &str) -> String {
        format!("http://{}/{name}", self.addr)
    }

    /// Insert or replace object `name`. Every put makes a new version with an
    /// ETag no earlier version had, so a reader pinned to the old ETag sees
    /// 412 from then on.
    pub fn put(&self, name: &str, bytes: Vec<u8>) {
        let version = self.store.versions.fetch_add(1, Ordering::Relaxed) + 1;
        let etag = format!("\"v{version}-{}\"", bytes.len());
        let object = Object {
            etag: HeaderValue::from_str(&etag).expect("an ETag of ASCII"),
            bytes: Bytes::from(bytes),
            last_modified: HeaderValue::from_str(&httpdate::fmt_http_date(SystemTime::now()))
                .expect("an HTTP date of ASCII"),
        };
        lock(&self.store.objects).insert(name.to_owned(), object);
    }

    /// Requests answered so far, whatever their method or status (a request
    /// hyper refused as malformed is not counted).
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
        f.debug_struct("RangeServer").field("addr", &self.addr).finish_non_exhaustive()
    }
}

impl Drop for RangeServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let panics = self.thread.take().map_or(0, |t| t.join().unwrap_or(1));
        if panics > 0 && !thread::panicking() {
            panic!("{panics} connection(s) of the test range server at {} panicked", self.addr);
        }
    }
}

/// The server's thread: accept and answer until `stopped`, then drop every
/// connection. Returns how many connections panicked.
fn serve(listener: TcpListener, store: Arc<Store>, mut stopped: oneshot::Receiver<()>) -> usize {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("range server: a tokio runtime: {e}"));
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener)
            .unwrap_or_else(|e| panic!("range server: {e}"));
        let mut connections = JoinSet::new();
        let mut panics = 0;
        let mut count = |done: Result<(), tokio::task::JoinError>| {
            if done.is_err_and(|e| e.is_panic()) {
                panics += 1;
            }
        };
        loop {
            let accepted = tokio::select! {
                _ = &mut stopped => break,
                accepted = listener.accept() => accepted,
            };
            while let Some(done) = connections.try_join_next() {
                count(done);
            }
            let Ok((stream, _)) = accepted else {
                // Out of descriptors, say: wait rather than spin.
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            };
            let _ = stream.set_nodelay(true);
            let store = Arc::clone(&store);
            connections.spawn(async move {
                let answer = service_fn(move |request| {
                    let store = Arc::clone(&store);
                    async move { Ok::<_, Infallible>(store.answer(request).await) }
                });
                let connection = http1::Builder::new()
                    .keep_alive(false)
                    // Headers as the server sets them: no Date, so that an
                    // answer relayed by the fault proxy is the same bytes.
                    .auto_date_header(false)
                    .max_header_size(MAX_HEAD)
                    .serve_connection(TokioIo::new(stream), answer);
                let _ = tokio::time::timeout(CONNECTION_TIMEOUT, connection).await;
            });
        }
        connections.abort_all();
        while let Some(done) = connections.join_next().await {
            count(done);
        }
        panics
    })
}

type Answer = Response<Full<Bytes>>;

impl Store {
    /// Answer one request, counting it.
    async fn answer(&self, request: Request<Incoming>) -> Answer {
        let answer = self.decide(request).await;
        // Counted before hyper writes the answer, so a client holding it
        // already sees it in `requests`.
        self.requests.fetch_add(1, Ordering::SeqCst);
        answer
    }

    async fn decide(&self, request: Request<Incoming>) -> Answer {
        let (head, body) = request.into_parts();
        // No method here takes a body; a chunked one is refused as before.
        if head.headers.contains_key(header::TRANSFER_ENCODING) {
            return empty(StatusCode::BAD_REQUEST);
        }
        // The body is read all the same: closing with unread bytes would
        // reset the connection, and the client could lose the answer.
        if tokio::time::timeout(CLIENT_TIMEOUT, body.collect()).await.map_or(true, |r| r.is_err()) {
            return empty(StatusCode::BAD_REQUEST);
        }
        let head_only = match head.method {
            Method::HEAD => true,
            Method::GET => false,
            _ => {
                let mut answer = empty(StatusCode::METHOD_NOT_ALLOWED);
                answer.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
                return answer;
            }
        };
        let Some(object) = lock(&self.objects).get(object_name(head.uri.path())).cloned() else {
            return empty(StatusCode::NOT_FOUND);
        };
        if let Some(wanted) = head.headers.get(header::IF_MATCH) {
            let wanted = wanted.to_str().unwrap_or("");
            let etag = object.etag.to_str().unwrap_or("");
            if !wanted.split(',').map(str::trim).any(|tag| tag == "*" || tag == etag) {
                let mut answer = empty(StatusCode::PRECONDITION_FAILED);
                answer.headers_mut().insert(header::ETAG, object.etag);
                return answer;
            }
        }
        let len = object.bytes.len() as u64;
        let found = |status, body: Bytes, length: u64| {
            let mut answer = with_length(status, body, length);
            let h = answer.headers_mut();
            h.insert(header::ETAG, object.etag.clone());
            h.insert(header::LAST_MODIFIED, object.last_modified.clone());
            h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
            answer
        };
        if head_only {
            return found(StatusCode::OK, Bytes::new(), len);
        }
        let range = head
            .headers
            .get(header::RANGE)
            .map(|r| r.to_str().map_or(Ranged::Ignored, |r| parse_range(r, len)));
        let sent = |n: u64| self.body_bytes.fetch_add(n, Ordering::SeqCst);
        match range {
            None | Some(Ranged::Ignored) => {
                sent(len);
                found(StatusCode::OK, object.bytes.clone(), len)
            }
            Some(Ranged::Unsatisfiable) => {
                let mut answer = empty(StatusCode::RANGE_NOT_SATISFIABLE);
                let total = HeaderValue::from_str(&format!("bytes */{len}")).expect("ASCII");
                answer.headers_mut().insert(header::CONTENT_RANGE, total);
                answer
            }
            Some(Ranged::Bytes(first, last)) => {
                // Both ends are below `len`, which is a `usize`.
                let body = object.bytes.slice(first as usize..=last as usize);
                sent(body.len() as u64);
                let mut answer = found(StatusCode::PARTIAL_CONTENT, body, last - first + 1);
                let range = format!("bytes {first}-{last}/{len}");
                let range = HeaderValue::from_str(&range).expect("ASCII");
                answer.headers_mut().insert(header::CONTENT_RANGE, range);
                answer
            }
        }
    }
}

/// An answer with no body.
fn empty(status: StatusCode) -> Answer {
    with_length(status, Bytes::new(), 0)
}

/// An answer with `body`, saying `Content-Length: length` (the body's, or
/// for `HEAD` the object's) and `Connection: close`.
fn with_length(status: StatusCode, body: Bytes, length: u64) -> Answer {
    let mut answer = Response::new(Full::new(body));
    *answer.status_mut() = status;
    let h = answer.headers_mut();
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    h.insert(header::CONNECTION, HeaderValue::from_static("close"));
    answer
}

/// The object name a request path names: the path without its leading `/`
/// (hyper has taken off the query, and the authority of an absolute-form
/// target).
fn object_name(path: &str) -> &str {
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

/// Lock `mutex` even when a panicking connection poisoned it: the map of
/// objects stays consistent between statements.
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
    fn object_names_drop_the_slash() {
        assert_eq!(object_name("/a/b.csv"), "a/b.csv");
        assert_eq!(object_name("/"), "");
    }
}

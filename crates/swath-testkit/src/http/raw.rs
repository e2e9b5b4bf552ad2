//! The raw HTTP/1.1 plumbing of [`FaultProxy`](super::FaultProxy): an
//! accept loop with a thread per connection, socket reads that give up on
//! a deadline or when the server stops, strict request heads, and
//! responses written as bytes.

use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::{digits, CLIENT_TIMEOUT, MAX_HEAD};

/// The socket read timeout: how often a blocked read looks at the stop flag.
pub(super) const POLL: Duration = Duration::from_millis(50);

/// A listener on 127.0.0.1 whose accept loop hands each connection to its
/// own thread; dropping it stops the loop and joins every thread.
pub(super) struct Acceptor {
    pub(super) addr: SocketAddr,
    stop: Arc<AtomicBool>,
    panics: Arc<AtomicUsize>,
    thread: Option<JoinHandle<()>>,
}

impl Acceptor {
    pub(super) fn start<F>(name: &'static str, serve: F) -> Acceptor
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
pub(super) struct Patient<'a> {
    stream: &'a TcpStream,
    stop: &'a AtomicBool,
    deadline: Instant,
}

impl<'a> Patient<'a> {
    pub(super) fn new(
        stream: &'a TcpStream,
        stop: &'a AtomicBool,
        timeout: Duration,
    ) -> Patient<'a> {
        Patient { stream, stop, deadline: Instant::now() + timeout }
    }

    /// Set up an accepted connection's timeouts and read it with
    /// [`CLIENT_TIMEOUT`] for the whole request.
    pub(super) fn accepted(stream: &'a TcpStream, stop: &'a AtomicBool) -> io::Result<Patient<'a>> {
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
pub(super) enum Incoming {
    /// The head, without its blank line, and whatever was read past it.
    Head { head: String, rest: Vec<u8> },
    /// Too long, or not UTF-8: answered with 400.
    Bad,
    /// The client left (or never spoke) before a whole head: no answer.
    Gone,
}

pub(super) fn read_head(reader: &mut impl Read) -> Incoming {
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
pub(super) fn bad_request(stream: &TcpStream, stop: &AtomicBool) {
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
pub(super) struct Head<'a> {
    pub(super) request_line: &'a str,
    pub(super) method: &'a str,
    /// Checked to be there; the proxy sends the request line on as it is.
    #[allow(dead_code)]
    pub(super) target: &'a str,
    /// The header lines, each without its CRLF.
    pub(super) lines: Vec<&'a str>,
}

impl<'a> Head<'a> {
    /// `None` for anything malformed: a request line not of three parts or
    /// not HTTP/1.x, a header line without a name and a colon (folded lines
    /// included), a stray CR or LF.
    pub(super) fn parse(head: &'a str) -> Option<Head<'a>> {
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
    pub(super) fn header(&self, name: &'a str) -> Option<&'a str> {
        self.headers(name).next()
    }

    /// The length of the request body: 0 without `Content-Length`; `None`
    /// when it is not one decimal number or the body is chunked.
    pub(super) fn body_length(&self) -> Option<u64> {
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
pub(super) fn header_name(line: &str) -> &str {
    line.split_once(':').map_or(line, |(name, _)| name)
}

pub(super) fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The proxy's own answer (a fault, or 400, 502, 504): a status and an
/// empty body, with `Content-Length: 0` and `Connection: close`.
pub(super) struct Response {
    status: u16,
}

impl Response {
    /// An empty answer with `status`.
    pub(super) fn new(status: u16) -> Response {
        Response { status }
    }

    pub(super) fn write_to(&self, mut out: &TcpStream) -> io::Result<()> {
        let head = format!(
            "HTTP/1.1 {} {}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            self.status,
            reason(self.status)
        );
        out.write_all(head.as_bytes())?;
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

/// Lock `mutex` even when a panicking thread poisoned it: the data (a
/// plan, a map of objects) stays consistent between statements, and a server
/// thread must not panic.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

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

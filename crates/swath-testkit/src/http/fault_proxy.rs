//! [`FaultProxy`]: an HTTP proxy on 127.0.0.1 that fails, delays or cuts
//! chosen responses on a plan ([`Faults`]). Raw sockets, on purpose: it
//! relays requests byte for byte and cuts responses mid-body, which an
//! HTTP library would not let it do (`raw.rs` holds the plumbing).

use std::fmt;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::raw::{
    bad_request, find, header_name, lock, read_head, Acceptor, Head, Incoming, Patient, Response,
    POLL,
};
use super::{CLIENT_TIMEOUT, UPSTREAM_TIMEOUT};

/// The largest request body the proxy buffers to forward.
const MAX_BODY: u64 = 256 * 1024 * 1024;

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

//! A real S3-compatible server on loopback for the remote-input tests:
//! moto's server (`python -m moto.server`, from PyPI), started on a free
//! port of 127.0.0.1 and killed on drop.
//!
//! Why moto: it installs with pip in seconds (the CI venv already holds
//! pyarrow and DuckDB), and it answers what swath relies on: HEAD, ranged
//! GETs with `Content-Range`, strong ETags and `If-Match` (412), and
//! multipart uploads. Buckets (and first versions of objects) are made here
//! with plain, unsigned HTTP PUTs, which moto accepts, so the tests need no
//! S3 client of their own; swath reads them back with signed requests.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running moto server; killed (and reaped) on drop.
#[derive(Debug)]
pub struct MotoServer {
    child: Child,
    addr: SocketAddr,
}

impl MotoServer {
    /// The server for a test named `who`, from the peers' venv
    /// (`SWATH_PEER_PYTHON`). With CI=true its absence fails the test;
    /// elsewhere it is `None`, said loudly on stderr (the test then skips).
    ///
    /// # Panics
    ///
    /// With CI=true, when the server cannot be started.
    pub fn for_test(who: &str) -> Option<MotoServer> {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        let started = match std::env::var("SWATH_PEER_PYTHON").ok().filter(|p| !p.is_empty()) {
            Some(py) => MotoServer::start(&py),
            None => Err("SWATH_PEER_PYTHON is not set".into()),
        };
        match started {
            Ok(server) => Some(server),
            Err(why) => {
                assert!(!ci, "no S3 server for {who} in CI: {why} (.ci/peers.sh installs moto)");
                eprintln!(
                    "\n*** SKIPPED {who}: {why}; run `export SWATH_PEER_PYTHON=$(.ci/peers.sh)` \
                     to install moto ***\n"
                );
                None
            }
        }
    }

    /// Start `python -m moto.server` on a free loopback port and wait (at
    /// most 60 s) until it answers.
    ///
    /// # Errors
    ///
    /// The server could not be started (no moto in that python) or did
    /// not answer in time; the message says which.
    pub fn start(python: &str) -> Result<MotoServer, String> {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        let child = Command::new(python)
            .args(["-m", "moto.server", "-H", "127.0.0.1", "-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run {python}: {e}"))?;
        let addr = SocketAddr::from(([127, 0, 0, 1], port));
        let mut server = MotoServer { child, addr };
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(format!("{python} -m moto.server exited at once ({status})"));
            }
            if let Ok((200, _)) = server.request("GET", "/", b"") {
                return Ok(server);
            }
            if Instant::now() > deadline {
                return Err("moto.server did not answer within 60 s".into());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Where it listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Its endpoint, for `AWS_ENDPOINT_URL`.
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The environment a client needs: moto takes any keys.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ACCESS_KEY_ID", "swath-test".into()),
            ("AWS_SECRET_ACCESS_KEY", "swath-test".into()),
            ("AWS_REGION", "us-east-1".into()),
            ("AWS_ENDPOINT_URL", self.endpoint()),
        ]
    }

    /// Create `bucket`.
    ///
    /// # Panics
    ///
    /// When moto does not answer 200.
    pub fn create_bucket(&self, bucket: &str) {
        let (status, body) = self.request("PUT", &format!("/{bucket}"), b"").unwrap();
        assert_eq!(status, 200, "create bucket {bucket}: {}", String::from_utf8_lossy(&body));
    }

    /// Put `bytes` at a new `bucket/key`. Unsigned, so moto takes it only
    /// for a key not yet written (replacing an object needs a signed
    /// request: the tests use swath-remote's `Upload` for that).
    ///
    /// # Panics
    ///
    /// When moto does not answer 200.
    pub fn put(&self, bucket: &str, key: &str, bytes: &[u8]) {
        let (status, body) = self.request("PUT", &format!("/{bucket}/{key}"), bytes).unwrap();
        assert_eq!(status, 200, "put {bucket}/{key}: {}", String::from_utf8_lossy(&body));
    }

    /// One plain HTTP/1.1 request; the status and the body.
    ///
    /// # Errors
    ///
    /// A connection or protocol error, as text.
    pub fn request(&self, method: &str, path: &str, body: &[u8]) -> Result<(u16, Vec<u8>), String> {
        let io = |e: std::io::Error| e.to_string();
        let mut s = TcpStream::connect_timeout(&self.addr, Duration::from_secs(5)).map_err(io)?;
        s.set_read_timeout(Some(Duration::from_secs(30))).map_err(io)?;
        s.set_write_timeout(Some(Duration::from_secs(30))).map_err(io)?;
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/octet-stream\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n",
            self.addr,
            body.len()
        );
        s.write_all(head.as_bytes()).map_err(io)?;
        s.write_all(body).map_err(io)?;
        let mut answer = Vec::new();
        s.read_to_end(&mut answer).map_err(io)?;
        let end = answer
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .ok_or("no end of the response head")?;
        let status_line =
            String::from_utf8_lossy(&answer[..end]).lines().next().unwrap_or("").to_string();
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .ok_or_else(|| format!("bad status line {status_line:?}"))?;
        Ok((status, answer[end + 4..].to_vec()))
    }
}

impl Drop for MotoServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

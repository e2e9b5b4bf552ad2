//! Loopback HTTP/1.1 servers for the remote-input tests (feature `http`):
//!
//! - [`RangeServer`]: named objects served with `Range`, `ETag` and
//!   `If-Match`, the subset of HTTP a ranged object reader relies on. hyper
//!   speaks the protocol; `range_server.rs` holds only the answers.
//! - [`FaultProxy`]: sits in front of any upstream (a [`RangeServer`], or an
//!   S3-compatible server) and fails, delays or cuts chosen responses, so the
//!   retry and ETag-pinning paths run on purpose rather than by luck. It must
//!   misbehave byte by byte (a response cut mid-body, a request relayed
//!   unchanged), which no HTTP library does, so it is written on raw sockets
//!   (`fault_proxy.rs`, on the connection plumbing of `raw.rs`).
//!
//! Both listen on 127.0.0.1 only and close every connection after one
//! answer (`Connection: close`). Every wait is bounded (a connection by
//! [`CLIENT_TIMEOUT`], the proxy's upstream by [`UPSTREAM_TIMEOUT`]), and
//! dropping a server stops it and its connections within a fraction of a
//! second, even with idle clients connected: a test never hangs on it.

mod fault_proxy;
mod range_server;
mod raw;

pub use fault_proxy::{FaultProxy, Faults, Hook};
pub use range_server::RangeServer;

use std::time::Duration;

/// How long a client has to send its whole request, and a peer to take a
/// write, before the connection is dropped.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);

/// How long the proxy waits for its upstream's whole response (an S3
/// emulator's first answer can be slow).
pub const UPSTREAM_TIMEOUT: Duration = Duration::from_secs(30);

/// The largest request head accepted, blank line included.
const MAX_HEAD: usize = 64 * 1024;

/// A decimal number of ASCII digits only (`u64::from_str` also takes `+`).
fn digits(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

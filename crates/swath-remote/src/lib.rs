//! Remote input for swath: `s3://`, `gs://`, `az://` and `http(s)://`
//! objects read by exact byte ranges, the way a local file is read with
//! `pread`.
//!
//! [`install`] gives the core its URL opener, after which every swath API
//! that takes a path takes a URL: [`swath::Source::open`], the parallel CSV
//! readers, the split plans, the Arrow readers. An opened object is a
//! [`RemoteObject`]: a [`swath::ReadAt`] of known length whose reads are
//! ranged GETs of fixed blocks, several in flight, held in a bounded cache
//! (see [`RemoteOptions`]).
//!
//! Exactness:
//! - The version seen at open (its ETag, or Last-Modified) is pinned. Every
//!   GET asks for that version (If-Match) and checks the one it got. A
//!   later open of the same URL in the same process must find the same
//!   version. A replaced object is an error, never a mix of two versions.
//! - A short body, a reset, a 5xx or a timeout is tried again with a
//!   doubling pause, a bounded number of times; then the error names the
//!   URL and the bytes asked for.
//!
//! Credentials and endpoints come from the environment, as each store's own
//! tools read them: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
//! `AWS_SESSION_TOKEN`, `AWS_REGION`, `AWS_ENDPOINT_URL` (an S3-compatible
//! server; an `http://` endpoint is allowed as such); `GOOGLE_*`;
//! `AZURE_*`.

#![deny(missing_docs)]

mod fetch;
mod object;
mod options;
mod pin;
mod runtime;
mod store;
mod upload;

use std::collections::HashMap;
use std::io;
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};

pub use object::RemoteObject;
pub use options::RemoteOptions;
pub use upload::{abort_uploads, Upload, PARTS_IN_FLIGHT, PART_SIZE};

use fetch::Target;
use pin::Pin;

/// Give swath's core the opener for URLs (idempotent).
pub fn install() {
    swath::remote::set_opener(open_for_core);
}

fn open_for_core(url: &str) -> swath::Result<(Arc<dyn swath::ReadAt>, u64)> {
    let opts = RemoteOptions::from_env().map_err(|msg| error(url, msg))?;
    let obj = open(url, &opts)?;
    let len = obj.len();
    Ok((obj, len))
}

/// What this process has opened: each URL's live object (so every reader
/// of it shares one cache) and the version it was first seen at.
struct Opened {
    live: Weak<RemoteObject>,
    pin: Pin,
}

static OPENED: Mutex<Option<HashMap<String, Opened>>> = Mutex::new(None);

/// Open `url`: one HEAD for its size and version. A URL already open in
/// this process is shared; one opened before must still be the version it
/// was then.
///
/// # Errors
///
/// A URL that is not an object, a missing object, refused credentials, a
/// store that does not answer (after the tries), or an object that changed
/// since this process first read it. Each names the URL.
pub fn open(url: &str, opts: &RemoteOptions) -> swath::Result<Arc<RemoteObject>> {
    let mut opened = OPENED.lock().unwrap_or_else(|p| p.into_inner());
    let opened = opened.get_or_insert_with(HashMap::new);
    let earlier = opened.get(url);
    if let Some(obj) = earlier.and_then(|o| o.live.upgrade()) {
        return Ok(obj);
    }
    let located = store::locate(url, opts, 0).map_err(|msg| error(url, msg))?;
    let target = Arc::new(Target {
        url: url.to_string(),
        store: located.store,
        path: located.path,
        opts: opts.clone(),
    });
    let meta = runtime::wait(fetch::head(target.clone()))
        .and_then(|r| r)
        .map_err(|msg| error(url, msg))?;
    let pin = Pin::of(&meta);
    if let Some(first) = earlier.filter(|o| o.pin != pin) {
        return Err(error(url, first.pin.changed_message()));
    }
    let obj = Arc::new(RemoteObject::new(target, pin.clone(), meta.size));
    opened.insert(url.to_string(), Opened { live: Arc::downgrade(&obj), pin });
    Ok(obj)
}

/// The object store of `url` (an object's, or a bucket's or host's alone)
/// and the URL of the store itself (`s3://bucket`), for an engine that lists and sizes objects through
/// object_store (DataFusion's `register_object_store`). Its requests are
/// retried by object_store, `attempts - 1` times.
///
/// # Errors
///
/// A URL that is not an object URL, a store that cannot be set up.
pub fn store_for(
    url: &str,
    opts: &RemoteOptions,
) -> swath::Result<(Arc<dyn object_store::ObjectStore>, url::Url)> {
    let retries = opts.attempts.saturating_sub(1) as usize;
    let store = store::store(url, opts, retries).map_err(|msg| error(url, msg))?;
    let parsed = url::Url::parse(url).map_err(|e| error(url, e.to_string()))?;
    let base = url::Url::parse(&parsed[..url::Position::BeforePath])
        .map_err(|e| error(url, e.to_string()))?;
    Ok((store, base))
}

fn error(url: &str, msg: String) -> swath::Error {
    let msg = msg.strip_prefix(&format!("{url}: ")).map(str::to_string).unwrap_or(msg);
    swath::Error::from(io::Error::other(msg)).with_path(Path::new(url))
}

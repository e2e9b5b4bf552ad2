//! One request to the store, tried again on the faults that pass (a 5xx,
//! a reset, a short body, a timeout) with a doubling pause, a bounded number
//! of times; then an error that names the URL and the bytes asked for.
//! Faults that do not pass (the object changed, is gone, access denied) end
//! the read at once.

use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use object_store::{GetOptions, GetRange, ObjectMeta, ObjectStore, ObjectStoreExt};

use crate::options::RemoteOptions;
use crate::pin::Pin;

/// What a target needs to fetch: the store, the object, its URL for
/// messages, the settings.
pub(crate) struct Target {
    pub url: String,
    pub store: Arc<dyn ObjectStore>,
    pub path: object_store::path::Path,
    pub opts: RemoteOptions,
}

/// A failed try, and whether another may succeed.
enum Fault {
    Passing(String),
    Final(String),
}

/// The object's size and version, at open.
pub(crate) async fn head(t: Arc<Target>) -> Result<ObjectMeta, String> {
    retried(&t, "opening it", || async {
        t.store.head(&t.path).await.map_err(|e| classify(e, None))
    })
    .await
}

/// The bytes of `range`, from the version `pin`: exactly `range.end -
/// range.start` of them, or an error.
pub(crate) async fn get(t: Arc<Target>, pin: Pin, range: Range<u64>) -> Result<Bytes, String> {
    let want = range.end - range.start;
    let what = format!("reading bytes {}..{}", range.start, range.end);
    retried(&t, &what, || async {
        let opts = GetOptions {
            range: Some(GetRange::Bounded(range.clone())),
            if_match: pin.etag().map(str::to_string),
            ..Default::default()
        };
        let res = t.store.get_opts(&t.path, opts).await.map_err(|e| classify(e, Some(&pin)))?;
        // A server that ignores If-Match still names the version it sent.
        if let Some(changed) = pin.differs(&res.meta) {
            return Err(Fault::Final(changed));
        }
        if res.range != range {
            let got = &res.range;
            let msg = format!("the server sent bytes {}..{} instead", got.start, got.end);
            return Err(Fault::Final(msg));
        }
        let body = res.bytes().await.map_err(|e| Fault::Passing(chain(&e)))?;
        if body.len() as u64 != want {
            let msg = format!("the body ended after {} of {want} bytes", body.len());
            return Err(Fault::Passing(msg));
        }
        Ok(body)
    })
    .await
}

/// Run `attempt` up to `attempts` times, each within the timeout.
async fn retried<T, F, Fut>(t: &Target, what: &str, attempt: F) -> Result<T, String>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<T, Fault>>,
{
    let mut pause = t.opts.backoff;
    let mut last = String::new();
    for tried in 1..=t.opts.attempts {
        match tokio::time::timeout(t.opts.timeout, attempt()).await {
            Ok(Ok(v)) => return Ok(v),
            Ok(Err(Fault::Final(msg))) => return Err(format!("{}: {what}: {msg}", t.url)),
            Ok(Err(Fault::Passing(msg))) => last = msg,
            Err(_) => last = format!("no answer within {:?}", t.opts.timeout),
        }
        if tried < t.opts.attempts {
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(5));
        }
    }
    let n = t.opts.attempts;
    Err(format!("{}: {what}: {last} (gave up after {n} tries)", t.url))
}

/// Which errors of object_store end the read.
fn classify(e: object_store::Error, pin: Option<&Pin>) -> Fault {
    use object_store::Error as E;
    match &e {
        E::Precondition { .. } | E::NotModified { .. } => match pin {
            Some(p) => Fault::Final(p.changed_message()),
            None => Fault::Final(chain(&e)),
        },
        E::NotFound { .. } => Fault::Final(match pin {
            Some(_) => "the object was deleted while it was read".to_string(),
            None => "no such object".to_string(),
        }),
        E::PermissionDenied { .. } | E::Unauthenticated { .. } => Fault::Final(chain(&e)),
        E::InvalidPath { .. } | E::NotSupported { .. } | E::NotImplemented { .. } => {
            Fault::Final(chain(&e))
        }
        _ => Fault::Passing(chain(&e)),
    }
}

/// An error and its causes on one line (object_store's top-level message
/// alone often says only "Generic S3 error").
fn chain(e: &dyn std::error::Error) -> String {
    let mut msg = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !msg.contains(&text) {
            msg.push_str(": ");
            msg.push_str(&text);
        }
        cause = c.source();
    }
    msg
}

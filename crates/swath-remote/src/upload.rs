//! Writing an object: a multipart upload that becomes the object only when
//! [`Upload::finish`] completes it. Dropped unfinished (an error, a panic)
//! or interrupted ([`abort_uploads`], from a Ctrl-C handler), the upload is
//! aborted: no partial object ever appears under the name.

use std::io::{self, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use object_store::{MultipartUpload, ObjectStoreExt, PutPayload};
use tokio::task::JoinHandle;

use crate::options::RemoteOptions;
use crate::runtime::{runtime, wait};

/// Bytes per part (S3 takes parts of 5 MiB and up, the last excepted).
/// Memory: the part being filled and at most [`PARTS_IN_FLIGHT`] sent.
pub const PART_SIZE: usize = 8 << 20;

/// Parts being sent at once.
pub const PARTS_IN_FLIGHT: usize = 2;

/// An upload in progress; `None` once completed or aborted.
type Slot = Mutex<Option<Box<dyn MultipartUpload>>>;
type Shared = Arc<Slot>;

/// Uploads not yet finished, for [`abort_uploads`].
static LIVE: Mutex<Vec<Weak<Slot>>> = Mutex::new(Vec::new());

/// An object being written; `Write` into it, then [`finish`](Self::finish).
pub struct Upload {
    url: String,
    upload: Shared,
    part: Vec<u8>,
    sent: Vec<JoinHandle<object_store::Result<()>>>,
    parts: usize,
    written: u64,
    failed: Option<String>,
}

impl Upload {
    /// Start a multipart upload to `url` (`s3://`, `gs://`, `az://`).
    ///
    /// # Errors
    ///
    /// A URL that is not an object, refused credentials, a store that does
    /// not answer; each names the URL.
    pub fn create(url: &str, opts: &RemoteOptions) -> swath::Result<Upload> {
        let fail =
            |msg: String| swath::Error::from(io::Error::other(msg)).with_path(Path::new(url));
        let retries = opts.attempts.saturating_sub(1) as usize;
        let located = crate::store::locate(url, opts, retries).map_err(fail)?;
        let (store, path) = (located.store, located.path);
        let started = wait(async move { store.put_multipart(&path).await })
            .map_err(fail)?
            .map_err(|e| fail(format!("cannot start the upload: {e}")))?;
        let upload: Shared = Arc::new(Mutex::new(Some(started)));
        if let Ok(mut live) = LIVE.lock() {
            live.retain(|w| w.strong_count() > 0);
            live.push(Arc::downgrade(&upload));
        }
        Ok(Upload {
            url: url.to_string(),
            upload,
            part: Vec::with_capacity(PART_SIZE),
            sent: Vec::new(),
            parts: 0,
            written: 0,
            failed: None,
        })
    }

    /// Send the rest, wait for every part, and complete the upload: only
    /// now does the object appear (or replace the one of that name).
    ///
    /// # Errors
    ///
    /// Any part or the completion failed; the upload is then aborted and no
    /// object is left under the name.
    pub fn finish(mut self) -> io::Result<()> {
        if self.failed.is_none() && (!self.part.is_empty() || self.parts == 0) {
            let _ = self.send_part();
        }
        while !self.sent.is_empty() {
            let _ = self.wait_oldest();
        }
        if let Some(msg) = self.failed.clone() {
            return Err(self.error(msg));
        }
        let taken = self.upload.lock().ok().and_then(|mut u| u.take());
        let Some(mut upload) = taken else {
            return Err(self.error("the upload was aborted (interrupted)".into()));
        };
        let done = wait(async move {
            match upload.complete().await {
                Ok(_) => Ok(()),
                Err(e) => {
                    let _ = upload.abort().await;
                    Err(e)
                }
            }
        });
        match done {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(self.error(format!("completing the upload: {e}"))),
            Err(msg) => Err(self.error(msg)),
        }
    }

    /// Bytes written so far.
    pub fn written(&self) -> u64 {
        self.written
    }

    fn error(&self, msg: String) -> io::Error {
        io::Error::other(format!("{}: {msg}", self.url))
    }

    fn send_part(&mut self) -> io::Result<()> {
        let data = std::mem::replace(&mut self.part, Vec::with_capacity(PART_SIZE));
        let fut = {
            let mut guard = self.upload.lock().unwrap_or_else(|p| p.into_inner());
            guard.as_mut().map(|upload| upload.put_part(PutPayload::from(data)))
        };
        let Some(fut) = fut else {
            return Err(self.fail("the upload was aborted (interrupted)".into()));
        };
        let rt = runtime().map_err(|m| self.fail(m))?;
        self.sent.push(rt.spawn(fut));
        self.parts += 1;
        while self.sent.len() > PARTS_IN_FLIGHT {
            self.wait_oldest()?;
        }
        Ok(())
    }

    fn wait_oldest(&mut self) -> io::Result<()> {
        let handle = self.sent.remove(0);
        let part = self.parts - self.sent.len();
        match wait(handle) {
            Ok(Ok(Ok(()))) => Ok(()),
            Ok(Ok(Err(e))) => Err(self.fail(format!("sending part {part}: {e}"))),
            Ok(Err(e)) => Err(self.fail(format!("sending part {part}: {e}"))),
            Err(msg) => Err(self.fail(msg)),
        }
    }

    /// Remember the first failure (every later write fails with it).
    fn fail(&mut self, msg: String) -> io::Error {
        let msg = self.failed.get_or_insert(msg).clone();
        self.error(msg)
    }
}

impl Write for Upload {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(msg) = self.failed.clone() {
            return Err(self.error(msg));
        }
        let n = buf.len().min(PART_SIZE - self.part.len());
        self.part.extend_from_slice(&buf[..n]);
        self.written += n as u64;
        if self.part.len() == PART_SIZE {
            self.send_part()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for Upload {
    /// Not finished: abort, so that the parts sent never become an object.
    fn drop(&mut self) {
        abort(&self.upload);
    }
}

impl std::fmt::Debug for Upload {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Upload")
            .field("url", &self.url)
            .field("parts", &self.parts)
            .field("written", &self.written)
            .finish_non_exhaustive()
    }
}

/// Abort every unfinished upload of this process (for a Ctrl-C handler,
/// before it exits). Waits at most a few seconds for each.
pub fn abort_uploads() {
    let live: Vec<Shared> = match LIVE.lock() {
        Ok(live) => live.iter().filter_map(Weak::upgrade).collect(),
        Err(_) => return,
    };
    for upload in live {
        abort(&upload);
    }
}

fn abort(upload: &Shared) {
    let taken = upload.lock().ok().and_then(|mut u| u.take());
    if let Some(mut upload) = taken {
        let _ = wait(async move {
            let _ = tokio::time::timeout(Duration::from_secs(5), upload.abort()).await;
        });
    }
}

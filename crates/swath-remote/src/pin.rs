//! The version of an object a read is pinned to: its ETag, or its
//! Last-Modified time where the server gives no ETag. Every ranged GET asks
//! for that version (If-Match) and checks the one it got, so an object
//! replaced during a read is an error, never a mix of two versions.

use object_store::ObjectMeta;

/// The version seen at open.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pin {
    etag: Option<String>,
    last_modified: String,
    size: u64,
}

impl Pin {
    /// The version `meta` describes.
    pub fn of(meta: &ObjectMeta) -> Pin {
        Pin {
            etag: meta.e_tag.clone(),
            last_modified: meta.last_modified.to_rfc3339(),
            size: meta.size,
        }
    }

    /// The ETag, for If-Match.
    pub fn etag(&self) -> Option<&str> {
        self.etag.as_deref()
    }

    /// `Some(message)` when `meta` is another version than this one.
    pub fn differs(&self, meta: &ObjectMeta) -> Option<String> {
        let other = Pin::of(meta);
        let same = match (&self.etag, &other.etag) {
            (Some(a), Some(b)) => a == b,
            // Without ETags, Last-Modified decides.
            (None, None) => self.last_modified == other.last_modified,
            // One answer with an ETag and one without: not comparable.
            _ => false,
        };
        // A ranged answer's size is the whole object's (Content-Range).
        (!same || other.size != self.size).then(|| self.changed_message())
    }

    /// What to say when the object is no longer this version.
    pub fn changed_message(&self) -> String {
        match &self.etag {
            Some(tag) => format!(
                "the object changed while it was read (it was ETag {tag}, {} bytes, when opened)",
                self.size
            ),
            None => format!(
                "the object changed while it was read (it was last modified {}, {} bytes, when opened)",
                self.last_modified, self.size
            ),
        }
    }
}

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
            // Without an ETag on both answers, Last-Modified decides (the
            // GET also carried If-Match, which a server that keeps ETags
            // checks itself). A server that gives neither is pinned by the
            // size alone.
            _ => self.last_modified == other.last_modified,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(etag: Option<&str>, modified_secs: i64, size: u64) -> ObjectMeta {
        ObjectMeta {
            location: "k".into(),
            last_modified: chrono::DateTime::from_timestamp(modified_secs, 0).unwrap(),
            size,
            e_tag: etag.map(str::to_string),
            version: None,
        }
    }

    #[test]
    fn another_etag_size_or_time_is_another_version() {
        let pin = Pin::of(&meta(Some("\"a\""), 100, 10));
        assert_eq!(pin.differs(&meta(Some("\"a\""), 100, 10)), None);
        assert!(pin.differs(&meta(Some("\"b\""), 100, 10)).is_some());
        assert!(pin.differs(&meta(Some("\"a\""), 100, 11)).is_some());
        // An answer without an ETag: Last-Modified decides.
        assert_eq!(pin.differs(&meta(None, 100, 10)), None);
        assert!(pin.differs(&meta(None, 200, 10)).is_some());
        let msg = pin.differs(&meta(Some("\"b\""), 100, 10)).unwrap();
        assert!(msg.contains("ETag \"a\", 10 bytes"), "{msg}");
        let no_tag = Pin::of(&meta(None, 100, 10));
        assert!(no_tag.changed_message().contains("last modified"));
    }
}

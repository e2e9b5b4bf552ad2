//! Memory maps that cannot crash the process.
//!
//! A mapped file that shrinks (`logrotate copytruncate`), or whose page
//! cannot be read (a disk error, a network file system), raises `SIGBUS`
//! on the next access: without a handler, a crash. A [`SafeMap`] registers
//! its address range with a process-wide SIGBUS handler (`handler.rs`) that
//! recognises faults inside swath's own maps, maps zero pages over the lost
//! part so the reader runs on, and records where the loss began; the read
//! then ends with an error naming that byte ([`SafeMap::check`]). A SIGBUS
//! anywhere else is passed on as if swath had no handler.

mod handler;
mod registry;

use std::fs::File;
use std::io;

use crate::error::{Error, ErrorKind, Position, Result};

pub use registry::SLOTS as MAX_LIVE_MAPS;

/// A read-only map of a whole file, protected against SIGBUS.
pub struct SafeMap {
    map: memmap2::Mmap,
    /// Slot in the registry; `None` for an empty map (nothing to fault).
    slot: Option<usize>,
    len_at_open: u64,
}

impl SafeMap {
    /// Map the first `len` bytes of `file` (its size at open).
    ///
    /// # Safety
    ///
    /// Nobody may write to the file in place while it is mapped: the bytes
    /// under the returned slice would change while it is borrowed. A file
    /// that shrinks is safe (that is what this type is for).
    ///
    /// # Errors
    ///
    /// When the OS refuses the map or the handler, or [`MAX_LIVE_MAPS`]
    /// maps are alive already; [`ErrorKind::Truncated`] when the file is
    /// already shorter than `len`.
    pub unsafe fn new(file: &File, len: u64) -> Result<SafeMap> {
        if !handler::install() {
            return Err(io::Error::other("cannot install the SIGBUS handler for mmap").into());
        }
        let size = usize::try_from(len).map_err(|_| io::Error::other("file too large to map"))?;
        // SAFETY: the caller guarantees no in-place writes; shrinking is
        // handled by the handler once the map is registered below, and
        // nothing reads the map before that.
        let map = unsafe { memmap2::MmapOptions::new().len(size).map(file) }?;
        let _ = map.advise(memmap2::Advice::Sequential);
        let slot = if map.is_empty() {
            None
        } else {
            let Some(slot) = registry::register(map.as_ptr() as usize, map.len()) else {
                return Err(io::Error::other(format!(
                    "more than {MAX_LIVE_MAPS} memory maps alive at once"
                ))
                .into());
            };
            Some(slot)
        };
        let map = SafeMap { map, slot, len_at_open: len };
        // The file may have shrunk between its `stat` and the map.
        let now = file.metadata()?.len();
        if now < len {
            let err = Error::new(ErrorKind::Truncated { expected: len, got: now });
            return Err(err.at(Position::new(now, 0, 0)));
        }
        Ok(map)
    }

    /// The mapped bytes. After a fault, the lost part reads as zeros: call
    /// [`check`](Self::check) once the bytes were used.
    pub fn as_slice(&self) -> &[u8] {
        &self.map
    }

    /// The offset of the first byte lost to a fault, if any was.
    pub fn lost_at(&self) -> Option<u64> {
        self.slot.and_then(registry::lost)
    }

    /// `Ok` when every byte read so far came from the file; otherwise the
    /// error for the loss: [`ErrorKind::Truncated`] with the size the file
    /// has now when it shrank, else an I/O error (a page that could not be
    /// read), both at the first lost byte.
    ///
    /// # Errors
    ///
    /// As above.
    pub fn check(&self, file: &File) -> Result<()> {
        let Some(lost) = self.lost_at() else {
            return Ok(());
        };
        let now = file.metadata().map(|m| m.len()).unwrap_or(0);
        if now < self.len_at_open {
            let got = now.min(lost);
            let err = Error::new(ErrorKind::Truncated { expected: self.len_at_open, got });
            return Err(err.at(Position::new(got, 0, 0)));
        }
        let err = io::Error::other(
            "input/output error: a page of the memory map could not be read (SIGBUS)",
        );
        Err(Error::from(err).at(Position::new(lost, 0, 0)))
    }
}

impl Drop for SafeMap {
    fn drop(&mut self) {
        // Forget the range before it is unmapped, so that a later map at the
        // same address is not mistaken for this one.
        if let Some(slot) = self.slot {
            registry::unregister(slot);
        }
    }
}

impl std::ops::Deref for SafeMap {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.map
    }
}

impl std::fmt::Debug for SafeMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SafeMap")
            .field("len", &self.map.len())
            .field("lost_at", &self.lost_at())
            .finish()
    }
}

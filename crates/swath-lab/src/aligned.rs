//! A page-aligned byte buffer for the read and write methods.
//!
//! The lab's raw `read` methods use this rather than `swath::Buffer` so they
//! measure `read` alone; the alignment is the same (one page).

use std::alloc::{self, Layout};
use std::ptr::NonNull;

/// The alignment: one page.
pub const PAGE: usize = 4096;

/// `len` zeroed bytes starting on a page boundary.
pub struct AlignedBuf {
    ptr: NonNull<u8>,
    len: usize,
}

impl AlignedBuf {
    /// A buffer of `len` bytes (at least 1).
    pub fn new(len: usize) -> AlignedBuf {
        let len = len.max(1);
        let layout = Self::layout(len);
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr).unwrap_or_else(|| alloc::handle_alloc_error(layout));
        AlignedBuf { ptr, len }
    }

    fn layout(len: usize) -> Layout {
        Layout::from_size_align(len, PAGE).expect("buffer size overflows a Layout")
    }
}

impl std::ops::Deref for AlignedBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: `len` initialised (zeroed) bytes live at `ptr`, owned by us.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl std::ops::DerefMut for AlignedBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `deref`, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for AlignedBuf {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with this very layout, not used after.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), Self::layout(self.len)) }
    }
}

// SAFETY: the buffer exclusively owns its bytes, like a `Vec<u8>`.
unsafe impl Send for AlignedBuf {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_on_a_page() {
        for len in [1, 512, 4096, 300_000] {
            let buf = AlignedBuf::new(len);
            assert_eq!(buf.as_ptr() as usize % PAGE, 0);
            assert_eq!(buf.len(), len);
            assert!(buf.iter().all(|&b| b == 0));
        }
    }
}

//! The one buffer every reader shares.
//!
//! A [`Buffer`] owns a page-aligned block of bytes. It fills from a source
//! with a single `read` of up to its free space, hands out the unconsumed
//! bytes as a borrowed slice, rolls the unconsumed tail to the front before
//! the next fill, grows (doubling) only when one record does not fit, up to
//! a configured maximum, and shrinks back to its default size once the long
//! record has been consumed. Memory is therefore flat: it depends on the
//! longest record, never on the size of the input.
//!
//! Why page-aligned: on our machines `read` of 512 MiB into a 256 KiB `Vec`
//! (which malloc places 16 bytes past a page boundary) took 0.25-0.31 s,
//! against 0.056 s into the same buffer at a page boundary; the kernel's copy
//! pays for the misalignment (see `docs/design.md` in the repository, "Buffer").

use std::alloc::{self, Layout};
use std::io::{self, Read};
use std::ptr::NonNull;

/// Default capacity: 256 KiB. The lab shows why (fewer syscalls than 64 KiB,
/// still inside L2 on most machines).
pub const DEFAULT_CAPACITY: usize = 256 * 1024;

/// Default maximum the buffer may grow to hold one record: 64 MiB.
pub const DEFAULT_MAX_CAPACITY: usize = 64 * 1024 * 1024;

/// Alignment of every buffer allocation: one page.
pub const ALIGN: usize = 4096;

/// A reusable, page-aligned, growable-with-a-limit read buffer.
///
/// # Examples
///
/// ```
/// use swath::Buffer;
///
/// let mut input = &b"hello, world"[..];
/// let mut buf = Buffer::with_capacity(8);
/// let n = buf.fill(&mut input)?;      // one read of up to the free room
/// assert_eq!(buf.data(), &b"hello, w"[..n]);
/// buf.consume(7);                     // "hello, " is used up
/// assert_eq!(buf.data(), b"w");
/// assert_eq!(buf.offset(), 7);        // where data() starts in the input
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Buffer {
    ptr: NonNull<u8>,
    cap: usize,
    /// First unconsumed byte.
    start: usize,
    /// One past the last valid byte.
    end: usize,
    /// Absolute offset (in the input) of the byte at `start`.
    offset: u64,
    default_cap: usize,
    max_cap: usize,
}

// SAFETY: the buffer exclusively owns its allocation, like a `Vec<u8>`.
unsafe impl Send for Buffer {}
// SAFETY: shared access only reads the bytes, like `&Vec<u8>`.
unsafe impl Sync for Buffer {}

impl Buffer {
    /// A buffer of [`DEFAULT_CAPACITY`] that may grow to [`DEFAULT_MAX_CAPACITY`].
    pub fn new() -> Buffer {
        Buffer::with_capacity(DEFAULT_CAPACITY)
    }

    /// A buffer of `cap` bytes (at least 1) that may grow to
    /// `max(cap, DEFAULT_MAX_CAPACITY)`.
    pub fn with_capacity(cap: usize) -> Buffer {
        let cap = cap.max(1);
        Buffer {
            ptr: allocate(cap),
            cap,
            start: 0,
            end: 0,
            offset: 0,
            default_cap: cap,
            max_cap: cap.max(DEFAULT_MAX_CAPACITY),
        }
    }

    /// Set the most the buffer may grow to (never below its default capacity).
    ///
    /// The bound is on memory, not only on capacity: from 1 MiB on the
    /// buffer is a map of its own that grows in place with `mremap`, so a
    /// buffer that reached `max` holds at most `max` bytes (rounded up to a
    /// page) of RSS, plus at most 1 MiB for the one copy made when it
    /// became a map, and never an old and a new buffer at once.
    pub fn set_max_capacity(&mut self, max: usize) {
        self.max_cap = max.max(self.default_cap);
    }

    /// Set the absolute offset of the first unconsumed byte, for a buffer
    /// that starts reading in the middle of an input (a byte range).
    pub fn set_offset(&mut self, offset: u64) {
        self.offset = offset;
    }

    /// The unconsumed bytes.
    #[inline]
    pub fn data(&self) -> &[u8] {
        // SAFETY: `start..end` lies inside the allocation of `cap` bytes and
        // every byte of it was initialised (zeroed at allocation or read).
        unsafe {
            std::slice::from_raw_parts(self.ptr.as_ptr().add(self.start), self.end - self.start)
        }
    }

    /// The number of unconsumed bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// True when no unconsumed bytes are held.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// Absolute offset in the input of `data()[0]`.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Current capacity in bytes.
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// The capacity the buffer shrinks back to.
    pub fn default_capacity(&self) -> usize {
        self.default_cap
    }

    /// The most the buffer may grow to.
    pub fn max_capacity(&self) -> usize {
        self.max_cap
    }

    /// Mark the first `n` unconsumed bytes as used.
    ///
    /// # Panics
    ///
    /// Panics if `n > self.len()`.
    #[inline]
    pub fn consume(&mut self, n: usize) {
        assert!(n <= self.len(), "consume({n}) past the {} buffered bytes", self.len());
        self.start += n;
        self.offset += n as u64;
    }

    /// Drop every unconsumed byte.
    pub fn clear(&mut self) {
        self.consume(self.len());
    }

    /// Make room for at least one more byte: roll the unconsumed tail to the
    /// front; shrink back to the default capacity when the tail fits in it;
    /// if the buffer is still full, double it up to the maximum.
    ///
    /// Returns `false` when the buffer already holds `max_capacity` unconsumed
    /// bytes: the caller's record is too long.
    pub fn make_room(&mut self) -> bool {
        if self.start > 0 {
            let len = self.len();
            if self.cap > self.default_cap && len < self.default_cap {
                self.reallocate(self.default_cap);
            } else {
                // SAFETY: both ranges lie inside the allocation; `copy` is a
                // memmove, so overlap is fine.
                unsafe {
                    std::ptr::copy(self.ptr.as_ptr().add(self.start), self.ptr.as_ptr(), len)
                };
                self.start = 0;
                self.end = len;
            }
        }
        if self.end < self.cap {
            return true;
        }
        if self.cap >= self.max_cap {
            return false;
        }
        let new_cap = self.cap.saturating_mul(2).min(self.max_cap);
        self.reallocate(new_cap);
        true
    }

    /// Read once from `rdr` into the free space (after [`make_room`]),
    /// retrying `Interrupted`. Returns the number of bytes read; `0` means
    /// end of input.
    ///
    /// # Errors
    ///
    /// Any error of `rdr` other than `Interrupted`, and an error of kind
    /// `OutOfMemory` when the buffer is at its maximum and full (check
    /// [`make_room`] first to tell that case apart).
    ///
    /// [`make_room`]: Buffer::make_room
    pub fn fill<R: Read + ?Sized>(&mut self, rdr: &mut R) -> io::Result<usize> {
        if !self.make_room() {
            return Err(io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!("buffer full at its maximum of {} bytes", self.max_cap),
            ));
        }
        let free = self.spare();
        loop {
            match rdr.read(free) {
                Ok(n) => {
                    // A misbehaving reader must not make us expose bytes we never had.
                    let n = n.min(self.cap - self.end);
                    self.end += n;
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// The writable space after the valid bytes.
    fn spare(&mut self) -> &mut [u8] {
        // SAFETY: `end..cap` lies inside the allocation and is initialised
        // (zeroed at allocation); we hold `&mut self`.
        unsafe {
            std::slice::from_raw_parts_mut(self.ptr.as_ptr().add(self.end), self.cap - self.end)
        }
    }

    /// Move the unconsumed bytes into a fresh allocation of `new_cap` bytes.
    fn reallocate(&mut self, new_cap: usize) {
        let len = self.len();
        debug_assert!(len <= new_cap);
        if self.start == 0 && self.cap >= MAPPED && new_cap >= MAPPED {
            // Both sizes are maps: let the kernel move the pages, so growth
            // never holds the old and the new buffer at once (peak memory
            // stays at the limit, not 1.5 times it).
            // SAFETY: `self.ptr` is a live map of `self.cap` bytes (see
            // `allocate`); MREMAP_MAYMOVE returns a map of `new_cap` bytes
            // holding the same first `min(cap, new_cap)` bytes, new ones zero.
            let p = unsafe {
                libc::mremap(self.ptr.as_ptr().cast(), self.cap, new_cap, libc::MREMAP_MAYMOVE)
            };
            if p != libc::MAP_FAILED {
                self.ptr = NonNull::new(p.cast()).expect("mremap returned null");
                self.cap = new_cap;
                return;
            }
        }
        let new = allocate(new_cap);
        // SAFETY: source and destination are distinct allocations, each at
        // least `len` bytes long past the given starts.
        unsafe {
            std::ptr::copy_nonoverlapping(self.ptr.as_ptr().add(self.start), new.as_ptr(), len)
        };
        // SAFETY: `self.ptr` was allocated by `allocate(self.cap)`.
        unsafe { deallocate(self.ptr, self.cap) };
        self.ptr = new;
        self.cap = new_cap;
        self.start = 0;
        self.end = len;
    }
}

impl Default for Buffer {
    fn default() -> Buffer {
        Buffer::new()
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: `self.ptr` was allocated by `allocate(self.cap)` and is not used again.
        unsafe { deallocate(self.ptr, self.cap) };
    }
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffer")
            .field("len", &self.len())
            .field("capacity", &self.cap)
            .field("offset", &self.offset)
            .finish()
    }
}

fn layout(cap: usize) -> Layout {
    Layout::from_size_align(cap, ALIGN).expect("buffer capacity overflows a Layout")
}

/// Capacities from this size on are anonymous maps of their own, grown with
/// `mremap` (no copy, no second buffer): the memory bound of
/// [`Buffer::set_max_capacity`] then holds to within this size.
const MAPPED: usize = 1 << 20;

/// Zeroed, so every byte handed out as a slice is initialised. Fresh pages
/// from the OS are zero already, so this costs nothing for large buffers.
fn allocate(cap: usize) -> NonNull<u8> {
    if cap >= MAPPED {
        // SAFETY: a fresh private anonymous map; no address is imposed.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                cap,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p != libc::MAP_FAILED {
            // Page-aligned and zero-filled by the kernel.
            return NonNull::new(p.cast()).expect("mmap returned null");
        }
        alloc::handle_alloc_error(layout(cap));
    }
    let layout = layout(cap);
    // SAFETY: `cap >= 1`, so the layout has a non-zero size.
    let ptr = unsafe { alloc::alloc_zeroed(layout) };
    NonNull::new(ptr).unwrap_or_else(|| alloc::handle_alloc_error(layout))
}

/// # Safety
///
/// `ptr` must come from `allocate(cap)` with the same `cap`, and not be used after.
unsafe fn deallocate(ptr: NonNull<u8>, cap: usize) {
    if cap >= MAPPED {
        // SAFETY: guaranteed by the caller: a map of `cap` bytes from `allocate`
        // (or `mremap` to `cap`).
        unsafe { libc::munmap(ptr.as_ptr().cast(), cap) };
        return;
    }
    // SAFETY: guaranteed by the caller.
    unsafe { alloc::dealloc(ptr.as_ptr(), layout(cap)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_page_aligned() {
        let buf = Buffer::with_capacity(300 * 1024);
        assert_eq!(buf.data().as_ptr() as usize % ALIGN, 0);
    }

    #[test]
    fn fills_consumes_and_rolls() {
        let mut src: &[u8] = b"hello world";
        let mut buf = Buffer::with_capacity(4);
        assert_eq!(buf.fill(&mut src).unwrap(), 4);
        assert_eq!(buf.data(), b"hell");
        buf.consume(3);
        assert_eq!(buf.offset(), 3);
        assert_eq!(buf.fill(&mut src).unwrap(), 3);
        assert_eq!(buf.data(), b"lo w");
    }

    #[test]
    fn grows_to_the_limit_then_refuses_and_shrinks_back() {
        let data = vec![b'x'; 100];
        let mut src: &[u8] = &data;
        let mut buf = Buffer::with_capacity(8);
        buf.set_max_capacity(32);
        while buf.make_room() {
            if buf.fill(&mut src).unwrap() == 0 {
                break;
            }
        }
        assert_eq!(buf.len(), 32);
        assert_eq!(buf.capacity(), 32);
        assert_eq!(buf.fill(&mut src).unwrap_err().kind(), io::ErrorKind::OutOfMemory);
        buf.consume(30);
        assert!(buf.make_room());
        assert_eq!(buf.capacity(), 8);
        assert_eq!(buf.data(), b"xx");
        assert_eq!(buf.offset(), 30);
    }

    #[test]
    fn grows_through_the_mapped_sizes_keeping_every_byte() {
        // 256 KiB (allocator) -> 512 KiB -> 1 MiB (first map, a copy) ->
        // 2 MiB -> 4 MiB (mremap), then back to the default after.
        let data: Vec<u8> = (0..3_500_000u32).map(|i| (i % 251) as u8).collect();
        let mut src: &[u8] = &data;
        let mut buf = Buffer::with_capacity(DEFAULT_CAPACITY);
        buf.set_max_capacity(4 << 20);
        while buf.fill(&mut src).unwrap() > 0 {}
        assert_eq!(buf.capacity(), 4 << 20);
        assert_eq!(buf.data(), &data[..]);
        assert_eq!(buf.data().as_ptr() as usize % ALIGN, 0);
        buf.consume(data.len() - 10);
        assert!(buf.make_room());
        assert_eq!(buf.capacity(), DEFAULT_CAPACITY);
        assert_eq!(buf.data(), &data[data.len() - 10..]);
    }

    #[test]
    fn retries_interrupted() {
        struct Flaky(bool);
        impl Read for Flaky {
            fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
                self.0 = !self.0;
                if self.0 {
                    Err(io::Error::from(io::ErrorKind::Interrupted))
                } else {
                    out[0] = b'a';
                    Ok(1)
                }
            }
        }
        let mut buf = Buffer::with_capacity(4);
        assert_eq!(buf.fill(&mut Flaky(false)).unwrap(), 1);
        assert_eq!(buf.data(), b"a");
    }
}

//! zlib's inflate with the three calls flate2 does not expose and a gzip
//! index needs: stopping at deflate block boundaries (`Z_BLOCK`) and
//! telling where in the bits the decoder stands (`data_type`), starting
//! at any bit (`inflatePrime`), and taking or giving the 32 KiB window
//! (`inflateSetDictionary`, `inflateGetDictionary`).
//!
//! It is zlib-rs, the inflate flate2 already runs, reached through its
//! zlib-shaped API (the `__internal-api` feature): no second inflate is
//! built, and no C symbol is exported that could meet another zlib in
//! the same process (a Python interpreter has one). This file is the
//! only unsafe code of the gzip index.

use zlib_rs::c_api::z_stream;
use zlib_rs::inflate::{self, InflateConfig, InflateStream};
use zlib_rs::{InflateFlush, ReturnCode};

/// The largest window deflate refers back into.
pub const WINDOW: usize = 32 * 1024;

/// What one call of [`RawInflate::inflate`] did.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// Input bytes consumed.
    pub read: usize,
    /// Output bytes written.
    pub written: usize,
    /// The stream (its deflate data, and for gzip its trailer) ended.
    pub end: bool,
}

/// A raw deflate stream (gzip's headers, trailers and CRC are read and
/// checked by its caller: zlib-rs keeps a gzip member's running CRC
/// folded, out of reach, until the member's end).
pub struct RawInflate {
    // Boxed: zlib's state points back at the stream.
    strm: Box<z_stream>,
}

// SAFETY: the stream owns its state, allocated by zlib-rs for it alone;
// nothing in it is tied to a thread.
unsafe impl Send for RawInflate {}

impl RawInflate {
    /// Raw deflate (no header), as found at a checkpoint.
    pub fn raw() -> RawInflate {
        let window_bits = -15;
        let mut strm = Box::new(z_stream::default());
        let rc = inflate::init(&mut strm, InflateConfig { window_bits });
        // init fails only on a bad configuration or no memory.
        assert_eq!(rc, ReturnCode::Ok, "zlib-rs inflate init");
        RawInflate { strm }
    }

    fn stream(&mut self) -> &mut InflateStream<'static> {
        // SAFETY: `strm` was initialised by `inflate::init` and is ended
        // only in Drop.
        unsafe { InflateStream::from_stream_mut(&mut *self.strm) }.expect("an initialised stream")
    }

    /// Start over for the next deflate stream (the window is emptied).
    pub fn reset(&mut self) {
        let rc = inflate::reset(self.stream());
        assert_eq!(rc, ReturnCode::Ok, "zlib-rs inflate reset");
    }

    /// Inflate from `input` into `output`; with `at_blocks`, stop at the
    /// end of every deflate block ([`RawInflate::at_block_boundary`]).
    ///
    /// # Errors
    ///
    /// zlib's message for corrupt data.
    pub fn inflate(
        &mut self,
        input: &[u8],
        output: &mut [u8],
        at_blocks: bool,
    ) -> Result<Step, String> {
        let strm = &mut *self.strm;
        strm.next_in = input.as_ptr();
        strm.avail_in = u32::try_from(input.len()).unwrap_or(u32::MAX);
        strm.next_out = output.as_mut_ptr();
        strm.avail_out = u32::try_from(output.len()).unwrap_or(u32::MAX);
        let (in_before, out_before) = (strm.avail_in, strm.avail_out);
        let flush = if at_blocks { InflateFlush::Block } else { InflateFlush::NoFlush };
        // SAFETY: next_in/next_out point into `input` and `output`, valid
        // for avail_in/avail_out bytes during this call.
        let rc = unsafe { inflate::inflate(self.stream(), flush) };
        let strm = &mut *self.strm;
        let step = Step {
            read: (in_before - strm.avail_in) as usize,
            written: (out_before - strm.avail_out) as usize,
            end: rc == ReturnCode::StreamEnd,
        };
        // The pointers would dangle once the buffers go.
        strm.next_in = std::ptr::null();
        strm.avail_in = 0;
        strm.next_out = std::ptr::null_mut();
        strm.avail_out = 0;
        match rc {
            ReturnCode::Ok | ReturnCode::StreamEnd | ReturnCode::BufError => Ok(step),
            ReturnCode::NeedDict => Err("a preset dictionary is needed".to_string()),
            _ => Err(self.message(rc)),
        }
    }

    fn message(&self, rc: ReturnCode) -> String {
        if self.strm.msg.is_null() {
            return format!("zlib error {rc:?}");
        }
        // SAFETY: zlib-rs sets msg to a static NUL-terminated string.
        let msg = unsafe { std::ffi::CStr::from_ptr(self.strm.msg) };
        msg.to_string_lossy().into_owned()
    }

    /// True right after a block ended (and before the next block's
    /// header is read): the decoder stands between two blocks.
    pub fn at_block_boundary(&self) -> bool {
        self.strm.data_type & 128 != 0 && self.strm.data_type & 64 == 0
    }

    /// Bits the decoder has taken from its input but not yet used: the
    /// decoder stands at bit `8 * total_in - unused_bits`.
    pub fn unused_bits(&self) -> u64 {
        (self.strm.data_type & 63) as u64
    }

    /// Feed `bits` (1 to 7) bits of `value` before the next input: a
    /// checkpoint that does not start on a byte boundary.
    pub fn prime(&mut self, bits: u8, value: u8) {
        let rc = inflate::prime(self.stream(), i32::from(bits), i32::from(value));
        assert_eq!(rc, ReturnCode::Ok, "zlib-rs inflate prime of {bits} bits");
    }

    /// The bytes the next ones may refer back into (a raw stream only).
    ///
    /// # Errors
    ///
    /// zlib refuses a dictionary for a gzip stream.
    pub fn set_window(&mut self, window: &[u8]) -> Result<(), String> {
        match inflate::set_dictionary(self.stream(), window) {
            ReturnCode::Ok => Ok(()),
            rc => Err(format!("zlib refused the window: {rc:?}")),
        }
    }

    /// The last (up to) 32 KiB of output, which the next bytes may refer
    /// back into.
    pub fn window(&mut self) -> Vec<u8> {
        let mut window = vec![0u8; WINDOW];
        // SAFETY: `window` has room for the largest window zlib keeps.
        let n = unsafe { inflate::get_dictionary(self.stream(), window.as_mut_ptr()) };
        window.truncate(n);
        window
    }
}

impl Drop for RawInflate {
    fn drop(&mut self) {
        inflate::end(self.stream());
    }
}

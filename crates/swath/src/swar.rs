//! SIMD within a register: eight bytes as one `u64`, the word helpers the
//! CSV classifier's tails, typed parsing, the writer's quoting check and
//! the CLI's JSON check share; and the prefix XOR that turns a 64-byte
//! block's quote mask into its in-string mask (CSV's quote parity, JSON's
//! parity-and-depth chain).
//!
//! The tricks are exact per byte: `(y & LOW7) + LOW7` never carries from
//! one byte into the next, so a flag in byte `i` says something about byte
//! `i` only.
//!
//! ```
//! use swath::swar::{nonzero_bytes, splat, word, HIGH};
//!
//! let w = word(b"a,b,c,de", 0);
//! // High bit set in each byte that is not a comma.
//! let not_comma = nonzero_bytes(w ^ splat(b','));
//! assert_eq!((!not_comma & HIGH).count_ones(), 3);
//! ```

/// Bit `i` of the result is the XOR of bits `0..=i` of `x`: with `x` a
/// block's quote mask, the bytes an odd number of quotes open.
///
/// ```
/// // Quotes at bytes 1 and 4: bytes 1 to 3 are inside.
/// assert_eq!(swath::swar::prefix_xor(0b1_0010), 0b0_1110);
/// ```
#[inline(always)]
pub fn prefix_xor(mut x: u64) -> u64 {
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    x
}

/// Every byte 0x01.
pub const LO: u64 = 0x0101_0101_0101_0101;
/// The high bit of every byte.
pub const HIGH: u64 = 0x8080_8080_8080_8080;
/// The low 7 bits of every byte.
pub const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;

/// Every byte set to `b`.
#[inline(always)]
pub const fn splat(b: u8) -> u64 {
    LO * b as u64
}

/// The high bit set in each byte of `y` that is not zero, and nothing else.
#[inline(always)]
pub const fn nonzero_bytes(y: u64) -> u64 {
    (((y & LOW7) + LOW7) | y) & HIGH
}

/// The 8 bytes of `buf` at `at`, little-endian.
///
/// # Panics
///
/// When `buf` has fewer than `at + 8` bytes.
#[inline(always)]
pub fn word(buf: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&buf[at..at + 8]);
    u64::from_le_bytes(w)
}

/// The 4 bytes of `buf` at `at`, little-endian.
///
/// # Panics
///
/// When `buf` has fewer than `at + 4` bytes.
#[inline(always)]
pub fn half(buf: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&buf[at..at + 4]);
    u32::from_le_bytes(w)
}

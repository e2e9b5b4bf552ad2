//! Read very large files fast, with flat memory.
//!
//! swath's core owns the hard part of reading big inputs: one reused,
//! page-aligned [`Buffer`] per reader; framings over it ([`LineReader`] for
//! lines, [`FillReader`] for raw chunks, and the CSV layer in `swath-csv`);
//! SIMD byte counting with a scalar twin ([`count`]); byte ranges that own
//! their first record ([`range`]); and a parallel driver that runs work over
//! those ranges on every core ([`Parallel`]). Every error says where
//! ([`Error`], [`Position`]).
//!
//! # Examples
//!
//! Lines, borrowed from the buffer, with no allocation per line:
//!
//! ```
//! use swath::LineReader;
//!
//! let mut rdr = LineReader::new(&b"alpha\r\nbeta\ngamma"[..]);
//! let mut seen = Vec::new();
//! while let Some(line) = rdr.next_line()? {
//!     seen.push(String::from_utf8_lossy(line).into_owned());
//! }
//! assert_eq!(seen, ["alpha", "beta", "gamma"]);
//! assert!(!rdr.last_line_terminated());
//! # Ok::<(), swath::Error>(())
//! ```
//!
//! Counting a file's lines on every core:
//!
//! ```no_run
//! use swath::{count_source, CountOptions, Source};
//!
//! let mut src = Source::open("big.log")?;
//! let count = count_source(&mut src, &CountOptions::default())?;
//! println!("{} lines", count.lines());
//! # Ok::<(), swath::Error>(())
//! ```

#![deny(missing_docs)]

pub mod buffer;
pub mod compress;
pub mod count;
pub mod decompress;
mod error;
mod feed;
mod fills;
pub mod index;
pub mod kernel;
pub mod line_chunks;
mod lines;
pub mod memory;
pub mod mmap;
mod open;
pub mod parallel;
pub mod preamble;
pub mod range;
mod read_at;
pub mod remote;
pub mod sample;
mod source;
pub mod swar;
pub mod text;

pub use buffer::Buffer;
pub use count::{count_lines, count_newlines, count_source, CountOptions, LineCount};
pub use decompress::Compression;
pub use error::{Error, ErrorKind, Position, Result};
pub use feed::Feed;
pub use fills::FillReader;
pub use lines::{LineReader, LineReaderBuilder, DEFAULT_MAX_LINE_LEN};
pub use mmap::SafeMap;
pub use parallel::Parallel;
pub use range::{Framing, LineFraming, RangeReader, ReadAt};
pub use source::Source;

/// The UTF-8 byte order mark: skipped at the start of an input by every
/// reader (CSV, JSON lines), written first by `--bom` writers.
pub const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

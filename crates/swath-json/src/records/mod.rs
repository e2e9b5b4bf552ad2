//! Records from any JSON document: lines, one value after another
//! (pretty-printed or not), or the elements of an array, top-level or in
//! a wrapper (`{"Records": [..]}`), read in chunks exactly as lines are:
//! on every core for a regular file or a remote object, front to back for
//! a stream, with flat memory, and every record, line and byte exact.
//!
//! - [`shape`]: where the records are, asked (`--records`) or seen in the
//!   first bytes.
//! - `frame`: the records' starts and ends, and the bytes between them
//!   checked.
//! - `chain`: where each range of a document starts (inside a string or
//!   not, at which depth), so ranges are framed in parallel and exactly.
//! - `drive`: the chunks handed to the work, in file order.
//! - `plan` and `range`: a document cut into ranges at record starts, and
//!   one range's records read a piece at a time (an engine's partitions).

mod chain;
mod drive;
mod frame;
mod plan;
mod range;
pub mod shape;

pub use drive::{for_each_chunk, shape_of, DETECT_WINDOW};
pub(crate) use drive::{named, over_limit, shape_in_head, spans_in};
pub use plan::record_ranges;
pub use range::{locate, DocRange};
pub(crate) use range::{position, position_after};
pub use shape::{Records, Shape};

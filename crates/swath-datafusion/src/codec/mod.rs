//! swath's tables in a plan that travels to other processes (feature
//! `codec`): DataFusion's protobuf form of plans knows only DataFusion's
//! own file formats, so a distributed engine (Ballista) is given these
//! codecs for swath's pieces and wraps its own.
//!
//! - [`SwathLogicalCodec`]: a [`SwathCsvTable`](crate::SwathCsvTable) in a
//!   logical plan (client to scheduler): its path, dialect, decoding
//!   options and schema. The scheduler rebuilds the table, plans the
//!   query, and makes each file's exact split plan (the quote-parity pass)
//!   there, once.
//! - [`SwathPhysicalCodec`]: a swath scan in a physical plan (scheduler to
//!   executors): DataFusion's own form of the file scan (files, byte
//!   ranges, projection, limit, schema), the options, and each file's
//!   splits with their first record and line numbers. An executor rebuilds
//!   the scan from them and reads only its ranges: it does not run the
//!   plan pass again, and its errors name the record and line a read of
//!   the whole file would.
//!
//! Every other node goes to the wrapped codec: each encoding starts with a
//! byte that says whose it is.

mod logical;
mod physical;
mod wire;

pub use logical::SwathLogicalCodec;
pub use physical::SwathPhysicalCodec;

/// The first byte of an encoding: swath's own node.
const SWATH: u8 = b'S';
/// The first byte of an encoding: the wrapped codec's.
const INNER: u8 = 0;

/// Split `buf` into whose encoding it is and the rest.
fn tag(buf: &[u8]) -> datafusion::error::Result<(u8, &[u8])> {
    match buf.split_first() {
        Some((&t, rest)) if t == SWATH || t == INNER => Ok((t, rest)),
        Some((&t, _)) => Err(datafusion::error::DataFusionError::Internal(format!(
            "swath codec: an encoding that starts with byte {t} is neither swath's nor the \
             wrapped codec's (were client, scheduler and executors built with the same codec?)"
        ))),
        None => Err(datafusion::error::DataFusionError::Internal(
            "swath codec: an empty encoding".to_string(),
        )),
    }
}

//! Shared by the integration tests: the test kit's small-read input, and
//! a way to collect everything a reader returns.

// Each test binary uses a part of this module.
#![allow(dead_code, unused_imports)]

pub mod paths;
pub mod table;

use std::io::Read;

use swath_csv::{ErrorKind, Reader};

/// Returns at most `chunk` bytes per `read`, so every buffer seam runs
/// (the test kit's reader).
pub use swath_testkit::Chunked;

/// One record as read: its fields, and the field-count mismatch reported
/// with it (expected, got), if any.
pub type Outcome = (Vec<Vec<u8>>, Option<(usize, usize)>);

/// Every record, or the first error that is not a field count mismatch
/// (rendered as its kind name and byte position).
pub fn collect<R: Read>(rdr: &mut Reader<R>) -> Result<Vec<Outcome>, (String, u64)> {
    collect_with(rdr, 0)
}

/// As [`collect`], taking records by `next_block(block)` wherever a block
/// is to be had (`block` 0: `next_record` alone).
pub fn collect_with<R: Read>(
    rdr: &mut Reader<R>,
    block: usize,
) -> Result<Vec<Outcome>, (String, u64)> {
    let mut out = Vec::new();
    loop {
        if block > 0 {
            if let Some(b) = rdr.next_block(block).expect("next_block has no errors of its own") {
                for r in 0..b.len() {
                    out.push(((0..b.width()).map(|c| b.field(r, c).to_vec()).collect(), None));
                }
                continue;
            }
        }
        match rdr.next_record() {
            Ok(Some(r)) => out.push((r.iter().map(<[u8]>::to_vec).collect(), None)),
            Ok(None) => return Ok(out),
            Err(e) => match e.kind() {
                ErrorKind::FieldCount { expected, got } => {
                    let r = rdr.record();
                    out.push((r.iter().map(<[u8]>::to_vec).collect(), Some((*expected, *got))));
                }
                k => {
                    let name = format!("{k:?}");
                    let name = name.split([' ', '(', '{']).next().unwrap().to_string();
                    return Err((name, e.position().map_or(u64::MAX, |p| p.byte)));
                }
            },
        }
    }
}

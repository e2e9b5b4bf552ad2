//! The slow, obvious twin: the plan from the sequential reader, which
//! reads every record and places it in the split that holds its first
//! byte. Used where the quote parity does not hold (a comment or escape
//! byte), and by the tests as the reference.

use super::exact::{chunk_of, fill, Start};
use super::{Planner, Split};
use crate::error::Result;
use crate::Position;

pub(crate) fn plan(p: &Planner<'_>) -> Result<Vec<Split>> {
    let ranges = p.ranges();
    let mut per: Vec<Option<Start>> = vec![None; ranges.len()];
    per[0] = Some(Start { byte: 0, line: 1, records: 0 });
    let mut first = true;
    let mut add = |pos: Position| {
        // The file's first record (BOM and empty lines before it) is the
        // first split's.
        let k = if first { 0 } else { chunk_of(p, pos.byte, ranges.len()) };
        first = false;
        match &mut per[k] {
            Some(at) => at.records += 1,
            slot @ None => *slot = Some(Start { byte: pos.byte, line: pos.line, records: 1 }),
        }
    };
    let mut rdr = p.builder.from_path(p.path)?;
    if let Some(h) = rdr.headers()? {
        add(h.position());
    }
    loop {
        match rdr.next_record() {
            Ok(Some(rec)) => add(rec.position()),
            Ok(None) => break,
            Err(e) if e.is_recoverable() => add(rdr.record().position()),
            Err(e) => return Err(e),
        }
    }
    Ok(fill(&ranges, &per, p.len))
}

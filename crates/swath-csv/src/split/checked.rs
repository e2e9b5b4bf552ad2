//! A plan that is known to fit the file before any record is handed out.
//!
//! The quote-parity plan is a prediction: under strict quoting it is
//! exact for a well-formed file, but a bare quote (an error the sequential
//! reader stops at) flips the parity of everything after it, and a reader
//! started at a predicted record start there could read records that the
//! sequential reader never reaches. So the parity plan is checked by the
//! parallel reader's validating count (a SIMD scan that builds no fields
//! and meets the sequential reader's exact error): a clean file with the
//! planned number of records is one where the parity model holds. The
//! other plans (lenient, comment or escape bytes) are read and checked as
//! they are made.

use std::path::Path;

use super::{plan_splits, PlanMethod, SplitPlan, SplitSize};
use crate::error::{Error, Result};
use crate::parallel::ParallelReader;
use crate::reader::builder::ReaderBuilder;

/// As [`plan_splits`], and when the plan comes from the quote-parity pass
/// alone, checked against a validating count of the whole file.
///
/// # Errors
///
/// As [`plan_splits`]; the first malformed record's error (the sequential
/// reader's, at its position); an I/O error when the count is not the
/// plan's (the file changed while it was read).
pub fn plan_splits_checked(
    builder: &ReaderBuilder,
    path: impl AsRef<Path>,
    size: SplitSize,
) -> Result<SplitPlan> {
    let path = path.as_ref();
    let plan = plan_splits(builder, path, size)?;
    if *plan.method() != PlanMethod::Parity {
        return Ok(plan);
    }
    let counted = ParallelReader::new(builder, path).count()?;
    let header = u64::from(plan.headers().is_some());
    if counted + header != plan.records() {
        let msg = format!(
            "the file holds {} records but its split plan {}: it changed while it was read",
            counted + header,
            plan.records()
        );
        return Err(Error::from(std::io::Error::other(msg)).with_path(path));
    }
    Ok(plan)
}

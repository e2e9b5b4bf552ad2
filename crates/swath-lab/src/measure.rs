//! Running one method once, measured: the child-process side of the lab.
//!
//! The lab runs each method in a fresh child process so the OS's peak RSS
//! (`ru_maxrss`, a high-water mark that cannot be reset) belongs to that
//! method alone, and so one method's heap or mappings cannot help or hurt
//! the next.

use std::time::Instant;

use crate::alloc;
use crate::methods::{as_not_applicable, Ctx, Kind, Method};
use crate::os;
use crate::sample::Sample;

/// Why a run gave no sample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The method does not apply to this file (and why): not an error.
    NotApplicable(String),
    /// The method failed or was wrong.
    Failed(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::NotApplicable(why) => write!(f, "not applicable: {why}"),
            Failure::Failed(msg) => f.write_str(msg),
        }
    }
}

impl std::error::Error for Failure {}

/// Run `method` once on `ctx` and measure it. With `cold`, the file is
/// evicted from the page cache first. The count is checked against
/// `expected`.
///
/// # Errors
///
/// [`Failure::Failed`] when the method fails, the eviction fails, or the
/// method's count is wrong (the message says so loudly: a wrong method must
/// not look like a fast one); [`Failure::NotApplicable`] when the method
/// cannot read this file at all.
pub fn measure(method: &Method, ctx: &Ctx, expected: u64, cold: bool) -> Result<Sample, Failure> {
    let name = &method.name;
    let failed = |msg: String| Failure::Failed(msg);
    let mut residency = None;
    let reads = !matches!(method.kind, Kind::Write | Kind::Small);
    if reads {
        let input = method.input(ctx);
        if cold {
            os::evict(input).map_err(|e| failed(format!("{name}: cannot evict the file: {e}")))?;
        }
        residency = os::residency(input).ok();
    }
    let before = os::usage();
    let alloc_before = alloc::stats();
    alloc::reset_peak();
    let start = Instant::now();
    let outcome = method.run(ctx);
    let secs = start.elapsed().as_secs_f64();
    let alloc_after = alloc::stats();
    let after = os::usage();
    let outcome = outcome.map_err(|e| match as_not_applicable(&e) {
        Some(why) => Failure::NotApplicable(why.to_string()),
        None => failed(format!("{name}: {e}")),
    })?;
    // What the run left in the cache (cold runs; larger than memory: near 0).
    let residency_after =
        if reads && (cold || ctx.behind) { os::residency(method.input(ctx)).ok() } else { None };
    let found = method.check(ctx, &outcome).map_err(|e| failed(format!("{name}: {e}")))?;
    if found != expected {
        let what = if method.kind == Kind::Csv { "records" } else { "lines" };
        return Err(failed(format!(
            "{name}: WRONG ANSWER: counted {found} {what}, expected {expected}"
        )));
    }
    let heap = alloc_after.since(&alloc_before);
    Ok(Sample {
        secs,
        lines: found,
        bytes: outcome.bytes,
        syscalls: outcome.syscalls,
        buf_offset: outcome.buf_offset,
        allocated: heap.allocated,
        allocations: heap.allocations,
        heap_peak: heap.peak,
        max_rss: after.max_rss,
        user: (after.user - before.user).max(0.0),
        sys: (after.sys - before.sys).max(0.0),
        minor_faults: after.minor_faults.saturating_sub(before.minor_faults),
        major_faults: after.major_faults.saturating_sub(before.major_faults),
        residency,
        residency_after,
    })
}

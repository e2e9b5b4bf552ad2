//! Running one method once, measured: the child-process side of the lab.
//!
//! The lab runs each method in a fresh child process so the OS's peak RSS
//! (`ru_maxrss`, a high-water mark that cannot be reset) belongs to that
//! method alone, and so one method's heap or mappings cannot help or hurt
//! the next.

use std::time::Instant;

use crate::alloc;
use crate::methods::{Ctx, Kind, Method};
use crate::os;
use crate::sample::Sample;

/// Run `method` once on `ctx` and measure it. With `cold`, the file is
/// evicted from the page cache first. The count is checked against
/// `expected`.
///
/// # Errors
///
/// A message when the method fails, the eviction fails, or the method's
/// count is wrong (the message says so loudly: a wrong method must not
/// look like a fast one).
pub fn measure(method: &Method, ctx: &Ctx, expected: u64, cold: bool) -> Result<Sample, String> {
    let name = &method.name;
    let mut residency = None;
    if method.kind != Kind::Write {
        if cold {
            os::evict(&ctx.file).map_err(|e| format!("{name}: cannot evict the file: {e}"))?;
        }
        residency = os::residency(&ctx.file).ok();
    }
    let before = os::usage();
    let alloc_before = alloc::stats();
    alloc::reset_peak();
    let start = Instant::now();
    let outcome = method.run(ctx);
    let secs = start.elapsed().as_secs_f64();
    let alloc_after = alloc::stats();
    let after = os::usage();
    let outcome = outcome.map_err(|e| format!("{name}: {e}"))?;
    let found = method.check(ctx, &outcome).map_err(|e| format!("{name}: {e}"))?;
    if found != expected {
        return Err(format!("{name}: WRONG ANSWER: counted {found} lines, expected {expected}"));
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
    })
}

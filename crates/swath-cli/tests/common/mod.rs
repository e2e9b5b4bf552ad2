//! What several CLI test files share.

use std::process::{Command, Stdio};

/// Run `cmd` (its stdout discarded) to its end; return its exit code and
/// its peak RSS in bytes: the child's own `ru_maxrss` (the kernel's VmHWM
/// at exit), read with `wait4`. A child killed by a signal fails the test.
// The child is reaped with wait4 (for its rusage), not `Child::wait`.
#[allow(clippy::zombie_processes)]
pub fn exit_code_and_peak_rss(mut cmd: Command) -> (i32, u64) {
    let child = cmd.stdout(Stdio::null()).spawn().unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid out-parameter.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for (`child` is never
    // waited on: dropping a `Child` does not wait).
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4: {}", std::io::Error::last_os_error());
    assert!(libc::WIFEXITED(status), "{cmd:?} was killed: status {status}");
    (libc::WEXITSTATUS(status), usage.ru_maxrss as u64 * 1024)
}

//! The SIGBUS handler. A fault inside one of swath's maps (the file behind
//! it shrank, or a page could not be read) is repaired: zero pages are
//! mapped over the rest of the map, the loss is recorded in the registry,
//! and the reader runs on to find its error there. Any other SIGBUS goes to
//! the handler that was installed before ours, or kills the process as it
//! would have without us.
//!
//! Async-signal-safe: the handler does atomic loads and stores, `mmap` and
//! `sigaction` (plain system calls), and nothing else: no allocation, no
//! lock, no formatting.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Once;

use super::registry;

/// The action that was in place before ours; written once, before ours is
/// installed, and only read after.
struct Previous(std::cell::UnsafeCell<std::mem::MaybeUninit<libc::sigaction>>);

// SAFETY: written once inside `INSTALL.call_once` before the handler that
// reads it can run; never written again.
unsafe impl Sync for Previous {}

static PREVIOUS: Previous = Previous(std::cell::UnsafeCell::new(std::mem::MaybeUninit::uninit()));
static INSTALL: Once = Once::new();
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Install the handler once per process. Returns false when the OS refused
/// (the maps then run unprotected, as they did before this handler).
pub(crate) fn install() -> bool {
    INSTALL.call_once(|| {
        // SAFETY: plain sigaction calls on zeroed structs; PREVIOUS is not
        // yet read by anyone (our handler is installed only at the end).
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                on_sigbus;
            action.sa_sigaction = handler as usize;
            // SA_NODEFER: a second fault inside the handler (none expected)
            // is not blocked into a hang; SA_ONSTACK: works on a thread's
            // alternate stack if it has one.
            action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_NODEFER;
            libc::sigemptyset(&mut action.sa_mask);
            let prev = (*PREVIOUS.0.get()).as_mut_ptr();
            if libc::sigaction(libc::SIGBUS, &action, prev) == 0 {
                INSTALLED.store(true, Ordering::Release);
            }
        }
    });
    INSTALLED.load(Ordering::Acquire)
}

fn page_size() -> usize {
    // SAFETY: sysconf is async-signal-safe and has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    if n > 0 {
        n as usize
    } else {
        4096
    }
}

extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel hands a valid siginfo to an SA_SIGINFO handler.
    let (code, addr) = unsafe { ((*info).si_code, (*info).si_addr() as usize) };
    // Only a memory fault (BUS_ADRERR: past the end of the file; BUS_OBJERR:
    // a page that could not be read) is ours to repair; a SIGBUS sent with
    // kill(2) is passed on.
    let fault = code == libc::BUS_ADRERR || code == libc::BUS_OBJERR;
    if fault {
        if let Some((slot, start, len)) = registry::find(addr) {
            let page = page_size();
            let from = addr & !(page - 1);
            let from = from.max(start);
            let end = start + len;
            // SAFETY: `from..end` lies inside a live map of ours (registered
            // while mapped, unregistered before unmapping); replacing those
            // pages by private zero pages keeps the range mapped and
            // readable, which is all its reader assumes.
            let zeros = unsafe {
                libc::mmap(
                    from as *mut libc::c_void,
                    end - from,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if zeros != libc::MAP_FAILED {
                registry::record_loss(slot, (from - start) as u64);
                // Returning re-runs the faulting read, now on a zero page.
                return;
            }
        }
    }
    // Not ours (or unrepairable): do what would have happened without us.
    // SAFETY: PREVIOUS was filled by sigaction before this handler existed.
    unsafe { pass_on(sig, info, ctx) };
}

/// Hand the signal to the previous action: call its handler, or restore the
/// default and return, so the faulting instruction runs again and the
/// default action (a crash with a core) takes place.
///
/// # Safety
///
/// Only from the signal handler, with its arguments.
unsafe fn pass_on(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: initialised by sigaction before our handler was installed.
    let prev = unsafe { (*PREVIOUS.0.get()).assume_init_ref() };
    let handler = prev.sa_sigaction;
    if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
        // SAFETY: a zeroed sigaction with SIG_DFL is a valid argument.
        unsafe {
            let mut dfl: libc::sigaction = std::mem::zeroed();
            dfl.sa_sigaction = libc::SIG_DFL;
            libc::sigaction(sig, &dfl, std::ptr::null_mut());
        }
        // A signal sent with kill(2) does not come back by itself: send it
        // again, now to the default action.
        // SAFETY: `info` is the kernel's siginfo for this signal.
        let sent = unsafe { (*info).si_code } <= 0;
        if sent {
            // SAFETY: raise is async-signal-safe.
            unsafe { libc::raise(sig) };
        }
        return;
    }
    if prev.sa_flags & libc::SA_SIGINFO != 0 {
        // SAFETY: the previous handler was installed as an SA_SIGINFO one.
        let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
            unsafe { std::mem::transmute(handler) };
        f(sig, info, ctx);
    } else {
        // SAFETY: the previous handler was installed as a plain one.
        let f: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(handler) };
        f(sig);
    }
}

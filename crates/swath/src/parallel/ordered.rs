//! The ordered driver: run tasks on N threads and hand their results to
//! the caller in task order, with at most `window` tasks started ahead of
//! the one the caller waits for, so memory stays bounded however large the
//! input. It knows nothing of what a task reads (swath-csv's parallel
//! reader drives its phase 2 with it).

use std::any::Any;
use std::collections::BTreeMap;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Condvar, Mutex, MutexGuard};

type Outcome<T> = Result<T, Box<dyn Any + Send>>;

struct State<T> {
    /// The next task to hand out.
    next: usize,
    /// Tasks the caller has taken (all below this index).
    taken: usize,
    done: BTreeMap<usize, Outcome<T>>,
    stop: bool,
}

struct Shared<T> {
    state: Mutex<State<T>>,
    cv: Condvar,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(&self, g: MutexGuard<'a, State<T>>) -> MutexGuard<'a, State<T>> {
        self.cv.wait(g).unwrap_or_else(|e| e.into_inner())
    }

    fn stop(&self) {
        self.lock().stop = true;
        self.cv.notify_all();
    }
}

/// Stops the workers when the caller leaves, even by a panic.
struct StopOnDrop<'a, T>(&'a Shared<T>);

impl<T> Drop for StopOnDrop<'_, T> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

/// Run `work(i)` for `i` in `0..tasks` on `threads` threads and call
/// `consume(i, result)` on the calling thread in order of `i`, until it
/// returns false. At most `window` tasks run or wait ahead of the one
/// `consume` is waiting for. A panic in `work` is resumed on the calling
/// thread.
///
/// ```
/// let mut squares = Vec::new();
/// swath::parallel::run_ordered(10, 2, 4, |i| i * i, |_, sq| {
///     squares.push(sq);
///     true
/// });
/// assert_eq!(squares, [0, 1, 4, 9, 16, 25, 36, 49, 64, 81]);
/// ```
pub fn run_ordered<T, W, C>(tasks: usize, threads: usize, window: usize, work: W, consume: C)
where
    T: Send,
    W: Fn(usize) -> T + Sync,
    C: FnMut(usize, T) -> bool,
{
    let mut consume = consume;
    let threads = threads.clamp(1, tasks.max(1));
    let window = window.max(1);
    let shared = Shared {
        state: Mutex::new(State { next: 0, taken: 0, done: BTreeMap::new(), stop: false }),
        cv: Condvar::new(),
    };
    let worker = || loop {
        let i = {
            let mut g = shared.lock();
            while !g.stop && g.next < tasks && g.next >= g.taken + window {
                g = shared.wait(g);
            }
            if g.stop || g.next >= tasks {
                return;
            }
            g.next += 1;
            g.next - 1
        };
        let out = panic::catch_unwind(AssertUnwindSafe(|| work(i)));
        let failed = out.is_err();
        shared.lock().done.insert(i, out);
        shared.cv.notify_all();
        if failed {
            return;
        }
    };
    std::thread::scope(|s| {
        let _stop = StopOnDrop(&shared);
        for _ in 0..threads {
            s.spawn(worker);
        }
        for i in 0..tasks {
            let out = {
                let mut g = shared.lock();
                loop {
                    if let Some(out) = g.done.remove(&i) {
                        g.taken = i + 1;
                        break out;
                    }
                    g = shared.wait(g);
                }
            };
            shared.cv.notify_all();
            match out {
                Ok(t) => {
                    if !consume(i, t) {
                        break;
                    }
                }
                Err(p) => panic::resume_unwind(p),
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn results_come_in_order_within_the_window() {
        for threads in 1..5 {
            let running = AtomicUsize::new(0);
            let mut seen = Vec::new();
            run_ordered(
                50,
                threads,
                3,
                |i| {
                    running.fetch_add(1, Ordering::SeqCst);
                    i * 2
                },
                |i, v| {
                    // Never more than the window ahead of what the caller took.
                    assert!(running.load(Ordering::SeqCst) <= i + 1 + 3);
                    seen.push(v);
                    true
                },
            );
            assert_eq!(seen, (0..50).map(|i| i * 2).collect::<Vec<_>>());
        }
    }

    #[test]
    fn the_caller_can_stop_early_and_panics_propagate() {
        let mut n = 0;
        run_ordered(
            1000,
            3,
            4,
            |i| i,
            |_, _| {
                n += 1;
                n < 5
            },
        );
        assert_eq!(n, 5);
        let r = panic::catch_unwind(|| {
            run_ordered(10, 2, 2, |i| assert!(i != 3, "boom"), |_, _| true);
        });
        assert!(r.is_err());
    }
}

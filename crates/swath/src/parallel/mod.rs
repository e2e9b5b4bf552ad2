//! The parallel driver: N threads pull small byte ranges from a shared
//! counter and run a function on each; results come back in file order.
//!
//! Small ranges (4 MiB by default) mean a slow range does not hold the
//! others: a thread that finishes early just takes the next one.

use std::fs::File;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

mod ordered;

pub use ordered::run_ordered;

use crate::error::Error;
use crate::range::{nth_range, range_count, snap, Framing};

/// Default size of one work item: 4 MiB.
pub const DEFAULT_CHUNK_SIZE: u64 = 4 * 1024 * 1024;

/// How many threads and how large the chunks (nominal byte ranges).
///
/// ```
/// use swath::Parallel;
///
/// let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
/// let par = Parallel::new().threads(2).chunk_size(1024);
/// // One result per chunk, in order, whatever thread ran it.
/// let sums = par.try_map(data.len() as u64, |_, r| {
///     Ok::<u64, ()>(data[r.start as usize..r.end as usize].iter().map(|&b| u64::from(b)).sum())
/// });
/// let total: u64 = data.iter().map(|&b| u64::from(b)).sum();
/// assert_eq!(sums.unwrap().iter().sum::<u64>(), total);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Parallel {
    threads: usize,
    chunk_size: u64,
}

impl Default for Parallel {
    fn default() -> Self {
        Parallel::new()
    }
}

/// The number of cores, as the OS reports it (1 when it cannot say).
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl Parallel {
    /// All cores, 4 MiB ranges.
    pub fn new() -> Parallel {
        Parallel { threads: available_cores(), chunk_size: DEFAULT_CHUNK_SIZE }
    }

    /// Use `n` threads (0 means all cores).
    pub fn threads(mut self, n: usize) -> Parallel {
        self.threads = if n == 0 { available_cores() } else { n };
        self
    }

    /// Cut the input into chunks (nominal byte ranges) of `bytes` (at
    /// least 1).
    pub fn chunk_size(mut self, bytes: u64) -> Parallel {
        self.chunk_size = bytes.max(1);
        self
    }

    /// The number of threads.
    pub fn thread_count(&self) -> usize {
        self.threads
    }

    /// The chunk size set with [`chunk_size`](Self::chunk_size).
    pub fn chunk_len(&self) -> u64 {
        self.chunk_size
    }

    /// Run `work(state, index, range)` over every nominal range of `0..len`,
    /// each thread with its own `state` from `init` (a buffer, say).
    /// Returns the results in range order.
    ///
    /// # Errors
    ///
    /// The error of the earliest failing range, in file order: after a
    /// failure no later range is started, but earlier ones finish, so the
    /// error reported is the first one a sequential run would have met.
    pub fn try_map_with<S, T, E, I, W>(&self, len: u64, init: I, work: W) -> Result<Vec<T>, E>
    where
        T: Send,
        E: Send,
        I: Fn() -> S + Sync,
        W: Fn(&mut S, usize, Range<u64>) -> Result<T, E> + Sync,
    {
        let count = range_count(len, self.chunk_size);
        let threads = self.threads.clamp(1, count.max(1));
        let next = AtomicUsize::new(0);
        // Index of the earliest failed range so far; ranges after it are skipped.
        let first_failure = AtomicUsize::new(usize::MAX);
        let results: Mutex<Vec<(usize, Result<T, E>)>> = Mutex::new(Vec::with_capacity(count));

        let run = || {
            let mut state = init();
            let mut mine = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count || i > first_failure.load(Ordering::Relaxed) {
                    break;
                }
                let out = work(&mut state, i, nth_range(len, self.chunk_size, i));
                if out.is_err() {
                    first_failure.fetch_min(i, Ordering::Relaxed);
                }
                mine.push((i, out));
            }
            results.lock().unwrap_or_else(|e| e.into_inner()).extend(mine);
        };
        if threads == 1 {
            run();
        } else {
            std::thread::scope(|s| {
                for _ in 0..threads {
                    s.spawn(run);
                }
            });
        }

        let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
        results.sort_unstable_by_key(|(i, _)| *i);
        let mut out = Vec::with_capacity(results.len());
        for (_, r) in results {
            out.push(r?);
        }
        Ok(out)
    }

    /// [`try_map_with`](Self::try_map_with) without per-thread state.
    ///
    /// # Errors
    ///
    /// The earliest failing range's error.
    pub fn try_map<T, E, W>(&self, len: u64, work: W) -> Result<Vec<T>, E>
    where
        T: Send,
        E: Send,
        W: Fn(usize, Range<u64>) -> Result<T, E> + Sync,
    {
        self.try_map_with(len, || (), |_, i, r| work(i, r))
    }

    /// Run `work` over the records of `file` in parallel: each nominal range
    /// is snapped to record boundaries by `framing` first, so `work` sees
    /// whole records only, each record exactly once. Results in file order.
    ///
    /// # Errors
    ///
    /// The earliest failing range's error (framing errors included).
    pub fn try_map_records<S, T, E, F, I, W>(
        &self,
        file: &File,
        len: u64,
        framing: &F,
        init: I,
        work: W,
    ) -> Result<Vec<T>, E>
    where
        T: Send,
        E: Send + From<Error>,
        F: Framing + ?Sized,
        I: Fn() -> S + Sync,
        W: Fn(&mut S, Range<u64>) -> Result<T, E> + Sync,
    {
        self.try_map_with(len, init, |state, _, nominal| {
            let range = snap(framing, file, nominal, len)?;
            work(state, range)
        })
    }
}

//! Places spread over a ranged input, for sampling records (schema
//! inference) from a file too big, or too far away (a remote object), to
//! read twice: the one driver under CSV's and JSON's samplers.
//!
//! [`Spread`] cuts `after..len` into `points` equal gaps. A format finds
//! the first record start in a gap from the bytes there alone (a line
//! start for JSON lines; for CSV a start its quotes settle) and reads a
//! few records from it. A start past its gap's end is not the gap's: it
//! is left out, so no record is sampled twice, and results come back in
//! file order whatever thread found them.

use std::ops::Range;

use crate::Parallel;

/// `points` equal gaps over `after..len`; gap `k` starts at
/// `after + (len - after) * k / points`.
#[derive(Clone, Copy, Debug)]
pub struct Spread {
    after: u64,
    len: u64,
    points: usize,
}

impl Spread {
    /// The gaps over `after..len` (none when `after >= len` or
    /// `points == 0`).
    #[must_use]
    pub fn new(after: u64, len: u64, points: usize) -> Spread {
        let points = if after >= len { 0 } else { points };
        Spread { after, len, points }
    }

    /// How many gaps.
    #[must_use]
    pub fn points(&self) -> usize {
        self.points
    }

    /// Gap `k`: from its place to the next one (the last ends at `len`).
    #[must_use]
    pub fn gap(&self, k: usize) -> Range<u64> {
        self.place(k)..self.place(k + 1)
    }

    fn place(&self, k: usize) -> u64 {
        let span = u128::from(self.len - self.after);
        // In u128: span * k overflows u64 for a file past 2^64 / points.
        self.after + (span * k as u128 / self.points.max(1) as u128) as u64
    }

    /// `visit` for every gap, on up to `threads` threads (each with its
    /// own state from `init`, a buffer say), and what it found, in file
    /// order; `None`s are left out.
    ///
    /// A gap a task: each is a small read, and on a remote object a GET
    /// whose wait is spent better on more threads than cores, so at least
    /// 8 threads run.
    ///
    /// # Errors
    ///
    /// The error of the earliest gap that failed.
    pub fn visit<S, T, E, I, V>(&self, threads: usize, init: I, visit: V) -> Result<Vec<T>, E>
    where
        T: Send,
        E: Send,
        I: Fn() -> S + Sync,
        V: Fn(&mut S, Range<u64>) -> Result<Option<T>, E> + Sync,
    {
        if self.points == 0 {
            return Ok(Vec::new());
        }
        let par = Parallel::new().threads(threads.max(8)).chunk_size(1);
        let found = par.try_map_with(self.points as u64, init, |s, k, _| visit(s, self.gap(k)))?;
        Ok(found.into_iter().flatten().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_tile_the_span_in_order() {
        for (after, len, points) in [(0, 100, 7), (13, 14, 5), (5, 1000, 1), (0, u64::MAX, 3)] {
            let s = Spread::new(after, len, points);
            assert_eq!(s.gap(0).start, after);
            assert_eq!(s.gap(points - 1).end, len);
            for k in 1..points {
                assert_eq!(s.gap(k - 1).end, s.gap(k).start);
                assert!(s.gap(k - 1).start <= s.gap(k).start);
            }
        }
    }

    #[test]
    fn no_gaps_past_the_end_or_for_no_points() {
        assert_eq!(Spread::new(10, 10, 4).points(), 0);
        assert_eq!(Spread::new(11, 10, 4).points(), 0);
        let none: Vec<u64> =
            Spread::new(0, 10, 0).visit(2, || (), |_, g| Ok::<_, ()>(Some(g.start))).unwrap();
        assert!(none.is_empty());
    }

    #[test]
    fn visits_come_back_in_file_order_without_nones() {
        let s = Spread::new(0, 1000, 50);
        let got = s
            .visit(
                4,
                || 0usize,
                |calls, g| {
                    *calls += 1;
                    Ok::<_, ()>((g.start % 3 != 0).then_some(g.start))
                },
            )
            .unwrap();
        let want: Vec<u64> = (0..50).map(|k| s.gap(k).start).filter(|p| p % 3 != 0).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn the_earliest_failing_gap_is_the_error() {
        let s = Spread::new(0, 1000, 20);
        let err =
            s.visit(3, || (), |_, g| if g.start >= 500 { Err(g.start) } else { Ok(Some(())) });
        assert_eq!(err.unwrap_err(), 500);
    }
}

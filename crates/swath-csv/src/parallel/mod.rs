//! Exact parallel reading of one CSV file on every core.
//!
//! Cutting a CSV file at newlines is wrong when quoted fields hold
//! newlines. [`ParallelReader`] is exact (the repository's
//! `docs/design.md`, "The parallel engine"):
//!
//! 1. Phase 1, parallel: each worker scans a 4 MiB chunk once (SIMD) under
//!    both hypotheses "the chunk starts outside quotes" and "inside quotes",
//!    keeping for each the first record boundary, the `\n` bytes before it
//!    and the record starts in the chunk. A serial chain from the top
//!    (which starts outside quotes) picks the real hypothesis of each chunk,
//!    hence where each task starts, its line, and how many records come
//!    before it. With [relative numbers](ParallelReader::relative_numbers),
//!    there is no phase 1: the worker that takes a chunk in phase 2 scans
//!    its first kilobytes and guesses its first record start
//!    (`speculate.rs`), so nothing is read ahead of the records, and an
//!    error (an over-limit record, say) is met without reading the rest of
//!    the file.
//! 2. Phase 2, parallel: each task runs the real sequential [`Reader`] from
//!    its start up to the first record that starts at or past the next
//!    task's start. The caller's thread then checks, in file order, that
//!    this record start is exactly where the next task found its first
//!    record, and that each task read as many records as predicted. By
//!    induction from the top, the parallel partition, record numbers and
//!    lines equal the sequential read's.
//!
//! When a check fails (a wrong guess, or lenient-mode bare quotes that
//! break the quote parity), a task with relative numbers is read again on
//! the caller's thread from where the task before it stopped; with exact
//! numbers, reading goes on sequentially from the last verified record
//! start. With an escape byte or a comment byte configured, on one thread,
//! or on a stream (stdin, pipe, gzip, zstd), it is sequential from the
//! start. [`ParallelReader::mode`] says which happened, for `--verbose`
//! notes. Never a wrong answer.
//!
//! [`ParallelReader::count`] builds no records at all on a regular file: a
//! validating scan counts and checks them (`count.rs`), and gives up to
//! the reader on anything it does not find clean.
//!
//! Errors are exact too: a task whose start and numbering are verified is
//! the sequential reader on its records, so its first error is the one a
//! sequential read meets (kind, record, line, byte); a task that is not
//! verified is replaced by the sequential read.
//!
//! Results are independent of the thread count: each task folds into its
//! own accumulator from `init`, and accumulators are combined in file
//! order.
//!
//! # Examples
//!
//! ```
//! use swath_csv::{ParallelReader, ReaderBuilder};
//!
//! # let dir = std::env::temp_dir().join(format!("swath-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! # let path = dir.join("big.csv");
//! # std::fs::write(&path, "name,score\nada,1.5\n\"b\nc\",2\n")?;
//! let mut rdr = ParallelReader::new(&ReaderBuilder::new(), &path);
//! let records = rdr.count()?;
//! let total: f64 = rdr.fold(
//!     || 0.0,
//!     |sum, rec| {
//!         let (_name, score): (&str, f64) = rec.scan()?;
//!         *sum += score;
//!         Ok(())
//!     },
//!     |a, b| a + b,
//! )?;
//! assert_eq!((records, total), (2, 3.5));
//! println!("{records} records, total {total} ({})", rdr.mode());
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bits;
mod chunk_scan;
mod count;
mod mode;
mod plan;
mod records;
mod settle;
mod spares;
mod speculate;
mod task;
mod validator;
mod verifier;

pub use mode::Mode;
pub use records::ChunkRecords;

/// What exact split plans (`crate::split`) take from the parallel reader:
/// the quote-parity plan and the speculative first starts.
pub(crate) mod for_splits {
    pub(crate) use super::chunk_scan::ScanOpts;
    pub(crate) use super::plan::plan;
    pub(crate) use super::speculate::speculate;
    pub(crate) use super::validator::CountOpts;
}

use std::path::{Path, PathBuf};

use swath::Parallel;

use crate::error::{Error, Result};
use crate::BadRecord;
use crate::Reader;
use crate::{FieldCount, ReaderBuilder};
use crate::{OwnedRecord, Record};
use chunk_scan::ScanOpts;
use records::{ChunkEnd, Input};
use task::Ctx;
use validator::CountOpts;
use verifier::Verifier;

/// Reads one CSV file's records on many threads, exactly; see the
/// [module documentation](self).
#[derive(Debug)]
pub struct ParallelReader {
    builder: ReaderBuilder,
    path: PathBuf,
    /// Threads and range size.
    par: Parallel,
    relative: bool,
    /// Guess chunk starts (relative numbers only; off for `for_each`).
    speculative: bool,
    mode: Mode,
}

/// The length of `file`'s UTF-8 byte order mark: 3, or 0 without one.
/// Read whole (short reads and EINTR must not hide it).
fn bom_len(file: &dyn swath::ReadAt) -> u64 {
    let mut bom = [0u8; 3];
    match swath::range::read_full_at(file, &mut bom, 0) {
        Ok(3) if bom == *b"\xEF\xBB\xBF" => 3,
        _ => 0,
    }
}

/// Why a configuration cannot be read in parallel, if it cannot.
fn not_parity_safe(b: &ReaderBuilder) -> Option<&'static str> {
    let c = b.config();
    if c.quoting && c.escape.is_some() {
        return Some("an escape byte breaks the quote-parity model");
    }
    if c.comment.is_some() {
        return Some("comment lines break the quote-parity model");
    }
    None
}

impl ParallelReader {
    /// Read `path` (`-` for stdin) with `builder`'s settings, on all cores
    /// in 4 MiB chunks.
    pub fn new(builder: &ReaderBuilder, path: impl AsRef<Path>) -> ParallelReader {
        ParallelReader {
            builder: builder.clone(),
            path: path.as_ref().to_path_buf(),
            par: Parallel::new(),
            relative: false,
            speculative: true,
            mode: Mode::NotRun,
        }
    }

    /// Use `n` threads (0: all cores; 1: the sequential reader).
    pub fn threads(mut self, n: usize) -> ParallelReader {
        self.par = self.par.threads(n);
        self
    }

    /// Cut the input into chunks of `bytes` (at least 1; default 4 MiB).
    /// Small sizes are for tests: every seam then gets exercised.
    pub fn chunk_size(mut self, bytes: u64) -> ParallelReader {
        self.par = self.par.chunk_size(bytes);
        self
    }

    /// Let the records that `fold`, `for_each` and `for_each_ordered`
    /// hand to their closures count [`Position::record`] and
    /// [`Position::line`] from the start of their chunk rather than from
    /// the start of the input (default false). Byte offsets stay exact, and
    /// so does everything returned: errors (whatever returns them, the
    /// reader or a closure) are renumbered before they are returned. For
    /// callers that never look at a record's number or line (count,
    /// select, stats, conversion).
    ///
    /// Exact numbers need phase 1 to read every byte before phase 2 reads
    /// them again: quote parity and `\n` bytes for every chunk's start and
    /// line, and the record starts in every chunk, which costs about a
    /// third of the parse. With relative numbers, `fold` and
    /// `for_each_ordered` only scan the first kilobytes of each chunk, when
    /// a worker takes it, and guess where its first record starts (a wrong
    /// quote hypothesis gives itself away within a few records); the checks in file order then
    /// fix the numbers, and read a task whose guess was wrong again from
    /// where the task before it stopped. `for_each`, whose closure cannot
    /// take back what it saw, keeps the full pass (record numbers still
    /// relative).
    ///
    /// [`Position::record`]: crate::Position
    /// [`Position::line`]: crate::Position
    pub fn relative_numbers(mut self, yes: bool) -> ParallelReader {
        self.relative = yes;
        self
    }

    /// How the last run read its input.
    pub fn mode(&self) -> &Mode {
        &self.mode
    }

    /// The header row (read sequentially), when headers are on.
    ///
    /// # Errors
    ///
    /// As [`Reader::headers`], and the open error.
    pub fn headers(&self) -> Result<Option<OwnedRecord>> {
        let mut rdr = self.builder.from_path(&self.path)?;
        Ok(rdr.headers()?.cloned())
    }

    /// Fold every record into a per-chunk accumulator from `init`, then
    /// combine the accumulators in file order with `reduce`.
    ///
    /// # Errors
    ///
    /// The first error a sequential read would meet (reading stops there,
    /// as in a `while let Some(rec) = rdr.next_record()?` loop), or the
    /// first error `fold` returns in file order.
    pub fn fold<A, I, F, R>(&mut self, init: I, fold: F, reduce: R) -> Result<A>
    where
        A: Send,
        I: Fn() -> A + Sync,
        F: Fn(&mut A, Record<'_>) -> Result<()> + Sync,
        R: Fn(A, A) -> A,
    {
        let mut total = None;
        self.run(&init, &each_record(fold), &mut |a, _| {
            total = Some(match total.take() {
                None => a,
                Some(t) => reduce(t, a),
            });
            Ok(())
        })?;
        Ok(total.unwrap_or_else(init))
    }

    /// Exact record starts spread over the file, without reading any
    /// record: the first record start in each chunk, found by phase 1's
    /// quote-parity chain (one SIMD pass that counts no record, so
    /// [`Position::record`](crate::Position) is 0, unknown; byte and line
    /// are exact). The first is always byte 0 (the top, header row
    /// included). On a stream, or with a configuration that
    /// breaks the quote-parity model (an escape or comment byte), only the
    /// top. The pass stops at a record longer than the limit: the starts
    /// after it are not looked for. For sampling records from the whole
    /// file (schema inference).
    ///
    /// # Errors
    ///
    /// The open error, or an I/O error.
    pub fn record_starts(&self) -> Result<Vec<crate::Position>> {
        self.builder.validate()?;
        let top = vec![crate::Position::new(0, 1, 0)];
        let src = self.builder.open_source_by_ranges(&self.path)?;
        let (Some(file), Some(len)) = (src.ranged_source(), src.len()) else {
            return Ok(top);
        };
        if not_parity_safe(&self.builder).is_some() {
            return Ok(top);
        }
        let bom_len = bom_len(file);
        let cfg = self.builder.config();
        let par = self.par;
        let opts = ScanOpts {
            quote: cfg.quoting.then_some(cfg.quote),
            skip_empty: cfg.skip_empty_lines,
            starts: false,
        };
        let max = cfg.max_record as u64;
        let plan = plan::plan(file, len, bom_len, &par, 1, cfg.kernel, opts, max)?;
        Ok(plan.tasks.iter().map(|t| crate::Position::new(t.start, t.line, 0)).collect())
    }

    /// Up to `points` record starts spread evenly over the file past byte
    /// `after`, each found from the bytes at its place alone (at most
    /// 1 MiB of them), not by a pass over the whole file: for sampling
    /// records (schema inference) from a file too big, or too far away
    /// (a remote object), to read twice. [`sample_with`](Self::sample_with)
    /// also reads records there.
    ///
    /// A place counts when its bytes settle how it is quoted: one quote
    /// hypothesis breaks a rule of the dialect and the other reads cleanly
    /// (`settle.rs`). So on a valid CSV file every start returned is a
    /// real record start; a place that does not settle, or whose record
    /// starts past the next place, is left out. Line and record numbers
    /// are not known (0). When fewer than half the places settle (a file
    /// without quotes: nothing breaks the "inside quotes" hypothesis), and
    /// with lenient quoting (a bare quote breaks no rule), the starts come
    /// from the exact plan ([`record_starts`](Self::record_starts)), a
    /// pass over the file; on a stream, or with an escape or comment byte,
    /// there are none.
    ///
    /// # Errors
    ///
    /// The open error, or an I/O error.
    pub fn sample_starts(&self, after: u64, points: usize) -> Result<Vec<crate::Position>> {
        self.sample_with(after, points, |start, _| start)
    }

    /// As [`sample_starts`](Self::sample_starts), with `visit` called at
    /// each start, in file order of the results, with a reader of the
    /// records from there: on the thread that found the start, right after,
    /// through the same open file (on a remote object, the bytes of the
    /// place's GET, not another one).
    ///
    /// # Errors
    ///
    /// The open error, or an I/O error.
    pub fn sample_with<T, V>(&self, after: u64, points: usize, visit: V) -> Result<Vec<T>>
    where
        T: Send,
        V: Fn(crate::Position, &mut Reader<swath::RangeReader<'_>>) -> T + Sync,
    {
        self.builder.validate()?;
        let cfg = self.builder.config();
        let src = self.builder.open_source_by_ranges(&self.path)?;
        let (Some(file), Some(len)) = (src.ranged_source(), src.len()) else {
            return Ok(Vec::new());
        };
        if points == 0 || not_parity_safe(&self.builder).is_some() || after >= len {
            return Ok(Vec::new());
        }
        let read_at = |start: crate::Position| -> Result<T> {
            let range = swath::RangeReader::new(file, start.byte..len);
            Ok(visit(start, &mut self.builder.from_reader_at(range, start)?))
        };
        if cfg.lenient {
            return self.planned_starts(len, after, points)?.into_iter().map(read_at).collect();
        }
        let bom_len = bom_len(file);
        // The field count, from the top: a record of another count breaks
        // a hypothesis.
        let mut top = self.builder.from_reader(swath::RangeReader::new(file, 0..len))?;
        let expected = match top.headers() {
            Ok(_) if cfg.has_headers => top.expected_fields(),
            _ => match top.next_record() {
                Ok(Some(r)) => Some(r.len()),
                _ => None,
            },
        };
        // The header row is no sample (it need not start at the top: empty
        // lines may come first).
        let header = if cfg.has_headers { Some(top.position().byte) } else { None };
        drop(top);
        let opts = CountOpts::new(cfg, expected);
        let new_buf = || swath::Buffer::with_capacity(64 << 10);
        let spread = swath::sample::Spread::new(after, len, points);
        let found = spread.visit(self.par.thread_count(), new_buf, |buf, gap| {
            match settle::settled_start(file, len, bom_len, gap.start + 1, buf, cfg.kernel, opts)? {
                // Each start in its own gap: no record twice.
                Some(byte) if byte < gap.end && Some(byte) != header => {
                    read_at(crate::Position::new(byte, 0, 0)).map(Some)
                }
                _ => Ok(None),
            }
        })?;
        // Few places settle where windows hold no quote at all (nothing
        // breaks the "inside quotes" hypothesis): the exact plan then.
        if found.len() * 2 < points {
            return self.planned_starts(len, after, points)?.into_iter().map(read_at).collect();
        }
        Ok(found)
    }

    /// [`sample_starts`](Self::sample_starts) from the exact plan, in chunks
    /// the size of the gaps between places.
    fn planned_starts(&self, len: u64, after: u64, points: usize) -> Result<Vec<crate::Position>> {
        let chunk = ((len - after) / points as u64).max(4096);
        let plan = ParallelReader::new(&self.builder, &self.path)
            .threads(self.par.thread_count())
            .chunk_size(chunk);
        let starts: Vec<_> = plan.record_starts()?.into_iter().filter(|p| p.byte > after).collect();
        let step = (starts.len() as f64 / points as f64).max(1.0);
        Ok((0..points).map_while(|k| starts.get((k as f64 * step) as usize).copied()).collect())
    }

    /// The number of records (the header row not included).
    ///
    /// On a regular file (one thread or many), a validating scan counts
    /// the records without building their fields, checking quotes, field
    /// counts and limits as the reader does; the reader reads the top and
    /// the records across chunk seams. Input it does not find clean is
    /// counted by [`fold`](Self::fold) instead, which meets the exact
    /// error.
    ///
    /// # Errors
    ///
    /// As [`fold`](Self::fold).
    pub fn count(&mut self) -> Result<u64> {
        if let Some(n) = self.scan_count() {
            return Ok(n);
        }
        self.fold(
            || 0u64,
            |n, _| {
                *n += 1;
                Ok(())
            },
            |a, b| a + b,
        )
    }

    /// Call `f` with every record, on the worker threads, in no particular
    /// order.
    ///
    /// When the result is `Ok`, `f` was called exactly once with every
    /// record. When it is an error, `f` may also have seen records past the
    /// error, or read from a wrong start (a bare quote shifts the quote
    /// parity); only the error is exact. Lenient quoting (where a bare
    /// quote is data, not an error) is read sequentially here; use
    /// [`fold`](Self::fold) or [`for_each_ordered`](Self::for_each_ordered)
    /// to have it in parallel.
    ///
    /// # Errors
    ///
    /// As [`fold`](Self::fold).
    pub fn for_each<F>(&mut self, f: F) -> Result<()>
    where
        F: Fn(Record<'_>) -> Result<()> + Sync,
    {
        let par = self.par;
        if self.builder.config().lenient {
            self.par = par.threads(1);
        }
        // `f` must not see the records of a wrongly guessed start.
        self.speculative = false;
        let res = self.fold(|| (), |_, rec| f(rec), |_, _| ());
        self.speculative = true;
        if self.builder.config().lenient && par.thread_count() > 1 {
            self.mode = Mode::Sequential("for_each with lenient quoting".to_string());
        }
        self.par = par;
        res
    }

    /// Have `work` turn the records of each chunk into an output (from
    /// `init`) on the worker threads, and `emit` each output on the calling
    /// thread in file order, once verified. At most two outputs per thread
    /// are in flight: memory is bounded however large the input. This is
    /// the form for writing records out (`to-json`, `select`).
    ///
    /// # Errors
    ///
    /// As [`fold`](Self::fold); the outputs of the records before the error
    /// are emitted first, as a sequential loop would have written them.
    /// An error of `emit` stops reading and is returned.
    ///
    /// `E` is the caller's error type (a reader error becomes one through
    /// `From`, as with grep-searcher's `Sink::Error`): `work` and `emit` can
    /// fail with their own errors, which come back unchanged. Errors are
    /// still exact with [relative numbers](Self::relative_numbers): a task
    /// that fails is read again with exact numbers first.
    pub fn for_each_ordered<O, I, F, C, E>(
        &mut self,
        init: I,
        work: F,
        mut emit: C,
    ) -> Result<(), E>
    where
        O: Send,
        I: Fn() -> O + Sync,
        F: Fn(&mut O, Record<'_>) -> Result<(), E> + Sync,
        C: FnMut(O) -> Result<(), E>,
        E: From<Error> + Send,
    {
        self.run(&init, &each_record(work), &mut |o, _| emit(o))
    }

    /// As [`for_each_ordered`](Self::for_each_ordered), with `work` called
    /// once per chunk to run its own loop over the chunk's records
    /// ([`ChunkRecords::next_record`]). For work that is cheap per record
    /// (writing a few fields out): the compiler then sees the whole loop,
    /// where a closure called per record is a call per record.
    ///
    /// # Examples
    ///
    /// ```no_run
    /// use swath_csv::{ParallelReader, ReaderBuilder};
    /// use std::io::Write;
    ///
    /// let mut rdr = ParallelReader::new(&ReaderBuilder::new(), "big.csv");
    /// let mut out = std::io::stdout().lock();
    /// rdr.for_each_chunk_ordered(
    ///     Vec::new,
    ///     |firsts: &mut Vec<u8>, recs| {
    ///         while let Some(rec) = recs.next_record()? {
    ///             firsts.extend_from_slice(rec.get(0).unwrap_or(b""));
    ///             firsts.push(b'\n');
    ///         }
    ///         Ok(())
    ///     },
    ///     // The caller's error type: a write error comes back as it is.
    ///     |firsts| -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    ///         out.write_all(&firsts)?;
    ///         Ok(())
    ///     },
    /// )?;
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`for_each_ordered`](Self::for_each_ordered).
    pub fn for_each_chunk_ordered<O, I, W, C, E>(
        &mut self,
        init: I,
        work: W,
        mut emit: C,
    ) -> Result<(), E>
    where
        O: Send,
        I: Fn() -> O + Sync,
        W: Fn(&mut O, &mut ChunkRecords<'_>) -> Result<(), E> + Sync,
        C: FnMut(O) -> Result<(), E>,
        E: From<Error> + Send,
    {
        self.run(&init, &work, &mut |o, _| emit(o))
    }

    /// As [`for_each_chunk_ordered`](Self::for_each_chunk_ordered), with
    /// `emit` also given the records each chunk put aside, in file order
    /// (under [`OnBad::PutAside`](crate::OnBad::PutAside); the other forms
    /// drop them). They are the same records, with the same numbers, at
    /// every thread count.
    ///
    /// # Errors
    ///
    /// As [`for_each_chunk_ordered`](Self::for_each_chunk_ordered).
    pub fn for_each_chunk_ordered_with_bad<O, I, W, C, E>(
        &mut self,
        init: I,
        work: W,
        mut emit: C,
    ) -> Result<(), E>
    where
        O: Send,
        I: Fn() -> O + Sync,
        W: Fn(&mut O, &mut ChunkRecords<'_>) -> Result<(), E> + Sync,
        C: FnMut(O, Vec<BadRecord>) -> Result<(), E>,
        E: From<Error> + Send,
    {
        self.run(&init, &work, &mut emit)
    }

    /// The engine: have `work` read each task's records into an
    /// accumulator and hand the accumulators, verified, to `consume` in
    /// file order.
    fn run<A, I, W, C, E>(&mut self, init: &I, work: &W, consume: &mut C) -> Result<(), E>
    where
        A: Send,
        I: Fn() -> A + Sync,
        W: Fn(&mut A, &mut ChunkRecords<'_>) -> Result<(), E> + Sync,
        C: FnMut(A, Vec<BadRecord>) -> Result<(), E>,
        E: From<Error> + Send,
    {
        self.builder.validate()?;
        let src = self.builder.open_source_by_ranges(&self.path).map_err(Error::from)?;
        let reason = if self.par.thread_count() <= 1 {
            Some("one thread".to_string())
        } else if let (Some(_), Some(how), None) =
            (src.text_encoding(), src.text_decoding(), src.ranged_source())
        {
            let compressed = match src.decoding() {
                Some(c) => format!("{}-compressed input, {c}; ", src.compression().name()),
                None => String::new(),
            };
            Some(format!("{compressed}text decoded from {how}"))
        } else if let Some(how) = src.decoding() {
            Some(format!("{}-compressed input, {how}", src.compression().name()))
        } else if src.ranged_source().is_none() {
            Some("not a regular file (a stream or empty)".to_string())
        } else {
            not_parity_safe(&self.builder).map(str::to_string)
        };
        if let Some(why) = reason {
            self.mode = Mode::Sequential(why);
            let rdr = Input::whole(&self.builder, src)?;
            return sequential(rdr, self.par.chunk_len(), init, work, consume);
        }
        let (Some(file), Some(len)) = (src.ranged_source(), src.len()) else {
            unreachable!("a source with a file has a length");
        };
        let mut ctx = Ctx {
            file,
            len,
            path: src.path(),
            builder: &self.builder,
            headers: None,
            expected: None,
            spare: spares::Spares::default(),
        };

        // The header row and the field count, from the top: every task
        // needs them.
        let mut pre = ctx.reader_at(0, 1, 0)?;
        let cfg = self.builder.config();
        let learned = match pre.headers() {
            Ok(h) => {
                ctx.headers = h.cloned();
                if cfg.fields == FieldCount::Learn && !cfg.has_headers {
                    matches!(pre.next_record(), Ok(Some(_)))
                } else {
                    true
                }
            }
            Err(_) => false,
        };
        ctx.expected = pre.expected_fields();
        drop(pre);
        let fallback = |mode: &mut Mode, why: &str| {
            *mode = Mode::Sequential(why.to_string());
            ctx.reader_at(0, 1, 0)
        };
        if !learned || (cfg.fields == FieldCount::Learn && ctx.expected.is_none()) {
            let rdr = fallback(&mut self.mode, "the first record is empty or has an error")?;
            return sequential(rdr, self.par.chunk_len(), init, work, consume);
        }

        let bom_len = bom_len(file);
        let par = self.par;
        let exact = !self.relative;
        let tasks = if exact || !self.speculative {
            let opts = ScanOpts {
                quote: cfg.quoting.then_some(cfg.quote),
                skip_empty: cfg.skip_empty_lines,
                starts: exact,
            };
            // A plan that stopped at a record over the limit ends in a task
            // that runs to the end of input: its reader meets the error.
            let max = cfg.max_record as u64;
            match plan::plan(file, len, bom_len, &par, 1, cfg.kernel, opts, max) {
                Ok(p) => Tasks::Planned(p.tasks),
                Err(e) => {
                    let rdr = fallback(&mut self.mode, &format!("phase 1 failed: {e}"))?;
                    return sequential(rdr, self.par.chunk_len(), init, work, consume);
                }
            }
        } else {
            let opts = CountOpts::new(cfg, ctx.expected);
            let chunk = par.chunk_len();
            Tasks::Guessed(speculate::Guesser::new(file, len, bom_len, chunk, cfg.kernel, opts))
        };

        // Check each task against the one before it, in file order.
        let threads = par.thread_count();
        let mut verifier = Verifier::new(exact);
        let mut run = 0;
        swath::parallel::run_ordered(
            tasks.len(),
            threads,
            2 * threads,
            |i| tasks.get(i).map(|t| (t, ctx.run(&t, init(), work))),
            |i, out| match out {
                Some((task, out)) => {
                    run += 1;
                    verifier.check(i, out, &task, &ctx, init, work, consume)
                }
                // A chunk without a guessed start: its records are the
                // task's before.
                None => true,
            },
        );
        verifier.finish();
        let (tasks, reread) = (run, verifier.reread);
        let Some(resume) = verifier.resume else {
            self.mode = Mode::Parallel { threads, tasks, reread };
            return verifier.outcome;
        };
        let Some(at) = resume.at else {
            // The verified part read to the end of input.
            self.mode = Mode::Parallel { threads, tasks, reread };
            return Ok(());
        };
        self.mode = Mode::Resumed { byte: at.byte, reason: resume.why };
        let rdr = ctx.reader_at(at.byte, at.line, resume.records)?;
        sequential(rdr, par.chunk_len(), init, work, consume)
    }
}

/// Phase 2's tasks: planned by phase 1 before any is read, or guessed
/// one chunk at a time by the worker that reads it.
enum Tasks<'a> {
    Planned(Vec<plan::Task>),
    Guessed(speculate::Guesser<'a>),
}

impl Tasks<'_> {
    fn len(&self) -> usize {
        match self {
            Tasks::Planned(t) => t.len(),
            Tasks::Guessed(g) => g.chunks(),
        }
    }

    /// Task `i`, if there is one (a chunk may have no guessed start).
    fn get(&self, i: usize) -> Option<plan::Task> {
        match self {
            Tasks::Planned(t) => t.get(i).copied(),
            Tasks::Guessed(g) => g.task(i),
        }
    }
}

/// Per-record work as work on a chunk's records.
fn each_record<A, F, E>(fold: F) -> impl Fn(&mut A, &mut ChunkRecords<'_>) -> Result<(), E>
where
    F: Fn(&mut A, Record<'_>) -> Result<(), E>,
    E: From<Error>,
{
    move |acc, recs| {
        while let Some(rec) = recs.next_record()? {
            fold(acc, rec)?;
        }
        Ok(())
    }
}

/// The sequential twin: have `work` read `rdr`'s records into an
/// accumulator, handing it (with the records put aside) to `consume` each
/// time a record starts past another `piece` bytes (so ordered output
/// stays bounded) and at the end.
fn sequential<A, I, W, C, E>(
    rdr: Reader<Input<'_>>,
    piece: u64,
    init: &I,
    work: &W,
    consume: &mut C,
) -> Result<(), E>
where
    I: Fn() -> A,
    W: Fn(&mut A, &mut ChunkRecords<'_>) -> Result<(), E>,
    C: FnMut(A, Vec<BadRecord>) -> Result<(), E>,
    E: From<Error>,
{
    let mut acc = init();
    // The first chunk ends where the first record starts: it is empty, and
    // the next ones end at multiples of `piece` past it.
    let mut recs = ChunkRecords::new(rdr, 0, true);
    let res = loop {
        match work(&mut acc, &mut recs).and_then(|()| Ok(recs.finish()?)) {
            Ok(ChunkEnd { next: Some(start), .. }) => {
                consume(std::mem::replace(&mut acc, init()), recs.rdr.take_bad_records())?;
                recs.next_chunk((start.byte / piece + 1).saturating_mul(piece));
            }
            Ok(ChunkEnd { next: None, .. }) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    consume(acc, recs.rdr.take_bad_records())?;
    res
}

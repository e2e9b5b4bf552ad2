//! Exact split plans: a CSV file cut into byte ranges that workers who know
//! nothing of each other read alone, each exactly its own records, quoted
//! newlines and all (DESIGN.md, core idea 8).
//!
//! A record belongs to the split that holds its first byte (the file's
//! first record, with any BOM or empty lines before it, to the first
//! split); the splits' ranges cover every byte once. Each [`Split`] knows
//! its first record's byte, record number and line, and how many records
//! start in it, so a worker opened on it ([`SplitPlan::reader`],
//! [`ReaderBuilder::from_split`]) numbers records and errors as a read of
//! the whole file would.
//!
//! - [`plan_splits`]: the quote-parity pass of the parallel reader on every
//!   core, parsing no field, in pieces of 4 MiB at most chained in file
//!   order; a record longer than the limit stops it there, and the plan is
//!   that record's error. Each split's reader checks at its end that
//!   the next record starts where the plan says the next split does, so a
//!   plan that does not fit the file is an error, never a wrong record.
//!   Where the quote parity does not hold (lenient bare quotes), the plan
//!   is read and checked split by split, and repaired; with a comment or
//!   escape byte it comes from the sequential reader.
//! - [`plan_splits_speculative`]: where a full pass is too dear, each split
//!   guesses its first record from its first bytes (both quote
//!   hypotheses); the splits are then read in parallel, each checked
//!   against where the one before it ended, and a split whose neighbour
//!   disagrees is read again from there.
//!
//! # Examples
//!
//! ```
//! use swath_csv::{plan_splits, ReaderBuilder, SplitSize};
//!
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("t.csv");
//! std::fs::write(&path, "a,b\n1,\"x\ny\"\n2,z\n3,w\n")?;
//! let plan = plan_splits(&ReaderBuilder::new(), &path, SplitSize::Count(3))?;
//! let mut seen = Vec::new();
//! for i in 0..plan.splits().len() {
//!     let mut rdr = plan.reader(i)?;
//!     while let Some(rec) = rdr.next_record()? {
//!         seen.push((rec.position().record, rec.get_str(0)?.to_string()));
//!     }
//! }
//! assert_eq!(seen, [(2, "1".to_string()), (3, "2".to_string()), (4, "3".to_string())]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod bridge;
mod checked;
mod exact;
mod locate;
mod reader;
mod sequential;
mod verify;

pub use checked::plan_splits_checked;
pub use locate::Cut;
pub use reader::SplitReader;

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use swath::parallel::available_cores;

use crate::error::{Error, Result};
use crate::reader::builder::ReaderBuilder;
use crate::reader::record::OwnedRecord;
use bridge::Top;

/// One split of a plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Split {
    /// Its place in the plan (0-based).
    pub index: usize,
    /// The bytes it owns: records whose first byte lies here are its own.
    pub range: Range<u64>,
    /// Where its first record starts (`0` for the first split, which reads
    /// from the top). A split without records has `start == end`.
    pub start: u64,
    /// Where the next split's first record starts, or the file's length.
    pub end: u64,
    /// The 1-based number of the record at `start` (the header row is
    /// record 1), or of the next record when the split has none.
    pub record: u64,
    /// The 1-based line at `start`.
    pub line: u64,
    /// Records that start in the split (the header row included).
    pub records: u64,
}

/// How to cut the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitSize {
    /// Into this many byte ranges of equal size (at least 1; fewer when
    /// the file is smaller than that many bytes, or when its first record
    /// starts further in than a split of that size reaches: the first split
    /// always holds the first record's first byte).
    Count(usize),
    /// Into ranges of this many bytes (at least 1; longer when the first
    /// record starts further in than that, as for `Count`).
    Bytes(u64),
}

/// How a plan was made.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PlanMethod {
    /// The quote-parity pass (each split's reader checks its end).
    Parity,
    /// The quote-parity pass, then each split read and checked against
    /// the one before (lenient quoting: bare quotes break the parity);
    /// `repaired` splits were read again from the verified start.
    ParityVerified {
        /// Splits read again.
        repaired: usize,
    },
    /// Guessed starts, each split read and checked against the one before;
    /// `repaired` splits were read again from the verified start.
    Speculative {
        /// Splits read again.
        repaired: usize,
    },
    /// The sequential reader, for this reason.
    Sequential(String),
    /// Splits made earlier, by a checkpoint index or in another process
    /// (each split's reader checks its end).
    Index,
}

/// Splits of one file, with what their readers need from the top of the
/// file (the header row, the field count).
#[derive(Clone, Debug)]
pub struct SplitPlan {
    builder: ReaderBuilder,
    path: PathBuf,
    len: u64,
    top: Top,
    splits: Vec<Split>,
    method: PlanMethod,
}

/// Plan the splits of the CSV file at `path` read with `builder`'s settings,
/// by the quote-parity pass on every core (see the [module
/// documentation](self)).
///
/// # Errors
///
/// An I/O error; the builder's configuration error; an error of the
/// header row; the error of a record longer than the limit (found without
/// reading the file past it). With lenient quoting, or a comment or escape
/// byte, a fatal error of a record (too large, too many fields).
pub fn plan_splits(
    builder: &ReaderBuilder,
    path: impl AsRef<Path>,
    size: SplitSize,
) -> Result<SplitPlan> {
    Planner::new(builder, path.as_ref(), size)?.plan(false)
}

/// As [`plan_splits`], but each split guesses its start from its first
/// bytes instead of a parity pass over the whole file; every split is then
/// read and checked against the one before it, and read again from there
/// when they disagree.
///
/// # Errors
///
/// As [`plan_splits`], and a fatal error of a record.
pub fn plan_splits_speculative(
    builder: &ReaderBuilder,
    path: impl AsRef<Path>,
    size: SplitSize,
) -> Result<SplitPlan> {
    Planner::new(builder, path.as_ref(), size)?.plan(true)
}

/// What every way of planning shares: the file, its length and BOM, the
/// cut, and the top of the file.
pub(crate) struct Planner<'a> {
    pub(crate) builder: &'a ReaderBuilder,
    pub(crate) path: &'a Path,
    pub(crate) file: std::sync::Arc<dyn swath::ReadAt>,
    pub(crate) len: u64,
    pub(crate) bom: u64,
    /// Bytes per split.
    pub(crate) chunk: u64,
    pub(crate) threads: usize,
    pub(crate) top: Top,
}

impl<'a> Planner<'a> {
    fn new(builder: &'a ReaderBuilder, path: &'a Path, size: SplitSize) -> Result<Planner<'a>> {
        builder.validate()?;
        let with_path = |e: std::io::Error| Error::from(e).with_path(path);
        let (file, len) = swath::range::open_ranged(path)?;
        // The first bytes, read through short reads and EINTR: a BOM, or
        // the magic of a compressed file, which has no byte ranges to cut
        // (the sequential reader decodes it; a plan would cut its raw bytes).
        let mut head = [0u8; swath::decompress::MAGIC_LEN];
        let got = swath::range::read_full_at(&*file, &mut head, 0).map_err(with_path)?;
        let compression = swath::decompress::Compression::detect(&head[..got]);
        if compression != swath::decompress::Compression::None {
            let msg = format!(
                "{}-compressed input cannot be split into byte ranges; decompress it first",
                compression.name()
            );
            return Err(with_path(std::io::Error::new(std::io::ErrorKind::Unsupported, msg)));
        }
        // Text decoded from another encoding has no byte ranges to cut
        // either: a plan's offsets are of the file, not of its text.
        let mut src = swath::Source::ranged(Arc::clone(&file), len, path);
        if let Some(e) = src.text_to_decode(builder.decoding())? {
            let msg = format!(
                "{e} text cannot be split into byte ranges of its UTF-8; convert it first \
                 (`swath csv select --encoding {e} -c 1- FILE -o utf8.csv`)"
            );
            return Err(with_path(std::io::Error::new(std::io::ErrorKind::Unsupported, msg)));
        }
        // From here on, the records only: a preamble reads as empty lines,
        // and the file ends at its footer.
        let (file, len) = builder.body_of(file, len, path)?;
        let got = swath::range::read_full_at(&*file, &mut head, 0).map_err(with_path)?;
        let bom = if head[..got].starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
        let mut chunk = match size {
            SplitSize::Count(n) => len.div_ceil(n.max(1) as u64).max(1),
            SplitSize::Bytes(b) => b.max(1),
        };
        // A split that starts inside the BOM would own none of the first
        // record and yet come before it; splits of at least 4 bytes never do.
        if bom > 0 {
            chunk = chunk.max(bom + 1);
        }
        let top = bridge::read_top(builder, &*file, len, path)?;
        // Likewise for empty lines before the first record: the first split
        // must hold its first byte. Otherwise the record's chunk is folded
        // into the first split, and the records after it in that chunk lose
        // their own split's start (found by the split_plan fuzz target:
        // BOM, an empty line, a header row, 14 splits).
        if let Some(first) = top.first {
            chunk = chunk.max(first + 1);
        }
        Ok(Planner { builder, path, file, len, bom, chunk, threads: available_cores(), top })
    }

    /// The byte ranges of the splits.
    pub(crate) fn ranges(&self) -> Vec<Range<u64>> {
        if self.len == 0 {
            return std::iter::once(0..0).collect();
        }
        swath::range::split(self.len, self.chunk).collect()
    }

    fn plan(self, speculative: bool) -> Result<SplitPlan> {
        let d = bridge::dialect(self.builder);
        let (splits, method) = if let Some(why) = d.not_parity_safe {
            (sequential::plan(&self)?, PlanMethod::Sequential(why.to_string()))
        } else if self.top.first.is_none() || self.len == 0 {
            (sequential::plan(&self)?, PlanMethod::Sequential("no records".to_string()))
        } else if speculative {
            let guesses = bridge::guessed_starts(
                self.builder,
                &*self.file,
                self.len,
                self.bom,
                self.chunk,
                self.threads,
                self.top.expected,
            )?;
            let (splits, repaired) = verify::plan(&self, &guesses)?;
            (splits, PlanMethod::Speculative { repaired })
        } else if d.lenient {
            let starts = bridge::parity_starts(
                self.builder,
                &*self.file,
                self.len,
                self.bom,
                self.chunk,
                self.threads,
            )?;
            if let Some(starts) = starts {
                let guesses: Vec<u64> = starts.iter().map(|s| s.byte).collect();
                let (splits, repaired) = verify::plan(&self, &guesses)?;
                (splits, PlanMethod::ParityVerified { repaired })
            } else {
                self.after_long_record()?
            }
        } else if let Some(splits) = exact::plan(&self)? {
            (splits, PlanMethod::Parity)
        } else {
            self.after_long_record()?
        };
        Ok(SplitPlan {
            builder: self.builder.clone(),
            path: self.path.to_path_buf(),
            len: self.len,
            top: self.top,
            splits,
            method,
        })
    }
}

impl Planner<'_> {
    /// The plan when the quote-parity pass stopped at a record longer than
    /// the limit, without reading the file past it: the sequential reader's,
    /// which meets that record's error (or an earlier one), and where bare
    /// quotes misled the parity reads on and plans the whole file.
    fn after_long_record(&self) -> Result<(Vec<Split>, PlanMethod)> {
        let why = "a record longer than the limit stopped the quote-parity pass";
        Ok((sequential::plan(self)?, PlanMethod::Sequential(why.to_string())))
    }
}

impl SplitPlan {
    /// A plan of `splits` made earlier (a checkpoint index, or a plan made
    /// in another process and shipped with a query), reading the top of
    /// the file for the header row and the field count. Each split's reader
    /// still checks where it ends and how many records it read, so splits
    /// that are not this file's are an error, not wrong rows.
    ///
    /// # Errors
    ///
    /// The builder's configuration error; an I/O error; an error of the
    /// header row.
    pub fn from_splits(
        builder: &ReaderBuilder,
        path: &Path,
        splits: Vec<Split>,
    ) -> Result<SplitPlan> {
        builder.validate()?;
        let (file, len) = builder.open_ranged(path)?;
        let top = bridge::read_top(builder, &*file, len, path)?;
        Ok(SplitPlan {
            builder: builder.clone(),
            path: path.to_path_buf(),
            len,
            top,
            splits,
            method: PlanMethod::Index,
        })
    }

    /// The splits, in file order.
    pub fn splits(&self) -> &[Split] {
        &self.splits
    }

    /// How the plan was made.
    pub fn method(&self) -> &PlanMethod {
        &self.method
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's length when planned.
    pub fn file_len(&self) -> u64 {
        self.len
    }

    /// The header row, when headers are on.
    pub fn headers(&self) -> Option<&OwnedRecord> {
        self.top.headers.as_ref()
    }

    /// Where the first record (the header row, when there is one) starts:
    /// past a byte order mark, empty lines and skipped lines; `None` when
    /// there is no record.
    pub fn first_record_byte(&self) -> Option<u64> {
        self.top.first
    }

    /// Records in the file (the header row included).
    pub fn records(&self) -> u64 {
        self.splits.iter().map(|s| s.records).sum()
    }

    /// A reader of split `i` alone.
    ///
    /// # Errors
    ///
    /// An I/O error opening the file, or `i` out of range (a configuration
    /// error).
    pub fn reader(&self, i: usize) -> Result<SplitReader> {
        let split = self.splits.get(i).ok_or_else(|| {
            Error::new(crate::ErrorKind::Config(format!(
                "no split {i}: the plan has {}",
                self.splits.len()
            )))
        })?;
        reader::open_split(&self.builder, &self.path, self.len, split, &self.top, 0)
    }

    /// A reader of the records whose first byte lies in `range` (any byte
    /// range, as an engine cuts a file): it starts at the first record of
    /// the plan's split that holds `range.start`, and skips (reading them)
    /// the records before `range.start`. Ranges that are the plan's own
    /// split ranges skip nothing and are checked as [`reader`](Self::reader) is.
    ///
    /// # Errors
    ///
    /// As [`reader`](Self::reader).
    pub fn reader_for_range(&self, range: Range<u64>) -> Result<SplitReader> {
        let a = range.start.min(self.len);
        let b = range.end.clamp(a, self.len);
        // The split holding `a` (the last one for `a == len`).
        let i = self.splits.partition_point(|s| s.range.end <= a).min(self.splits.len() - 1);
        let s = &self.splits[i];
        if s.range.start == a {
            if let Some(j) = self.splits.iter().position(|t| t.range.end == b) {
                // Whole splits: checked against the plan at the end.
                let joined = Split {
                    index: s.index,
                    range: a..b,
                    start: s.start,
                    end: self.splits[j].end,
                    record: s.record,
                    line: s.line,
                    records: self.splits[i..=j].iter().map(|t| t.records).sum(),
                };
                return reader::open_split(
                    &self.builder,
                    &self.path,
                    self.len,
                    &joined,
                    &self.top,
                    0,
                );
            }
        }
        let mut joined = s.clone();
        joined.range = s.range.start..b;
        let mut rdr =
            reader::open_split(&self.builder, &self.path, self.len, &joined, &self.top, a)?;
        rdr.unchecked();
        Ok(rdr)
    }

    /// Pieces of work for `n` workers: consecutive splits joined into at
    /// most `n` byte ranges of about equal size, each starting and ending
    /// at a split boundary (for [`reader_for_range`](Self::reader_for_range)).
    pub fn group_ranges(&self, n: usize) -> Vec<Range<u64>> {
        let n = n.max(1);
        let per = self.len.div_ceil(n as u64).max(1);
        let mut out: Vec<Range<u64>> = Vec::new();
        for s in &self.splits {
            match out.last_mut() {
                Some(r) if r.end - r.start < per => r.end = s.range.end,
                _ => out.push(s.range.clone()),
            }
        }
        out
    }
}

impl ReaderBuilder {
    /// A reader of one split of the file at `path` alone (see [`Split`]):
    /// it reads the header row (or the first record, for the field count)
    /// from the top of the file, then the split's records.
    ///
    /// # Errors
    ///
    /// An I/O error, the configuration's error, an error of the header row.
    pub fn from_split(&self, path: impl AsRef<Path>, split: &Split) -> Result<SplitReader> {
        self.validate()?;
        let path = path.as_ref();
        let (file, len) = self.open_ranged(path)?;
        let top = bridge::read_top(self, &*file, len, path)?;
        reader::open_split(self, path, len, split, &top, 0)
    }
}

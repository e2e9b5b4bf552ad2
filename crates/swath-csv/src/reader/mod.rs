//! The reader: record starts (BOM, empty lines, comments) around the scan
//! machine, refills, limits, field counts, headers and errors.

use std::io::Read;
use std::path::{Path, PathBuf};

use swath::{Buffer, Feed, Source};

mod block;
pub(crate) mod builder;
pub(crate) mod config;
mod cursor;
#[cfg(feature = "serde")]
pub mod deserialize;
mod iter;
mod machine;
mod put_aside;
pub(crate) mod record;
mod resume;
pub(crate) mod settings;

pub use block::{BlockColumn, RecordBlock};
pub use iter::{IntoRecords, Records};
pub(crate) use resume::RecordStart;

use crate::error::{Error, ErrorKind, Position, Result};
use block::BlockRecord;
use config::{Config, FieldCount};
use cursor::Cursor;
use machine::{Machine, Problem, Progress, State, Step};
use record::{OwnedRecord, Record, Span};

use swath::UTF8_BOM as BOM;

/// A fatal error, remembered so every later call reports it again.
#[derive(Clone, Copy, Debug)]
enum Fatal {
    /// The feed has the I/O error; it is sticky there.
    Io,
    TooLarge(usize, Option<Position>),
    TooMany(usize),
    Encoding(&'static str),
}

/// Reads CSV records through one reused buffer, allocating nothing per
/// record.
///
/// ```
/// use swath_csv::Reader;
///
/// let mut rdr = Reader::new(&b"city,pop\nParis,2102650\n\"Rome, IT\",2748109\n"[..]);
/// let mut total = 0u64;
/// while let Some(rec) = rdr.next_record()? {
///     let (_city, pop): (&str, u64) = rec.scan()?;
///     total += pop;
/// }
/// assert_eq!(total, 4850759);
/// # Ok::<(), swath_csv::Error>(())
/// ```
pub struct Reader<R> {
    feed: Feed<R>,
    cfg: Config,
    machine: Machine,
    cur: Cursor,
    spans: Vec<Span>,
    scratch: Vec<u8>,
    /// The fields and records of the last block (`block.rs`).
    block_spans: Vec<Span>,
    block_recs: Vec<BlockRecord>,
    /// Bytes of the last record (terminator included) still to consume.
    pending: usize,
    /// Length of the last record's bytes, terminator excluded.
    rec_len: usize,
    /// Position of the last record.
    rec_pos: Position,
    /// True while the last record can be looked at.
    has_record: bool,
    /// Line number of the first unconsumed byte.
    line: u64,
    /// Records parsed so far (the header row included).
    records: u64,
    /// A record ended with `\r` at the end of a fill: a `\n` first in the
    /// next fill belongs to that terminator.
    skip_lf: bool,
    in_comment: bool,
    started: bool,
    headers: Option<OwnedRecord>,
    headers_read: bool,
    expected: Option<usize>,
    fatal: Option<(Fatal, Position)>,
    /// Nothing unusual is pending (see [`Reader::is_steady`]): the next
    /// record may take the fast path. Recomputed after every slow step.
    steady: bool,
    /// Records put aside and not yet taken (`crate::bad`).
    bad: Vec<crate::BadRecord>,
    /// The last record put aside ended with a `\r` at the end of a fill:
    /// a `\n` first in the next fill is the rest of its terminator.
    lf_owed: bool,
    /// This reader continues a read from the middle of its input
    /// (`resume_at`): its first record is not the input's.
    resumed: bool,
}

impl<R: Read> Reader<R> {
    /// A reader with the default settings (see [`ReaderBuilder`](crate::ReaderBuilder)).
    pub fn new(rdr: R) -> Reader<R> {
        Reader::with_config(rdr, Config::default())
    }

    pub(crate) fn with_config(rdr: R, cfg: Config) -> Reader<R> {
        let buf = Buffer::with_capacity(cfg.capacity);
        Reader::with_buffer(rdr, cfg, buf)
    }

    /// Like `with_config`, reading into `buf` (emptied first): parallel
    /// tasks recycle their buffers, where a fresh one costs a page fault
    /// per 4 KiB.
    pub(crate) fn with_buffer(rdr: R, cfg: Config, mut buf: Buffer) -> Reader<R> {
        buf.clear();
        buf.set_offset(0);
        // One byte over the limit tells us a record is too long; and the
        // start needs 4 bytes to recognise a byte order mark.
        buf.set_max_capacity(cfg.max_record.saturating_add(1).max(4));
        let expected = match cfg.fields {
            FieldCount::Fixed(n) => Some(n),
            _ => None,
        };
        Reader {
            feed: Feed::new(rdr, buf),
            machine: Machine::new(&cfg),
            cfg,
            cur: Cursor::default(),
            spans: Vec::new(),
            scratch: Vec::new(),
            block_spans: Vec::new(),
            block_recs: Vec::new(),
            pending: 0,
            rec_len: 0,
            rec_pos: Position::default(),
            has_record: false,
            line: 1,
            records: 0,
            skip_lf: false,
            in_comment: false,
            started: false,
            headers: None,
            headers_read: false,
            expected,
            fatal: None,
            steady: false,
            bad: Vec::new(),
            lf_owed: false,
            resumed: false,
        }
    }

    /// The next record, borrowed from the buffer and valid until the next
    /// call, or `None` at end of input. With headers on, the header row is
    /// read first and not returned (see [`headers`](Self::headers)).
    ///
    /// # Errors
    ///
    /// Recoverable ones (the record is still readable with
    /// [`record`](Self::record), and the next call goes on):
    /// [`ErrorKind::FieldCount`], and in strict mode
    /// [`ErrorKind::BareQuote`], [`ErrorKind::TextAfterQuote`],
    /// [`ErrorKind::UnterminatedQuote`] (the record is then parsed as the
    /// lenient mode would). Sticky ones: [`ErrorKind::Io`],
    /// [`ErrorKind::RecordTooLarge`], [`ErrorKind::TooManyFields`],
    /// [`ErrorKind::UnsupportedEncoding`].
    // Inlined whole so that the record's parts stay in registers rather
    // than travel through memory in the `Result` (about 45 instructions a
    // record, callgrind); the rare paths are calls.
    #[inline(always)]
    pub fn next_record(&mut self) -> Result<Option<Record<'_>>> {
        if self.advance_keeping()? {
            Ok(Some(self.current()))
        } else {
            Ok(None)
        }
    }

    /// Read the next record into `out`, reusing its allocations. Returns
    /// false at end of input.
    ///
    /// # Errors
    ///
    /// As [`next_record`](Self::next_record); after a recoverable error,
    /// `out` holds the record.
    pub fn read_into(&mut self, out: &mut OwnedRecord) -> Result<bool> {
        match self.advance_keeping() {
            Ok(true) => {
                self.record().copy_into(out);
                Ok(true)
            }
            Ok(false) => Ok(false),
            Err(e) => {
                if self.has_record && e.is_recoverable() {
                    self.record().copy_into(out);
                }
                Err(e)
            }
        }
    }

    /// Call `f` with every record until it returns false or input ends.
    ///
    /// # Errors
    ///
    /// The first error of any kind stops reading and is returned.
    pub fn for_each_record(&mut self, mut f: impl FnMut(Record<'_>) -> bool) -> Result<()> {
        while let Some(rec) = self.next_record()? {
            if !f(rec) {
                break;
            }
        }
        Ok(())
    }

    /// The header row, reading it first if needed; `None` when headers are
    /// off or the input is empty.
    ///
    /// # Errors
    ///
    /// As [`next_record`](Self::next_record), for the header row.
    pub fn headers(&mut self) -> Result<Option<&OwnedRecord>> {
        if self.cfg.has_headers && !self.headers_read {
            self.read_headers()?;
        }
        Ok(self.headers.as_ref())
    }

    /// The column of header `name`, when there are headers and it is one.
    ///
    /// The header row is read by [`headers`](Self::headers) or the first
    /// [`next_record`](Self::next_record); before either, this is `None`
    /// (it cannot read the row itself: it borrows the reader immutably).
    ///
    /// ```
    /// let mut rdr = swath_csv::Reader::new(&b"id,name\n1,Ada\n"[..]);
    /// assert_eq!(rdr.index_of("name"), None); // not read yet
    /// rdr.headers()?;
    /// assert_eq!(rdr.index_of("name"), Some(1));
    /// # Ok::<(), swath_csv::Error>(())
    /// ```
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.headers.as_ref()?.iter().position(|h| h == name.as_bytes())
    }

    /// The last record read (also after a recoverable error, which may be
    /// about the header row).
    ///
    /// # Panics
    ///
    /// Panics when no record has been read, or after end of input or a
    /// fatal error.
    pub fn record(&self) -> Record<'_> {
        assert!(self.has_record, "no current record");
        self.current()
    }

    /// The last record, once `advance` has returned true. Inlined into
    /// `next_record`: out of line, it was a call per record (18
    /// instructions, callgrind).
    #[inline(always)]
    pub(crate) fn current(&self) -> Record<'_> {
        Record {
            data: &self.feed.buffer().data()[..self.rec_len],
            scratch: &self.scratch,
            spans: &self.spans,
            pos: self.rec_pos,
            headers: self.headers.as_ref(),
        }
    }

    /// Where the last record started (byte 0-based; line and record
    /// 1-based, the header row being record 1). Lines are counted by `\n`,
    /// as the `csv` crate and `wc -l` do.
    pub fn position(&self) -> Position {
        self.rec_pos
    }

    /// Records parsed so far, the header row included.
    pub fn records_read(&self) -> u64 {
        self.records
    }

    /// The inner reader.
    pub fn get_ref(&self) -> &R {
        self.feed.get_ref()
    }

    /// The input's path, when known.
    pub fn path(&self) -> Option<&Path> {
        self.feed.path()
    }

    #[cold]
    #[inline(never)]
    fn read_headers(&mut self) -> Result<()> {
        self.headers_read = true;
        let res = self.read_one();
        if self.has_record {
            let mut h = OwnedRecord::new();
            self.record().copy_into(&mut h);
            self.headers = Some(h);
            // The header row is not a record to hand out, except to show
            // what a recoverable error in it is about.
            self.has_record = res.is_err();
        }
        self.steady = self.is_steady();
        res.map(|_| ())
    }

    /// Tell the feed the input's length at open (a shorter input is an
    /// error) and its path (errors name it).
    pub(crate) fn set_source_info(&mut self, len: Option<u64>, path: Option<PathBuf>) {
        self.feed.expect_len(len);
        self.feed.set_path(path);
    }

    /// Read the next data record; true when one is ready.
    #[inline(always)]
    pub(crate) fn advance(&mut self) -> Result<bool> {
        self.has_record = false;
        self.feed.buffer_mut().consume(self.pending);
        self.pending = 0;
        if self.steady {
            if let Some(res) = self.read_fast() {
                return res;
            }
        }
        self.advance_slow()
    }

    /// The common case, straight-line: the buffer starts with a record
    /// (not an empty line or comment) that fits the limit, and the steady
    /// state holds. Measured with callgrind: the general path spent about
    /// 200 instructions a record on checks that are all false here. `None`
    /// when the buffer does not start that way (nothing changed then).
    #[inline(always)]
    fn read_fast(&mut self) -> Option<Result<bool>> {
        let data = self.feed.buffer().data();
        let &b = data.first()?;
        if b == b'\n' || b == b'\r' || Some(b) == self.cfg.comment {
            return None;
        }
        // Past the limit the general path cuts the data first.
        if data.len() > self.cfg.max_record {
            return None;
        }
        let start = self.begin();
        let mut s = Progress::new();
        let data = self.feed.buffer().data();
        let step = self.machine.fast_fields(
            &mut s,
            &mut self.cur,
            data,
            start,
            &mut self.spans,
            &mut self.scratch,
        );
        if let Some(Step::End(i)) = step {
            // `i < data.len() <= max_record`: not too large.
            let n = self.spans.len();
            if let Some(term) = fast_terminator(data, i) {
                if self.any_count() || self.expected == Some(n) {
                    self.line += 1 + s.lines;
                    self.rec_len = i;
                    self.pending = i + term;
                    self.has_record = true;
                    return Some(Ok(true));
                }
            }
        }
        Some(self.resume_in_general_machine(start, s, step))
    }

    /// The general path, from the record's start.
    #[inline(never)]
    fn advance_slow(&mut self) -> Result<bool> {
        if self.cfg.has_headers && !self.headers_read {
            if let Err(e) = self.read_headers() {
                self.steady = self.is_steady();
                return Err(e);
            }
        }
        let res = self.read_one();
        self.steady = self.is_steady();
        res
    }

    /// The rest of a record the fast path began (a quote, a `\r`, the
    /// end of the buffer, a field count to learn or check).
    #[cold]
    #[inline(never)]
    fn resume_in_general_machine(
        &mut self,
        start: u64,
        s: Progress,
        step: Option<Step>,
    ) -> Result<bool> {
        let res = self.scan_record(start, s, step);
        self.steady = self.is_steady();
        res
    }

    /// True when none of the rare states holds: not started, a fatal error,
    /// a header row to read, a `\n` to skip after a `\r`, a comment.
    fn is_steady(&self) -> bool {
        self.started
            && self.fatal.is_none()
            && !self.skip_lf
            && !self.in_comment
            && (self.headers_read || !self.cfg.has_headers)
    }

    fn any_count(&self) -> bool {
        self.cfg.fields == FieldCount::Any
    }

    /// Start a record at the buffer's first byte: its number and position.
    #[inline(always)]
    fn begin(&mut self) -> u64 {
        self.spans.clear();
        self.scratch.clear();
        self.records += 1;
        let start = self.feed.buffer().offset();
        self.rec_pos = Position::new(start, self.line, self.records);
        start
    }

    /// Read the next record, header or not.
    fn read_one(&mut self) -> Result<bool> {
        self.has_record = false;
        self.feed.buffer_mut().consume(self.pending);
        self.pending = 0;
        if let Some(f) = self.fatal {
            return Err(self.fatal_error(f));
        }
        if !self.started {
            self.start()?;
        }
        if !self.skip_to_record()? {
            return Ok(false);
        }
        let start = self.begin();
        let data = self.feed.buffer().data();
        if data[0] == b'\n' || data[0] == b'\r' {
            // An empty line kept as a record of one empty field.
            self.spans.push(Span::default());
            return self.finish(Progress::new(), Some(0));
        }
        self.scan_record(start, Progress::new(), None)
    }

    /// Progress the record that starts at the buffer's first byte (absolute
    /// offset `start`) on from `s`, refilling as needed; `first` is what a
    /// run already done over the current data returned.
    fn scan_record(
        &mut self,
        start: u64,
        mut s: Progress,
        mut first: Option<Step>,
    ) -> Result<bool> {
        // The machine never looks past the first byte over the limit, so
        // a too-long record fails in the same state (open quote or not)
        // however the input was chunked (found by the fuzzer).
        let limit = self.cfg.max_record.saturating_add(1);
        loop {
            let mut data = self.feed.buffer().data();
            if data.len() > limit {
                data = &data[..limit];
                // Cached masks may cover bytes past the cut.
                self.cur.invalidate();
            }
            let step = match first.take() {
                Some(step) => step,
                None => self.machine.run(
                    &mut s,
                    &mut self.cur,
                    data,
                    start,
                    &mut self.spans,
                    &mut self.scratch,
                ),
            };
            match step {
                Step::End(i) => {
                    if i > self.cfg.max_record {
                        return Err(self.too_large(&s));
                    }
                    return self.finish(s, Some(i));
                }
                Step::TooManyFields => {
                    let f = Fatal::TooMany(self.cfg.max_fields);
                    return Err(self.set_fatal(f, self.rec_pos));
                }
                Step::More => {
                    if data.len() > self.cfg.max_record {
                        return Err(self.too_large(&s));
                    }
                    if !self.refill()? {
                        let data = self.feed.buffer().data();
                        if !s.finish_at_eof(
                            data,
                            &mut self.spans,
                            &mut self.scratch,
                            self.machine.max_fields,
                        ) {
                            let f = Fatal::TooMany(self.cfg.max_fields);
                            return Err(self.set_fatal(f, self.rec_pos));
                        }
                        return self.finish(s, None);
                    }
                }
            }
        }
    }

    /// Complete a record whose terminator is at `term` (none at end of
    /// input): account for its bytes and lines, then check it.
    #[inline(always)]
    fn finish(&mut self, s: Progress, term: Option<usize>) -> Result<bool> {
        let data = self.feed.buffer().data();
        self.line += s.lines;
        match term {
            Some(i) => {
                self.rec_len = i;
                self.pending = i + 1;
                if data[i] == b'\n' {
                    self.line += 1;
                } else if let Some(&next) = data.get(i + 1) {
                    if next == b'\n' {
                        self.pending += 1;
                        self.line += 1;
                    }
                } else {
                    self.skip_lf = !self.feed.is_eof();
                }
            }
            None => {
                self.rec_len = data.len();
                self.pending = data.len();
            }
        }
        self.has_record = true;
        // Learn or check the field count first, so that a record with a
        // quoting error still sets the count for the ones after it (found
        // by the fuzzer); the quoting error is the one reported.
        let got = self.spans.len();
        let mut count_err = None;
        if self.cfg.fields != FieldCount::Any {
            match self.expected {
                None => self.expected = Some(got),
                Some(expected) if expected != got => {
                    count_err = Some(ErrorKind::FieldCount { expected, got });
                }
                Some(_) => {}
            }
        }
        if let Some((p, at, lines)) = s.problem {
            if !self.cfg.lenient {
                let kind = match p {
                    Problem::BareQuote => ErrorKind::BareQuote,
                    Problem::TextAfterQuote => ErrorKind::TextAfterQuote,
                    Problem::UnterminatedQuote => ErrorKind::UnterminatedQuote,
                };
                let pos = Position::new(
                    self.rec_pos.byte + at as u64,
                    self.rec_pos.line + lines,
                    self.rec_pos.record,
                );
                return Err(self.locate(Error::new(kind).at(pos).in_record(self.rec_pos)));
            }
        }
        if let Some(kind) = count_err {
            let err = Error::new(kind).at(self.rec_pos).in_record(self.rec_pos);
            return Err(self.locate(err));
        }
        Ok(true)
    }

    /// Once, at the start: strip a UTF-8 BOM however the input is chunked,
    /// and (strict mode) refuse UTF-16/32.
    fn start(&mut self) -> Result<()> {
        while self.feed.buffer().len() < 4 && self.refill()? {}
        self.started = true;
        let data = self.feed.buffer().data();
        if data.starts_with(BOM) {
            self.feed.buffer_mut().consume(BOM.len());
            return Ok(());
        }
        if self.cfg.lenient {
            return Ok(());
        }
        let enc = if data.starts_with(b"\xFF\xFE\0\0") {
            "UTF-32LE"
        } else if data.starts_with(b"\0\0\xFE\xFF") {
            "UTF-32BE"
        } else if data.starts_with(b"\xFF\xFE") {
            "UTF-16LE"
        } else if data.starts_with(b"\xFE\xFF") {
            "UTF-16BE"
        } else {
            return Ok(());
        };
        Err(self.set_fatal(Fatal::Encoding(enc), Position::new(0, 1, 0)))
    }

    /// Skip empty lines (unless kept) and comment lines. False at end of
    /// input; true when the buffer starts with a record.
    fn skip_to_record(&mut self) -> Result<bool> {
        loop {
            let data = self.feed.buffer().data();
            if self.in_comment {
                // A comment ends at `\n` or `\r` (the csv crate: `\n` only,
                // `docs/bad-inputs.md` A3.2).
                match memchr::memchr2(b'\n', b'\r', data) {
                    Some(i) => {
                        self.in_comment = false;
                        if data[i] == b'\n' {
                            self.line += 1;
                        } else {
                            self.skip_lf = true;
                        }
                        self.feed.buffer_mut().consume(i + 1);
                    }
                    None => {
                        self.feed.buffer_mut().clear();
                        // End of input inside a comment: no record (the csv
                        // crate makes a spurious `[""]`, A3.1).
                        if !self.refill()? {
                            return Ok(false);
                        }
                    }
                }
                continue;
            }
            let Some(&b) = data.first() else {
                if !self.refill()? {
                    return Ok(false);
                }
                continue;
            };
            if self.skip_lf {
                self.skip_lf = false;
                if self.lf_owed {
                    put_aside::pay_lf(&mut self.lf_owed, &mut self.bad, b == b'\n');
                }
                if b == b'\n' {
                    self.line += 1;
                    self.feed.buffer_mut().consume(1);
                    continue;
                }
            }
            if b == b'\n' || b == b'\r' {
                if !self.cfg.skip_empty_lines {
                    return Ok(true);
                }
                let n = data.iter().position(|&c| c != b'\n' && c != b'\r').unwrap_or(data.len());
                self.line += swath::count::count_byte(&data[..n], b'\n');
                self.feed.buffer_mut().consume(n);
                continue;
            }
            if Some(b) == self.cfg.comment {
                self.in_comment = true;
                continue;
            }
            return Ok(true);
        }
    }

    /// Read more input (the cached masks are stale after). False at end.
    fn refill(&mut self) -> Result<bool> {
        self.cur.invalidate();
        match self.feed.refill(self.line) {
            Ok(more) => Ok(more),
            Err(e) => {
                self.fatal = Some((Fatal::Io, Position::default()));
                Err(Error::from(e).in_record(self.rec_pos))
            }
        }
    }

    fn too_large(&mut self, s: &Progress) -> Error {
        let open = matches!(s.state, State::Quoted | State::Escaped).then(|| {
            let (at, lines) = s.quote_open;
            Position::new(
                self.rec_pos.byte + at as u64,
                self.rec_pos.line + lines,
                self.rec_pos.record,
            )
        });
        self.set_fatal(Fatal::TooLarge(self.cfg.max_record, open), self.rec_pos)
    }

    fn set_fatal(&mut self, f: Fatal, pos: Position) -> Error {
        self.fatal = Some((f, pos));
        self.has_record = false;
        self.fatal_error((f, pos))
    }

    fn fatal_error(&mut self, (f, pos): (Fatal, Position)) -> Error {
        let kind = match f {
            Fatal::Io => {
                return match self.feed.refill(self.line) {
                    Err(e) => Error::from(e),
                    Ok(_) => {
                        Error::from(std::io::Error::other("reading stopped after an I/O error"))
                    }
                };
            }
            Fatal::TooLarge(limit, open_quote) => ErrorKind::RecordTooLarge { limit, open_quote },
            Fatal::TooMany(limit) => ErrorKind::TooManyFields { limit },
            Fatal::Encoding(enc) => ErrorKind::UnsupportedEncoding(enc),
        };
        self.locate(Error::new(kind).at(pos).in_record(pos))
    }

    fn locate(&self, err: Error) -> Error {
        match self.feed.path() {
            Some(p) => err.with_path(p),
            None => err,
        }
    }
}

/// The length of the terminator at `data[i]` when the fast paths take it
/// (`read_fast`, blocks): `\n`, or `\r\n` whole in the data. A lone `\r`,
/// or one at the end of the data (a `\n` may come in the next fill), is
/// the general path's.
#[inline(always)]
pub(crate) fn fast_terminator(data: &[u8], i: usize) -> Option<usize> {
    match (data[i], data.get(i + 1)) {
        (b'\n', _) => Some(1),
        (b'\r', Some(b'\n')) => Some(2),
        _ => None,
    }
}

impl Reader<Source> {
    /// Open `path` (`-` for stdin) with the default settings.
    ///
    /// # Errors
    ///
    /// The open error, with the path.
    pub fn from_path(path: impl AsRef<Path>) -> Result<Reader<Source>> {
        crate::ReaderBuilder::new().from_path(path)
    }

    /// A reader over an opened [`Source`]: errors name its path, and a file
    /// that ends short of its size at open is an error.
    pub(crate) fn over_source(src: Source, cfg: Config) -> Reader<Source> {
        let len = src.len();
        let path = src.path().map(Path::to_path_buf);
        let mut rdr = Reader::with_config(src, cfg);
        rdr.set_source_info(len, path);
        rdr
    }
}

impl<R> std::fmt::Debug for Reader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("feed", &self.feed)
            .field("line", &self.line)
            .field("records", &self.records)
            .finish()
    }
}

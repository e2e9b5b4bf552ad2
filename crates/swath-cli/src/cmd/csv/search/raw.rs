//! `csv search` with the prefilter (`needles.rs`): only the records whose
//! raw bytes hold a needle are parsed into fields and matched; the rest of
//! the file is never parsed.
//!
//! Exactness: this path runs only on a regular file that the validating
//! scan (`swath_csv::ParallelReader::count`, in `Mode::Scanned`) found
//! clean under strict quoting with no escape or comment byte (the caller
//! checks; anything else takes the per-record path, which meets the error
//! exactly as before). In a clean file every quote byte opens or closes a
//! quoted field, or is one of a doubled pair inside one: from a record
//! start, the bytes before a position hold an even number of quote bytes
//! exactly when the position is outside quotes. So a CR or LF at an even
//! count ends a record. The file is cut at exact record starts, one per
//! chunk (`ParallelReader::record_starts`: memory is bounded by the chunk
//! count, not the record count); in each stretch the record holding a
//! needle is found by that parity and split alone (`split_clean`, or
//! swath-csv's reader for any other shape), which gives the same fields as
//! the whole-file read. Output goes in file order, a window of stretches
//! at a time (memory stays bounded).

use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use memchr::{memchr2_iter, memchr3_iter};
use swath_csv::{OwnedRecord, ReaderBuilder, WriterBuilder};

use super::needles::Needles;
use super::parallel::{ChunkWriter, Emitter, Found};
use super::Filter;

/// One prefiltered search of a clean regular file.
pub struct RawJob<'a> {
    pub filter: &'a Filter,
    pub needles: &'a Needles,
    /// The input's reader settings, the header row read as data.
    pub builder: &'a ReaderBuilder,
    /// The quote byte, when quoting is on.
    pub quote: Option<u8>,
    /// The field delimiter.
    pub delim: u8,
    /// Records starting at or before this byte are the caller's (the
    /// first record: the header row, or data written already).
    pub first_at: u64,
    /// Count only; write nothing.
    pub count_only: bool,
    pub threads: usize,
}

impl RawJob<'_> {
    /// Search `path` cut at `starts` (exact record starts, ascending, the
    /// first 0: one per chunk), writing kept records in `dialect` with
    /// `emitter`. The outer error is the output's; the inner the input's,
    /// or the records kept.
    pub fn run(
        &self,
        path: &Path,
        starts: &[u64],
        dialect: &WriterBuilder,
        emitter: &mut Emitter<'_, impl Write>,
    ) -> io::Result<anyhow::Result<u64>> {
        // A local file or a remote object, read by ranges, opened as the
        // parallel reader opened it (`open_source_by_ranges`): the bytes searched are
        // the bytes it scanned, whatever `open_source_by_ranges` makes of the path.
        let opened = self.builder.open_source_by_ranges(path).and_then(|src| {
            let file = src.shared_ranged_source()?;
            Ok(file.zip(src.len()))
        });
        let (file, len) = match opened {
            Ok(Some(opened)) => opened,
            Ok(None) => {
                return Ok(Err(anyhow::anyhow!("{}: not readable by ranges", path.display())));
            }
            Err(e) => return Ok(Err(anyhow::Error::new(e))),
        };
        let mut bounds: Vec<(u64, u64)> = Vec::with_capacity(starts.len());
        for (i, &a) in starts.iter().enumerate() {
            let b = starts.get(i + 1).copied().unwrap_or(len);
            if a < b {
                bounds.push((a, b));
            }
        }
        let threads = self.threads.max(1);
        let mut total = 0u64;
        for window in bounds.chunks(threads * 2) {
            let next = AtomicUsize::new(0);
            let slots: Vec<Mutex<Option<anyhow::Result<Found>>>> =
                window.iter().map(|_| Mutex::new(None)).collect();
            std::thread::scope(|s| {
                for _ in 0..threads.min(window.len()) {
                    s.spawn(|| {
                        let mut buf = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(&(a, b)) = window.get(i) else { break };
                            let res = self.stretch(&*file, a, b, &mut buf, dialect);
                            *slots[i].lock().expect("a slot") = Some(res);
                        }
                    });
                }
            });
            for slot in slots {
                let found = match slot.into_inner().expect("a slot").expect("every slot is filled")
                {
                    Ok(f) => f,
                    Err(e) => return Ok(Err(e)),
                };
                total += found.n;
                emitter.emit(&found)?;
            }
        }
        Ok(Ok(total))
    }

    /// The kept records of the records in `a..b` (whole records).
    fn stretch(
        &self,
        file: &dyn swath::ReadAt,
        a: u64,
        b: u64,
        buf: &mut Vec<u8>,
        dialect: &WriterBuilder,
    ) -> anyhow::Result<Found> {
        let n = usize::try_from(b - a)?;
        buf.clear();
        buf.resize(n, 0);
        let got = swath::range::read_full_at(file, buf, a)?;
        anyhow::ensure!(
            got == n,
            "the file changed while it was read (short at byte {})",
            a + got as u64
        );
        let mut found = Found::default();
        let mut wtr = ChunkWriter::new(dialect, &mut found, self.count_only);
        let mut rec = OwnedRecord::new();
        let mut parity = Parity { quote: self.quote, pos: 0, inside: false, record: 0 };
        let mut done = 0usize;
        let mut err = None;
        self.needles.each_start(buf, |at| {
            if at < done {
                return true;
            }
            let start = parity.record_at(buf, at);
            let end = parity.record_end(buf, at);
            done = end;
            let byte = a + start as u64;
            if byte <= self.first_at {
                return true;
            }
            match self.keep(&buf[start..end], byte, &mut rec, &mut wtr, &mut found) {
                Ok(()) => true,
                Err(e) => {
                    err = Some(e);
                    false
                }
            }
        });
        if let Some(e) = err {
            return Err(e);
        }
        wtr.finish(&mut found)?;
        Ok(found)
    }

    /// Parse the one record `raw` (its terminator excluded), which starts
    /// at `byte`, into `rec`; keep it in `found` if the filter does.
    fn keep(
        &self,
        raw: &[u8],
        byte: u64,
        rec: &mut OwnedRecord,
        wtr: &mut ChunkWriter,
        found: &mut Found,
    ) -> anyhow::Result<()> {
        if split_clean(raw, self.delim, self.quote, rec) {
            let rec = rec.as_record();
            if self.filter.keeps(&rec) {
                wtr.keep(found, &rec)?;
            }
            return Ok(());
        }
        // Not the plain shape `split_clean` knows: the reader's parse.
        let mut b = self.builder.clone();
        b.capacity(raw.len() + 1);
        // Not at the top: a BOM here is data, as in the whole-file read.
        let mut rdr = b.from_reader_at(raw, swath::Position::new(byte, 1, 1))?;
        let rec = rdr.next_record()?.ok_or_else(|| {
            anyhow::anyhow!(
                "internal error: no record at byte {byte} where the prefilter found one"
            )
        })?;
        if self.filter.keeps(&rec) {
            wtr.keep(found, &rec)?;
        }
        Ok(())
    }
}

/// Split the clean record `raw` (terminator excluded) into `rec`'s
/// fields as the reader does under strict quoting with no escape byte:
/// a quoted field loses its enclosing quotes and each doubled quote
/// becomes one. False (rec then unspecified) for anything else, which the
/// caller gives to the reader instead: a stray quote, text after a closing
/// quote, an empty record.
fn split_clean(raw: &[u8], delim: u8, quote: Option<u8>, rec: &mut OwnedRecord) -> bool {
    rec.clear();
    if raw.is_empty() {
        return false;
    }
    let mut field: Vec<u8> = Vec::new();
    let mut i = 0;
    loop {
        match quote {
            Some(q) if raw.get(i) == Some(&q) => {
                field.clear();
                i += 1;
                loop {
                    let Some(at) = memchr::memchr(q, &raw[i..]) else { return false };
                    field.extend_from_slice(&raw[i..i + at]);
                    i += at + 1;
                    if raw.get(i) == Some(&q) {
                        field.push(q);
                        i += 1;
                    } else {
                        break;
                    }
                }
                rec.push_field(&field);
                match raw.get(i) {
                    None => return true,
                    Some(&b) if b == delim => i += 1,
                    Some(_) => return false,
                }
            }
            _ => {
                let rest = &raw[i..];
                let end = memchr::memchr(delim, rest).unwrap_or(rest.len());
                let text = &rest[..end];
                if quote.is_some_and(|q| text.contains(&q)) {
                    return false;
                }
                rec.push_field(text);
                i += end;
                if i == raw.len() {
                    return true;
                }
                i += 1;
            }
        }
        if i == raw.len() {
            // A delimiter last: one more, empty, field.
            rec.push_field(b"");
            return true;
        }
    }
}

/// The quote parity of a clean stretch, walked forward once: where the
/// record holding a position starts, and where it ends.
struct Parity {
    quote: Option<u8>,
    /// Bytes before this are walked.
    pos: usize,
    /// Whether `pos` is inside quotes.
    inside: bool,
    /// Where the last record starting before `pos` starts.
    record: usize,
}

impl Parity {
    /// Walk to `to`; the start of the record holding byte `to` (`to` is
    /// not a terminator).
    fn record_at(&mut self, buf: &[u8], to: usize) -> usize {
        let part = &buf[self.pos..to];
        match self.quote {
            None => {
                if let Some(t) = memchr2_iter(b'\n', b'\r', part).next_back() {
                    self.record = self.pos + t + 1;
                }
            }
            Some(q) => {
                for i in memchr3_iter(q, b'\n', b'\r', part) {
                    if part[i] == q {
                        self.inside = !self.inside;
                    } else if !self.inside {
                        self.record = self.pos + i + 1;
                    }
                }
            }
        }
        self.pos = to;
        self.record
    }

    /// Walk from `pos` (inside the record) to its terminator: the end of
    /// the record (the buffer's end for the last record without one).
    /// Walking stops just past the terminator, outside quotes.
    fn record_end(&mut self, buf: &[u8], from: usize) -> usize {
        debug_assert_eq!(from, self.pos);
        let part = &buf[from..];
        let end = match self.quote {
            None => memchr2_iter(b'\n', b'\r', part).next().map(|t| from + t),
            Some(q) => {
                let mut end = None;
                for i in memchr3_iter(q, b'\n', b'\r', part) {
                    if part[i] == q {
                        self.inside = !self.inside;
                    } else if !self.inside {
                        end = Some(from + i);
                        break;
                    }
                }
                end
            }
        };
        match end {
            Some(e) => {
                self.pos = e + 1;
                self.record = e + 1;
                self.inside = false;
                e
            }
            None => {
                self.pos = buf.len();
                buf.len()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::split_clean;
    use swath_csv::{OwnedRecord, ReaderBuilder};

    /// `split_clean` against its slow twin, the reader, on clean records
    /// of every shape; and false where the shape is not a plain one.
    #[test]
    fn split_clean_is_the_readers_split() {
        let records: &[&[u8]] = &[
            b"a",
            b"a,b",
            b",",
            b"a,",
            b",,a",
            b"\"\"",
            b"\"\",",
            b",\"\"",
            b"\"a,b\",c",
            b"\"a\"\"b\",\"\"\"\"",
            b"x,\"a\nb\r\nc\",y",
            b"\xEF\xBB\xBFab,\"\xEF\xBB\xBF\"",
            "é,\"é\"".as_bytes(),
        ];
        for delim in [b',', b';'] {
            for raw in records {
                let raw: Vec<u8> = raw.iter().map(|&b| if b == b',' { delim } else { b }).collect();
                let mut b = ReaderBuilder::new();
                b.delimiter(delim).has_headers(false);
                let mut rdr = b.from_reader_at(&raw[..], swath::Position::new(7, 1, 1)).unwrap();
                let want: Vec<Vec<u8>> =
                    rdr.next_record().unwrap().unwrap().iter().map(<[u8]>::to_vec).collect();
                let mut rec = OwnedRecord::new();
                assert!(split_clean(&raw, delim, Some(b'"'), &mut rec), "{raw:?}");
                let got: Vec<Vec<u8>> = rec.iter().map(<[u8]>::to_vec).collect();
                assert_eq!(got, want, "{:?}", String::from_utf8_lossy(&raw));
            }
        }
        let mut rec = OwnedRecord::new();
        for odd in [&b""[..], b"a\"b", b"\"a\"b", b"\"a"] {
            assert!(!split_clean(odd, b',', Some(b'"'), &mut rec), "{odd:?}");
        }
        // Without quoting, a quote byte is data.
        assert!(split_clean(b"a\"b", b',', None, &mut rec));
        assert_eq!(rec.get(0), Some(&b"a\"b"[..]));
    }
}

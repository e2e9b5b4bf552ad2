//! Sniffing a CSV file's dialect: delimiter, quote byte and escape style,
//! header row, line terminator, byte order mark and encoding, with how
//! sure the guess is.
//!
//! Samples are spread over the whole file and start at exact record
//! starts ([`ParallelReader::record_starts`]: one SIMD pass of the quote
//! parity), so a file whose first ten thousand rows hold no quote, or that
//! turns from commas to semicolons half-way, is seen for what it is. Each
//! candidate dialect ([`candidate`]) reads every sample; the best one
//! reads records of one field count (more than one field) without a
//! quoting error ([`score`]), into values that have types (numbers,
//! dates: a wrong delimiter glues them into text). Equally good candidates are ranked in a
//! fixed order: `,` tab `;` `|` `:` `^` `~` space; `"`, no quoting, `'`;
//! doubled quotes before a backslash escape. A backslash-escape dialect
//! breaks the quote-parity model, so it is judged on the head alone.
//!
//! # Examples
//!
//! ```
//! use swath_csv::sniff::Sniffer;
//!
//! let s = Sniffer::new().sniff_bytes(b"id;name\n1;\"a;b\"\n2;c\n");
//! assert_eq!(s.dialect.delimiter, b';');
//! assert_eq!(s.dialect.quote, Some(b'"'));
//! assert!(s.dialect.has_headers && s.quotes_seen);
//! ```

pub mod candidate;
mod encoding;
mod header;
mod layout;
pub mod score;

use std::io::Read;
use std::path::Path;

pub use candidate::Candidate;

pub use encoding::{bom_len, Encoding};
pub use header::HeaderGuess;
use score::{Sample, Shape};

use crate::{ParallelReader, ReaderBuilder, Result};
use swath::text::{EncodingChoice, TextEncoding};

/// The first bytes of a file or object (none of a stream: not consumed).
fn peek(src: &swath::Source) -> Result<Vec<u8>> {
    let mut head = vec![0u8; 4];
    let n = match src.ranged_source() {
        Some(f) => swath::range::read_full_at(f, &mut head, 0).map_err(swath::Error::from)?,
        None => 0,
    };
    head.truncate(n);
    Ok(head)
}

/// How records end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineEnd {
    /// `\n`.
    Lf,
    /// `\r\n`.
    CrLf,
    /// A lone `\r` (old Mac).
    Cr,
    /// More than one kind (the reader takes all three).
    Mixed,
    /// No line end in the head (one line).
    None,
}

impl LineEnd {
    /// `\n`, `\r\n`, `\r`, `mixed`, `none`.
    pub fn name(self) -> &'static str {
        match self {
            LineEnd::Lf => "\\n",
            LineEnd::CrLf => "\\r\\n",
            LineEnd::Cr => "\\r",
            LineEnd::Mixed => "mixed",
            LineEnd::None => "none",
        }
    }

    /// The terminators that end `bytes`'s records read with `cand`
    /// (not the line ends inside quoted fields).
    fn of_records(bytes: &[u8], cand: &Candidate) -> LineEnd {
        let mut ends: Vec<usize> = Vec::new();
        if let Ok(mut rdr) = score::builder(cand).from_reader(bytes) {
            while let Ok(Some(r)) = rdr.next_record() {
                ends.push(r.position().byte as usize);
            }
        }
        ends.push(bytes.len());
        let (mut lf, mut crlf, mut cr) = (false, false, false);
        for &p in ends.iter().filter(|&&p| p > 0) {
            match bytes[p - 1] {
                b'\n' if p >= 2 && bytes[p - 2] == b'\r' => crlf = true,
                b'\n' => lf = true,
                b'\r' => cr = true,
                _ => {}
            }
        }
        match (lf, crlf, cr) {
            (false, false, false) => LineEnd::None,
            (true, false, false) => LineEnd::Lf,
            (false, true, false) => LineEnd::CrLf,
            (false, false, true) => LineEnd::Cr,
            _ => LineEnd::Mixed,
        }
    }
}

/// A dialect as sniffed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dialect {
    /// The field delimiter.
    pub delimiter: u8,
    /// The quote byte; `None`: fields are never quoted.
    pub quote: Option<u8>,
    /// Backslash escapes inside quotes; `None`: a quote is doubled.
    pub escape: Option<u8>,
    /// The first record is a header row.
    pub has_headers: bool,
    /// How records end.
    pub line_end: LineEnd,
}

impl Dialect {
    /// Set `b`'s delimiter, quoting, quote, escape and header row to this
    /// dialect's.
    pub fn configure(&self, b: &mut ReaderBuilder) {
        b.delimiter(self.delimiter)
            .quoting(self.quote.is_some())
            .quote(self.quote.unwrap_or(b'"'))
            .escape(self.escape)
            .has_headers(self.has_headers);
    }
}

/// A sample whose records read best with another delimiter than the
/// file's (a file that changes dialect part-way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// Where the sample starts (an exact record start).
    pub byte: u64,
    /// The delimiter that reads it best.
    pub delimiter: u8,
}

/// What [`Sniffer`] found.
#[derive(Clone, Debug)]
pub struct Sniffed {
    /// The dialect.
    pub dialect: Dialect,
    /// The encoding (UTF-8 checked on every byte sampled).
    pub encoding: Encoding,
    /// How sure, from 0 to 1: how consistently the dialect reads the
    /// samples, less when another delimiter reads them nearly as well or
    /// when samples disagree.
    pub confidence: f64,
    /// The most common number of fields per record.
    pub fields: usize,
    /// Whether a quoted field was seen (else the quote byte is the
    /// default, `"`, unless its absence reads better).
    pub quotes_seen: bool,
    /// How the header row was decided.
    pub header: HeaderGuess,
    /// Where the samples start (exact record starts; the first is the
    /// head).
    pub samples: Vec<u64>,
    /// Records read from the samples with the dialect.
    pub records_sampled: usize,
    /// Samples that read better with another delimiter.
    pub disagreements: Vec<Disagreement>,
    /// The best candidate with another delimiter, and its score relative
    /// to the winner's (0 to 1).
    pub runner_up: Option<(Candidate, f64)>,
    /// Where the records are: lines before them (an Excel `sep=` line
    /// included) and after them, as found (or as told, when the sniffer
    /// was told).
    pub layout: Layout,
}

/// The lines around a text's records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Layout {
    /// Lines before the records (the header row): `--skip-rows`.
    pub skip_lines: u64,
    /// Line 1 is Excel's `sep=X` (one of the skipped lines).
    pub excel_sep: bool,
    /// Lines after the records: `--skip-last`.
    pub footer_lines: u64,
}

/// Sniffs dialects; see the [module documentation](self).
#[derive(Clone, Debug)]
pub struct Sniffer {
    sample_bytes: usize,
    samples: usize,
    threads: usize,
    max_records: usize,
    /// A named encoding, else detected.
    encoding: Option<TextEncoding>,
    /// The lines before and after the records, when told; else found.
    skip: Option<crate::preamble::Skip>,
    footer: Option<u64>,
    /// The only delimiter to consider (a `sep=` line named it).
    only: Option<u8>,
}

impl Default for Sniffer {
    fn default() -> Sniffer {
        Sniffer::new()
    }
}

/// One candidate's reading of its samples.
struct Reading {
    cand: Candidate,
    shapes: Vec<Shape>,
    fields: usize,
    consistency: f64,
    score: f64,
}

impl Sniffer {
    /// 64 KiB samples, 16 spread over the file, up to 1000 records each,
    /// all cores for the record starts.
    pub fn new() -> Sniffer {
        Sniffer {
            sample_bytes: 64 << 10,
            samples: 16,
            threads: 0,
            max_records: 1000,
            encoding: None,
            skip: None,
            footer: None,
            only: None,
        }
    }

    /// The lines before the records, as `--skip-rows` and the like say
    /// (default: found, see [`Layout`]).
    pub fn skip(mut self, skip: crate::preamble::Skip) -> Sniffer {
        self.skip = Some(skip);
        self
    }

    /// The lines after the records (default: found).
    pub fn footer_lines(mut self, n: u64) -> Sniffer {
        self.footer = Some(n);
        self
    }

    /// The lines around the records of `text` (a head of the text): the
    /// head with its preamble masked (as readers see it), the layout so
    /// far (no footer), and a sniffer that considers only the delimiter
    /// a `sep=` line names.
    fn lay_out(&self, text: &[u8], complete: bool) -> (Vec<u8>, Layout, Sniffer) {
        let sep = layout::sep_line(text);
        let lines = match &self.skip {
            Some(skip) => layout::skipped(text, complete, skip).unwrap_or(usize::MAX),
            None => layout::preamble(text, complete, usize::from(sep.is_some()), sep),
        };
        // A line looked for past the head: all of the head is skipped.
        let lines = lines.min(memchr::memchr_iter(b'\n', text).count() + 1) as u64;
        let told = match &self.skip {
            Some(crate::preamble::Skip::Lines(n)) => Some((*n).max(u64::from(sep.is_some()))),
            _ => None,
        };
        let skip_lines = told.unwrap_or(lines);
        let layout = Layout { skip_lines, excel_sep: sep.is_some(), footer_lines: 0 };
        let masked = layout.apply(text, false);
        let mut me = self.clone();
        me.only = sep;
        (masked, layout, me)
    }

    /// The footer of a text whose last bytes are `tail` (all of it when
    /// `whole`), read with `s`'s dialect; as told, when told.
    fn footer_of(&self, tail: &[u8], whole: bool, s: &Sniffed) -> u64 {
        if let Some(n) = self.footer {
            return n;
        }
        let d = &s.dialect;
        let cand = Candidate { delimiter: d.delimiter, quote: d.quote, escape: d.escape };
        layout::footer(tail, whole, &cand, s.fields)
    }

    /// The file's encoding, as `--encoding` names it: `auto` and the
    /// default detect it ([`swath::text::detect()`]), as a sniffer does
    /// whatever it is told.
    pub fn encoding(mut self, how: swath::text::Decoding) -> Sniffer {
        self.encoding = match how.choice {
            swath::text::EncodingChoice::Named(e) => Some(e),
            _ => None,
        };
        self
    }

    /// Bytes per sample (at least 1 KiB).
    pub fn sample_bytes(mut self, n: usize) -> Sniffer {
        self.sample_bytes = n.max(1024);
        self
    }

    /// Samples spread over the file besides the head.
    pub fn samples(mut self, n: usize) -> Sniffer {
        self.samples = n;
        self
    }

    /// Threads for the record-start pass (0: all cores).
    pub fn threads(mut self, n: usize) -> Sniffer {
        self.threads = n;
        self
    }

    /// Sniff the file at `path`; `-` (stdin), a pipe or compressed input
    /// is sniffed from its head alone.
    ///
    /// # Errors
    ///
    /// Opening or reading the file.
    pub fn sniff_path(&self, path: impl AsRef<Path>) -> Result<Sniffed> {
        let path = path.as_ref();
        let mut src = swath::Source::open(path)?;
        // Text in another encoding: its head decoded, sniffed as UTF-8.
        let other = match (self.encoding, src.ranged_source(), src.len()) {
            (Some(e), _, _) => {
                (e != TextEncoding::Utf8).then(|| (e, "named with --encoding".to_string()))
            }
            (None, Some(file), Some(len)) => {
                let found = swath::text::detect_file(file, len).map_err(swath::Error::from)?;
                (found.encoding != TextEncoding::Utf8).then(|| (found.encoding, found.describe()))
            }
            // A stream: its head is sniffed as bytes, below.
            (None, _, _) => None,
        };
        if let Some((encoding, evidence)) = other {
            let how =
                swath::text::Decoding { choice: EncodingChoice::Named(encoding), lossy: true };
            let has_bom = encoding::bom(&peek(&src)?).0 == Some(encoding);
            let mut text = Vec::new();
            src.decoded_text(how)?
                .take(4 * self.sample_bytes as u64)
                .read_to_end(&mut text)
                .map_err(swath::Error::from)?;
            let complete = text.len() < 4 * self.sample_bytes;
            let (masked, mut layout, me) = self.lay_out(&text, complete);
            let mut s = me.sniff_utf8(&masked, complete);
            // The footer, when the head is the whole text.
            layout.footer_lines = if complete { self.footer_of(&text, true, &s) } else { 0 };
            s.layout = layout;
            s.encoding = Encoding::Decoded { encoding, evidence, bom: has_bom };
            return Ok(s);
        }
        let (Some(file), Some(len)) = (src.ranged_source(), src.len()) else {
            let mut head = Vec::new();
            (&mut src)
                .take(4 * self.sample_bytes as u64)
                .read_to_end(&mut head)
                .map_err(swath::Error::from)?;
            return Ok(self.sniff_bytes(&head));
        };
        let mut head = vec![0u8; self.sample_bytes.min(len as usize)];
        let n = swath::range::read_full_at(file, &mut head, 0).map_err(swath::Error::from)?;
        head.truncate(n);
        let (_, bom) = encoding::bom(&head);
        if len as usize <= self.sample_bytes {
            return Ok(self.sniff_bytes(&head));
        }
        let (masked, mut layout, me) = self.lay_out(&head, false);
        let top = sample_at(&masked[bom.min(masked.len())..], bom as u64, false);
        let read = |quote: u8| -> Result<Vec<Sample>> {
            let sep = me.only.unwrap_or(b',');
            let mut b =
                score::builder(&Candidate { delimiter: sep, quote: Some(quote), escape: None });
            b.has_headers(false).skip(crate::preamble::Skip::Lines(layout.skip_lines));
            let chunk = (len / (self.samples.max(1) as u64 + 1)).max(self.sample_bytes as u64);
            let starts = ParallelReader::new(&b, path)
                .threads(self.threads)
                .chunk_size(chunk)
                .record_starts()?;
            let mut out = vec![top.clone()];
            for p in starts.iter().skip(1) {
                let mut buf = vec![0u8; self.sample_bytes];
                let n = swath::range::read_full_at(file, &mut buf, p.byte)
                    .map_err(swath::Error::from)?;
                buf.truncate(n);
                out.push(sample_at(&buf, p.byte, p.byte + n as u64 >= len));
            }
            Ok(out)
        };
        let double = read(b'"')?;
        let single = if double
            .iter()
            .any(|s| candidate::opens_fields(&s.bytes, b'\'', candidate::DELIMITERS))
        {
            Some(read(b'\'')?)
        } else {
            None
        };
        let mut s = me.judge(&double, single.as_deref(), bom > 0);
        let mut tail = vec![0u8; self.sample_bytes.min(len as usize)];
        let from = len - tail.len() as u64;
        let n = swath::range::read_full_at(file, &mut tail, from).map_err(swath::Error::from)?;
        tail.truncate(n);
        layout.footer_lines = self.footer_of(&tail, from == 0, &s);
        s.layout = layout;
        Ok(s)
    }

    /// Sniff `bytes`, the head of a file (or all of it): no sample beyond.
    /// Bytes in an encoding other than UTF-8 (a byte order mark says so,
    /// or [`swath::text::detect()`] finds it) are decoded first.
    pub fn sniff_bytes(&self, bytes: &[u8]) -> Sniffed {
        let complete = bytes.len() < 4 * self.sample_bytes;
        let (wide, bom) = encoding::bom(bytes);
        let (other, evidence) = match (wide, self.encoding) {
            (Some(e), _) => (Some(e), "byte order mark".to_string()),
            (None, Some(e)) => (Some(e), "named with --encoding".to_string()),
            (None, None) => {
                let found = swath::text::detect(&[bytes], complete);
                (Some(found.encoding), found.describe())
            }
        };
        if let Some(e) = other.filter(|&e| e != TextEncoding::Utf8) {
            let text = swath::text::decode_slice(&bytes[bom..], e);
            let (masked, mut layout, me) = self.lay_out(&text, complete);
            let mut s = me.sniff_utf8(&masked, complete);
            layout.footer_lines = if complete { self.footer_of(&text, true, &s) } else { 0 };
            s.layout = layout;
            s.encoding = Encoding::Decoded { encoding: e, evidence, bom: bom > 0 };
            return s;
        }
        let (masked, mut layout, me) = self.lay_out(&bytes[bom..], complete);
        let samples = [sample_at(&masked, bom as u64, complete)];
        let mut s = me.judge(&samples, None, bom > 0);
        layout.footer_lines = if complete { self.footer_of(&bytes[bom..], true, &s) } else { 0 };
        s.layout = layout;
        s
    }

    /// Sniff decoded text (no byte order mark): the head alone.
    fn sniff_utf8(&self, text: &[u8], complete: bool) -> Sniffed {
        self.judge(&[sample_at(text, 0, complete)], None, false)
    }

    /// Choose among the candidates: `double` are the samples at the
    /// record starts of `"` quoting (good for no quoting too), `single`
    /// those of `'` when a `'` opens a field somewhere.
    fn judge(&self, double: &[Sample], single: Option<&[Sample]>, bom: bool) -> Sniffed {
        let all: Vec<u8> = double
            .iter()
            .chain(single.into_iter().flatten())
            .flat_map(|s| s.bytes.iter().copied())
            .collect();
        let head = &double[0];
        let mut cands: Vec<Candidate> = candidate::candidates(&all)
            .into_iter()
            .filter(|c| self.only.is_none_or(|d| c.delimiter == d))
            .collect();
        if let (true, Some(d)) = (cands.is_empty(), self.only) {
            cands.push(Candidate { delimiter: d, quote: Some(b'"'), escape: None });
        }
        let mut readings: Vec<Reading> = cands
            .into_iter()
            .map(|cand| {
                let samples = match (cand.quote, cand.escape, single) {
                    (_, Some(_), _) => &double[..1],
                    (Some(b'\''), None, Some(s)) => s,
                    _ => double,
                };
                self.read(cand, samples)
            })
            .collect();
        // Stable: the first of equal scores stays first.
        readings.sort_by(|a, b| b.score.total_cmp(&a.score));
        let best = &readings[0];
        let samples = match (best.cand.quote, best.cand.escape, single) {
            (_, Some(_), _) => &double[..1],
            (Some(b'\''), None, Some(s)) => s,
            _ => double,
        };
        let rival =
            readings.iter().find(|r| r.cand.delimiter != best.cand.delimiter && r.fields >= 2);
        let relative = |r: &Reading| if best.score > 0.0 { r.score / best.score } else { 1.0 };
        // 1 when the next best is far behind, 1/2 when it ties.
        let margin = |r: &Reading| 1.0 / (1.0 + relative(r).powi(4));
        let mut confidence = match rival {
            Some(r) if best.fields < 2 => 0.5 * best.consistency * margin(r),
            Some(r) => best.consistency * margin(r),
            None if best.fields >= 2 => best.consistency,
            None => 0.5 * best.consistency,
        };
        let disagreements = self.disagreements(best, samples);
        if !disagreements.is_empty() {
            confidence *= 0.5;
        }
        let quotes_seen = best.cand.quote.is_some_and(|q| {
            samples.iter().any(|s| candidate::opens_fields(&s.bytes, q, &[best.cand.delimiter]))
        });
        let header = self.header(&best.cand, head);
        let encoding = samples
            .iter()
            .find_map(|s| encoding::first_invalid(&s.bytes, s.at, s.complete))
            .map_or(Encoding::Utf8 { bom }, |(byte, bytes)| Encoding::NotUtf8 { byte, bytes, bom });
        Sniffed {
            dialect: Dialect {
                delimiter: best.cand.delimiter,
                quote: best.cand.quote,
                escape: best.cand.escape,
                has_headers: header.has_headers,
                line_end: LineEnd::of_records(&head.bytes, &best.cand),
            },
            encoding,
            confidence: confidence.clamp(0.0, 1.0),
            fields: best.fields,
            quotes_seen,
            header,
            samples: samples.iter().map(|s| s.at).collect(),
            records_sampled: best.shapes.iter().map(|s| s.counts.len()).sum(),
            disagreements,
            runner_up: rival.map(|r| (r.cand, relative(r))),
            layout: Layout::default(),
        }
    }

    fn read(&self, cand: Candidate, samples: &[Sample]) -> Reading {
        let shapes: Vec<Shape> =
            samples.iter().map(|s| score::shape(s, &cand, self.max_records)).collect();
        let fields = score::modal(shapes.iter());
        let cs: Vec<f64> = shapes.iter().filter_map(|s| score::consistency(s, fields)).collect();
        let consistency =
            if cs.is_empty() { 0.0 } else { cs.iter().sum::<f64>() / cs.len() as f64 };
        // The records after the first (which may be a header row).
        let rows = head_rows(&cand, &samples[0], 200);
        let typed = header::typed_share(rows.get(1..).unwrap_or_default());
        let score = score::score(consistency, fields) * (0.25 + 0.75 * typed);
        Reading { cand, fields, consistency, score, shapes }
    }

    /// The samples that another delimiter (same quoting) reads clearly
    /// better on their own.
    fn disagreements(&self, best: &Reading, samples: &[Sample]) -> Vec<Disagreement> {
        let mut out = Vec::new();
        if samples.len() < 2 {
            return out;
        }
        for s in samples {
            let alone = |cand: Candidate| {
                let sh = score::shape(s, &cand, self.max_records);
                let m = score::modal([&sh].into_iter());
                score::consistency(&sh, m).map(|c| (score::score(c, m), m))
            };
            let Some((mine, _)) = alone(best.cand) else { continue };
            let better = candidate::DELIMITERS
                .iter()
                .filter(|&&d| d != best.cand.delimiter)
                .find_map(|&d| {
                    let (sc, m) = alone(Candidate { delimiter: d, ..best.cand })?;
                    (m >= 2 && sc > mine + 0.1).then_some(d)
                });
            if let Some(delimiter) = better {
                out.push(Disagreement { byte: s.at, delimiter });
            }
        }
        out
    }

    /// The header guess from the head's first records.
    fn header(&self, cand: &Candidate, head: &Sample) -> HeaderGuess {
        let rows = head_rows(cand, head, 200);
        match rows.split_first() {
            Some((first, rest)) => header::guess(first, rest),
            None => HeaderGuess { has_headers: false, by_types: 0 },
        }
    }
}

/// Up to `max` records of `head`, read with `cand` (until an error).
fn head_rows(cand: &Candidate, head: &Sample, max: usize) -> Vec<Vec<Vec<u8>>> {
    let mut rows: Vec<Vec<Vec<u8>>> = Vec::new();
    if let Ok(mut rdr) = score::builder(cand).from_reader(&head.bytes[..]) {
        while rows.len() < max {
            match rdr.next_record() {
                Ok(Some(r)) => rows.push(r.iter().map(<[u8]>::to_vec).collect()),
                _ => break,
            }
        }
    }
    rows
}

/// A sample of `bytes` starting at file offset `at`: cut after its last
/// line end unless it runs to the end of the file.
fn sample_at(bytes: &[u8], at: u64, complete: bool) -> Sample {
    let bytes = if complete {
        bytes
    } else {
        match memchr::memrchr(b'\n', bytes) {
            Some(i) => &bytes[..=i],
            None => bytes,
        }
    };
    Sample { at, bytes: bytes.to_vec(), complete }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ends() {
        let c = Candidate { delimiter: b',', quote: Some(b'"'), escape: None };
        let of = |b: &[u8]| LineEnd::of_records(b, &c);
        assert_eq!(of(b"a\nb\n"), LineEnd::Lf);
        assert_eq!(of(b"a\r\nb\r\n"), LineEnd::CrLf);
        assert_eq!(of(b"a\r\n\"b\nc\"\r\n"), LineEnd::CrLf);
        assert_eq!(of(b"a\rb\r"), LineEnd::Cr);
        assert_eq!(of(b"a\rb\n"), LineEnd::Mixed);
        assert_eq!(of(b"a,b"), LineEnd::None);
    }

    #[test]
    fn common_dialects_from_bytes() {
        let s = Sniffer::new();
        let t = s.sniff_bytes(b"a\tb\tc\n1\t2\t3\n4\t5\t6\n");
        assert_eq!((t.dialect.delimiter, t.fields, t.dialect.has_headers), (b'\t', 3, true));
        let p = s.sniff_bytes(b"1|x y|2.5\n2|z|3\n");
        assert_eq!((p.dialect.delimiter, p.dialect.has_headers), (b'|', false));
        let e = s.sniff_bytes(b"id,text\n1,\"say \\\"hi\\\", ok\"\n2,plain\n");
        assert_eq!((e.dialect.delimiter, e.dialect.escape), (b',', Some(b'\\')));
        let latin = s.sniff_bytes(b"a,b\n1,caf\xe9\n");
        assert_eq!(latin.encoding.decoded(), Some(TextEncoding::WINDOWS_1252));
        let bom = s.sniff_bytes(b"\xEF\xBB\xBFa;b\n1;2\n");
        assert_eq!((bom.encoding, bom.dialect.delimiter), (Encoding::Utf8 { bom: true }, b';'));
        let mut u16 = vec![0xFF, 0xFE];
        u16.extend("a;b\n1;2\n".encode_utf16().flat_map(u16::to_le_bytes));
        let w = s.sniff_bytes(&u16);
        assert_eq!(
            (w.encoding.decoded(), w.dialect.delimiter),
            (Some(TextEncoding::UTF_16LE), b';')
        );
    }
}

//! Where bytes come from: a regular file (read with `read`/`pread`), a
//! remote object read by ranges (a URL, opened by the opener swath-remote
//! installs, see [`crate::remote`]), a stream (stdin, a pipe, a FIFO, a
//! character device, a `/proc` file), or, as an explicit opt-in, a memory
//! map.
//!
//! A stream is never seeked and its `len()` is never trusted: a FIFO reports
//! 0, and so does `/proc/self/status`, which still has lines.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::decompress::{decode_file, sniff, Compression, Decoded, MAGIC_LEN};
use crate::error::{Error, Result};
use crate::open::{open_path, Opened};
use crate::range::ReadAt;
use crate::text::{Decoding, EncodingChoice, TextEncoding};

/// An opened input.
pub struct Source {
    inner: Inner,
    path: Option<PathBuf>,
    compression: Compression,
    /// How a compressed input is decoded, in words.
    decoding: Option<String>,
    /// The encoding the text is decoded from, when it is (not UTF-8).
    encoding: Option<TextEncoding>,
    /// What the text was found to be and how it is decoded, in words.
    text: Option<String>,
    /// Where its body is, when a preamble or footer is left out.
    body: Option<crate::preamble::Found>,
}

enum Inner {
    /// A regular file whose size at open is known and non-zero.
    File { file: File, len: u64 },
    /// A source read by ranges (a remote object), of known length; `pos` is
    /// the cursor of its sequential `Read`.
    Ranged { src: Arc<dyn ReadAt>, len: u64, pos: u64 },
    /// Anything read front to back until `read` returns 0.
    Stream(Box<dyn Read + Send>),
}

impl Source {
    /// Open `path`; `-` means standard input. Compressed input (gzip, zstd,
    /// bzip2, xz, LZ4, a zip member) is recognised by its magic bytes and
    /// decoded on threads of its own (see [`crate::decompress`]); use
    /// [`Source::open_raw`] to read the compressed bytes themselves.
    ///
    /// # Errors
    ///
    /// The open error (not found, permission denied) with the path, or
    /// [`ErrorKind::IsADirectory`](crate::ErrorKind::IsADirectory): Linux lets `open` succeed on a directory
    /// and fails every `read`, so we check up front.
    pub fn open(path: impl AsRef<Path>) -> Result<Source> {
        Source::open_raw(path)?.decompressed()
    }

    /// Open `path` (`-` for stdin) and read its bytes as they are, without
    /// recognising compression.
    ///
    /// # Errors
    ///
    /// As [`Source::open`].
    pub fn open_raw(path: impl AsRef<Path>) -> Result<Source> {
        let path = path.as_ref();
        if path == Path::new("-") {
            return Ok(Source::stdin_raw());
        }
        let inner = match open_path(path)? {
            Opened::Remote { src, len } => return Ok(Source::ranged(src, len, path)),
            Opened::File { file, len } => Inner::File { file, len },
            // A "regular file" of length 0 may be a /proc file that has
            // content: read those as streams, to their real end.
            Opened::Stream { file, .. } => Inner::Stream(Box::new(file)),
        };
        Ok(Source {
            inner,
            path: Some(path.to_path_buf()),
            compression: Compression::None,
            decoding: None,
            encoding: None,
            text: None,
            body: None,
        })
    }

    /// Standard input, streamed, decompressed when it is compressed.
    ///
    /// # Errors
    ///
    /// An I/O error reading the first bytes.
    pub fn stdin() -> Result<Source> {
        Source::stdin_raw().decompressed()
    }

    fn stdin_raw() -> Source {
        Source::from_reader(io::stdin(), None)
    }

    /// A source read by ranges, of length `len`, named `name` in messages
    /// (a URL). It is read like a regular file: by ranges in parallel, or
    /// front to back through `Read`.
    pub fn ranged(src: Arc<dyn ReadAt>, len: u64, name: impl Into<PathBuf>) -> Source {
        let inner = Inner::Ranged { src, len, pos: 0 };
        Source {
            inner,
            path: Some(name.into()),
            compression: Compression::None,
            decoding: None,
            encoding: None,
            text: None,
            body: None,
        }
    }

    /// Any reader, streamed as it is; `name` is used in error messages.
    pub fn from_reader(rdr: impl Read + Send + 'static, name: Option<PathBuf>) -> Source {
        Source {
            inner: Inner::Stream(Box::new(rdr)),
            path: name,
            compression: Compression::None,
            decoding: None,
            encoding: None,
            text: None,
            body: None,
        }
    }

    /// Recognise a compression format by the first bytes and, if found, replace this
    /// source by a stream of decoded bytes. A regular file is peeked with
    /// `pread` (its cursor does not move); a stream's first bytes are
    /// replayed, never rewound.
    ///
    /// # Errors
    ///
    /// An I/O error reading the first bytes; a zip archive on a stream
    /// ([`Compression::unsupported`]); a zip archive whose member cannot
    /// be chosen (several and none named, the error lists them).
    pub fn decompressed(self) -> Result<Source> {
        if self.compression != Compression::None || self.encoding.is_some() || self.body.is_some() {
            return Ok(self);
        }
        let Source { inner, path, compression, decoding, .. } = self;
        let done = |inner, path, compression, decoding| Source {
            inner,
            path,
            compression,
            decoding,
            encoding: None,
            text: None,
            body: None,
        };
        let named = |e: io::Error| match &path {
            Some(p) => Error::from(e).with_path(p),
            None => Error::from(e),
        };
        let (format, raw): (Compression, Box<dyn Read + Send>) = match inner {
            Inner::File { file, len } => {
                let mut prefix = [0u8; MAGIC_LEN];
                // Every byte of the prefix even through short reads and
                // EINTR, or a gzip file read 1 byte at a time would not be
                // recognised.
                let n = crate::range::read_full_at(&file, &mut prefix, 0).map_err(named)?;
                match Compression::detect(&prefix[..n]) {
                    Compression::None => {
                        let inner = Inner::File { file, len };
                        return Ok(done(inner, path, compression, decoding));
                    }
                    // A file: decoded by spans on every core where its
                    // structure allows.
                    format => {
                        // A gzip file's checkpoints, from a fresh sidecar
                        // (read only when they can be used: on threads).
                        let on_threads = crate::decompress::decode_threads() > 1;
                        let sidecar = match (&path, format) {
                            (Some(p), Compression::Gzip) if on_threads => {
                                crate::index::load_gzip_index(p, &file)
                            }
                            _ => Ok(None),
                        };
                        // Indexed while read: only where no sidecar is
                        // there, or a stale one (never one that fits).
                        let index_to = match (&path, format, &sidecar) {
                            (Some(p), Compression::Gzip, Ok(None)) => {
                                (!crate::index::default_index_path(p).exists()).then_some(p)
                            }
                            (Some(p), Compression::Gzip, Err(_)) => Some(p),
                            _ => None,
                        };
                        let index_to = index_to.cloned();
                        let (gzip_index, unused) = match sidecar {
                            Ok(index) => (index, None),
                            Err(why) => (None, Some(why)),
                        };
                        let (decoded, mut how) = decode_file(
                            format,
                            Arc::new(file),
                            len,
                            gzip_index,
                            index_to.as_deref(),
                        )
                        .map_err(named)?;
                        if let Some(why) = unused {
                            how.push_str(&format!(" (its index was not used: {why})"));
                        }
                        let inner = Inner::Stream(decoded);
                        let decoding = Some(how);
                        return Ok(done(inner, path, format, decoding));
                    }
                }
            }
            Inner::Ranged { src, len, pos } => {
                let mut prefix = [0u8; MAGIC_LEN];
                let n = crate::range::read_full_at(&*src, &mut prefix, 0).map_err(named)?;
                match Compression::detect(&prefix[..n]) {
                    Compression::None => {
                        let inner = Inner::Ranged { src, len, pos };
                        return Ok(done(inner, path, compression, decoding));
                    }
                    // A zip archive's member is found by ranges; anything
                    // else is decoded front to back.
                    Compression::Zip => {
                        let (decoded, how) =
                            decode_file(Compression::Zip, src, len, None, None).map_err(named)?;
                        let inner = Inner::Stream(decoded);
                        let (compression, decoding) = (Compression::Zip, Some(how));
                        return Ok(done(inner, path, compression, decoding));
                    }
                    format => (format, Box::new(crate::range::OwnedRange::new(src, 0, len))),
                }
            }
            Inner::Stream(s) => sniff(s).map_err(named)?,
        };
        let (inner, decoding) = match format {
            Compression::None => (Inner::Stream(raw), None),
            Compression::Zip => return Err(named(Compression::Zip.unsupported())),
            format => {
                let how = "decoded on one thread (a stream)".to_string();
                (Inner::Stream(Box::new(Decoded::spawn(format, raw))), Some(how))
            }
        };
        Ok(done(inner, path, format, decoding))
    }

    /// Open `path` (`-`: standard input), decompressed, and its text
    /// decoded to UTF-8 as `how` says ([`Source::decoded_text`]).
    ///
    /// # Errors
    ///
    /// As [`Source::open`] and [`Source::decoded_text`].
    pub fn open_text(path: impl AsRef<Path>, how: Decoding) -> Result<Source> {
        Source::open(path)?.decoded_text(how)
    }

    /// Decode this input's text to UTF-8 as `how` says: in the encoding it
    /// names, or the one `auto` detects, or, by default, UTF-8 unless a
    /// byte order mark says UTF-16 or UTF-32. A byte order mark always
    /// wins, and is removed. UTF-8 is left as it is (unless lossy): no
    /// byte is touched twice. A regular file or remote object in an
    /// encoding a line feed can cut is decoded on every core
    /// ([`crate::text::TextSpans`]); anything else on the reading thread.
    /// The source is then a stream ([`Source::ranged_source`] is `None`).
    ///
    /// # Errors
    ///
    /// An I/O error reading the first bytes.
    pub fn decoded_text(mut self, how: Decoding) -> Result<Source> {
        if self.encoding.is_some() || self.body.is_some() {
            return Ok(self);
        }
        let (encoding, bom_len, note) = self.choose_text(how)?;
        if encoding == TextEncoding::Utf8 && !how.lossy {
            // Read as it is; the readers skip a UTF-8 byte order mark.
            self.text = (!note.is_empty()).then_some(note);
            return Ok(self);
        }
        let named = |e: io::Error, path: &Option<PathBuf>| match path {
            Some(p) => Error::from(e).with_path(p),
            None => Error::from(e),
        };
        let threads = crate::decompress::decode_threads();
        let name = self.path.clone();
        let (path, compression, decoding) =
            (self.path.clone(), self.compression, self.decoding.take());
        let lossy = if how.lossy { ", lossy" } else { "" };
        let said = if note.is_empty() { String::new() } else { format!(" ({note})") };
        let spans = match (&self.inner, threads > 1) {
            (Inner::File { .. } | Inner::Ranged { .. }, true) => {
                let len = self.len().unwrap_or(0);
                let src = self.shared_ranged_source()?.expect("a file or an object");
                let piece = crate::decompress::span_target();
                let text = crate::text::TextOf { encoding, lossy: how.lossy, name: name.clone() };
                crate::text::TextSpans::spawn(src, len, bom_len as u64, text, piece, threads).map(
                    |s| {
                        let n = len.div_ceil(piece).max(1);
                        let how = format!(
                            "{encoding}{said}{lossy}, decoded in {n} piece{} on {} thread{}",
                            if n == 1 { "" } else { "s" },
                            threads.min(n as usize),
                            if threads.min(n as usize) == 1 { "" } else { "s" },
                        );
                        (Box::new(s) as Box<dyn Read + Send>, how)
                    },
                )
            }
            _ => None,
        };
        let (reader, text) = match spans {
            Some(s) => s,
            None => {
                let mut raw = self;
                // The byte order mark is read here, not decoded.
                io::copy(&mut (&mut raw).take(bom_len as u64), &mut io::sink())
                    .map_err(|e| named(e, &name))?;
                let dec = crate::text::TextDecoder::without_bom(encoding);
                let r = crate::text::DecodeReader::new(raw, dec, bom_len as u64, how.lossy, name);
                (
                    Box::new(r) as Box<dyn Read + Send>,
                    format!("{encoding}{said}{lossy}, decoded on one thread"),
                )
            }
        };
        Ok(Source {
            inner: Inner::Stream(reader),
            path,
            compression,
            decoding,
            encoding: Some(encoding),
            text: Some(text),
            body: None,
        })
    }

    /// As [`Source::decoded_text`], but a file or object in a single-byte
    /// encoding becomes its text by ranges ([`crate::text::DecodedFile`]:
    /// one pass sums the text's length, piece by piece, on every core),
    /// so that a reader of ranges plans and reads it on every core as a
    /// UTF-8 file. Anything else is [`Source::decoded_text`]'s stream.
    /// For the readers that read the whole file in parallel; one that
    /// reads a little of it (a head) wants the stream, which starts at
    /// once.
    ///
    /// # Errors
    ///
    /// An I/O error reading the file.
    pub fn decoded_text_by_ranges(mut self, how: Decoding) -> Result<Source> {
        let threads = crate::decompress::decode_threads();
        // `SWATH_TEXT_BY_RANGES=0`: the stream instead (for the bench).
        let off = std::env::var("SWATH_TEXT_BY_RANGES").is_ok_and(|v| v == "0");
        if self.encoding.is_some()
            || self.body.is_some()
            || threads <= 1
            || off
            || self.ranged_source().is_none()
        {
            return self.decoded_text(how);
        }
        let (encoding, bom_len, note) = self.choose_text(how)?;
        if bom_len > 0 || !crate::text::DecodedFile::fits(encoding) {
            return self.decoded_text(how);
        }
        let len = self.len().unwrap_or(0);
        let src = self.shared_ranged_source()?.expect("a file or an object");
        // Small pieces in the CLI's tests (`SWATH_SPAN_BYTES`), as spans.
        let piece = crate::decompress::span_target().min(crate::text::DecodedFile::PIECE);
        let decoded = crate::text::DecodedFile::new(src, len, encoding, piece, threads)
            .map_err(|e| self.with_path(e.into()))?;
        let said = if note.is_empty() { String::new() } else { format!(" ({note})") };
        let text = format!("{encoding}{said}, by ranges of its text on {threads} threads");
        let len = decoded.len();
        Ok(Source {
            inner: Inner::Ranged { src: Arc::new(decoded), len, pos: 0 },
            path: self.path,
            compression: self.compression,
            decoding: self.decoding,
            encoding: Some(encoding),
            text: Some(text),
            body: None,
        })
    }

    /// The encoding [`Source::decoded_text`] would decode this input's
    /// text from with `how`, or `None` when it would read it as it is
    /// (UTF-8, not lossy): for the commands that work on a file's bytes by
    /// ranges, which must not cut text that is decoded. Nothing is
    /// consumed (a stream's first bytes are put back).
    ///
    /// # Errors
    ///
    /// An I/O error reading the first bytes.
    pub fn text_to_decode(&mut self, how: Decoding) -> Result<Option<TextEncoding>> {
        if self.encoding.is_some() {
            return Ok(self.encoding);
        }
        let (encoding, _, _) = self.choose_text(how)?;
        Ok((encoding != TextEncoding::Utf8 || how.lossy).then_some(encoding))
    }

    /// The encoding `how` chooses for this input, the length of its byte
    /// order mark, and why, in words (empty when there is nothing to say).
    fn choose_text(&mut self, how: Decoding) -> Result<(TextEncoding, usize, String)> {
        let named = |e: io::Error, path: &Option<PathBuf>| match path {
            Some(p) => Error::from(e).with_path(p),
            None => Error::from(e),
        };
        let want = match how.choice {
            EncodingChoice::Auto => crate::text::AUTO_HEAD,
            _ => 4,
        };
        let head = self.peek(want).map_err(|e| named(e, &self.path))?;
        let bom = crate::text::detect::bom(&head);
        Ok(match how.choice {
            EncodingChoice::Utf8OrBom => match bom {
                Some((e, n)) if e != TextEncoding::Utf8 => (e, n, "byte order mark".to_string()),
                _ => (TextEncoding::Utf8, 0, String::new()),
            },
            EncodingChoice::Named(named_one) => match bom {
                Some((e, n)) if e != named_one => {
                    (e, n, format!("its byte order mark, not {named_one}"))
                }
                Some((e, n)) => (e, n, String::new()),
                None => (named_one, 0, String::new()),
            },
            EncodingChoice::Auto => {
                let found = match (self.ranged_source(), self.len()) {
                    (Some(src), Some(len)) => {
                        crate::text::detect_file(src, len).map_err(|e| named(e, &self.path))?
                    }
                    _ => crate::text::detect(&[&head], head.len() < want),
                };
                if !found.certain {
                    crate::text::note(format!(
                        "{}: --encoding auto read it as {}, but is not certain ({}); \
                         name the encoding to be sure",
                        self.name(),
                        found.encoding,
                        found.evidence
                    ));
                }
                (found.encoding, found.bom, format!("detected: {}", found.describe()))
            }
        })
    }

    /// The first `n` bytes (fewer at the end), without consuming them: a
    /// file or an object is read at offset 0, a stream's bytes are read
    /// and put back in front of it.
    fn peek(&mut self, n: usize) -> io::Result<Vec<u8>> {
        let mut head = vec![0u8; n];
        let got = match &mut self.inner {
            Inner::File { file, .. } => crate::range::read_full_at(file, &mut head, 0)?,
            Inner::Ranged { src, pos: 0, .. } => crate::range::read_full_at(&**src, &mut head, 0)?,
            Inner::Ranged { .. } => 0,
            Inner::Stream(s) => {
                let mut got = 0;
                while got < n {
                    match s.read(&mut head[got..]) {
                        Ok(0) => break,
                        Ok(k) => got += k,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
                let rest = std::mem::replace(s, Box::new(io::empty()));
                *s = Box::new(io::Cursor::new(head[..got].to_vec()).chain(rest));
                got
            }
        };
        head.truncate(got);
        Ok(head)
    }

    /// Leave out the preamble and footer `body` describes (see
    /// [`crate::preamble`]): the preamble's bytes then read as line ends
    /// (offsets and line numbers stay the file's), and the input ends
    /// where its footer starts. A file or remote object is still read by
    /// ranges, its length now the footer's start; a stream holds its last
    /// lines back. Apply it last, to the text (decompressed, decoded).
    ///
    /// # Errors
    ///
    /// An I/O error reading the preamble or footer, or the preamble's
    /// error (no line starts the body), with the path.
    pub fn with_body(self, body: crate::preamble::Body) -> Result<Source> {
        if body.is_whole() || self.body.is_some() {
            return Ok(self);
        }
        use crate::preamble::{Found, Masked, MaskedStream};
        let Source { inner, path, compression, decoding, encoding, text, .. } = self;
        let named = |e: io::Error| match &path {
            Some(p) => Error::from(e).with_path(p),
            None => Error::from(e),
        };
        let masked = |src: Arc<dyn ReadAt>, len: u64, found: Found| {
            let m = Masked::new(src, len, found);
            Inner::Ranged { len: m.len(), src: Arc::new(m), pos: 0 }
        };
        let stream =
            |s: Box<dyn Read + Send>, body| Inner::Stream(Box::new(MaskedStream::new(s, body)));
        let (inner, found) = match inner {
            Inner::File { file, len } => {
                let found = Masked::find(&file, len, body).map_err(named)?;
                // Nothing left out: a file keeps what only a file has.
                if found.is_all_of(len) {
                    (Inner::File { file, len }, None)
                } else {
                    (masked(Arc::new(file), len, found), Some(found))
                }
            }
            Inner::Ranged { src, len, pos: 0 } => {
                let found = Masked::find(&*src, len, body).map_err(named)?;
                if found.is_all_of(len) {
                    (Inner::Ranged { src, len, pos: 0 }, None)
                } else {
                    (masked(src, len, found), Some(found))
                }
            }
            Inner::Ranged { src, len, pos } => {
                let rest = Box::new(crate::range::OwnedRange::new(src, pos, len));
                (stream(rest, body), Some(Found::UNKNOWN))
            }
            Inner::Stream(s) => (stream(s, body), Some(Found::UNKNOWN)),
        };
        Ok(Source { inner, path, compression, decoding, encoding, text, body: found })
    }

    /// Where the body is, when a preamble or footer is left out
    /// ([`Source::with_body`]); a stream's is not known before it is read.
    pub fn body(&self) -> Option<crate::preamble::Found> {
        self.body
    }

    /// The encoding this input's text is decoded from, when it is
    /// decoded (`None`: UTF-8 read as it is).
    pub fn text_encoding(&self) -> Option<TextEncoding> {
        self.encoding
    }

    /// What the text was found to be and how it is decoded, in words
    /// (`windows-1252, decoded in 12 pieces on 2 threads`); `None` for
    /// UTF-8 read as it is, unless `auto` chose it.
    pub fn text_decoding(&self) -> Option<&str> {
        self.text.as_deref()
    }

    /// The compression recognised on this input ([`Compression::None`] for
    /// plain bytes or a source opened raw).
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// How a compressed input is decoded, in words ("12 spans decoded on 2
    /// threads", "decoded on one thread (a stream)"); `None` for plain bytes.
    pub fn decoding(&self) -> Option<&str> {
        self.decoding.as_deref()
    }

    /// The path, or `None` for standard input.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// A name for messages: the path, or `-` for standard input.
    pub fn name(&self) -> String {
        match &self.path {
            Some(p) => p.display().to_string(),
            None => "-".to_string(),
        }
    }

    /// The size at open, for a regular file or a remote object; `None` for
    /// a stream.
    pub fn len(&self) -> Option<u64> {
        match &self.inner {
            Inner::File { len, .. } | Inner::Ranged { len, .. } => Some(*len),
            Inner::Stream(_) => None,
        }
    }

    /// True when the size is unknown (a stream) or zero.
    pub fn is_empty(&self) -> bool {
        self.len().is_none_or(|n| n == 0)
    }

    /// The file, when this is a local regular file (it can be mapped).
    pub fn file(&self) -> Option<&File> {
        match &self.inner {
            Inner::File { file, .. } => Some(file),
            Inner::Ranged { .. } | Inner::Stream(_) => None,
        }
    }

    /// The bytes by ranges, when this is a regular file or a remote object
    /// (not a stream, not a decompressed input).
    pub fn ranged_source(&self) -> Option<&dyn ReadAt> {
        match &self.inner {
            Inner::File { file, .. } => Some(file),
            Inner::Ranged { src, .. } => Some(&**src),
            Inner::Stream(_) => None,
        }
    }

    /// As [`Source::ranged_source`], shared: for work that outlives this
    /// borrow (threads of a pipeline). A file is duplicated (`try_clone`).
    ///
    /// # Errors
    ///
    /// The `dup` error of a file.
    pub fn shared_ranged_source(&self) -> Result<Option<Arc<dyn ReadAt>>> {
        match &self.inner {
            Inner::File { file, .. } => {
                let file = file.try_clone().map_err(|e| self.with_path(e.into()))?;
                Ok(Some(Arc::new(file)))
            }
            Inner::Ranged { src, .. } => Ok(Some(Arc::clone(src))),
            Inner::Stream(_) => Ok(None),
        }
    }

    /// Map the file into memory.
    ///
    /// # Safety
    ///
    /// The file must not be truncated or modified by anyone while the map is
    /// alive: a truncated mapped file raises `SIGBUS` (a crash, not an error)
    /// on the next access past the new end, which is why mmap is opt-in and
    /// not the default (`logrotate copytruncate` does exactly that).
    /// [`crate::SafeMap`] is the map that turns that into an error instead.
    ///
    /// # Errors
    ///
    /// When this is not a regular file, or the OS refuses the map.
    pub unsafe fn map(&self) -> Result<memmap2::Mmap> {
        let Some(file) = self.file() else {
            let what = match self.inner {
                Inner::Ranged { .. } => "cannot mmap a remote object",
                _ => "cannot mmap a stream",
            };
            let err = io::Error::new(io::ErrorKind::Unsupported, what);
            return Err(self.with_path(err.into()));
        };
        // SAFETY: the caller guarantees the file is not changed while mapped.
        let map = unsafe { memmap2::Mmap::map(file) }.map_err(|e| self.with_path(e.into()))?;
        // Sequential access lets the kernel read ahead aggressively.
        let _ = map.advise(memmap2::Advice::Sequential);
        Ok(map)
    }

    fn with_path(&self, err: Error) -> Error {
        match &self.path {
            Some(p) => err.with_path(p),
            None => err,
        }
    }
}

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::File { file, .. } => file.read(buf),
            Inner::Ranged { src, len, pos } => crate::range::read_bounded(&**src, pos, *len, buf),
            Inner::Stream(s) => s.read(buf),
        }
    }
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Source").field("path", &self.path).field("len", &self.len()).finish()
    }
}

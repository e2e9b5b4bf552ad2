//! Every way of reading (and writing) a file that the lab measures.
//!
//! A [`Method`] runs once over a [`Ctx`] and returns an [`Outcome`]; the
//! runner times [`Method::run`] alone, then calls [`Method::check`] (not
//! timed) for the count the method really produced, which must equal the
//! expected one: a fast wrong method cannot win.
//!
//! The CSV methods ([`Kind::Csv`], in `csv.rs`) read [`Ctx::csv`] instead
//! and are checked on its record count and on the sum of its ids.
//!
//! A method that cannot read a file at all (`lines()` on bytes that are
//! not UTF-8) returns a [`NotApplicable`] error: the lab reports it as not
//! applicable rather than as a failure.

pub mod behind;
mod bytes;
mod counted;
pub mod csv;
pub mod direct;
mod map;
pub mod packed;
mod read;
mod threads;
mod write;

use std::io;
use std::path::{Path, PathBuf};

pub use counted::Counted;

/// What a method's answer is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Lines of the whole file.
    Read,
    /// Lines of the first [`Ctx::prefix`] bytes (the slow 1-byte methods).
    Prefix,
    /// Lines it was asked to write, read back from what it wrote.
    Write,
    /// Records (and the id checksum) of the CSV file [`Ctx::csv`].
    Csv,
    /// Lines of the whole file, read from its gzip or zstd copy
    /// ([`Ctx::gz`], [`Ctx::zst`]).
    Compressed,
    /// Lines of the small file the second text's read benchmarks read
    /// ([`Ctx::write_lines`] lines of [`WRITE_LINE`], written untimed first).
    Small,
}

/// The groups of methods: the standard lab, and those it runs only when
/// asked (`--direct`, `--go`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Run by default.
    Standard,
    /// Run by default when the lab generates the log: its gzip and zstd copies.
    Compressed,
    /// O_DIRECT reads, with `--direct`.
    Direct,
    /// The texts' Go programs, with `--go`.
    Go,
}

/// How many threads a parallel method uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// One per core.
    Cores,
    /// A fixed number.
    Fixed(usize),
}

impl Threads {
    /// The number of threads on this machine.
    pub fn count(self) -> usize {
        match self {
            Threads::Cores => swath::parallel::available_cores(),
            Threads::Fixed(n) => n.max(1),
        }
    }
}

/// The ways, each with what it varies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// `File::read` into one reused buffer of `size` bytes; `aligned`: on a
    /// page boundary, else a plain `Vec` (malloc's alignment).
    Read {
        /// Buffer size.
        size: usize,
        /// Page-aligned (`true`) or a `Vec` (`false`).
        aligned: bool,
    },
    /// `BufReader` (8 KiB) + `read_until` into one reused `Vec`.
    ReadUntil,
    /// `BufRead::lines()`: a `String` per line.
    Lines,
    /// `fs::read` of the whole file.
    FsRead,
    /// One memory map, counted on one thread.
    Mmap,
    /// One memory map, split over threads.
    MmapParallel(Threads),
    /// Threads, each `pread`ing its own byte range.
    Pread(Threads),
    /// `swath::LineReader`, line by line.
    SwathLines,
    /// `swath::count_source`, the engine of `swath count`.
    SwathCount,
    /// 1-byte `read` calls straight on the file.
    ByteUnbuffered,
    /// 1-byte `read` calls on a `BufReader`.
    ByteBufReader,
    /// One `write` per line, no buffer.
    WriteUnbuffered,
    /// Lines through `BufWriter` (8 KiB).
    WriteBufWriter {
        /// The large run (the lab's size) instead of 100,000 lines.
        large: bool,
    },
    /// Lines into a page-aligned 256 KiB buffer written when full.
    WriteSwath {
        /// The large run (the lab's size) instead of 100,000 lines.
        large: bool,
    },
    /// A `Vec<String>` per CSV record.
    CsvStrings,
    /// swath's borrowed CSV records, every field looked at.
    CsvBorrowed,
    /// swath's typed scan into a 6-tuple.
    CsvTyped,
    /// swath's parallel CSV reader.
    CsvParallel(Threads),
    /// swath's CSV record count (the validating scan).
    CsvCount(Threads),
    /// `read` with `O_DIRECT` (no page cache) into an aligned buffer.
    Direct {
        /// Buffer size (a multiple of 4 KiB).
        size: usize,
    },
    /// A compressed copy of the file, decoded and counted.
    Decode {
        /// Which copy.
        format: Packed,
        /// Through what.
        via: Via,
    },
    /// One of the texts' Go programs (the method's name says which), run
    /// by the lab's Go binary rather than in Rust.
    Go,
}

/// A compression format of the lab's compressed copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packed {
    /// gzip, level 6 (gzip's default).
    Gzip,
    /// Zstandard, level 3 (zstd's default).
    Zstd,
}

impl Packed {
    /// Both, in report order.
    pub const ALL: [Packed; 2] = [Packed::Gzip, Packed::Zstd];

    /// `gzip` or `zstd`.
    pub fn name(self) -> &'static str {
        match self {
            Packed::Gzip => "gzip",
            Packed::Zstd => "zstd",
        }
    }

    /// The level the lab compresses at: the one users meet (`gzip -6`, `zstd -3`).
    pub fn level(self) -> i32 {
        match self {
            Packed::Gzip => 6,
            Packed::Zstd => 3,
        }
    }

    /// The copy's file-name extension, and the method-name prefix.
    pub fn ext(self) -> &'static str {
        match self {
            Packed::Gzip => "gz",
            Packed::Zstd => "zst",
        }
    }

    /// The command that decodes it to stdout (`zcat`, `zstdcat`).
    pub fn cat(self) -> &'static str {
        match self {
            Packed::Gzip => "zcat",
            Packed::Zstd => "zstdcat",
        }
    }
}

/// How a compressed copy is decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// `swath::Source::open` (its decoder thread) and `swath::count_source`.
    Swath,
    /// The format's crate (flate2's `MultiGzDecoder`, zstd's `Decoder`)
    /// over a `BufReader` of `size` bytes, read into a `size`-byte buffer.
    Crate {
        /// BufReader and read buffer size.
        size: usize,
    },
    /// `zcat FILE` (or `zstdcat`) piped into swath's count engine.
    Pipe,
}

/// What a method is run on.
#[derive(Clone, Debug, Default)]
pub struct Ctx {
    /// The file to read.
    pub file: PathBuf,
    /// A directory where write methods may put their output.
    pub scratch: PathBuf,
    /// Bytes read by the 1-byte methods (from the start of the file).
    pub prefix: u64,
    /// Lines written by the small write methods.
    pub write_lines: u64,
    /// Bytes written by the large write methods (whole lines, rounded down).
    pub large_write: u64,
    /// The CSV file the CSV methods read (with a header row).
    pub csv: PathBuf,
    /// Records in [`Ctx::csv`], the header row not counted.
    pub csv_records: u64,
    /// The sum of [`csv::id_of`] over its records' first fields.
    pub csv_id_sum: u64,
    /// The gzip copy of [`Ctx::file`], for the `gz-*` methods.
    pub gz: PathBuf,
    /// The zstd copy of [`Ctx::file`], for the `zst-*` methods.
    pub zst: PathBuf,
    /// Larger than memory: readers drop what they have read from the page
    /// cache as they go (see [`behind`]).
    pub behind: bool,
}

/// What one run of a method did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Lines found (or written).
    pub lines: u64,
    /// Bytes read (or written).
    pub bytes: u64,
    /// `read`/`write` calls made, where the method can count them.
    pub syscalls: Option<u64>,
    /// Offset of the buffer from a page boundary, for buffer methods.
    pub buf_offset: Option<u64>,
    /// The CSV methods' id checksum (see [`csv::id_of`]).
    pub id_sum: Option<u64>,
}

/// Why a method does not apply to this file (wrapped in an `io::Error`):
/// reported as "not applicable", not as a failure.
#[derive(Debug)]
pub struct NotApplicable(pub String);

impl std::fmt::Display for NotApplicable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotApplicable {}

/// An `io::Error` that says the method does not apply, and why.
pub fn not_applicable(why: String) -> io::Error {
    io::Error::other(NotApplicable(why))
}

/// The reason, when `err` says its method does not apply.
pub fn as_not_applicable(err: &io::Error) -> Option<&str> {
    err.get_ref()?.downcast_ref::<NotApplicable>().map(|n| n.0.as_str())
}

/// One way of reading or writing, with its name in the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Method {
    /// Short name (`read-256K`, `mmap`, ...), as `--only` takes it.
    pub name: String,
    /// How it reads or writes.
    pub way: Way,
    /// What its answer is checked against.
    pub kind: Kind,
    /// One line for people.
    pub about: String,
}

/// The buffer sizes of the `read-*` methods.
pub const READ_SIZES: [usize; 6] = [512, 4 << 10, 32 << 10, 256 << 10, 1 << 20, 8 << 20];

/// The line the write methods write (seed 001).
pub const WRITE_LINE: &[u8] = b"some text!\n";

/// `512B`, `4K`, `1M`: a buffer size as a method name part.
pub fn size_label(n: usize) -> String {
    if n >= 1 << 20 && n % (1 << 20) == 0 {
        format!("{}M", n >> 20)
    } else if n >= 1 << 10 && n % (1 << 10) == 0 {
        format!("{}K", n >> 10)
    } else {
        format!("{n}B")
    }
}

/// Every method, in report order.
pub fn all() -> Vec<Method> {
    let mut v = Vec::new();
    let mut add = |name: String, way: Way, kind: Kind, about: String| {
        v.push(Method { name, way, kind, about })
    };
    for size in READ_SIZES {
        let l = size_label(size);
        let way = Way::Read { size, aligned: true };
        let about = format!("File::read into a reused page-aligned {l} buffer");
        add(format!("read-{l}"), way, Kind::Read, about);
    }
    for size in [256 << 10, 1 << 20] {
        let l = size_label(size);
        let way = Way::Read { size, aligned: false };
        let about = format!("File::read into a reused {l} Vec (malloc's alignment)");
        add(format!("read-{l}-vec"), way, Kind::Read, about);
    }
    let rows: [(&str, Way, Kind, &str); 9] = [
        ("read-until", Way::ReadUntil, Kind::Read, "BufReader + read_until into a reused Vec"),
        ("lines", Way::Lines, Kind::Read, "BufRead::lines(): a String per line"),
        ("fs-read", Way::FsRead, Kind::Read, "fs::read of the whole file, then count"),
        ("mmap", Way::Mmap, Kind::Read, "mmap, counted on one thread"),
        ("mmap-par", Way::MmapParallel(Threads::Cores), Kind::Read, "mmap, split over all cores"),
        (
            "pread-cores",
            Way::Pread(Threads::Cores),
            Kind::Read,
            "pread over ranges, one thread per core",
        ),
        (
            "pread-10",
            Way::Pread(Threads::Fixed(10)),
            Kind::Read,
            "pread over ranges, 10 threads (the seed's)",
        ),
        ("swath-lines", Way::SwathLines, Kind::Read, "swath::LineReader, next_line()"),
        ("swath-count", Way::SwathCount, Kind::Read, "swath::count_source (swath count's engine)"),
    ];
    for (name, way, kind, about) in rows {
        add(name.to_string(), way, kind, about.to_string());
    }
    let rows: [(&str, Way, Kind, &str); 7] = [
        ("byte-read", Way::ByteUnbuffered, Kind::Prefix, "1-byte File::read, unbuffered"),
        ("byte-bufreader", Way::ByteBufReader, Kind::Prefix, "1-byte read through BufReader"),
        ("write-unbuffered", Way::WriteUnbuffered, Kind::Write, "one write per line, no buffer"),
        (
            "write-bufwriter",
            Way::WriteBufWriter { large: false },
            Kind::Write,
            "lines through BufWriter (8 KiB)",
        ),
        (
            "write-swath",
            Way::WriteSwath { large: false },
            Kind::Write,
            "lines into a page-aligned 256 KiB buffer",
        ),
        (
            "write-large-bufwriter",
            Way::WriteBufWriter { large: true },
            Kind::Write,
            "the large run through BufWriter",
        ),
        (
            "write-large-swath",
            Way::WriteSwath { large: true },
            Kind::Write,
            "the large run through a 256 KiB aligned buffer",
        ),
    ];
    for (name, way, kind, about) in rows {
        add(name.to_string(), way, kind, about.to_string());
    }
    let rows: [(&str, Way, &str); 5] = [
        (
            "csv-strings",
            Way::CsvStrings,
            "swath's reader, each record copied into a new Vec<String> (7 allocations for 6 \
             fields; Go's encoding/csv makes 2: one string cut into fields, and the slice)",
        ),
        ("csv-borrowed", Way::CsvBorrowed, "swath_csv Reader::next_record, every field looked at"),
        (
            "csv-typed",
            Way::CsvTyped,
            "swath_csv record.scan::<(u64, &str, f64, bool, &str, &str)>()",
        ),
        (
            "csv-parallel",
            Way::CsvParallel(Threads::Cores),
            "swath_csv ParallelReader::fold on all cores (as swath csv runs it), every field looked at",
        ),
        (
            "csv-count",
            Way::CsvCount(Threads::Cores),
            "swath_csv ParallelReader::count on all cores (swath csv count): a validating SIMD \
             scan, no field built",
        ),
    ];
    for (name, way, about) in rows {
        add(name.to_string(), way, Kind::Csv, about.to_string());
    }
    for format in Packed::ALL {
        let (ext, lib) = match format {
            Packed::Gzip => ("gz", "flate2 MultiGzDecoder"),
            Packed::Zstd => ("zst", "zstd::Decoder"),
        };
        let level = format!("{} -{}", format.name(), format.level());
        let way = Way::Decode { format, via: Via::Swath };
        let about = format!("the {level} copy through swath::Source's decoder + count_source");
        add(format!("{ext}-swath"), way, Kind::Compressed, about);
        for size in PACKED_SIZES {
            let l = size_label(size);
            let way = Way::Decode { format, via: Via::Crate { size } };
            let about = format!("the {level} copy: BufReader({l}) + {lib}, {l} reads");
            add(format!("{ext}-{}-{l}", lib_short(format)), way, Kind::Compressed, about);
        }
        let way = Way::Decode { format, via: Via::Pipe };
        let about =
            format!("{} FILE piped into swath's count engine (zcat | swath count)", format.cat());
        add(format!("{ext}-{}", format.cat()), way, Kind::Compressed, about);
    }
    for size in DIRECT_SIZES {
        let l = size_label(size);
        let about = format!("O_DIRECT read into a {l} aligned buffer: no page cache, the device");
        add(format!("direct-{l}"), Way::Direct { size }, Kind::Read, about);
    }
    for (name, kind, about) in GO_METHODS {
        add(name.to_string(), Way::Go, kind, about.to_string());
    }
    v
}

/// The buffer sizes of the compressed copies' crate readers: does buffer
/// size still matter when decoding dominates?
pub const PACKED_SIZES: [usize; 4] = [4 << 10, 32 << 10, 256 << 10, 1 << 20];

/// The buffer sizes of the `direct-*` methods (O_DIRECT needs multiples of
/// the device's block size; 4 KiB is the common one).
pub const DIRECT_SIZES: [usize; 5] = [4 << 10, 32 << 10, 256 << 10, 1 << 20, 8 << 20];

fn lib_short(format: Packed) -> &'static str {
    match format {
        Packed::Gzip => "flate2",
        Packed::Zstd => "zstd",
    }
}

/// The Go methods: the ten of the article's lab, then the five benchmarks
/// of the second text (`go-b-*`), as `go/main.go` implements them.
pub const GO_METHODS: [(&str, Kind, &str); 15] = [
    ("go-read-512B", Kind::Read, "Go: File.Read into a 512 B buffer (the article's lab)"),
    ("go-read-4K", Kind::Read, "Go: File.Read into a 4 KiB buffer"),
    ("go-read-32K", Kind::Read, "Go: File.Read into a 32 KiB buffer"),
    ("go-read-256K", Kind::Read, "Go: File.Read into a 256 KiB buffer"),
    ("go-read-1M", Kind::Read, "Go: File.Read into a 1 MiB buffer"),
    ("go-read-8M", Kind::Read, "Go: File.Read into an 8 MiB buffer"),
    ("go-scanner", Kind::Read, "Go: bufio.Scanner, default 64 KB token limit"),
    ("go-readstring", Kind::Read, "Go: bufio.Reader.ReadString per line"),
    ("go-readfile", Kind::Read, "Go: os.ReadFile, whole file in memory"),
    ("go-readat-10", Kind::Read, "Go: 10 goroutines, ReadAt on ranges, 1 MiB buffers"),
    (
        "go-b-write-unbuffered",
        Kind::Write,
        "Go: f.WriteString per line, unbuffered (the second text)",
    ),
    ("go-b-write-bufio", Kind::Write, "Go: lines through bufio.Writer"),
    ("go-b-read-10B", Kind::Small, "Go: f.Read into a 10-byte slice, unbuffered"),
    ("go-b-readstring", Kind::Small, "Go: bufio.Reader.ReadString('\\n') per line"),
    ("go-b-scanner", Kind::Small, "Go: bufio.Scanner + Text() per line"),
];

/// The method called `name`.
pub fn find(name: &str) -> Option<Method> {
    all().into_iter().find(|m| m.name == name)
}

impl Method {
    /// Run once: the part the lab times.
    ///
    /// # Errors
    ///
    /// Any I/O error of the method.
    pub fn run(&self, ctx: &Ctx) -> io::Result<Outcome> {
        let (file, behind) = (&ctx.file, ctx.behind);
        match self.way {
            Way::Read { size, aligned } => read::read_buf(file, size, aligned, behind),
            Way::ReadUntil => read::read_until(file, behind),
            Way::Lines => read::lines(file, behind),
            Way::FsRead if behind => Err(not_applicable(
                "a file larger than memory cannot be read whole (--larger-than-ram)".into(),
            )),
            Way::FsRead => read::fs_read(file),
            Way::SwathLines => read::swath_lines(file, behind),
            Way::SwathCount => read::swath_count(file),
            Way::Mmap => map::mmap(file, behind),
            Way::MmapParallel(t) => map::mmap_parallel(file, t.count(), behind),
            Way::Pread(t) => threads::pread(file, t.count(), behind),
            Way::ByteUnbuffered => bytes::unbuffered(file, ctx.prefix, behind),
            Way::ByteBufReader => bytes::buffered(file, ctx.prefix, behind),
            Way::Direct { size } => direct::read(file, size),
            Way::Decode { format, via } => packed::decode(self.input(ctx), format, via),
            Way::Go => Err(io::Error::other(format!(
                "{} is a Go method: the lab's Go binary runs it (swath lab --go)",
                self.name
            ))),
            Way::WriteUnbuffered => write::unbuffered(&self.out_path(ctx), ctx.write_lines),
            Way::WriteBufWriter { large } => {
                write::bufwriter(&self.out_path(ctx), self.write_count(ctx, large))
            }
            Way::WriteSwath { large } => {
                write::swath(&self.out_path(ctx), self.write_count(ctx, large))
            }
            Way::CsvStrings => csv::strings(&ctx.csv),
            Way::CsvBorrowed => csv::borrowed(&ctx.csv),
            Way::CsvTyped => csv::typed(&ctx.csv),
            Way::CsvParallel(t) => csv::parallel(&ctx.csv, t.count()),
            Way::CsvCount(t) => csv::count(&ctx.csv, t.count()),
        }
    }

    /// The file this method reads (and the lab warms or evicts).
    pub fn input<'c>(&self, ctx: &'c Ctx) -> &'c Path {
        match (self.kind, self.way) {
            (Kind::Csv, _) => &ctx.csv,
            (_, Way::Decode { format: Packed::Gzip, .. }) => &ctx.gz,
            (_, Way::Decode { format: Packed::Zstd, .. }) => &ctx.zst,
            _ => &ctx.file,
        }
    }

    /// The compressed copy it reads, for a `gz-*` or `zst-*` method.
    pub fn input_format(&self) -> Option<Packed> {
        match self.way {
            Way::Decode { format, .. } => Some(format),
            _ => None,
        }
    }

    /// Which group the method belongs to.
    pub fn group(&self) -> Group {
        match self.way {
            Way::Go => Group::Go,
            Way::Direct { .. } => Group::Direct,
            Way::Decode { .. } => Group::Compressed,
            _ => Group::Standard,
        }
    }

    /// With `--larger-than-ram`, how the method keeps the file out of the
    /// page cache while it reads: every method's file is evicted before its
    /// run; these say what happens during it.
    pub fn out_of_cache(&self) -> &'static str {
        match self.way {
            Way::Direct { .. } => "O_DIRECT",
            Way::Mmap | Way::MmapParallel(_) => "madvise+fadvise behind",
            Way::FsRead => "-",
            Way::Read { .. }
            | Way::ReadUntil
            | Way::Lines
            | Way::SwathLines
            | Way::Pread(_)
            | Way::ByteUnbuffered
            | Way::ByteBufReader => "fadvise behind",
            _ if matches!(self.kind, Kind::Write | Kind::Small) => "-",
            // swath's engine, the decoders and Go do their own reads.
            _ => "evicted before only",
        }
    }

    /// After the timed run: the count to check. For readers it is the count
    /// they found; for writers, the lines read back from what they wrote
    /// (and the file is removed).
    ///
    /// # Errors
    ///
    /// When a written file cannot be read back or is not the size written,
    /// or a CSV method's id checksum is wrong (a count has none: its
    /// answer is the record count).
    pub fn check(&self, ctx: &Ctx, outcome: &Outcome) -> io::Result<u64> {
        if self.kind == Kind::Csv {
            let sum = match (&self.way, outcome.id_sum) {
                (Way::CsvCount(_), None) => ctx.csv_id_sum,
                (_, sum) => sum.unwrap_or(0),
            };
            if sum != ctx.csv_id_sum {
                return Err(io::Error::other(format!(
                    "WRONG ANSWER: the ids sum to {sum}, expected {}",
                    ctx.csv_id_sum
                )));
            }
            return Ok(outcome.lines);
        }
        if self.kind != Kind::Write || self.way == Way::Go {
            // A Go write method checks what it wrote itself.
            return Ok(outcome.lines);
        }
        let path = self.out_path(ctx);
        let found = write::read_back(&path, outcome.bytes);
        let _ = std::fs::remove_file(&path);
        found
    }

    /// The lines this method must find, given the file's and the prefix's.
    pub fn expected(&self, ctx: &Ctx, file_lines: u64, prefix_lines: u64) -> u64 {
        match (self.kind, self.way) {
            (Kind::Read | Kind::Compressed, _) => file_lines,
            (Kind::Prefix, _) => prefix_lines,
            (Kind::Small, _) => ctx.write_lines,
            (Kind::Csv, _) => ctx.csv_records,
            (Kind::Write, Way::WriteBufWriter { large } | Way::WriteSwath { large }) => {
                self.write_count(ctx, large)
            }
            (Kind::Write, _) => ctx.write_lines,
        }
    }

    /// Bytes this method writes to the scratch directory in one run (0 for
    /// readers), for the disk-space check. Each run removes its file.
    pub fn write_bytes(&self, ctx: &Ctx) -> u64 {
        let lines = match self.way {
            Way::WriteUnbuffered => ctx.write_lines,
            Way::Go if matches!(self.kind, Kind::Write | Kind::Small) => ctx.write_lines,
            Way::WriteBufWriter { large } | Way::WriteSwath { large } => {
                self.write_count(ctx, large)
            }
            _ => 0,
        };
        lines * WRITE_LINE.len() as u64
    }

    fn write_count(&self, ctx: &Ctx, large: bool) -> u64 {
        if large {
            ctx.large_write / WRITE_LINE.len() as u64
        } else {
            ctx.write_lines
        }
    }

    fn out_path(&self, ctx: &Ctx) -> PathBuf {
        ctx.scratch.join(format!("{}.out", self.name))
    }

    /// True for a `read-*` method whose buffer size is the variable.
    pub fn buffer(&self) -> Option<(usize, bool)> {
        match self.way {
            Way::Read { size, aligned } => Some((size, aligned)),
            _ => None,
        }
    }
}

fn to_io(err: swath::Error) -> io::Error {
    io::Error::other(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_findable() {
        let all = all();
        for m in &all {
            assert_eq!(all.iter().filter(|o| o.name == m.name).count(), 1, "{}", m.name);
            assert_eq!(find(&m.name).as_ref(), Some(m));
        }
        assert!(find("nope").is_none());
        assert_eq!(size_label(512), "512B");
        assert_eq!(size_label(8 << 20), "8M");
    }

    #[test]
    fn write_sizes_for_the_disk_check() {
        let ctx = Ctx { write_lines: 10, large_write: 1000, ..Ctx::default() };
        let bytes = |n: &str| find(n).unwrap().write_bytes(&ctx);
        assert_eq!(bytes("read-4K"), 0);
        assert_eq!(bytes("write-unbuffered"), 110);
        assert_eq!(bytes("write-swath"), 110);
        assert_eq!(bytes("write-large-swath"), 1000 / 11 * 11);
        assert_eq!(bytes("go-b-write-bufio"), 110);
        assert_eq!(bytes("go-read-4K"), 0);
    }

    #[test]
    fn groups_and_inputs() {
        let ctx = Ctx { gz: "a.gz".into(), zst: "a.zst".into(), ..Ctx::default() };
        let m = |n: &str| find(n).unwrap_or_else(|| panic!("{n}"));
        assert_eq!(m("gz-flate2-4K").input(&ctx), Path::new("a.gz"));
        assert_eq!(m("zst-zstdcat").input(&ctx), Path::new("a.zst"));
        assert_eq!(m("direct-8M").group(), Group::Direct);
        assert_eq!(m("go-readat-10").group(), Group::Go);
        assert_eq!(m("zst-swath").group(), Group::Compressed);
        assert_eq!(m("mmap").group(), Group::Standard);
        assert_eq!(all().iter().filter(|m| m.group() == Group::Go).count(), 15);
        assert_eq!(m("read-4K").out_of_cache(), "fadvise behind");
        assert_eq!(m("direct-4K").out_of_cache(), "O_DIRECT");
    }
}

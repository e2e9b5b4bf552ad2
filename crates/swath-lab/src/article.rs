//! The figures the texts swath grew out of published, on their authors'
//! machines, so the lab can show them beside this machine's.
//!
//! They are facts to cite, not targets: the machines differ, and the
//! article's programs are Go. Each figure names the text it comes from
//! ([`Text`]) and the row of that text's table it is ([`Published::row`]);
//! [`for_method`] says which lab method does the same work.

/// A text whose figures the lab cites.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Text {
    /// "Read large files in Go quickly without loading them all": the lab
    /// swath grew out of (a 512 MB log, ten ways, each once, warm cache).
    Article,
    /// "Buffered vs non buffered file IO using go": `go test -bench` on
    /// 100,000 lines of `some text!\n`.
    Buffered,
    /// go-zerocsv's README ("Why Go's encoding/csv burns 540 MB on 5M
    /// rows"): 5,000,000 rows of 6 columns.
    ZeroCsv,
}

impl Text {
    /// Every text, in the order the lab cites them.
    pub const ALL: [Text; 3] = [Text::Article, Text::Buffered, Text::ZeroCsv];

    /// A short tag for tables: `A`, `B`, `C`.
    pub fn tag(self) -> &'static str {
        match self {
            Text::Article => "A",
            Text::Buffered => "B",
            Text::ZeroCsv => "C",
        }
    }

    /// The text, its machine and how it measured, in one sentence.
    pub fn citation(self) -> &'static str {
        match self {
            Text::Article => {
                "the Go article the lab comes from, \"Read large files in Go quickly without \
                 loading them all\": a 512 MB file of 6,242,686 log lines, each way run once \
                 with the file cached, on a machine the article does not name"
            }
            Text::Buffered => {
                "\"Buffered vs non buffered file IO using go\": go test -bench on an AMD Ryzen \
                 7 5800H (linux/amd64, GOMAXPROCS 4), writing 100,000 lines of \"some text!\" \
                 and reading them back"
            }
            Text::ZeroCsv => {
                "go-zerocsv's README: 5,000,000 rows of 6 columns on an AMD Ryzen 5 8400F \
                 (linux/amd64, Go 1.26)"
            }
        }
    }
}

/// What a figure measures, in the unit its text gave.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Figure {
    /// A read of the whole file: seconds and GB/s (10^9 bytes).
    Read {
        /// Seconds of the one run.
        secs: f64,
        /// GB/s as the text printed it.
        gbps: f64,
    },
    /// A benchmark of a fixed amount of work: nanoseconds per operation,
    /// with `lines` lines per operation.
    PerOp {
        /// ns/op from `go test -bench`.
        ns_per_op: f64,
        /// Lines written or read per operation.
        lines: u64,
    },
    /// A CSV read: MB/s (10^6 bytes) and seconds.
    Csv {
        /// Seconds for the text's file.
        secs: f64,
        /// MB/s as the text printed it.
        mbps: f64,
    },
}

impl Figure {
    /// The figure as its text would say it: `11.72 GB/s`, `808.6 ns/line`.
    pub fn show(&self) -> String {
        match *self {
            Figure::Read { gbps, .. } => format!("{gbps:.2} GB/s"),
            Figure::PerOp { ns_per_op, lines } => {
                format!("{:.1} ns/line", ns_per_op / lines.max(1) as f64)
            }
            Figure::Csv { mbps, .. } => format!("{mbps:.0} MB/s"),
        }
    }
}

/// One published figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Published {
    /// The text it comes from.
    pub text: Text,
    /// The row of the text's table, as it labels it.
    pub row: &'static str,
    /// The figure.
    pub figure: Figure,
    /// Bytes allocated, when the text gives them (B/op or MB).
    pub allocated: Option<u64>,
    /// True when the lab's method does the same work in another language
    /// or with a near cousin of the text's API (read_until for Scanner), so
    /// the comparison says "nearest" rather than "same".
    pub nearest: bool,
}

const fn read(row: &'static str, secs: f64, gbps: f64, mb: f64) -> Published {
    Published {
        text: Text::Article,
        row,
        figure: Figure::Read { secs, gbps },
        allocated: Some((mb * 1e6) as u64),
        nearest: false,
    }
}

const fn bench(row: &'static str, ns_per_op: f64, bytes_per_op: u64) -> Published {
    Published {
        text: Text::Buffered,
        row,
        figure: Figure::PerOp { ns_per_op, lines: 100_000 },
        allocated: Some(bytes_per_op),
        nearest: false,
    }
}

const fn csv(row: &'static str, secs: f64, mbps: f64, bytes: u64) -> Published {
    Published {
        text: Text::ZeroCsv,
        row,
        figure: Figure::Csv { secs, mbps },
        allocated: Some(bytes),
        nearest: true,
    }
}

const fn nearest(p: Published) -> Published {
    Published { nearest: true, ..p }
}

/// The lab of text A: its ten ways of counting the lines of a 512 MB file.
pub const ARTICLE_READS: [(&str, Published); 10] = [
    ("512B", read("File.Read into a 512 B buffer", 0.564, 0.95, 0.0)),
    ("4K", read("File.Read into a 4 KiB buffer", 0.104, 5.15, 0.0)),
    ("32K", read("File.Read into a 32 KiB buffer", 0.051, 10.56, 0.0)),
    ("256K", read("File.Read into a 256 KiB buffer", 0.046, 11.72, 0.3)),
    ("1M", read("File.Read into a 1 MiB buffer", 0.046, 11.79, 1.0)),
    ("8M", read("File.Read into an 8 MiB buffer", 0.055, 9.76, 8.4)),
    ("scanner", read("bufio.Scanner, default 64 KB token limit", 0.177, 3.04, 0.0)),
    ("readstring", read("bufio.Reader.ReadString per line", 0.323, 1.66, 599.3)),
    ("readfile", read("os.ReadFile, whole file in memory", 0.203, 2.64, 536.9)),
    ("readat-10", read("10 goroutines, ReadAt on ranges, 1 MiB buffers", 0.019, 28.82, 10.5)),
];

/// The five benchmarks of text B.
pub const BUFFERED: [(&str, Published); 5] = [
    ("write-unbuffered", bench("write, f.WriteString per line (unbuffered)", 80_855_082.0, 120)),
    ("write-bufio", bench("write, bufio.Writer", 12_895_724.0, 4_216)),
    ("read-10B", bench("read, f.Read into a 10-byte slice (unbuffered)", 25_724_519.0, 120)),
    ("readstring", bench("read, bufio.Reader.ReadString('\\n')", 3_051_139.0, 1_604_219)),
    ("scanner", bench("read, bufio.Scanner + Text()", 1_340_817.0, 4_216)),
];

/// The two CSV readers of text C.
pub const ZEROCSV: [(&str, Published); 2] = [
    ("encoding-csv", csv("encoding/csv (Go's standard library)", 0.492, 292.0, 540_000_000)),
    ("zerocsv", csv("go-zerocsv", 0.302, 474.0, 5_000)),
];

fn find(table: &[(&str, Published)], key: &str) -> Option<Published> {
    table.iter().find(|(k, _)| *k == key).map(|(_, p)| *p)
}

/// The published figure for the lab method called `name`, if a text
/// measured the same work (or its nearest cousin, marked so).
pub fn for_method(name: &str) -> Option<Published> {
    let a = |k| find(&ARTICLE_READS, k);
    let b = |k| find(&BUFFERED, k);
    match name {
        // The Rust twins of the article's lab.
        "read-512B" | "read-4K" | "read-32K" | "read-256K" | "read-1M" | "read-8M" => {
            a(name.trim_start_matches("read-"))
        }
        "read-until" => a("scanner").map(nearest),
        "lines" => a("readstring").map(nearest),
        "fs-read" => a("readfile"),
        "pread-10" => a("readat-10").map(nearest),
        // The Rust twins of the second text's writes: the same 100,000 lines.
        "write-unbuffered" => b("write-unbuffered"),
        "write-bufwriter" => b("write-bufio").map(nearest),
        // The CSV readers: a string per field, and borrowed fields.
        "csv-strings" => find(&ZEROCSV, "encoding-csv"),
        "csv-borrowed" => find(&ZEROCSV, "zerocsv"),
        // The Go methods are the texts' own programs, rebuilt here.
        _ => {
            let go = name.strip_prefix("go-")?;
            if let Some(rest) = go.strip_prefix("b-") {
                b(rest)
            } else if let Some(size) = go.strip_prefix("read-") {
                a(size)
            } else {
                a(go)
            }
        }
    }
}

/// This machine against the text, as a speed ratio (above 1: this machine
/// is faster). `secs` is this machine's median time for the work of
/// `lines` lines or records; `gbps` its rate.
pub fn speed_ratio(p: &Published, secs: f64, gbps: f64, lines: u64) -> Option<f64> {
    let r = match p.figure {
        Figure::Read { gbps: theirs, .. } => gbps / theirs,
        Figure::Csv { mbps, .. } => gbps * 1000.0 / mbps,
        Figure::PerOp { ns_per_op, lines: theirs } => {
            let ours = secs * 1e9 / lines.max(1) as f64;
            (ns_per_op / theirs.max(1) as f64) / ours
        }
    };
    (r.is_finite() && r > 0.0).then_some(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_method_of_the_texts_has_its_figure() {
        assert_eq!(for_method("read-256K").unwrap().row, "File.Read into a 256 KiB buffer");
        assert_eq!(for_method("go-read-256K"), for_method("read-256K"));
        assert_eq!(for_method("go-readat-10").unwrap().figure.show(), "28.82 GB/s");
        assert!(for_method("pread-10").unwrap().nearest);
        assert_eq!(for_method("go-b-write-unbuffered"), for_method("write-unbuffered"));
        assert_eq!(for_method("go-b-scanner").unwrap().figure.show(), "13.4 ns/line");
        assert_eq!(for_method("csv-borrowed").unwrap().figure.show(), "474 MB/s");
        assert!(for_method("mmap").is_none());
        assert!(for_method("go-nothing").is_none());
    }

    #[test]
    fn ratios_are_this_machine_over_the_text() {
        let p = for_method("read-1M").unwrap();
        assert!((speed_ratio(&p, 0.1, 5.895, 1).unwrap() - 0.5).abs() < 1e-9);
        // 100,000 lines in 40.4 ms is 404 ns/line, against 808.6: twice as fast.
        let w = for_method("write-unbuffered").unwrap();
        let r = speed_ratio(&w, 0.040_427_541, 0.0, 100_000).unwrap();
        assert!((r - 2.0).abs() < 1e-6, "{r}");
        let c = for_method("csv-strings").unwrap();
        assert!((speed_ratio(&c, 1.0, 0.146, 1).unwrap() - 0.5).abs() < 1e-9);
        assert_eq!(speed_ratio(&p, 0.0, 0.0, 1), None);
    }
}

//! The advice the measurements support, computed from them: each recipe
//! appears only when the methods it compares ran and were right.

use super::{decompression_share, vs_article, Report};
use crate::article::Text;
use crate::methods::{size_label, Kind, Packed, DIRECT_SIZES, PACKED_SIZES, READ_SIZES};
use crate::runner::Figures;

fn fig(r: &Report, name: &str) -> Option<Figures> {
    r.ok(name).and_then(|s| s.figures())
}

/// "1.8x faster" / "1.3x slower" / "about the same" for `a` against `b`.
fn compare(a: f64, b: f64) -> String {
    if a <= 0.0 || b <= 0.0 {
        return "not comparable".into();
    }
    let ratio = a / b;
    if (0.9..=1.1).contains(&ratio) {
        "about as fast as".into()
    } else if ratio > 1.0 {
        format!("{ratio:.1}x as fast as")
    } else {
        format!("{:.1}x slower than", 1.0 / ratio)
    }
}

/// The recipes, one sentence each.
pub fn recipes(r: &Report) -> Vec<String> {
    let mut out = Vec::new();
    let sized: Vec<(usize, Figures)> = READ_SIZES
        .iter()
        .filter_map(|&n| fig(r, &format!("read-{}", size_label(n))).map(|f| (n, f)))
        .collect();
    let best_read = sized.iter().map(|(_, f)| f.gbps).fold(0.0, f64::max);
    if sized.len() >= 2 {
        let (best_n, best) =
            sized.iter().max_by(|a, b| a.1.gbps.total_cmp(&b.1.gbps)).expect("two or more");
        let (enough_n, enough) = sized
            .iter()
            .find(|(_, f)| f.gbps >= 0.9 * best.gbps)
            .expect("the best is within 10% of itself");
        let (small_n, small) = &sized[0];
        out.push(format!(
            "Buffer size: {} is enough for File::read here ({:.2} GB/s, within 10% of the \
             best, {:.2} GB/s at {}); {} runs at {:.2} GB/s, {}x slower.",
            size_label(*enough_n),
            enough.gbps,
            best.gbps,
            size_label(*best_n),
            size_label(*small_n),
            small.gbps,
            fmt_ratio(best.gbps / small.gbps.max(1e-12)),
        ));
    }
    for n in [256 << 10, 1 << 20] {
        let l = size_label(n);
        if let (Some(a), Some(v)) = (fig(r, &format!("read-{l}")), fig(r, &format!("read-{l}-vec")))
        {
            let off = v.buf_offset.unwrap_or(0);
            let what = if off == 0 {
                "happened to land on a page boundary, so this run cannot show the alignment cost"
                    .to_string()
            } else {
                format!("sits {off} bytes past a page boundary")
            };
            out.push(format!(
                "Alignment: a {l} Vec ({what}) reads at {:.2} GB/s; the page-aligned {l} buffer \
                 is {} it ({:.2} GB/s).",
                v.gbps,
                compare(a.gbps, v.gbps),
                a.gbps
            ));
        }
    }
    if let (Some(l), Some(u)) = (fig(r, "lines"), fig(r, "read-until")) {
        let per_line = if l.lines > 0 { l.allocations as f64 / l.lines as f64 } else { 0.0 };
        let extra_ns = (l.secs.0 - u.secs.0) * 1e9 / l.lines.max(1) as f64;
        out.push(format!(
            "A String per line: lines() made {:.2} allocations per line ({} allocations, {} \
             bytes in all) and took {:.1} ns more per line than read_until into one reused Vec \
             ({} allocations); read_until is {} lines().",
            per_line,
            l.allocations,
            l.allocated,
            extra_ns,
            u.allocations,
            compare(u.gbps, l.gbps)
        ));
    }
    if let Some(m) = fig(r, "mmap") {
        if best_read > 0.0 {
            let pays = if m.gbps > 1.1 * best_read {
                "mmap pays off here"
            } else {
                "mmap does not pay off here"
            };
            out.push(format!(
                "mmap: one thread over a map runs at {:.2} GB/s, {} the best File::read \
                 ({:.2} GB/s): {pays} on one thread (and it can SIGBUS if the file shrinks).",
                m.gbps,
                compare(m.gbps, best_read),
                best_read
            ));
        }
    }
    let single = fig(r, "mmap").map_or(best_read, |m| m.gbps.max(best_read));
    for (name, what) in [
        ("mmap-par", "mmap over all cores"),
        ("pread-cores", "pread, one thread per core"),
        ("pread-10", "pread with 10 threads"),
    ] {
        if let Some(f) = fig(r, name) {
            if single > 0.0 {
                let verdict = if f.gbps > 1.1 * single {
                    "threads pay off"
                } else {
                    "threads do not pay off"
                };
                out.push(format!(
                    "Threads: {what} ({} cores) runs at {:.2} GB/s, {} the best single thread \
                     ({:.2} GB/s): {verdict} for this file.",
                    r.cores,
                    f.gbps,
                    compare(f.gbps, single),
                    single
                ));
            }
        }
    }
    if let (Some(s), Some(u)) = (fig(r, "swath-lines"), fig(r, "read-until")) {
        out.push(format!(
            "swath's LineReader: {:.2} GB/s with {} allocation{}, {} BufReader + read_until.",
            s.gbps,
            s.allocations,
            if s.allocations == 1 { "" } else { "s" },
            compare(s.gbps, u.gbps)
        ));
    }
    if let (Some(b), Some(u)) = (fig(r, "byte-bufreader"), fig(r, "byte-read")) {
        let ns = |f: &Figures| f.secs.0 * 1e9 / f.bytes.max(1) as f64;
        out.push(format!(
            "One byte at a time: {:.1} ns per byte unbuffered (a system call each) against \
             {:.1} ns through BufReader: {}x.",
            ns(&u),
            ns(&b),
            fmt_ratio(ns(&u) / ns(&b).max(1e-12))
        ));
    }
    let writes: Vec<(&str, Figures)> = ["write-unbuffered", "write-bufwriter", "write-swath"]
        .into_iter()
        .filter_map(|n| fig(r, n).map(|f| (n, f)))
        .collect();
    if writes.len() >= 2 {
        let parts: Vec<String> = writes
            .iter()
            .map(|(n, f)| {
                format!(
                    "{n} {:.1} ns/line with {:.4} syscalls/line",
                    f.secs.0 * 1e9 / f.lines.max(1) as f64,
                    f.syscalls.unwrap_or(0) as f64 / f.lines.max(1) as f64
                )
            })
            .collect();
        out.push(format!("Writing lines: {}.", parts.join("; ")));
    }
    csv_recipes(r, &mut out);
    compressed_recipes(r, &mut out);
    direct_recipe(r, best_read, &mut out);
    go_recipe(r, &mut out);
    article_recipe(r, &mut out);
    if r.larger_than_ram {
        let after: Vec<f64> = r
            .series
            .iter()
            .filter(|s| s.method.out_of_cache() != "evicted before only")
            .filter_map(|s| s.figures())
            .filter_map(|f| f.residency_after)
            .collect();
        let most = after.iter().copied().fold(0.0, f64::max);
        out.push(format!(
            "Larger than memory: each run began with the file evicted, and the readers marked \
             'behind' dropped what they had read as they went (O_DIRECT never cached it); at \
             most {:.0}% of the file was cached after their runs ({} runs measured), so their \
             rates are what a file far larger than memory would get. Those marked 'evicted \
             before only' read through the cache as usual.",
            most * 100.0,
            after.len()
        ));
    }
    if r.cold {
        let warm_left: Vec<String> = r
            .series
            .iter()
            .filter(|s| s.method.kind != Kind::Write)
            .filter_map(|s| s.figures().map(|f| (s, f)))
            .filter(|(_, f)| f.residency.is_some_and(|x| x > 0.1))
            .map(|(s, f)| format!("{} {:.0}%", s.method.name, f.residency.unwrap_or(0.0) * 100.0))
            .collect();
        if warm_left.is_empty() {
            out.push("Cold runs were cold: under 10% of the file was cached before each.".into());
        } else {
            out.push(format!(
                "Cold runs were NOT fully cold (the kernel kept pages): {}.",
                warm_left.join(", ")
            ));
        }
    }
    out
}

/// Compressed input: how fast each decoder is, what share of the time it
/// takes, and whether buffer size still matters (the article says it does not).
fn compressed_recipes(r: &Report, out: &mut Vec<String>) {
    for format in Packed::ALL {
        let ext = format.ext();
        let lib = if format == Packed::Gzip { "flate2" } else { "zstd" };
        let sized: Vec<(usize, Figures)> = PACKED_SIZES
            .iter()
            .filter_map(|&n| fig(r, &format!("{ext}-{lib}-{}", size_label(n))).map(|f| (n, f)))
            .collect();
        let swath = r.ok(&format!("{ext}-swath"));
        let (Some(s), Some(packed)) = (swath, r.compressed_size(format)) else {
            continue;
        };
        let Some(f) = s.figures() else { continue };
        let share = decompression_share(r, s)
            .map_or(String::new(), |x| format!("; decoding is {:.0}% of its time", x * 100.0));
        let mut line = format!(
            "Compressed ({} -{}, {:.0}:1 on this log, one repeated line, far more than real \
             logs): swath's decoder reads {:.2} GB/s of decompressed bytes ({:.2} MB/s \
             compressed){share}.",
            format.name(),
            format.level(),
            r.size as f64 / packed.max(1) as f64,
            f.gbps,
            packed as f64 / f.secs.0.max(1e-12) / 1e6,
        );
        if sized.len() >= 2 {
            let best = sized.iter().map(|p| p.1.gbps).fold(0.0, f64::max);
            let worst = sized.iter().map(|p| p.1.gbps).fold(f64::INFINITY, f64::min);
            let spread = (best / worst.max(1e-12) - 1.0) * 100.0;
            let first = size_label(sized[0].0);
            let last = size_label(sized[sized.len() - 1].0);
            let verdict = if spread <= 10.0 {
                "buffer size does not matter for this input (the article's claim holds here)"
            } else {
                "buffer size still matters for this input"
            };
            line.push_str(&format!(
                " Through {lib} at {first}..{last} buffers: {:.2} to {:.2} GB/s, {spread:.0}% \
                 apart: {verdict}.",
                worst, best
            ));
        }
        out.push(line);
    }
}

/// O_DIRECT against the page cache.
fn direct_recipe(r: &Report, best_cached: f64, out: &mut Vec<String>) {
    let direct: Vec<(usize, Figures)> = DIRECT_SIZES
        .iter()
        .filter_map(|&n| fig(r, &format!("direct-{}", size_label(n))).map(|f| (n, f)))
        .collect();
    let Some((n, best)) = direct.iter().max_by(|a, b| a.1.gbps.total_cmp(&b.1.gbps)) else {
        return;
    };
    let small = &direct[0];
    let cached = if best_cached > 0.0 {
        format!(
            "; from the page cache File::read reaches {:.2} GB/s, {} the device",
            best_cached,
            compare(best_cached, best.gbps)
        )
    } else {
        String::new()
    };
    out.push(format!(
        "O_DIRECT (what the device delivers, no cache): {:.2} GB/s at best ({} buffers), \
         {:.2} GB/s at {}{cached}. Large buffers matter more here than from the cache: each \
         read waits for the device.",
        best.gbps,
        size_label(*n),
        small.1.gbps,
        size_label(small.0),
    ));
}

/// Go and Rust, the same work on this machine.
fn go_recipe(r: &Report, out: &mut Vec<String>) {
    let pairs = [
        ("go-read-512B", "read-512B"),
        ("go-read-256K", "read-256K"),
        ("go-read-8M", "read-8M"),
        ("go-scanner", "read-until"),
        ("go-readstring", "lines"),
        ("go-readfile", "fs-read"),
        ("go-readat-10", "pread-10"),
        ("go-b-write-unbuffered", "write-unbuffered"),
        ("go-b-write-bufio", "write-bufwriter"),
    ];
    let parts: Vec<String> = pairs
        .iter()
        .filter_map(|(g, rs)| {
            let (gf, rf) = (fig(r, g)?, fig(r, rs)?);
            let (gt, rt) = (gf.secs.0, rf.secs.0);
            Some(format!("{rs} {} {g}", compare(gt / rt.max(1e-12), 1.0)))
        })
        .collect();
    if !parts.is_empty() {
        out.push(format!(
            "Go beside Rust on this machine (the same work, the same file): {}.",
            parts.join("; ")
        ));
    }
}

/// This machine against the article's, over the methods both measured.
fn article_recipe(r: &Report, out: &mut Vec<String>) {
    let mut ratios: Vec<(String, f64)> = r
        .series
        .iter()
        .filter_map(|s| {
            vs_article(r, s)
                .filter(|(p, _)| p.text == Text::Article && !p.nearest)
                .map(|(_, x)| (s.method.name.clone(), x))
        })
        .collect();
    if ratios.len() < 2 {
        return;
    }
    ratios.sort_by(|a, b| a.1.total_cmp(&b.1));
    let (lo, hi) = (&ratios[0], &ratios[ratios.len() - 1]);
    out.push(format!(
        "Against the article's machine: the methods it measured run at {:.2}x ({}) to {:.2}x \
         ({}) its published speed here (--compare shows each).",
        lo.1, lo.0, hi.1, hi.0
    ));
}

/// MB/s (10^6 bytes), the scale CSV readers are quoted in.
fn mbps(f: &Figures) -> f64 {
    f.gbps * 1000.0
}

fn ns_per(f: &Figures) -> f64 {
    f.secs.0 * 1e9 / f.lines.max(1) as f64
}

/// The CSV methods against each other: the cost of owned strings, of
/// typing the fields, and whether the cores pay off.
fn csv_recipes(r: &Report, out: &mut Vec<String>) {
    let strings = fig(r, "csv-strings");
    let borrowed = fig(r, "csv-borrowed");
    let typed = fig(r, "csv-typed");
    if let (Some(s), Some(b)) = (strings, borrowed) {
        out.push(format!(
            "A String per CSV field: a Vec<String> per record made {:.2} allocations per record \
             ({} bytes in all) and cost {:.1} ns more per record than borrowed records ({} \
             allocations in all); borrowed records are {} it ({:.0} against {:.0} MB/s).",
            s.allocations as f64 / s.lines.max(1) as f64,
            s.allocated,
            ns_per(&s) - ns_per(&b),
            b.allocations,
            compare(b.gbps, s.gbps),
            mbps(&b),
            mbps(&s)
        ));
    }
    if let (Some(t), Some(b)) = (typed, borrowed) {
        let (cost, how) = if ns_per(&t) >= ns_per(&b) {
            (ns_per(&t) - ns_per(&b), "more")
        } else {
            (ns_per(&b) - ns_per(&t), "less")
        };
        out.push(format!(
            "Typed scan: parsing every record into (u64, &str, f64, bool, &str, &str) took \
             {cost:.1} ns {how} per record than only looking at the borrowed fields ({:.0} \
             against {:.0} MB/s), with {} allocations in all.",
            mbps(&t),
            mbps(&b),
            t.allocations
        ));
    }
    if let (Some(p), Some(b)) = (fig(r, "csv-parallel"), borrowed) {
        let verdict = if p.gbps > 1.1 * b.gbps {
            "the parallel reader pays off"
        } else {
            "the parallel reader does not pay off"
        };
        out.push(format!(
            "Parallel CSV: on {} cores the parallel reader runs at {:.0} MB/s, {} one thread of \
             borrowed records ({:.0} MB/s): {verdict} for this file (peak RSS {} against {}).",
            r.cores,
            mbps(&p),
            compare(p.gbps, b.gbps),
            mbps(&b),
            crate::units::format_bytes(p.max_rss),
            crate::units::format_bytes(b.max_rss)
        ));
    }
    if let (Some(c), Some(b)) = (fig(r, "csv-count"), borrowed) {
        out.push(format!(
            "Counting records: the validating scan (every quote and field count checked, no \
             field built) runs at {:.0} MB/s on {} cores, {} one thread of borrowed records: \
             to know how many records a file has, or that it is valid, do not parse it.",
            mbps(&c),
            r.cores,
            compare(c.gbps, b.gbps),
        ));
    }
}

fn fmt_ratio(x: f64) -> String {
    if x >= 10.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

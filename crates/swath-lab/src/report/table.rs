//! The table for people: one row per method.

use std::fmt::Write;

use super::compare::fmt_times;
use super::{decompression_share, recipes, to_compare_table, vs_article, Report};
use crate::methods::{Kind, Packed, Way};
use crate::units::format_bytes;

/// The table, then the recipes, as text.
pub fn to_table(r: &Report) -> String {
    let mut out = String::new();
    let state = if r.larger_than_ram {
        "larger than memory (evicted before each run and, by most methods, behind the reader \
         as it goes: see 'out of cache')"
    } else if r.cold {
        "cold cache (evicted before each run; 'cached' = fraction still resident)"
    } else {
        "warm cache (file read once before each run)"
    };
    let _ = writeln!(
        out,
        "swath lab: {} ({}, {} lines{}), {}, median of {} run{}",
        r.file,
        format_bytes(r.size),
        r.lines,
        if r.generated { ", generated" } else { "" },
        state,
        r.runs,
        if r.runs == 1 { "" } else { "s" }
    );
    if let Some(c) = &r.csv {
        let _ = writeln!(
            out,
            "CSV methods: {} ({}, {} records{})",
            c.file,
            format_bytes(c.size),
            c.records,
            if c.generated { ", generated: id,name,score,active,city,ts" } else { "" }
        );
    }
    let _ = writeln!(out, "{} on {}", r.date(), r.machine);
    if let Some(st) = &r.storage {
        let _ = writeln!(out, "storage: {st}");
    }
    for c in &r.compressed {
        let _ = writeln!(
            out,
            "{} -{} copy: {} ({:.0}:1)",
            c.format.name(),
            c.format.level(),
            format_bytes(c.size),
            r.size as f64 / c.size.max(1) as f64
        );
    }
    if let Some(v) = &r.go {
        let _ = writeln!(out, "Go methods: go-*, built with {v}");
    }
    let _ = writeln!(out);
    let head = [
        "method",
        "time",
        "min..max",
        "GB/s",
        "allocated",
        "peak RSS",
        "lines",
        "user",
        "sys",
        "faults",
        "calls",
        "per unit",
        "cached",
        "vs text",
    ];
    let after = r.series.iter().any(|s| s.figures().is_some_and(|f| f.residency_after.is_some()));
    let mut head: Vec<&str> = head.to_vec();
    if after {
        head.push("after");
    }
    if r.larger_than_ram {
        head.push("out of cache");
    }
    let mut rows: Vec<Vec<String>> = vec![head.iter().map(|s| s.to_string()).collect()];
    let mut failures = Vec::new();
    for s in &r.series {
        if let Some(why) = &s.not_applicable {
            failures.push(format!("{}: not applicable: {why}", s.method.name));
            let mut row = vec![s.method.name.clone(), "n/a".into()];
            row.resize(head.len(), String::new());
            rows.push(row);
            continue;
        }
        let Some(f) = s.figures() else {
            let err = s.error.clone().unwrap_or_else(|| "no runs".into());
            failures.push(format!("{}: FAILED: {err}", s.method.name));
            let mut row = vec![s.method.name.clone(), "FAILED".into()];
            row.resize(head.len(), String::new());
            rows.push(row);
            continue;
        };
        let per = match s.method.kind {
            Kind::Prefix if f.bytes > 0 => format!("{:.1} ns/B", f.secs.0 * 1e9 / f.bytes as f64),
            Kind::Write if f.lines > 0 => format!("{:.1} ns/line", f.secs.0 * 1e9 / f.lines as f64),
            Kind::Csv if f.lines > 0 => format!("{:.1} ns/rec", f.secs.0 * 1e9 / f.lines as f64),
            _ if f.lines > 0 => format!("{:.1} ns/line", f.secs.0 * 1e9 / f.lines as f64),
            _ => String::new(),
        };
        let calls = match (f.syscalls, s.method.kind) {
            (Some(c), Kind::Write) if f.lines > 0 => {
                format!("{c} ({:.3}/line)", c as f64 / f.lines as f64)
            }
            (Some(c), _) => c.to_string(),
            (None, _) => "-".into(),
        };
        let mut row = vec![
            s.method.name.clone(),
            secs(f.secs.0),
            format!("{}..{}", secs(f.secs.1), secs(f.secs.2)),
            super::fmt_gbps(f.gbps),
            format_bytes(f.allocated),
            format_bytes(f.max_rss),
            f.lines.to_string(),
            format!("{:.2}", f.user),
            format!("{:.2}", f.sys),
            f.faults.to_string(),
            calls,
            per,
            f.residency.map_or("-".into(), |x| format!("{:.0}%", x * 100.0)),
            vs_article(r, s)
                .map_or("-".into(), |(p, x)| format!("{} {}", fmt_times(x), p.text.tag())),
        ];
        if after {
            row.push(f.residency_after.map_or("-".into(), |x| format!("{:.0}%", x * 100.0)));
        }
        if r.larger_than_ram {
            row.push(s.method.out_of_cache().into());
        }
        rows.push(row);
    }
    let widths: Vec<usize> = (0..head.len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    for (i, row) in rows.iter().enumerate() {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let pad = widths[c] - cell.chars().count();
            if c == 0 {
                let _ = write!(line, "{cell}{}", " ".repeat(pad));
            } else {
                let _ = write!(line, "  {}{cell}", " ".repeat(pad));
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
        if i == 0 {
            let total = widths.iter().sum::<usize>() + 2 * (widths.len() - 1);
            let _ = writeln!(out, "{}", "-".repeat(total));
        }
    }
    let has = |k: Kind| r.series.iter().any(|s| s.method.kind == k);
    let mut notes = String::new();
    if has(Kind::Prefix) {
        let _ = write!(notes, "; 1-byte methods read the first {}", format_bytes(r.prefix));
    }
    if has(Kind::Csv) {
        notes.push_str("; csv-* rows count records");
    }
    if has(Kind::Compressed) {
        notes.push_str("; gz-*/zst-* GB/s are of decompressed bytes (see below)");
    }
    if r.series.iter().any(|s| s.method.way == Way::Go) {
        notes.push_str("; go-* allocated = Go's TotalAlloc");
    }
    let _ = writeln!(
        out,
        "\nGB/s = 10^9 bytes per second at the median time; allocated = heap bytes asked \
         for (counting allocator);\npeak RSS = the child process's high-water mark from the \
         OS (a mapped file counts); vs text = this machine's speed over the figure a text \
         published\nfor the same work (A, B, C: see --compare){}{notes}.",
        if after { "; after = the file's share still cached after a run" } else { "" }
    );
    compressed_table(r, &mut out);
    if r.compare {
        let _ = writeln!(out);
        out.push_str(&to_compare_table(r));
    }
    if !r.notes.is_empty() {
        let _ = writeln!(out);
        for n in &r.notes {
            let _ = writeln!(out, "Note: {n}");
        }
    }
    let recipes = recipes(r);
    if !recipes.is_empty() {
        let _ = writeln!(out, "\nWhat these numbers say on this machine:");
        for line in recipes {
            let _ = writeln!(out, "- {line}");
        }
    }
    if !failures.is_empty() {
        let _ = writeln!(out);
        for f in failures {
            let _ = writeln!(out, "{f}");
        }
    }
    out
}

/// The compressed reads: GB/s of compressed and of decompressed bytes, and
/// the share of the time decoding takes.
fn compressed_table(r: &Report, out: &mut String) {
    let mut rows: Vec<[String; 5]> = Vec::new();
    for s in r.series.iter().filter(|s| s.method.kind == Kind::Compressed) {
        let Some(f) = s.figures() else { continue };
        let format = match s.method.way {
            Way::Decode { format, .. } => format,
            _ => Packed::Gzip,
        };
        let packed = r.compressed_size(format).unwrap_or(0);
        rows.push([
            s.method.name.clone(),
            format!("{} -{}", format.name(), format.level()),
            format!("{:.2}", packed as f64 / f.secs.0.max(1e-12) / 1e6),
            super::fmt_gbps(f.gbps),
            decompression_share(r, s).map_or("-".into(), |x| format!("{:.0}%", x * 100.0)),
        ]);
    }
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nCompressed copies of the same file (decoding share = 1 - the plain file's \
         read-256K time for the same bytes / this time):"
    );
    let head = ["method", "format", "MB/s compressed", "GB/s decompressed", "decoding share"];
    let widths: Vec<usize> = (0..5)
        .map(|c| rows.iter().map(|r| r[c].len()).chain([head[c].len()]).max().unwrap_or(0))
        .collect();
    let line = |cells: [&str; 5]| {
        let mut l = format!("{:<w$}", cells[0], w = widths[0]);
        for c in 1..5 {
            let _ = write!(l, "  {:>w$}", cells[c], w = widths[c]);
        }
        l
    };
    let _ = writeln!(out, "{}", line(head));
    let _ = writeln!(out, "{}", "-".repeat(widths.iter().sum::<usize>() + 8));
    for r in &rows {
        let _ = writeln!(out, "{}", line([&r[0], &r[1], &r[2], &r[3], &r[4]]));
    }
}

fn secs(s: f64) -> String {
    if s >= 10.0 {
        format!("{s:.1} s")
    } else if s >= 0.1 {
        format!("{s:.3} s")
    } else {
        format!("{:.2} ms", s * 1e3)
    }
}

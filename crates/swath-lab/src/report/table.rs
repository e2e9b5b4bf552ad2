//! The table for people: one row per method.

use std::fmt::Write;

use super::{recipes, Report};
use crate::methods::Kind;
use crate::units::format_bytes;

/// The table, then the recipes, as text.
pub fn to_table(r: &Report) -> String {
    let mut out = String::new();
    let state = if r.cold {
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
    ];
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
        rows.push(vec![
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
        ]);
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
    let _ = writeln!(
        out,
        "\nGB/s = 10^9 bytes per second at the median time; allocated = heap bytes asked \
         for (counting allocator);\npeak RSS = the child process's high-water mark from the \
         OS (a mapped file counts){notes}."
    );
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

fn secs(s: f64) -> String {
    if s >= 10.0 {
        format!("{s:.1} s")
    } else if s >= 0.1 {
        format!("{s:.3} s")
    } else {
        format!("{:.2} ms", s * 1e3)
    }
}

//! This machine beside the texts' published figures (`--compare`), and the
//! figures derived from two series: the ratio to a text, and the share of a
//! compressed read's time that decoding takes.

use std::fmt::Write;

use super::Report;
use crate::article::{self, Figure, Published, Text};
use crate::methods::{Kind, Way};
use crate::runner::{Figures, Series};

/// The text's figure for this series' method and this machine's speed
/// against it (above 1: faster here), when a text measured the same work.
/// `None` for cold and larger-than-memory runs: the texts' reads were warm,
/// so a ratio would compare the disk with their page cache.
pub fn vs_article(r: &Report, s: &Series) -> Option<(Published, f64)> {
    if r.cold {
        return None;
    }
    let p = article::for_method(&s.method.name)?;
    let f = s.figures()?;
    let ratio = article::speed_ratio(&p, f.secs.0, f.gbps, f.lines)?;
    Some((p, ratio))
}

/// The time the plain file takes to read and count from the cache (the
/// 256 KiB `File::read`, or the best `read-*` that ran), per byte.
fn plain_secs_per_byte(r: &Report) -> Option<f64> {
    let names = ["read-256K", "read-1M", "read-32K", "read-8M", "read-4K"];
    names.iter().find_map(|n| r.ok(n)?.figures()).map(|f| f.secs.0 / f.bytes.max(1) as f64)
}

/// For a compressed read: the share of its time that decoding takes, as
/// 1 - (time to read and count the same bytes uncompressed from the page
/// cache) / (its time). `None` without a plain read to compare with.
pub fn decompression_share(r: &Report, s: &Series) -> Option<f64> {
    if s.method.kind != Kind::Compressed {
        return None;
    }
    let f = s.figures()?;
    let plain = plain_secs_per_byte(r)? * f.bytes as f64;
    (f.secs.0 > 0.0).then(|| (1.0 - plain / f.secs.0).clamp(0.0, 1.0))
}

/// This machine's figure in the unit of the text's.
fn here(p: &Published, f: &Figures) -> String {
    match p.figure {
        Figure::Read { .. } => format!("{} GB/s", super::fmt_gbps(f.gbps)),
        Figure::PerOp { .. } => format!("{:.1} ns/line", f.secs.0 * 1e9 / f.lines.max(1) as f64),
        Figure::Csv { .. } => format!("{:.0} MB/s", f.gbps * 1000.0),
    }
}

/// `1.8x`, `0.45x`.
pub fn fmt_times(x: f64) -> String {
    if x >= 10.0 {
        format!("{x:.0}x")
    } else if x >= 1.0 {
        format!("{x:.1}x")
    } else {
        format!("{x:.2}x")
    }
}

/// The second table: each method a text measured, this machine's figure,
/// the text's, and the ratio; then the texts, cited.
pub fn to_compare_table(r: &Report) -> String {
    let mut rows: Vec<[String; 6]> = vec![[
        "method".into(),
        "this machine".into(),
        "the text's".into(),
        "here/there".into(),
        "text".into(),
        "the text's row".into(),
    ]];
    let mut cited = Vec::new();
    for s in &r.series {
        let (Some((p, ratio)), Some(f)) = (vs_article(r, s), s.figures()) else {
            continue;
        };
        if !cited.contains(&p.text) {
            cited.push(p.text);
        }
        let lang = if s.method.way == Way::Go { "Go here" } else { "Rust here" };
        let row = if p.nearest {
            format!("{} (nearest; {lang})", p.row)
        } else {
            format!("{} ({lang})", p.row)
        };
        rows.push([
            s.method.name.clone(),
            here(&p, &f),
            p.figure.show(),
            fmt_times(ratio),
            p.text.tag().into(),
            row,
        ]);
    }
    let mut out = String::new();
    if rows.len() == 1 && r.cold {
        let _ = writeln!(
            out,
            "The texts measured warm reads only: run without --cold or --larger-than-ram to \
             set their figures beside this machine's."
        );
        return out;
    }
    if rows.len() == 1 {
        let _ = writeln!(out, "No method that ran has a published figure to set beside it.");
        return out;
    }
    let _ = writeln!(
        out,
        "Beside the figures the texts swath grew out of published, on their authors' machines \
         (here/there above 1: faster here):"
    );
    let _ = writeln!(out);
    let widths: Vec<usize> =
        (0..6).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    for (i, row) in rows.iter().enumerate() {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let pad = widths[c] - cell.chars().count();
            match c {
                0 | 5 => {
                    let _ =
                        write!(line, "{}{cell}{}", if c == 0 { "" } else { "  " }, " ".repeat(pad));
                }
                _ => {
                    let _ = write!(line, "  {}{cell}", " ".repeat(pad));
                }
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
        if i == 0 {
            let total = widths.iter().sum::<usize>() + 2 * 5;
            let _ = writeln!(out, "{}", "-".repeat(total));
        }
    }
    let _ = writeln!(out);
    for t in Text::ALL.into_iter().filter(|t| cited.contains(t)) {
        let _ = writeln!(out, "{}: {}.", t.tag(), t.citation());
    }
    let _ = writeln!(
        out,
        "Their figures are theirs, cited as published; the machines differ, so a ratio says \
         how this machine compares, not whether swath is right."
    );
    out
}

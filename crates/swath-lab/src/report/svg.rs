//! The chart, as hand-written SVG: buffer size against GB/s (a line for
//! page-aligned buffers, points for `Vec`s), then a bar per method.
//! Hand-written because two plain panels do not need a plotting library.

use std::fmt::Write;

use super::Report;
use crate::article::{self, Figure};
use crate::methods::{size_label, Kind, READ_SIZES};

const W: f64 = 820.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 30.0;
const LINE_TOP: f64 = 92.0;
const LINE_H: f64 = 260.0;
const BAR_H: f64 = 20.0;
const BAR_GAP: f64 = 6.0;
const NAME_W: f64 = 170.0;

/// Escape text for XML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A "nice" axis maximum at or above `x`: 1, 2 or 5 times a power of ten.
fn nice_max(x: f64) -> f64 {
    if !(x.is_finite() && x > 0.0) {
        return 1.0;
    }
    let p = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * p).find(|&v| v >= x).unwrap_or(10.0 * p)
}

/// The chart as an SVG document.
pub fn to_svg(r: &Report) -> String {
    let bars: Vec<(String, f64, Kind)> = r
        .series
        .iter()
        .filter_map(|s| s.figures().map(|f| (s.method.name.clone(), f.gbps, s.method.kind)))
        .collect();
    let points: Vec<(usize, bool, f64)> = r
        .series
        .iter()
        .filter_map(|s| {
            let (n, aligned) = s.method.buffer()?;
            Some((n, aligned, s.figures()?.gbps))
        })
        .collect();
    // The article's File::read curve, and Go's here when it ran.
    let theirs: Vec<(usize, f64)> = READ_SIZES
        .iter()
        .filter_map(|&n| match article::for_method(&format!("read-{}", size_label(n)))?.figure {
            Figure::Read { gbps, .. } => Some((n, gbps)),
            _ => None,
        })
        .collect();
    let go: Vec<(usize, f64)> = READ_SIZES
        .iter()
        .filter_map(|&n| Some((n, r.ok(&format!("go-read-{}", size_label(n)))?.figures()?.gbps)))
        .collect();
    let bar_top = LINE_TOP + LINE_H + 90.0;
    let height = bar_top + bars.len().max(1) as f64 * (BAR_H + BAR_GAP) + 40.0;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{height}\" \
         viewBox=\"0 0 {W} {height}\" font-family=\"sans-serif\" font-size=\"12\">"
    );
    let _ = writeln!(o, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
    let title = format!(
        "swath lab: {} ({} lines), {} cache, {}",
        r.file,
        r.lines,
        if r.cold { "cold" } else { "warm" },
        r.date()
    );
    let _ = writeln!(
        o,
        "<text x=\"{LEFT}\" y=\"24\" font-size=\"15\" font-weight=\"bold\">{}</text>",
        esc(&title)
    );
    let _ = writeln!(o, "<text x=\"{LEFT}\" y=\"42\" fill=\"#555\">{}</text>", esc(&r.machine));
    line_panel(&mut o, &points, &theirs, &go);
    bar_panel(&mut o, &bars, bar_top);
    o.push_str("</svg>\n");
    o
}

fn line_panel(
    o: &mut String,
    points: &[(usize, bool, f64)],
    theirs: &[(usize, f64)],
    go: &[(usize, f64)],
) {
    let x0 = LEFT;
    let x1 = W - RIGHT;
    let (y0, y1) = (LINE_TOP + LINE_H, LINE_TOP);
    let _ = writeln!(o, "<text x=\"{x0}\" y=\"{}\" font-weight=\"bold\">File::read: buffer size against GB/s</text>", LINE_TOP - 10.0);
    let ymax = nice_max(
        points.iter().map(|p| p.2).chain(theirs.iter().chain(go).map(|p| p.1)).fold(0.0, f64::max),
    );
    let sizes = crate::methods::READ_SIZES;
    let lmin = (sizes[0] as f64).log2();
    let lmax = (sizes[sizes.len() - 1] as f64).log2();
    let px = |n: usize| x0 + ((n as f64).log2() - lmin) / (lmax - lmin) * (x1 - x0);
    let py = |g: f64| y0 - g / ymax * (y0 - y1);
    // Axes, grid and labels.
    for i in 0..=5 {
        let g = ymax * i as f64 / 5.0;
        let y = py(g);
        let _ = writeln!(
            o,
            "<line x1=\"{x0}\" y1=\"{y:.1}\" x2=\"{x1}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>"
        );
        let _ = writeln!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            x0 - 6.0,
            y + 4.0,
            trim_num(g)
        );
    }
    for &n in &sizes {
        let x = px(n);
        let _ = writeln!(
            o,
            "<line x1=\"{x:.1}\" y1=\"{y0}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"#999\"/>",
            y0 + 5.0
        );
        let _ = writeln!(
            o,
            "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            y0 + 18.0,
            size_label(n)
        );
    }
    let _ = writeln!(o, "<line x1=\"{x0}\" y1=\"{y0}\" x2=\"{x1}\" y2=\"{y0}\" stroke=\"black\"/>");
    let _ = writeln!(o, "<line x1=\"{x0}\" y1=\"{y0}\" x2=\"{x0}\" y2=\"{y1}\" stroke=\"black\"/>");
    let _ = writeln!(
        o,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">buffer size (log scale)</text>",
        (x0 + x1) / 2.0,
        y0 + 36.0
    );
    let _ = writeln!(
        o,
        "<text transform=\"translate(18 {:.1}) rotate(-90)\" text-anchor=\"middle\">GB/s</text>",
        (y0 + y1) / 2.0
    );
    let mut aligned: Vec<&(usize, bool, f64)> = points.iter().filter(|p| p.1).collect();
    aligned.sort_by_key(|p| p.0);
    if aligned.len() >= 2 {
        let path: Vec<String> =
            aligned.iter().map(|p| format!("{:.1},{:.1}", px(p.0), py(p.2))).collect();
        let _ = writeln!(
            o,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\"/>",
            path.join(" ")
        );
    }
    // Other machines' and languages' curves: a line and hollow points each,
    // labelled on the right so they never cover this machine's labels.
    for (curve, color, dash) in [(theirs, "#7f7f7f", "6 4"), (go, "#2ca02c", "2 3")] {
        if curve.len() < 2 {
            continue;
        }
        let path: Vec<String> =
            curve.iter().map(|p| format!("{:.1},{:.1}", px(p.0), py(p.1))).collect();
        let _ = writeln!(
            o,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\" \
             stroke-dasharray=\"{dash}\"/>",
            path.join(" ")
        );
        for p in curve {
            let (x, y) = (px(p.0), py(p.1));
            let _ = writeln!(
                o,
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4\" fill=\"white\" stroke=\"{color}\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" fill=\"{color}\" font-size=\"10\">{}</text>",
                x + 6.0,
                y - 6.0,
                super::fmt_gbps(p.1)
            );
        }
    }
    let mut legend = 0.0;
    for (curve, color, text) in [
        (theirs, "#7f7f7f", "the article's machine (Go, published)"),
        (go, "#2ca02c", "Go on this machine"),
    ] {
        if curve.len() >= 2 {
            let _ = writeln!(
                o,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4\" fill=\"white\" stroke=\"{color}\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                x0 + 330.0 + legend,
                LINE_TOP - 36.0,
                x0 + 340.0 + legend,
                LINE_TOP - 32.0,
                esc(text)
            );
            legend += 260.0;
        }
    }
    for p in points {
        let (color, shape) = if p.1 { ("#1f77b4", "circle") } else { ("#d62728", "rect") };
        let (x, y) = (px(p.0), py(p.2));
        if shape == "circle" {
            let _ = writeln!(o, "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"4\" fill=\"{color}\"/>");
        } else {
            let _ = writeln!(
                o,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"8\" height=\"8\" fill=\"{color}\"/>",
                x - 4.0,
                y - 4.0
            );
        }
        // Aligned labels above their points, Vec labels to the right of
        // theirs, so the two never overlap at the same size.
        let (lx, ly, anchor) =
            if p.1 { (x, y - 8.0, "middle") } else { (x + 8.0, y + 4.0, "start") };
        let _ = writeln!(o, "<text x=\"{lx:.1}\" y=\"{ly:.1}\" text-anchor=\"{anchor}\" fill=\"{color}\" font-size=\"11\">{}</text>", super::fmt_gbps(p.2));
    }
    // Legend on the panel's title line, outside the plot, so it never
    // covers a point.
    let lx = x0 + 330.0;
    let ly = y1 - 14.0;
    let _ = writeln!(
        o,
        "<circle cx=\"{lx}\" cy=\"{}\" r=\"4\" fill=\"#1f77b4\"/><text x=\"{}\" y=\"{ly}\">page-aligned buffer</text>",
        ly - 4.0,
        lx + 10.0
    );
    let _ = writeln!(
        o,
        "<rect x=\"{}\" y=\"{}\" width=\"8\" height=\"8\" fill=\"#d62728\"/><text x=\"{}\" y=\"{ly}\">Vec (malloc alignment)</text>",
        lx + 146.0,
        ly - 8.0,
        lx + 160.0
    );
}

/// Bar colour and legend text per kind of method.
fn kind_style(kind: Kind) -> (&'static str, &'static str) {
    match kind {
        // Short: the four must fit in one legend line beside the title.
        Kind::Read => ("#4c9f70", "reads the file"),
        Kind::Prefix => ("#9467bd", "1-byte reads"),
        Kind::Write => ("#ff7f0e", "writes lines"),
        Kind::Csv => ("#1f77b4", "reads the CSV"),
        Kind::Compressed => ("#8c564b", "decodes"),
        Kind::Small => ("#e377c2", "small file"),
    }
}

fn bar_panel(o: &mut String, bars: &[(String, f64, Kind)], top: f64) {
    let _ = writeln!(
        o,
        "<text x=\"{LEFT}\" y=\"{:.1}\" font-weight=\"bold\">GB/s per method (median)</text>",
        top - 14.0
    );
    // Legend: one coloured square per kind present.
    let mut lx = LEFT + 230.0;
    for kind in [Kind::Read, Kind::Prefix, Kind::Write, Kind::Csv, Kind::Compressed, Kind::Small] {
        if bars.iter().any(|b| b.2 == kind) {
            let (color, text) = kind_style(kind);
            let _ = writeln!(
                o,
                "<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"10\" height=\"10\" fill=\"{color}\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\">{text}</text>",
                top - 23.0,
                lx + 14.0,
                top - 14.0
            );
            lx += 24.0 + 6.5 * text.len() as f64;
        }
    }
    let x0 = LEFT + NAME_W;
    let x1 = W - RIGHT - 60.0;
    let max = nice_max(bars.iter().map(|b| b.1).fold(0.0, f64::max));
    for (i, (name, g, kind)) in bars.iter().enumerate() {
        let color = kind_style(*kind).0;
        let y = top + i as f64 * (BAR_H + BAR_GAP);
        let w = (g / max * (x1 - x0)).max(1.0);
        let _ = writeln!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            x0 - 8.0,
            y + BAR_H * 0.7,
            esc(name)
        );
        let _ = writeln!(
            o,
            "<rect x=\"{x0}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{BAR_H}\" fill=\"{color}\"/>"
        );
        let _ = writeln!(
            o,
            "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            x0 + w + 6.0,
            y + BAR_H * 0.7,
            super::fmt_gbps(*g)
        );
    }
    if bars.is_empty() {
        let _ = writeln!(
            o,
            "<text x=\"{x0}\" y=\"{:.1}\">no method succeeded</text>",
            top + BAR_H * 0.7
        );
    }
}

fn trim_num(x: f64) -> String {
    let s = format!("{x:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_maxima() {
        assert_eq!(nice_max(0.0), 1.0);
        assert_eq!(nice_max(3.2), 5.0);
        assert_eq!(nice_max(12.0), 20.0);
        assert_eq!(nice_max(0.07), 0.1);
        assert_eq!(esc("a<b&\""), "a&lt;b&amp;&quot;");
    }
}

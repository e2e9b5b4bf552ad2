//! One JSON document for programs. Written by hand: the shape is flat and
//! fixed, and the lab then needs no serialisation library.

use std::fmt::Write;

use super::{decompression_share, recipes, vs_article, Report};
use crate::article::{Figure, Text};
use crate::methods::{Group, Kind, Way};

/// A JSON string literal.
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A JSON number; NaN and infinities (which JSON lacks) become `null`.
fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "null".into()
    }
}

/// A JSON array of already-encoded values.
fn list(items: impl Iterator<Item = String>) -> String {
    format!("[{}]", items.collect::<Vec<_>>().join(","))
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map_or("null".into(), |v| v.to_string())
}

/// The whole report as one JSON document (one line, newline-terminated).
pub fn to_json(r: &Report) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        "{{\"tool\":\"swath lab\",\"version\":{},\"date\":{},\"unix_time\":{},\"machine\":{},\
         \"cores\":{},\"file\":{},\"size\":{},\"lines\":{},\"generated\":{},\"cache\":{},\
         \"runs\":{},\"prefix\":{},\"csv\":{},\"larger_than_ram\":{},\"storage\":{},\
         \"compressed\":{},\"go\":{},\"notes\":{},\"texts\":{},\"methods\":[",
        string(env!("CARGO_PKG_VERSION")),
        string(&r.date()),
        r.unix_time,
        string(&r.machine),
        r.cores,
        string(&r.file),
        r.size,
        r.lines,
        r.generated,
        string(if r.cold { "cold" } else { "warm" }),
        r.runs,
        r.prefix,
        r.csv.as_ref().map_or("null".into(), |c| format!(
            "{{\"file\":{},\"size\":{},\"records\":{},\"generated\":{}}}",
            string(&c.file),
            c.size,
            c.records,
            c.generated
        )),
        r.larger_than_ram,
        r.storage.as_deref().map_or("null".into(), string),
        list(r.compressed.iter().map(|c| format!(
            "{{\"format\":{},\"level\":{},\"size\":{},\"ratio\":{}}}",
            string(c.format.name()),
            c.format.level(),
            c.size,
            num(r.size as f64 / c.size.max(1) as f64)
        ))),
        r.go.as_deref().map_or("null".into(), string),
        list(r.notes.iter().map(|n| string(n))),
        list(Text::ALL.iter().map(|t| format!(
            "{{\"tag\":{},\"citation\":{}}}",
            string(t.tag()),
            string(t.citation())
        ))),
    );
    for (i, s) in r.series.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        let kind = match s.method.kind {
            Kind::Read => "read",
            Kind::Prefix => "prefix",
            Kind::Write => "write",
            Kind::Csv => "csv",
            Kind::Compressed => "compressed",
            Kind::Small => "small",
        };
        let group = match s.method.group() {
            Group::Standard => "standard",
            Group::Compressed => "compressed",
            Group::Direct => "direct",
            Group::Go => "go",
        };
        let (size, aligned) = s.method.buffer().map_or((None, None), |(n, a)| (Some(n), Some(a)));
        let _ = write!(
            o,
            "{{\"name\":{},\"about\":{},\"kind\":\"{kind}\",\"group\":\"{group}\",\
             \"language\":\"{}\",\"buffer_size\":{},\"aligned\":{},\
             \"ok\":{},\"error\":{},\"not_applicable\":{},\"out_of_cache\":{},\"article\":{},\
             \"vs_article\":{},",
            string(&s.method.name),
            string(&s.method.about),
            if s.method.way == Way::Go { "go" } else { "rust" },
            opt(size),
            opt(aligned),
            s.ok(),
            s.error.as_deref().map_or("null".into(), string),
            s.not_applicable.as_deref().map_or("null".into(), string),
            if r.larger_than_ram { string(s.method.out_of_cache()) } else { "null".into() },
            crate::article::for_method(&s.method.name).map_or("null".into(), |p| {
                let (unit, value) = match p.figure {
                    Figure::Read { gbps, .. } => ("gbps", gbps),
                    Figure::PerOp { ns_per_op, lines } => ("ns_per_line", ns_per_op / lines as f64),
                    Figure::Csv { mbps, .. } => ("mbps", mbps),
                };
                format!(
                    "{{\"text\":{},\"row\":{},\"{unit}\":{},\"allocated\":{},\"nearest\":{}}}",
                    string(p.text.tag()),
                    string(p.row),
                    num(value),
                    opt(p.allocated),
                    p.nearest
                )
            }),
            vs_article(r, s).map_or("null".into(), |(_, x)| num(x)),
        );
        let packed = match s.method.way {
            Way::Decode { format, .. } => r.compressed_size(format),
            _ => None,
        };
        match s.figures() {
            Some(f) => {
                let _ = write!(
                    o,
                    "\"secs\":{{\"median\":{},\"min\":{},\"max\":{}}},\"gbps\":{},\"bytes\":{},\
                     \"lines\":{},\"allocated\":{},\"allocations\":{},\"heap_peak\":{},\
                     \"peak_rss\":{},\"user\":{},\"sys\":{},\"faults\":{},\"major_faults\":{},\
                     \"syscalls\":{},\"residency\":{},\"residency_after\":{},\"buf_offset\":{},\
                     \"compressed_bytes\":{},\"compressed_gbps\":{},\"decompression_share\":{},",
                    num(f.secs.0),
                    num(f.secs.1),
                    num(f.secs.2),
                    num(f.gbps),
                    f.bytes,
                    f.lines,
                    f.allocated,
                    f.allocations,
                    f.heap_peak,
                    f.max_rss,
                    num(f.user),
                    num(f.sys),
                    f.faults,
                    f.major_faults,
                    opt(f.syscalls),
                    f.residency.map_or("null".into(), num),
                    f.residency_after.map_or("null".into(), num),
                    opt(f.buf_offset),
                    opt(packed),
                    packed.map_or("null".into(), |n| num(n as f64 / f.secs.0.max(1e-12) / 1e9)),
                    decompression_share(r, s).map_or("null".into(), num),
                );
            }
            None => o.push_str("\"secs\":null,\"gbps\":null,"),
        }
        o.push_str("\"samples\":[");
        for (j, x) in s.samples.iter().enumerate() {
            if j > 0 {
                o.push(',');
            }
            let _ = write!(
                o,
                "{{\"secs\":{},\"allocated\":{},\"allocations\":{},\"peak_rss\":{},\"user\":{},\
                 \"sys\":{},\"minor_faults\":{},\"major_faults\":{},\"syscalls\":{},\
                 \"residency\":{},\"residency_after\":{}}}",
                num(x.secs),
                x.allocated,
                x.allocations,
                x.max_rss,
                num(x.user),
                num(x.sys),
                x.minor_faults,
                x.major_faults,
                opt(x.syscalls),
                x.residency.map_or("null".into(), num),
                x.residency_after.map_or("null".into(), num),
            );
        }
        o.push_str("]}");
    }
    o.push_str("],\"recipes\":[");
    for (i, line) in recipes(r).iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        o.push_str(&string(line));
    }
    o.push_str("]}\n");
    o
}

//! Statistics out: an aligned table for people, JSON for programs.

use std::io::{self, Write};

use super::column::Column;
use crate::output::json_escape::string as json_string;

/// A number for JSON: `null` when not finite.
fn num(x: f64) -> String {
    if x.is_finite() {
        format!("{x}")
    } else {
        "null".to_string()
    }
}

/// A number for people: integers as they are, others to 4 decimals.
fn short(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.4}")
    }
}

/// Min and max as text: numeric for numeric columns, else the
/// lexicographic extremes.
fn extremes(c: &Column) -> Option<(String, String)> {
    if c.count == 0 {
        return None;
    }
    if c.is_numeric() {
        if c.type_name() == "integer" {
            return Some((c.imin.to_string(), c.imax.to_string()));
        }
        return Some((format!("{}", c.min), format!("{}", c.max)));
    }
    let text = |v: &Option<Vec<u8>>| {
        String::from_utf8_lossy(v.as_deref().unwrap_or_default()).into_owned()
    };
    Some((text(&c.first), text(&c.last)))
}

fn sum(c: &Column) -> String {
    if c.type_name() == "integer" {
        c.isum.to_string()
    } else {
        num(c.fsum)
    }
}

/// Print one JSON document.
pub fn json(
    out: &mut impl Write,
    names: &[String],
    cols: &[Column],
    records: u64,
    cap: usize,
) -> io::Result<()> {
    write!(out, "{{\"records\":{records},\"columns\":[")?;
    for (i, (name, c)) in names.iter().zip(cols).enumerate() {
        if i > 0 {
            write!(out, ",")?;
        }
        write!(
            out,
            "{{\"field\":{},\"type\":\"{}\",\"count\":{},\"count_empty\":{}",
            json_string(name),
            c.type_name(),
            c.count,
            c.empty
        )?;
        if c.is_numeric() {
            let (min, max) = extremes(c).unwrap_or_default();
            write!(
                out,
                ",\"sum\":{},\"mean\":{},\"stddev\":{},\"min\":{min},\"max\":{max}",
                sum(c),
                num(c.mean),
                num(c.stddev())
            )?;
        } else {
            write!(out, ",\"sum\":null,\"mean\":null,\"stddev\":null,\"min\":null,\"max\":null")?;
        }
        let lex = |v: &Option<Vec<u8>>| match v {
            Some(v) => json_string(&String::from_utf8_lossy(v)),
            None => "null".to_string(),
        };
        write!(out, ",\"lex_first\":{},\"lex_last\":{}", lex(&c.first), lex(&c.last))?;
        if c.count > 0 {
            write!(out, ",\"min_length\":{},\"max_length\":{}", c.min_len, c.max_len)?;
        } else {
            write!(out, ",\"min_length\":null,\"max_length\":null")?;
        }
        if c.overflow {
            write!(out, ",\"cardinality\":null,\"cardinality_above\":{cap}}}")?;
        } else {
            write!(out, ",\"cardinality\":{},\"cardinality_above\":null}}", c.distinct_count())?;
        }
    }
    writeln!(out, "]}}")
}

/// Cut a value for a table cell: at most 24 characters, controls escaped.
fn cell(s: &str) -> String {
    let esc: String = s.chars().flat_map(char::escape_debug).collect();
    if esc.chars().count() > 24 {
        let cut: String = esc.chars().take(23).collect();
        format!("{cut}…")
    } else {
        esc
    }
}

/// Print an aligned table, one row per column.
pub fn table(
    out: &mut impl Write,
    names: &[String],
    cols: &[Column],
    cap: usize,
) -> io::Result<()> {
    let head = [
        "field", "type", "count", "empty", "min", "max", "mean", "stddev", "min_len", "max_len",
        "distinct",
    ];
    let mut rows: Vec<Vec<String>> = vec![head.iter().map(|s| s.to_string()).collect()];
    for (name, c) in names.iter().zip(cols) {
        let (min, max) = extremes(c).unwrap_or_default();
        let (mean, sd) = if c.is_numeric() {
            (short(c.mean), short(c.stddev()))
        } else {
            (String::new(), String::new())
        };
        let (lmin, lmax) = if c.count > 0 {
            (c.min_len.to_string(), c.max_len.to_string())
        } else {
            Default::default()
        };
        let distinct = if c.overflow { format!("> {cap}") } else { c.distinct_count().to_string() };
        rows.push(vec![
            cell(name),
            c.type_name().to_string(),
            c.count.to_string(),
            c.empty.to_string(),
            cell(&min),
            cell(&max),
            mean,
            sd,
            lmin,
            lmax,
            distinct,
        ]);
    }
    let widths: Vec<usize> = (0..head.len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    for r in &rows {
        let mut line = String::new();
        for (i, v) in r.iter().enumerate() {
            let pad = widths[i] - v.chars().count();
            // Text (and min/max, which may be text) left, numbers right.
            if i < 2 || i == 4 || i == 5 {
                line.push_str(v);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str(&" ".repeat(pad));
                line.push_str(v);
            }
            if i + 1 < r.len() {
                line.push_str("  ");
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

//! Frequencies out: a short report per column for people, JSON (serde)
//! for programs. A column that outgrew the memory budget says so, with
//! its error bound, in both.

use std::io::{self, Write};

use serde::Serialize;

use super::hll;
use super::tally::Tally;

/// One column's result, as the JSON has it.
#[derive(Serialize)]
pub struct ColumnReport {
    /// The column's name (its 1-based number without a header row).
    pub column: String,
    /// Non-empty values.
    pub values: u64,
    /// Empty values (not among `top`).
    pub empty: u64,
    /// Distinct non-empty values.
    pub distinct: u64,
    /// Whether `distinct` is exact (else a HyperLogLog estimate).
    pub distinct_exact: bool,
    /// Whether the counts in `top` are exact.
    pub exact: bool,
    /// When not exact: each true count is between the count given and it
    /// plus this, and a value not given occurred at most this often.
    pub error_bound: Option<u64>,
    /// When not exact: counts the sketch kept.
    pub counters: Option<usize>,
    /// The most frequent values, most frequent first.
    pub top: Vec<Entry>,
}

/// A value and its count.
#[derive(Serialize)]
pub struct Entry {
    /// The value (invalid UTF-8 replaced).
    pub value: String,
    /// How often it occurs (a lower bound when the column is not exact).
    pub count: u64,
}

impl ColumnReport {
    /// The report of `tally`, with its `limit` most frequent values.
    pub fn new(column: String, tally: &Tally, limit: usize) -> ColumnReport {
        let top = tally
            .top(limit)
            .into_iter()
            .map(|(v, count)| Entry { value: String::from_utf8_lossy(v).into_owned(), count })
            .collect();
        let sketch = tally.sketch.as_ref();
        ColumnReport {
            column,
            values: tally.values,
            empty: tally.empty,
            distinct: tally
                .exact_distinct()
                .unwrap_or_else(|| sketch.map_or(0, |s| s.hll.estimate())),
            distinct_exact: sketch.is_none(),
            exact: sketch.is_none(),
            error_bound: sketch.map(|s| s.bound),
            counters: sketch.map(|s| s.counters),
            top,
        }
    }
}

/// Print the reports as one JSON document.
pub fn json(out: &mut impl Write, reports: &[ColumnReport]) -> io::Result<()> {
    /// The document: its fields in this order.
    #[derive(Serialize)]
    struct Doc<'a> {
        columns: &'a [ColumnReport],
    }
    serde_json::to_writer_pretty(&mut *out, &Doc { columns: reports })?;
    writeln!(out)
}

/// Print the reports for people.
pub fn table(out: &mut impl Write, reports: &[ColumnReport], memory: &str) -> io::Result<()> {
    for (i, r) in reports.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        let distinct = if r.distinct_exact {
            format!("{} distinct", r.distinct)
        } else {
            format!(
                "about {} distinct (HyperLogLog estimate, standard error {:.1}%)",
                r.distinct,
                hll::STANDARD_ERROR * 100.0
            )
        };
        writeln!(out, "{}: {} values, {} empty, {distinct}", r.column, r.values, r.empty)?;
        if let (Some(bound), Some(k)) = (r.error_bound, r.counters) {
            writeln!(
                out,
                "  APPROXIMATE: the distinct values outgrew --memory {memory}; counts from a \
                 Misra-Gries sketch of {k} counters are low by at most {bound}, and a value \
                 not listed occurred at most {bound} times"
            )?;
        }
        let width = r.top.first().map_or(5, |e| e.count.to_string().len().max(5));
        writeln!(out, "  {:>width$}  value", "count")?;
        for e in &r.top {
            writeln!(out, "  {:>width$}  {}", e.count, printable(&e.value))?;
        }
    }
    Ok(())
}

/// A value on one line: control characters escaped as Rust writes them.
fn printable(v: &str) -> String {
    if v.chars().any(char::is_control) {
        v.escape_debug().to_string()
    } else {
        v.to_string()
    }
}

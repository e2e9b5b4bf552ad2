//! `swath csv sniff`: a file's dialect (swath-csv's sniffer: samples at
//! exact record starts over the whole file) and its column types (the
//! inference `swath csv schema` uses, from swath-arrow, run with the
//! sniffed dialect).

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use serde::Serialize;
use swath_arrow::{ArrowReaderBuilder, ColumnType, Nulls, Numbers, Written};
use swath_csv::sniff::{Encoding, Sniffed, Sniffer};
use swath_csv::ReaderBuilder;

/// Find a CSV file's dialect: delimiter, quote and escape, header row,
/// line end, BOM and encoding, column types, and how sure.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Examples:
  swath csv sniff data.csv          a report
  swath csv sniff --json data.csv   JSON for programs
  swath csv count -d auto -v x.csv  any csv command reads the sniffed dialect

Samples (64 KiB each) are the head and up to 16 records starts spread over
the file, found exactly (one fast pass over the whole file for the quote
parity). Standard input, pipes and compressed input are sniffed from
their first 256 KiB.")]
pub struct Args {
    /// The file to sniff; `-` reads standard input.
    #[arg(default_value = "-")]
    file: PathBuf,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Threads for the record-start pass (0 = all cores).
    #[arg(short = 't', long, default_value_t = 0, value_parser = crate::args::parse_threads)]
    threads: usize,
    /// The text's encoding, when it is known (a name); by default it is
    /// detected (from the byte order mark, the zero bytes, UTF-8's
    /// validity, the bytes 0x80-0x9F) and reported.
    #[arg(long, value_name = "NAME|auto", value_parser = crate::args::dialect::parse_encoding)]
    encoding: Option<swath::text::Decoding>,
    /// Where the records are, when it is known; by default a preamble
    /// (lines before the first block of records of one field count), an
    /// Excel `sep=` line and a footer are found and reported.
    #[command(flatten)]
    body: crate::args::body::BodyArgs,
}

/// A column and its inferred type.
#[derive(Clone, Serialize)]
struct Column {
    name: String,
    #[serde(rename = "type")]
    ty: &'static str,
}

/// The JSON document.
#[derive(Serialize)]
struct Report {
    delimiter: String,
    quote: Option<String>,
    escape: &'static str,
    has_headers: bool,
    header_decided_by_types: usize,
    line_end: &'static str,
    encoding: String,
    /// The name to give `--encoding` (`UTF-8` when it is that).
    encoding_name: &'static str,
    bom: bool,
    not_utf8_at: Option<u64>,
    fields: usize,
    quotes_seen: bool,
    confidence: f64,
    samples: Vec<u64>,
    records_sampled: usize,
    disagreements: Vec<(u64, String)>,
    /// Lines before the records (`--skip-rows`), an Excel `sep=` line
    /// among them, and lines after them (`--skip-last`).
    skip_rows: u64,
    excel_sep: bool,
    skip_last: u64,
    columns: Option<Vec<Column>>,
    columns_error: Option<String>,
    /// How values are written, when another way than the default types
    /// more columns: the options that say so and the columns they type.
    values: Option<Values>,
}

/// A proposal for how values are written (`--null common`,
/// `--decimal-comma`, `--thousands`).
#[derive(Clone, Serialize)]
struct Values {
    options: Vec<String>,
    /// The columns typed then, with their types.
    columns: Vec<Column>,
}

/// A byte as people write it: `,`, `tab`, `space`, or `0x1f`.
pub fn byte_name(b: u8) -> String {
    match b {
        b'\t' => "tab".to_string(),
        b' ' => "space".to_string(),
        0x21..=0x7e => (b as char).to_string(),
        _ => format!("0x{b:02x}"),
    }
}

/// A one-line summary, for `-d auto -v`.
pub fn summary(s: &Sniffed) -> String {
    let d = &s.dialect;
    format!(
        "delimiter {}, quote {}, escape {}, {}header, line end {}, {}, confidence {:.2}",
        byte_name(d.delimiter),
        d.quote.map_or("none".to_string(), byte_name),
        if d.escape.is_some() { "backslash" } else { "doubled" },
        if d.has_headers { "" } else { "no " },
        d.line_end.name(),
        s.encoding.describe(),
        s.confidence
    )
}

/// `swath csv sniff`.
pub fn run(args: Args) -> Result<ExitCode> {
    let name = args.file.display().to_string();
    let mut sniffer =
        Sniffer::new().threads(args.threads).encoding(args.encoding.unwrap_or_default());
    if args.body.is_given() {
        sniffer = sniffer.skip(args.body.skip());
        if let Some(n) = args.body.skip_last {
            sniffer = sniffer.footer_lines(n);
        }
    }
    let stream = !crate::remote::rereadable(&args.file);
    // A stream is read once: its head serves both the dialect and the types.
    let (sniffed, head) = if stream {
        let mut head = Vec::new();
        swath::Source::open(&args.file)
            .with_context(|| format!("cannot read {name}"))?
            .take(256 << 10)
            .read_to_end(&mut head)
            .with_context(|| format!("cannot read {name}"))?;
        (sniffer.sniff_bytes(&head), Some(head))
    } else {
        (sniffer.sniff_path(&args.file).with_context(|| format!("cannot read {name}"))?, None)
    };
    let columns = types(&args, &sniffed, head.as_deref(), &Written::default());
    let values = columns.as_ref().ok().and_then(|c| propose(&args, &sniffed, head.as_deref(), c));
    let d = &sniffed.dialect;
    let report = Report {
        delimiter: byte_name(d.delimiter),
        quote: d.quote.map(byte_name),
        escape: if d.escape.is_some() { "backslash" } else { "doubled" },
        has_headers: d.has_headers,
        header_decided_by_types: sniffed.header.by_types,
        line_end: d.line_end.name(),
        encoding: sniffed.encoding.describe(),
        encoding_name: sniffed.encoding.decoded().map_or("UTF-8", |e| e.name()),
        bom: matches!(
            sniffed.encoding,
            Encoding::Utf8 { bom: true }
                | Encoding::NotUtf8 { bom: true, .. }
                | Encoding::Decoded { bom: true, .. }
        ),
        not_utf8_at: match sniffed.encoding {
            Encoding::NotUtf8 { byte, .. } => Some(byte),
            _ => None,
        },
        fields: sniffed.fields,
        quotes_seen: sniffed.quotes_seen,
        confidence: (sniffed.confidence * 100.0).round() / 100.0,
        samples: sniffed.samples.clone(),
        records_sampled: sniffed.records_sampled,
        disagreements: sniffed
            .disagreements
            .iter()
            .map(|x| (x.byte, byte_name(x.delimiter)))
            .collect(),
        skip_rows: sniffed.layout.skip_lines,
        excel_sep: sniffed.layout.excel_sep,
        skip_last: sniffed.layout.footer_lines,
        columns: columns
            .as_ref()
            .ok()
            .cloned()
            .map(|c| c.into_iter().map(|(name, ty)| Column { name, ty }).collect()),
        columns_error: columns.as_ref().err().cloned(),
        values,
    };
    let mut out = io::stdout().lock();
    if args.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        table(&mut out, &report, &sniffed)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The column types, as `csv schema` infers them, read with the sniffed
/// dialect; an error is reported, not fatal (the dialect stands).
fn types(
    args: &Args,
    s: &Sniffed,
    head: Option<&[u8]>,
    written: &Written,
) -> std::result::Result<Typed, String> {
    let mut csv = ReaderBuilder::new();
    s.dialect.configure(&mut csv);
    let skip = swath_csv::preamble::Skip::Lines(s.layout.skip_lines);
    csv.skip(skip).footer_lines(s.layout.footer_lines);
    // The types of the text, decoded as it was for sniffing, of its
    // records only.
    let decoded;
    let head = match (s.encoding.decoded(), head) {
        (Some(e), Some(bytes)) => {
            let bom = swath_csv::sniff::bom_len(bytes);
            let text = swath::text::decode_slice(&bytes[bom..], e);
            decoded = s.layout.apply(&text, bytes.len() < 256 << 10);
            Some(&decoded[..])
        }
        (None, Some(bytes)) => {
            decoded = s.layout.apply(bytes, bytes.len() < 256 << 10);
            Some(&decoded[..])
        }
        (Some(e), None) => {
            csv.encoding(swath::text::Decoding { lossy: true, ..swath::text::Decoding::named(e) });
            None
        }
        (None, head) => head,
    };
    let mut b = ArrowReaderBuilder::new();
    b.csv(csv).threads(args.threads).nulls(written.nulls.clone()).numbers(written.numbers);
    let named = |t: ColumnType| t.name();
    match head {
        None => b
            .infer_schema(&args.file)
            .map(|i| i.columns.into_iter().map(|c| (c.name, named(c.ty))).collect())
            .map_err(|e| e.to_string()),
        Some(bytes) => b
            .from_reader(bytes)
            .map(|r| {
                r.schema()
                    .fields()
                    .iter()
                    .map(|f| {
                        let ty = ColumnType::from_data_type(f.data_type()).map_or("utf8", named);
                        (f.name().clone(), ty)
                    })
                    .collect()
            })
            .map_err(|e| e.to_string()),
    }
}

/// Each column's name and type.
type Typed = Vec<(String, &'static str)>;

/// The way of writing values (the usual null spellings; a decimal comma
/// with or without `.` between thousands; `,` between thousands) that
/// types the most columns, when it types more than the default does and
/// leaves every typed column typed: what to give the commands.
fn propose(args: &Args, s: &Sniffed, head: Option<&[u8]>, plain: &Typed) -> Option<Values> {
    let typed = |cols: &[(String, &'static str)]| cols.iter().filter(|c| c.1 != "utf8").count();
    let numbers = [
        (vec![], Numbers::default()),
        (vec!["--decimal-comma", "--thousands", "."], Numbers::new(true, Some('.')).ok()?),
        (vec!["--decimal-comma"], Numbers::new(true, None).ok()?),
        (vec!["--thousands", ","], Numbers::new(false, Some(',')).ok()?),
    ];
    // The typed columns' count, the options, the columns.
    let mut best: Option<(usize, Vec<String>, Typed)> = None;
    for (null_opts, nulls) in
        [(vec![], Nulls::default()), (vec!["--null", "common"], Nulls::common())]
    {
        for (num_opts, numbers) in &numbers {
            if null_opts.is_empty() && num_opts.is_empty() {
                continue;
            }
            let written = Written { nulls: nulls.clone(), numbers: *numbers, ..Written::default() };
            let Ok(cols) = types(args, s, head, &written) else { continue };
            // Every column typed before keeps its type's kind: no number
            // read another way, no text made a date by accident.
            let keeps = plain.iter().zip(&cols).all(|(a, b)| a.1 == "utf8" || a.1 == b.1);
            let n = typed(&cols);
            let opts: Vec<String> =
                null_opts.iter().chain(num_opts).map(|o| o.to_string()).collect();
            if keeps && n > typed(plain) && best.as_ref().is_none_or(|b| n > b.0) {
                best = Some((n, opts, cols));
            }
        }
    }
    best.map(|(_, options, cols)| Values {
        options,
        columns: cols
            .into_iter()
            .zip(plain)
            .filter(|(c, p)| c.1 != p.1)
            .map(|((name, ty), _)| Column { name, ty })
            .collect(),
    })
}

fn table(out: &mut impl Write, r: &Report, s: &Sniffed) -> io::Result<()> {
    let quote = match (&r.quote, r.quotes_seen) {
        (None, _) => "none (fields are never quoted)".to_string(),
        (Some(q), true) => format!("{q} (quoted fields seen)"),
        (Some(q), false) => format!("{q} (no quoted field in the samples: the default)"),
    };
    let header = match (r.has_headers, r.header_decided_by_types) {
        (h, 0) => format!("{} (a guess: no column's type decides)", if h { "yes" } else { "no" }),
        (h, n) => format!(
            "{} (decided by {n} typed column{})",
            if h { "yes" } else { "no" },
            if n == 1 { "" } else { "s" }
        ),
    };
    writeln!(out, "delimiter:   {}", r.delimiter)?;
    writeln!(out, "quote:       {quote}")?;
    writeln!(
        out,
        "escape:      {}",
        if r.escape == "backslash" { "backslash (\\\")" } else { "doubled (\"\")" }
    )?;
    writeln!(out, "header:      {header}")?;
    writeln!(out, "line end:    {}", r.line_end)?;
    writeln!(out, "encoding:    {}", r.encoding)?;
    writeln!(out, "fields:      {}", r.fields)?;
    if r.skip_rows > 0 || r.skip_last > 0 {
        let sep = if r.excel_sep { ", Excel's sep= line among them" } else { "" };
        writeln!(
            out,
            "records:     after {} line{} (--skip-rows {}{sep}), before {} line{} (--skip-last {})",
            r.skip_rows,
            if r.skip_rows == 1 { "" } else { "s" },
            r.skip_rows,
            r.skip_last,
            if r.skip_last == 1 { "" } else { "s" },
            r.skip_last
        )?;
    }
    writeln!(
        out,
        "samples:     {} at exact record starts, {} records read",
        r.samples.len(),
        r.records_sampled
    )?;
    write!(out, "confidence:  {:.2}", r.confidence)?;
    if let Some((c, rel)) = s.runner_up {
        write!(out, " (next best: delimiter {}, {:.2} of the score)", byte_name(c.delimiter), rel)?;
    }
    writeln!(out)?;
    for (byte, d) in &r.disagreements {
        writeln!(out, "warning:     the records from byte {byte} read better with delimiter {d}")?;
    }
    match (&r.columns, &r.columns_error) {
        (Some(cols), _) => {
            writeln!(out, "columns:")?;
            let w = cols.iter().map(|c| c.name.chars().count()).max().unwrap_or(0);
            for c in cols {
                writeln!(out, "  {:<w$}  {}", c.name, c.ty)?;
            }
        }
        (None, Some(e)) => writeln!(out, "columns:     {e}")?,
        (None, None) => {}
    }
    if let Some(v) = &r.values {
        let cols: Vec<String> = v.columns.iter().map(|c| format!("{} {}", c.name, c.ty)).collect();
        writeln!(out, "values:      with {}: {}", v.options.join(" "), cols.join(", "))?;
    }
    Ok(())
}

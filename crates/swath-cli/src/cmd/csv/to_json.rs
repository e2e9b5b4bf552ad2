//! `swath csv to-json`: one JSON value per record per line.

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;

use anyhow::{Context, Result};

use super::CsvOpts;
use crate::output::json_escape::{is_plain_ascii, push_plain, push_string};
use crate::output::Output;
use crate::quarantine::{drain, Quarantine};

/// Convert to JSON lines: with headers, one object per record keyed by the
/// header names in column order; with --no-headers, one array of strings.
/// Invalid UTF-8 is an error with its position; so is a record with a
/// different number of fields, unless --flexible.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
With --flexible and headers, a field past the last header is keyed by its
column number (\"3\"), and a missing field is left out of the object.")]
pub struct Args {
    #[command(flatten)]
    opts: CsvOpts,
    #[command(flatten)]
    par: super::ParOpts,
    /// Output file, written beside its target and renamed into place on
    /// success (an error leaves no half-written file); `-` for standard
    /// output.
    #[arg(short, long, default_value = "-")]
    output: PathBuf,
    #[command(flatten)]
    bad: crate::args::on_bad::BadArgs,
}

/// The output buffer's size.
const OUTPUT_BUFFER: usize = 256 << 10;

/// Run `swath csv to-json`.
pub fn run(args: Args) -> Result<ExitCode> {
    let mut quarantine = Quarantine::open(&args.bad, &args.opts.name())?;
    let out = Output::create(&args.output).with_context(|| cannot_write(&args))?;
    let mut out = BufWriter::with_capacity(OUTPUT_BUFFER, out);
    let good = if args.par.parallel_input(&args.opts) {
        run_parallel(&args, &mut out, quarantine.as_mut())?
    } else {
        run_sequential(&args, &mut out, quarantine.as_mut())?
    };
    let status = match quarantine {
        Some(q) => q.finish(good)?,
        None => ExitCode::SUCCESS,
    };
    let out = out.into_inner().map_err(|e| e.into_error()).with_context(|| cannot_write(&args))?;
    out.finish().with_context(|| cannot_write(&args))?;
    Ok(status)
}

/// The reader's settings: broken records put aside when a quarantine
/// takes them.
fn builder(args: &Args, quarantine: Option<&mut Quarantine>) -> swath_csv::ReaderBuilder {
    let mut b = args.opts.builder();
    if quarantine.is_some() {
        b.on_bad(swath_csv::OnBad::PutAside);
    }
    b
}

fn cannot_write(args: &Args) -> String {
    format!("cannot write {}", args.output.display())
}

/// A stream (or one thread): record by record. Returns the records
/// written.
fn run_sequential(
    args: &Args,
    out: &mut impl Write,
    mut quarantine: Option<&mut Quarantine>,
) -> Result<u64> {
    let mut rdr = args.opts.open(&builder(args, quarantine.as_deref_mut()))?;
    let headers = header_names(rdr.headers()?)?;
    // One line buffer, reused: no allocation per record.
    let mut line = Vec::with_capacity(4096);
    let mut n = 0u64;
    while let Some(rec) = rdr.next_record()? {
        line.clear();
        match push_record(&mut line, &rec, headers.as_deref()) {
            Ok(()) => {
                out.write_all(&line).with_context(|| cannot_write(args))?;
                n += 1;
            }
            // Invalid UTF-8: the record goes aside with the broken ones.
            Err(e) if quarantine.is_some() => rdr.put_aside(e),
            Err(e) => return Err(e.into()),
        }
        drain(quarantine.as_deref_mut(), &mut rdr)?;
    }
    drain(quarantine, &mut rdr)?;
    Ok(n)
}

/// A regular file on every core: each chunk's lines are built on a worker
/// and written in file order (swath_csv::parallel's ordered mode, at most
/// two chunks per thread in memory).
fn run_parallel(
    args: &Args,
    out: &mut impl Write,
    mut quarantine: Option<&mut Quarantine>,
) -> Result<u64> {
    let b = builder(args, quarantine.as_deref_mut());
    let aside = quarantine.is_some();
    let mut rdr = args.par.reader(&args.opts, &b);
    let headers = header_names(rdr.headers()?.as_ref())?;
    // Chunk outputs are recycled: fresh ones cost a page fault per 4 KiB.
    let spare: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
    // The ordered API takes our error type: write errors come back as
    // they are, with their context.
    let mut n = 0u64;
    let res: Result<()> = rdr.for_each_chunk_ordered_with_bad(
        || (spare.lock().unwrap_or_else(|e| e.into_inner()).pop().unwrap_or_default(), 0u64),
        |(line, n), recs| {
            while let Some(rec) = recs.next_record()? {
                let len = line.len();
                match push_record(line, &rec, headers.as_deref()) {
                    Ok(()) => *n += 1,
                    Err(e) if aside => {
                        line.truncate(len);
                        recs.put_aside(e);
                    }
                    Err(e) => return Err(e.into()),
                }
            }
            Ok(())
        },
        |(mut line, lines), bad| {
            n += lines;
            if let Some(q) = quarantine.as_deref_mut() {
                q.take(bad)?;
            }
            out.write_all(&line).with_context(|| cannot_write(args))?;
            line.clear();
            spare.lock().unwrap_or_else(|e| e.into_inner()).push(line);
            Ok(())
        },
    );
    args.par.note(&args.opts, &rdr);
    res.map(|()| n)
}

/// Each header name as a JSON key, `"name":`, escaped once for all
/// records (an error names a field that is not UTF-8).
fn header_names(h: Option<&swath_csv::OwnedRecord>) -> Result<Option<Vec<Vec<u8>>>> {
    let Some(h) = h else {
        return Ok(None);
    };
    let mut keys = Vec::with_capacity(h.len());
    for i in 0..h.len() {
        let mut key = Vec::new();
        push_string(&mut key, h.get_str(i)?);
        key.push(b':');
        keys.push(key);
    }
    Ok(Some(keys))
}

/// Append one record as a JSON line.
fn push_record(
    line: &mut Vec<u8>,
    rec: &swath_csv::Record<'_>,
    headers: Option<&[Vec<u8>]>,
) -> swath_csv::Result<()> {
    line.push(if headers.is_some() { b'{' } else { b'[' });
    for i in 0..rec.len() {
        if i > 0 {
            line.push(b',');
        }
        if let Some(h) = headers {
            match h.get(i) {
                Some(key) => line.extend_from_slice(key),
                None => {
                    push_string(line, itoa::Buffer::new().format(i));
                    line.push(b':');
                }
            }
        }
        match rec.get(i) {
            // Plain ASCII is valid UTF-8 that needs no escape.
            Some(field) if is_plain_ascii(field) => push_plain(line, field),
            _ => push_string(line, rec.get_str(i)?),
        }
    }
    line.extend_from_slice(if headers.is_some() { b"}\n" } else { b"]\n" });
    Ok(())
}

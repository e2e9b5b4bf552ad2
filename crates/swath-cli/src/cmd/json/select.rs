//! `swath json select`: fields by path, as CSV or JSON lines, straight
//! from the lines' bytes (no schema, no Arrow).

use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use swath::Position;
use swath_json::bad::ChunkAside;
use swath_json::decode::Bad;
use swath_json::select::Selector;

use super::JsonOpts;
use crate::output::Output;
use crate::quarantine::Quarantine;

/// Pick fields by path (`-f ts,req.status`) out of every line: CSV with a
/// header (strings as their text, other values as their JSON text, null or
/// missing as an empty field), or JSON lines with `--json`. Every line is
/// still checked.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath json select events.jsonl -f ts,level,req.status
  swath json select events.jsonl -f user.name,tags --json -o picked.jsonl")]
pub struct Args {
    #[command(flatten)]
    opts: JsonOpts,
    /// The fields, comma-separated; nested ones by dotted path (`req.status`).
    #[arg(short, long, value_delimiter = ',', required = true)]
    fields: Vec<String>,
    /// Write JSON lines, one object a line keyed by the paths as given
    /// (values as they were written; null where missing).
    #[arg(long)]
    json: bool,
    /// Where to write (`-`: standard output). A file appears only when
    /// complete.
    #[arg(short, long, default_value = "-")]
    output: PathBuf,
    #[command(flatten)]
    bad: crate::args::on_bad::BadArgs,
}

/// Run `swath json select`.
pub fn run(args: Args, quiet: bool) -> Result<ExitCode> {
    let paths: Vec<Vec<String>> =
        args.fields.iter().map(|f| f.split('.').map(str::to_string).collect()).collect();
    for (i, f) in args.fields.iter().enumerate() {
        if f.is_empty() || f.split('.').any(str::is_empty) {
            bail!("{f:?} is not a field path (keys joined by dots: req.status)");
        }
        if args.fields[..i].contains(f) {
            bail!("the field {f:?} is given twice");
        }
    }
    let format = if args.json { Format::Json } else { Format::Csv };
    let src = args.opts.open()?;
    let b = args.opts.builder();
    let out = Selected {
        names: &args.fields,
        paths: &paths,
        format,
        output: &args.output,
        bad: &args.bad,
    };
    write_selected(&args.opts, &b, src, quiet, &out)
}

/// How picked values are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Csv,
    Json,
}

/// What to pick and where to write it.
pub struct Selected<'a> {
    /// The columns' names.
    pub names: &'a [String],
    /// Their paths.
    pub paths: &'a [Vec<String>],
    pub format: Format,
    pub output: &'a std::path::Path,
    /// What to do with a broken record.
    pub bad: &'a crate::args::on_bad::BadArgs,
}

/// Pick the paths from every line of `src` and write them out: `select`,
/// and `to-csv` with every top-level field.
pub fn write_selected(
    opts: &JsonOpts,
    b: &swath_json::JsonReaderBuilder,
    mut src: swath::Source,
    quiet: bool,
    sel: &Selected<'_>,
) -> Result<ExitCode> {
    let Selected { names, paths, format, output, bad } = *sel;
    let mut quarantine = Quarantine::open(bad, &opts.name())?;
    let puts_aside = quarantine.is_some();
    let watch = opts.watch(quiet, Some(output));
    opts.note(b, &src);
    let cannot_write = || format!("cannot write {}", output.display());
    let mut out =
        BufWriter::with_capacity(1 << 20, Output::create(output).with_context(cannot_write)?);
    let mut head = Vec::new();
    match format {
        Format::Csv => {
            let mut w = swath_csv::WriterBuilder::new().from_vec(Vec::new());
            w.write_record(names.iter().map(String::as_bytes))?;
            head = w.into_vec()?;
        }
        Format::Json => {}
    }
    out.write_all(&head).with_context(cannot_write)?;
    // JSON keys, written once.
    let keys: Vec<Vec<u8>> = names
        .iter()
        .map(|n| {
            let mut k = Vec::new();
            crate::output::json_escape::push_string(&mut k, n);
            k
        })
        .collect();
    let path = opts.path().to_path_buf();
    // Records written, and put aside.
    let (mut records, mut set_aside) = (0u64, 0u64);
    let mut fail: Option<swath_json::Error> = None;
    let mut stopped: Option<anyhow::Error> = None;
    let mut write_fail: Option<std::io::Error> = None;
    b.for_each_chunk(
        &mut src,
        |lines| {
            let mut sel = Selector::new(paths);
            let mut picked = Vec::new();
            let mut text = Vec::new();
            let mut csv = swath_csv::WriterBuilder::new().from_vec(Vec::with_capacity(1 << 20));
            let mut json = Vec::new();
            let mut n = 0u64;
            let mut aside = ChunkAside::default();
            while let Some(line) = lines.next_line() {
                match sel.pick(line.bytes, &mut picked) {
                    Ok(false) => continue,
                    Ok(true) => n += 1,
                    Err(e) => {
                        let bad = Bad::of(line.bytes, e);
                        // The chunk's records so far, those put aside counted.
                        let seen = n + aside.len() as u64;
                        if puts_aside {
                            aside.push(&line, seen + 1, bad);
                            continue;
                        }
                        let at = swath_json::line_at(&line, &bad);
                        return (csv, json, n, aside, Some((at, seen + 1, line.offset, bad)));
                    }
                }
                match format {
                    Format::Csv => {
                        for p in &picked {
                            text.clear();
                            if let Some(p) = p {
                                p.text_into(&mut text);
                            }
                            let _ = csv.write_field(&text[..]);
                        }
                        let _ = csv.end_record();
                    }
                    Format::Json => {
                        json.push(b'{');
                        for (i, (k, p)) in keys.iter().zip(&picked).enumerate() {
                            if i > 0 {
                                json.push(b',');
                            }
                            json.extend_from_slice(k);
                            json.push(b':');
                            match p {
                                Some(p) => p.json_into(&mut json),
                                None => json.extend_from_slice(b"null"),
                            }
                        }
                        json.extend_from_slice(b"}\n");
                    }
                }
            }
            (csv, json, n, aside, None)
        },
        |(csv, json, n, aside, bad), lines_before| {
            let bytes = match format {
                Format::Csv => csv.into_vec().unwrap_or_default(),
                Format::Json => json,
            };
            if let Err(e) = out.write_all(&bytes) {
                write_fail = Some(e);
                return Ok(false);
            }
            let before = records + set_aside;
            if let Some((i, rec, off, bad)) = bad {
                fail = Some(swath_json::Error::Line {
                    path: Some(path.clone()),
                    pos: Position::new(off + bad.at() as u64, lines_before + i + 1, before + rec),
                    field: bad.field(),
                    reason: bad.reason().to_string(),
                });
                return Ok(false);
            }
            if let Some(q) = quarantine.as_mut().filter(|_| !aside.is_empty()) {
                set_aside += aside.len() as u64;
                if let Err(e) = q.take(aside.place(lines_before, before)) {
                    stopped = Some(e);
                    return Ok(false);
                }
            }
            records += n;
            Ok(true)
        },
    )
    .context("cannot read the input")?;
    if let Some(e) = write_fail {
        return Err(anyhow::Error::new(e).context(cannot_write()));
    }
    if let Some(e) = fail {
        return Err(e.into());
    }
    if let Some(e) = stopped {
        return Err(e);
    }
    watch.finish();
    // The quarantine first: a run past --max-bad N% leaves no file.
    let status = match quarantine {
        Some(q) => q.finish(records)?,
        None => ExitCode::SUCCESS,
    };
    let out = out.into_inner().map_err(|e| e.into_error()).with_context(cannot_write)?;
    out.finish().with_context(cannot_write)?;
    Ok(status)
}

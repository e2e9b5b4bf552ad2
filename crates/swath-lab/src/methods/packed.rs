//! Compressed input: the lab's log as gzip (`-6`) and zstd (`-3`), the
//! levels users meet, read through swath's decoder (`swath::Source`, which
//! decodes on a thread of its own), through the format's crate over a
//! `BufReader` at several buffer sizes, and through `zcat` in a pipe.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use swath::{CountOptions, LineCount, Source};

use super::{not_applicable, to_io, Outcome, Packed, Via};
use crate::aligned::AlignedBuf;

/// Write the compressed copy of `src` to `dst` at the format's level.
/// Returns the copy's size in bytes.
///
/// # Errors
///
/// Any error reading `src` or writing `dst`.
pub fn write_copy(src: &Path, dst: &Path, format: Packed) -> io::Result<u64> {
    let mut input = File::open(src)?;
    let out = BufWriter::with_capacity(1 << 20, File::create(dst)?);
    let mut out = match format {
        Packed::Gzip => {
            let level = flate2::Compression::new(format.level() as u32);
            let mut enc = flate2::write::GzEncoder::new(out, level);
            io::copy(&mut input, &mut enc)?;
            enc.finish()?
        }
        Packed::Zstd => {
            let mut enc = zstd::stream::write::Encoder::new(out, format.level())?;
            io::copy(&mut input, &mut enc)?;
            enc.finish()?
        }
    };
    out.flush()?;
    out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    Ok(std::fs::metadata(dst)?.len())
}

/// Decode the copy at `path` and count its lines.
pub fn decode(path: &Path, format: Packed, via: Via) -> io::Result<Outcome> {
    match via {
        Via::Swath => swath_source(path, format),
        Via::Crate { size } => {
            let raw = BufReader::with_capacity(size, File::open(path)?);
            match format {
                Packed::Gzip => count_reads(flate2::read::MultiGzDecoder::new(raw), size),
                Packed::Zstd => count_reads(zstd::stream::read::Decoder::with_buffer(raw)?, size),
            }
        }
        Via::Pipe => pipe(path, format),
    }
}

/// `swath::Source::open` recognises the format by its magic bytes and
/// decodes on its own thread; `count_source` counts the stream.
fn swath_source(path: &Path, format: Packed) -> io::Result<Outcome> {
    let mut src = Source::open(path).map_err(to_io)?;
    if src.compression().name() != format.name() {
        return Err(io::Error::other(format!(
            "{}: swath recognised {}, not {}",
            path.display(),
            src.compression().name(),
            format.name()
        )));
    }
    let count = swath::count_source(&mut src, &CountOptions::default()).map_err(to_io)?;
    Ok(Outcome { lines: count.lines(), bytes: count.bytes, ..Outcome::default() })
}

fn count_reads(mut rdr: impl Read, size: usize) -> io::Result<Outcome> {
    let mut buf = AlignedBuf::new(size);
    let mut count = LineCount::default();
    let mut calls = 0u64;
    loop {
        calls += 1;
        let n = match rdr.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        count.add(&buf[..n]);
    }
    Ok(Outcome {
        lines: count.lines(),
        bytes: count.bytes,
        syscalls: Some(calls),
        ..Outcome::default()
    })
}

/// `zcat FILE | swath count`: the decoder is another process, and swath's
/// engine counts the pipe (as `swath count` does with stdin).
fn pipe(path: &Path, format: Packed) -> io::Result<Outcome> {
    let tool = format.cat();
    let mut child = match Command::new(tool)
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(not_applicable(format!(
                "{tool} is not on PATH (it comes with {})",
                format.name()
            )));
        }
        Err(e) => return Err(io::Error::other(format!("cannot run {tool}: {e}"))),
    };
    let stdout = child.stdout.take().expect("stdout was piped");
    let mut src = Source::from_reader(stdout, Some(path.to_path_buf()));
    let counted = swath::count_source(&mut src, &CountOptions::default()).map_err(to_io);
    let out = child.wait_with_output()?;
    if !out.status.success() {
        let msg = String::from_utf8_lossy(&out.stderr);
        return Err(io::Error::other(format!("{tool} failed ({}): {}", out.status, msg.trim())));
    }
    let count = counted?;
    Ok(Outcome { lines: count.lines(), bytes: count.bytes, ..Outcome::default() })
}

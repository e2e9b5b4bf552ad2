//! `swath tail`: the last N lines of a file, found by reading backwards
//! from its end (as GNU `tail` does): the time depends on N and the
//! lines' length, not on the file's size, so no index is needed. A
//! compressed file has no end to start from: it is decoded front to back,
//! keeping only the decoded chunks that can still hold the last N lines;
//! a gzip file with gzip checkpoints in its sidecar (`swath index`) is
//! decoded from its last checkpoints instead.

use std::collections::VecDeque;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

/// Print the last N lines of a file.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  swath tail big.log             the last 10 lines
  swath tail -n 100 big.log")]
pub struct Args {
    /// How many lines.
    #[arg(short = 'n', long, default_value_t = 10)]
    lines: u64,
    /// The file to read.
    file: PathBuf,
}

/// Where the last `n` lines of `file` (length `len`) start: after the
/// `n`-th `\n` from the end, the file's last byte not counted (it ends the
/// last line).
pub fn start_of_last(file: &dyn swath::ReadAt, len: u64, n: u64) -> std::io::Result<u64> {
    if n == 0 {
        return Ok(len);
    }
    let mut buf = vec![0u8; 64 * 1024];
    let mut end = len.saturating_sub(1); // the last byte never starts a line
    let mut seen = 0;
    while end > 0 {
        let start = end.saturating_sub(buf.len() as u64);
        let block = &mut buf[..(end - start) as usize];
        let got = swath::range::read_full_at(file, block, start)?;
        if got < block.len() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the file shrank while it was read",
            ));
        }
        for i in memchr::memrchr_iter(b'\n', block) {
            seen += 1;
            if seen == n {
                return Ok(start + i as u64 + 1);
            }
        }
        end = start;
    }
    Ok(0)
}

/// The last bytes of `src` that hold its last `n` lines (and possibly
/// more before them): decoded chunks are kept while those after them
/// still lack `n` newlines, so memory is the last `n` lines and a chunk.
pub fn keep_last_lines(mut src: impl Read, n: u64) -> std::io::Result<Vec<u8>> {
    const CHUNK: usize = 1 << 20;
    // Each kept chunk and its newlines.
    let mut kept: VecDeque<(Vec<u8>, u64)> = VecDeque::new();
    let mut newlines = 0u64;
    loop {
        let mut chunk = vec![0u8; CHUNK];
        let mut filled = 0;
        while filled < CHUNK {
            match src.read(&mut chunk[filled..]) {
                Ok(0) => break,
                Ok(k) => filled += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        chunk.truncate(filled);
        if chunk.is_empty() {
            break;
        }
        let lf = swath::count_newlines(&chunk);
        newlines += lf;
        kept.push_back((chunk, lf));
        // More than n newlines without the oldest chunk: the last n lines
        // start after it, even when the very last byte is a newline.
        while kept.len() > 1 && newlines - kept[0].1 > n {
            newlines -= kept.pop_front().map_or(0, |(_, lf)| lf);
        }
    }
    Ok(kept.into_iter().flat_map(|(c, _)| c).collect())
}

/// The last bytes of a gzip file that hold its last `n` lines, decoded
/// span by span from its end with the checkpoints of its sidecar
/// (`FILE.swathidx`, `swath index`): `None` when it has none that fit, or
/// a span does not decode and check (the file is then decoded front to
/// back). Each span is checked where it ends: the last by its member's
/// CRC-32 and length, every other against the next checkpoint.
fn last_lines_by_index(path: &std::path::Path, n: u64) -> Option<Vec<u8>> {
    use swath::decompress::gzip_index::Resumed;
    let file = std::fs::File::open(path).ok()?;
    let index = swath::index::load_gzip_index(path, &file).ok()??;
    let len = file.metadata().ok()?.len();
    let src: std::sync::Arc<dyn swath::ReadAt> = std::sync::Arc::new(file);
    // Spans from the last back, until those kept hold more than n
    // newlines (the last byte may end the last line).
    let mut spans: VecDeque<Vec<u8>> = VecDeque::new();
    let mut newlines = 0;
    for k in (0..=index.checkpoints.len()).rev() {
        let mut span = Vec::new();
        Resumed::new(std::sync::Arc::clone(&src), len, &index, k)
            .and_then(|mut r| r.read_to_end(&mut span))
            .ok()?;
        newlines += swath::count_newlines(&span);
        spans.push_front(span);
        if newlines > n {
            break;
        }
    }
    Some(spans.into_iter().flatten().collect())
}

/// Run `swath tail`.
pub fn run(args: Args) -> Result<ExitCode> {
    let name = || format!("cannot read {}", args.file.display());
    let mut out = std::io::stdout().lock();
    match super::open_input(&args.file)? {
        super::LineInput::Plain(file) => {
            let len = file.metadata().with_context(name)?.len();
            let start = start_of_last(&file, len, args.lines).with_context(name)?;
            crate::output::parts::stream_range(&file, &mut out, start..len).with_context(name)?;
        }
        super::LineInput::Compressed(format) => {
            if format == swath::Compression::Gzip {
                if let Some(last) = last_lines_by_index(&args.file, args.lines) {
                    let kept: &[u8] = &last;
                    let start = start_of_last(&kept, last.len() as u64, args.lines)?;
                    out.write_all(&last[start as usize..])?;
                    out.flush()?;
                    return Ok(crate::exit::success());
                }
            }
            let src = swath::Source::open(&args.file).with_context(name)?;
            let last = keep_last_lines(src, args.lines).with_context(name)?;
            let kept: &[u8] = &last;
            let start = start_of_last(&kept, last.len() as u64, args.lines)?;
            out.write_all(&last[start as usize..])?;
        }
    }
    out.flush()?;
    Ok(crate::exit::success())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The last n lines of a stream, kept by chunks, are the last n lines
    /// found by reading the whole from its end.
    #[test]
    fn kept_chunks_hold_the_last_lines() {
        let mut text = Vec::new();
        for i in 0..400_000u32 {
            // Lines of 1 to 40 bytes, some empty, over many 1 MiB chunks.
            text.extend(std::iter::repeat_n(b'x', (i % 41) as usize));
            text.push(b'\n');
        }
        for data in [&text[..], &text[..text.len() - 1], b"", b"\n", b"a", b"a\nb"] {
            let len = data.len() as u64;
            for n in [0, 1, 2, 10, 1000, 100_000, 399_999, 400_000, 400_001] {
                let want = &data[start_of_last(&data, len, n).unwrap() as usize..];
                let last = keep_last_lines(data, n).unwrap();
                let kept: &[u8] = &last;
                let got = &last[start_of_last(&kept, last.len() as u64, n).unwrap() as usize..];
                assert_eq!(got, want, "n {n}, {} bytes", data.len());
            }
        }
    }

    /// A gzip file's last lines from its checkpoints are the plain file's
    /// last lines, across spans; a sidecar that does not fit is not used.
    #[test]
    fn an_indexed_gzip_files_last_lines_come_from_its_checkpoints() {
        use std::io::Write;
        let dir = tempfile::tempdir().unwrap();
        let gz = dir.path().join("log.gz");
        let mut text = Vec::new();
        for i in 0..400_000u32 {
            writeln!(text, "{i} GET /items/{} {}", i % 997, "x".repeat((i % 13) as usize)).unwrap();
        }
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
        enc.write_all(&text).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        assert_eq!(last_lines_by_index(&gz, 10), None, "no sidecar yet");
        let index = swath::index::lines::index_gzip_lines(&gz, 4 << 20).unwrap();
        let spans = index.gzip.as_ref().unwrap().checkpoints.len() + 1;
        assert!(spans >= 3, "{spans} spans over {} bytes", text.len());
        let sidecar = swath::index::default_index_path(&gz);
        let mut out = Vec::new();
        swath::index::format::write_index(&index, &mut out).unwrap();
        std::fs::write(&sidecar, &out).unwrap();
        let len = text.len() as u64;
        for n in [0, 1, 10, 150_000, 399_999, 400_000, 400_001] {
            let want = &text[start_of_last(&&text[..], len, n).unwrap() as usize..];
            let last = last_lines_by_index(&gz, n).expect("the index is used");
            let kept: &[u8] = &last;
            let got = &last[start_of_last(&kept, last.len() as u64, n).unwrap() as usize..];
            assert!(got == want, "n {n}");
        }
        // The last checkpoint's CRC changed in the sidecar: the last span
        // fails its member's check, and the index is not used.
        let mut bad = index.clone();
        bad.gzip.as_mut().unwrap().checkpoints.last_mut().unwrap().crc ^= 1;
        let mut out = Vec::new();
        swath::index::format::write_index(&bad, &mut out).unwrap();
        std::fs::write(&sidecar, &out).unwrap();
        assert_eq!(last_lines_by_index(&gz, 10), None, "a span that fails its check");
    }
}

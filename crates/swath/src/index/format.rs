//! The sidecar's text format (documented in `docs/index-format.md`): a
//! header of `key value` lines, one `byte record line` line per
//! checkpoint, for a gzip file its gzip checkpoints, and an `end` line, so
//! a truncated sidecar is an error, not an index with fewer checkpoints.

use std::io::{self, BufRead, Write};

use super::{Checkpoint, FileIdentity, Index, IndexKind};
use crate::decompress::gzip_index::{GzCheckpoint, GzipIndex, Window};

/// The first line of every sidecar.
pub const MAGIC: &str = "swath-index 3";

/// The format before gzip checkpoints, read as well (it has none).
const MAGIC_2: &str = "swath-index 2";

/// Write `index` to `out`.
///
/// # Errors
///
/// The writer's error.
pub fn write_index(index: &Index, mut out: impl Write) -> io::Result<()> {
    let id = &index.identity;
    writeln!(out, "{MAGIC}")?;
    writeln!(out, "kind {}", index.kind.name())?;
    writeln!(out, "file-len {}", id.len)?;
    writeln!(out, "file-mtime {}.{:09}", id.mtime_sec, id.mtime_nsec)?;
    writeln!(out, "file-ctime {}.{:09}", id.ctime_sec, id.ctime_nsec)?;
    writeln!(out, "file-inode {}", id.inode)?;
    writeln!(out, "file-hash fnv1a64:{:016x}", id.hash)?;
    writeln!(out, "dialect {}", index.dialect)?;
    writeln!(out, "records {}", index.records)?;
    writeln!(out, "checkpoints {}", index.checkpoints.len())?;
    for c in &index.checkpoints {
        writeln!(out, "{} {} {}", c.byte, c.record, c.line)?;
    }
    if let Some(gz) = &index.gzip {
        writeln!(
            out,
            "gzip-checkpoints {} spacing {} decoded {}",
            gz.checkpoints.len(),
            gz.spacing,
            gz.decoded_len
        )?;
        for c in &gz.checkpoints {
            let window = c.window.as_base64();
            writeln!(out, "{} {} {} {:08x} {window}", c.bit, c.out, c.member_out, c.crc)?;
        }
    }
    writeln!(out, "end")?;
    out.flush()
}

/// Read an index from `input`.
///
/// # Errors
///
/// An I/O error, or `InvalidData` naming the line that is not what the
/// format says (a truncated or foreign file).
pub fn read_index(input: impl BufRead) -> io::Result<Index> {
    let mut lines = input.lines().enumerate();
    let mut next = |what: &str| -> io::Result<(usize, String)> {
        match lines.next() {
            Some((i, l)) => Ok((i + 1, l?)),
            None => Err(bad(0, &format!("ends before {what}"))),
        }
    };
    let (n, magic) = next("its first line")?;
    if magic != MAGIC && magic != MAGIC_2 {
        if let Some(v) = magic.strip_prefix("swath-index ") {
            return Err(bad(
                n,
                &format!("format {v}, and this swath reads formats 2 and 3: index the file again"),
            ));
        }
        return Err(bad(n, &format!("not a swath index (want {MAGIC:?}, found {magic:?})")));
    }
    let kind = match field(&mut next, "kind")?.as_str() {
        "lines" => IndexKind::Lines,
        "csv" => IndexKind::Csv,
        "json" => IndexKind::Json,
        "gzip" => IndexKind::Gzip,
        other => return Err(bad(2, &format!("unknown kind {other:?}"))),
    };
    let len = number(&mut next, "file-len")?;
    let (mtime_sec, mtime_nsec) = time(&mut next, "file-mtime")?;
    let (ctime_sec, ctime_nsec) = time(&mut next, "file-ctime")?;
    let inode = number(&mut next, "file-inode")?;
    let (n, hash) = keyed(&mut next, "file-hash")?;
    let hash = hash
        .strip_prefix("fnv1a64:")
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .ok_or_else(|| bad(n, "file-hash is not fnv1a64:HEX"))?;
    let dialect = field(&mut next, "dialect")?;
    let records = number(&mut next, "records")?;
    let count = number(&mut next, "checkpoints")?;
    let mut checkpoints: Vec<(usize, Checkpoint)> = Vec::with_capacity(count.min(1 << 20) as usize);
    for _ in 0..count {
        let (n, l) = next("a checkpoint")?;
        let mut it = l.split(' ').map(str::parse::<u64>);
        let c = match (it.next(), it.next(), it.next(), it.next()) {
            (Some(Ok(byte)), Some(Ok(record)), Some(Ok(line)), None) => {
                Checkpoint { byte, record, line }
            }
            _ => return Err(bad(n, "a checkpoint is not BYTE RECORD LINE")),
        };
        let in_order = checkpoints
            .last()
            .is_none_or(|(_, p)| p.byte < c.byte && p.record < c.record && p.line <= c.line);
        if !in_order || c.record > records.max(1) {
            return Err(bad(n, "checkpoints out of order or past the file's end"));
        }
        checkpoints.push((n, c));
    }
    if checkpoints.first().is_none_or(|(_, c)| *c != Checkpoint { byte: 0, record: 1, line: 1 }) {
        return Err(bad(0, "the first checkpoint is not the top of the file (0 1 1)"));
    }
    let (mut n, mut end) = next("its end line")?;
    let mut gzip = None;
    if let Some(header) = end.strip_prefix("gzip-checkpoints ") {
        gzip = Some(read_gzip(n, header, len, &mut next)?);
        (n, end) = next("its end line")?;
    }
    if end != "end" {
        return Err(bad(n, "no end line after the checkpoints"));
    }
    // A gzip file's checkpoints are offsets in its decoded bytes.
    let data_len = gzip.as_ref().map_or(len, |g: &GzipIndex| g.decoded_len);
    if let Some((n, _)) = checkpoints.iter().find(|(_, c)| c.byte > data_len) {
        return Err(bad(*n, "a checkpoint past the file's end"));
    }
    let checkpoints = checkpoints.into_iter().map(|(_, c)| c).collect();
    let identity = FileIdentity { len, mtime_sec, mtime_nsec, ctime_sec, ctime_nsec, inode, hash };
    Ok(Index { kind, identity, dialect, records, checkpoints, gzip })
}

/// The gzip section after its `gzip-checkpoints N spacing S decoded L`
/// line (`header` is what follows `gzip-checkpoints `). Checked for order
/// and bounds only: whether a checkpoint fits the file is checked where it
/// is used ([`crate::decompress::gzip_index::Resumed`]).
fn read_gzip(n: usize, header: &str, len: u64, next: &mut Next<'_>) -> io::Result<GzipIndex> {
    let words: Vec<&str> = header.split(' ').collect();
    let (count, spacing, decoded_len) = match words[..] {
        [count, "spacing", spacing, "decoded", decoded] => {
            match (count.parse::<u64>(), spacing.parse::<u64>(), decoded.parse::<u64>()) {
                (Ok(c), Ok(s), Ok(d)) => (c, s, d),
                _ => return Err(bad(n, "gzip-checkpoints is not N spacing S decoded L")),
            }
        }
        _ => return Err(bad(n, "gzip-checkpoints is not N spacing S decoded L")),
    };
    let mut checkpoints: Vec<GzCheckpoint> = Vec::with_capacity(count.min(1 << 16) as usize);
    for _ in 0..count {
        let (n, l) = next("a gzip checkpoint")?;
        let mut it = l.split(' ');
        let mut num = || it.next().and_then(|w| w.parse::<u64>().ok());
        let (bit, out, member_out) = match (num(), num(), num()) {
            (Some(b), Some(o), Some(m)) => (b, o, m),
            _ => return Err(bad(n, "a gzip checkpoint is not BIT OUT MEMBER-OUT CRC WINDOW")),
        };
        let rest: Vec<&str> = l.split(' ').skip(3).collect();
        let (crc, window) = match rest[..] {
            // The window is decoded when a span uses it (a bad one fails
            // that span, which is then decoded from the top).
            [crc, window] => match u32::from_str_radix(crc, 16) {
                Ok(c) => (c, Window::from_base64(window.to_string())),
                _ => return Err(bad(n, "a gzip checkpoint's CRC or window does not read")),
            },
            _ => return Err(bad(n, "a gzip checkpoint is not BIT OUT MEMBER-OUT CRC WINDOW")),
        };
        let in_order = checkpoints.last().is_none_or(|p| p.bit < bit && p.out < out);
        if !in_order || bit / 8 >= len || out > decoded_len || member_out > out {
            return Err(bad(n, "gzip checkpoints out of order or past the file's end"));
        }
        checkpoints.push(GzCheckpoint { bit, out, member_out, crc, window });
    }
    Ok(GzipIndex { spacing, decoded_len, checkpoints })
}

fn bad(line: usize, msg: &str) -> io::Error {
    let at = if line > 0 { format!("line {line}: ") } else { String::new() };
    io::Error::new(io::ErrorKind::InvalidData, format!("bad index: {at}{msg}"))
}

type Next<'a> = dyn FnMut(&str) -> io::Result<(usize, String)> + 'a;

/// The value of the next line, which must be `key VALUE`.
fn keyed(next: &mut Next<'_>, key: &str) -> io::Result<(usize, String)> {
    let (n, l) = next(key)?;
    match l.strip_prefix(key).and_then(|r| r.strip_prefix(' ')) {
        Some(v) => Ok((n, v.to_string())),
        None if l == key => Ok((n, String::new())),
        None => Err(bad(n, &format!("want {key:?}, found {l:?}"))),
    }
}

fn field(next: &mut Next<'_>, key: &str) -> io::Result<String> {
    keyed(next, key).map(|(_, v)| v)
}

/// A `key SECS.NANOS` line.
fn time(next: &mut Next<'_>, key: &str) -> io::Result<(i64, u32)> {
    let (n, v) = keyed(next, key)?;
    let (sec, nsec) =
        v.split_once('.').ok_or_else(|| bad(n, &format!("{key} is not SECS.NANOS")))?;
    let sec = sec.parse().map_err(|_| bad(n, &format!("{key} seconds")))?;
    let nsec = nsec.parse().map_err(|_| bad(n, &format!("{key} nanoseconds")))?;
    Ok((sec, nsec))
}

fn number(next: &mut Next<'_>, key: &str) -> io::Result<u64> {
    let (n, v) = keyed(next, key)?;
    v.parse().map_err(|_| bad(n, &format!("{key} is not a number: {v:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Index {
        Index {
            kind: IndexKind::Csv,
            identity: FileIdentity {
                len: 100,
                mtime_sec: 5,
                mtime_nsec: 7,
                ctime_sec: 6,
                ctime_nsec: 8,
                inode: 42,
                hash: 0xabc,
            },
            dialect: "delimiter=44 quote=34".to_string(),
            records: 9,
            checkpoints: vec![
                Checkpoint { byte: 0, record: 1, line: 1 },
                Checkpoint { byte: 40, record: 4, line: 6 },
            ],
            gzip: None,
        }
    }

    fn with_gzip() -> Index {
        let gzip = GzipIndex {
            spacing: 16,
            decoded_len: 90,
            checkpoints: vec![
                GzCheckpoint {
                    bit: 83,
                    out: 20,
                    member_out: 20,
                    crc: 0xdead,
                    window: Window::from_deflated(&[1, 2]),
                },
                GzCheckpoint {
                    bit: 400,
                    out: 60,
                    member_out: 5,
                    crc: 7,
                    window: Window::from_deflated(&[]),
                },
            ],
        };
        // Its line checkpoints are in the decoded bytes, past the
        // compressed length.
        let mut index = Index { gzip: Some(gzip), ..sample() };
        index.identity.len = 51;
        index.checkpoints.push(Checkpoint { byte: 70, record: 8, line: 10 });
        index
    }

    #[test]
    fn an_index_reads_back_as_written() {
        let mut out = Vec::new();
        write_index(&sample(), &mut out).unwrap();
        assert_eq!(read_index(&out[..]).unwrap(), sample());
        let mut out = Vec::new();
        write_index(&with_gzip(), &mut out).unwrap();
        assert_eq!(read_index(&out[..]).unwrap(), with_gzip());
    }

    #[test]
    fn the_previous_format_reads_without_gzip_checkpoints() {
        let mut out = Vec::new();
        write_index(&sample(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap().replace(MAGIC, MAGIC_2);
        assert_eq!(read_index(text.as_bytes()).unwrap(), sample());
    }

    #[test]
    fn damaged_gzip_checkpoints_are_an_error() {
        let mut out = Vec::new();
        write_index(&with_gzip(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        for (from, to) in [
            ("400 60", "80 60"),  // out of order
            ("400 60", "900 60"), // past the file's end
            ("gzip-checkpoints 2", "gzip-checkpoints 3"),
            ("70 8 10", "95 8 10"), // a line checkpoint past the decoded end
        ] {
            assert!(text.contains(from), "{from}");
            let bad = text.replace(from, to);
            assert!(read_index(bad.as_bytes()).is_err(), "{from} -> {to}");
        }
        // A window is decoded when a span uses it: one that is not base64
        // reads, and fails there (the span is then decoded from the top).
        let bad = text.replace("0000dead AQI=", "0000dead A!I=");
        let read = read_index(bad.as_bytes()).unwrap();
        assert!(read.gzip.unwrap().checkpoints[0].window.deflated().is_err());
    }

    #[test]
    fn a_truncated_or_foreign_file_is_an_error() {
        let mut out = Vec::new();
        write_index(&sample(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let cut = &text[..text.len() - 4];
        assert!(read_index(cut.as_bytes()).is_err());
        assert!(read_index(&b"id,name\n1,x\n"[..]).is_err());
        let shuffled = text.replace("40 4 6", "0 4 6");
        assert!(read_index(shuffled.as_bytes()).is_err());
    }

    #[test]
    fn an_older_format_is_named_and_not_read() {
        let old = "swath-index 1\nkind csv\nfile-len 100\n";
        let e = read_index(old.as_bytes()).unwrap_err().to_string();
        assert!(e.contains("format 1") && e.contains("index the file again"), "{e}");
    }
}

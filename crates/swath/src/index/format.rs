//! The sidecar's text format (documented in `docs/index-format.md`): a
//! header of `key value` lines, one `byte record line` line per
//! checkpoint, and an `end` line, so a truncated sidecar is an error, not
//! an index with fewer checkpoints.

use std::io::{self, BufRead, Write};

use super::{Checkpoint, FileIdentity, Index, IndexKind};

/// The first line of every sidecar.
pub const MAGIC: &str = "swath-index 2";

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
    if magic != MAGIC {
        if let Some(v) = magic.strip_prefix("swath-index ") {
            return Err(bad(
                n,
                &format!("format {v}, and this swath reads format 2: index the file again"),
            ));
        }
        return Err(bad(n, &format!("not a swath index (want {MAGIC:?}, found {magic:?})")));
    }
    let kind = match field(&mut next, "kind")?.as_str() {
        "lines" => IndexKind::Lines,
        "csv" => IndexKind::Csv,
        "json" => IndexKind::Json,
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
    let mut checkpoints = Vec::with_capacity(count.min(1 << 20) as usize);
    for _ in 0..count {
        let (n, l) = next("a checkpoint")?;
        let mut it = l.split(' ').map(str::parse::<u64>);
        let c = match (it.next(), it.next(), it.next(), it.next()) {
            (Some(Ok(byte)), Some(Ok(record)), Some(Ok(line)), None) => {
                Checkpoint { byte, record, line }
            }
            _ => return Err(bad(n, "a checkpoint is not BYTE RECORD LINE")),
        };
        let in_order = checkpoints.last().is_none_or(|p: &Checkpoint| {
            p.byte < c.byte && p.record < c.record && p.line <= c.line
        });
        if !in_order || c.byte > len || c.record > records.max(1) {
            return Err(bad(n, "checkpoints out of order or past the file's end"));
        }
        checkpoints.push(c);
    }
    if checkpoints.first().is_none_or(|c| *c != Checkpoint { byte: 0, record: 1, line: 1 }) {
        return Err(bad(0, "the first checkpoint is not the top of the file (0 1 1)"));
    }
    let (n, end) = next("its end line")?;
    if end != "end" {
        return Err(bad(n, "no end line after the checkpoints"));
    }
    let identity = FileIdentity { len, mtime_sec, mtime_nsec, ctime_sec, ctime_nsec, inode, hash };
    Ok(Index { kind, identity, dialect, records, checkpoints })
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
        }
    }

    #[test]
    fn an_index_reads_back_as_written() {
        let mut out = Vec::new();
        write_index(&sample(), &mut out).unwrap();
        assert_eq!(read_index(&out[..]).unwrap(), sample());
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

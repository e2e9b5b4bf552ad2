//! CSV readers on the lab's 6-column CSV (`id,name,score,active,city,ts`):
//! a `Vec<String>` per record, swath's borrowed records, its typed scan,
//! and its parallel reader. Each returns the records it read and the sum of
//! the ids (first field), so a parse that shifts a field fails the check.

use std::fs::File;
use std::hint::black_box;
use std::io;
use std::path::Path;

use swath_csv::{ParallelReader, Reader, ReaderBuilder, Record};

use super::{not_applicable, Counted, Outcome};

/// The id checksum's term for one first field: its value when it is all
/// ASCII digits, else 0. Every method uses this one rule, so their sums
/// agree exactly on any file, and on the lab's file (ids 1..=n) the sum is
/// n(n+1)/2.
pub fn id_of(field: &[u8]) -> u64 {
    if field.is_empty() {
        return 0;
    }
    let mut v = 0u64;
    for &b in field {
        if !b.is_ascii_digit() {
            return 0;
        }
        v = v.wrapping_mul(10).wrapping_add(u64::from(b - b'0'));
    }
    v
}

/// The id checksum of the lab's generated file with `rows` rows.
pub fn generated_id_sum(rows: u64) -> u64 {
    // n(n+1)/2 without overflow for any n the lab can write.
    let (a, b) = if rows % 2 == 0 { (rows / 2, rows + 1) } else { (rows, rows.div_ceil(2)) };
    a.wrapping_mul(b)
}

fn open(path: &Path) -> io::Result<Reader<Counted<File>>> {
    ReaderBuilder::new().from_reader(Counted::new(File::open(path)?)).map_err(io::Error::other)
}

fn done(rdr: &Reader<Counted<File>>, path: &Path, records: u64, ids: u64) -> io::Result<Outcome> {
    Ok(Outcome {
        lines: records,
        bytes: std::fs::metadata(path)?.len(),
        syscalls: Some(rdr.get_ref().calls()),
        buf_offset: None,
        id_sum: Some(ids),
    })
}

/// Every field of every record copied into a fresh `Vec<String>`, as a
/// program ported from Go's `encoding/csv` (`Read() []string`) holds them.
pub fn strings(path: &Path) -> io::Result<Outcome> {
    let mut rdr = open(path)?;
    let (mut records, mut ids) = (0u64, 0u64);
    while let Some(rec) = rdr.next_record().map_err(io::Error::other)? {
        let mut row = Vec::with_capacity(rec.len());
        for (i, f) in rec.iter().enumerate() {
            let s = std::str::from_utf8(f).map_err(|_| {
                not_applicable(format!(
                    "invalid UTF-8 in record {}, field {}",
                    rec.position().record,
                    i + 1
                ))
            })?;
            row.push(s.to_owned());
        }
        let row: Vec<String> = black_box(row);
        records += 1;
        ids = ids.wrapping_add(row.first().map_or(0, |s| id_of(s.as_bytes())));
    }
    done(&rdr, path, records, ids)
}

/// Bytes of every field, so no field is left unread.
#[inline]
fn touch(rec: &Record<'_>) -> u64 {
    rec.iter().map(|f| f.len() as u64).sum()
}

/// `Reader::next_record`: records borrowed from one reused buffer, every
/// field looked at.
pub fn borrowed(path: &Path) -> io::Result<Outcome> {
    let mut rdr = open(path)?;
    let (mut records, mut ids, mut touched) = (0u64, 0u64, 0u64);
    while let Some(rec) = rdr.next_record().map_err(io::Error::other)? {
        records += 1;
        ids = ids.wrapping_add(id_of(rec.get(0).unwrap_or_default()));
        touched = touched.wrapping_add(touch(&rec));
    }
    black_box(touched);
    done(&rdr, path, records, ids)
}

/// `record.scan::<(u64, &str, f64, bool, &str, &str)>()` on every record.
pub fn typed(path: &Path) -> io::Result<Outcome> {
    let mut rdr = open(path)?;
    let (mut records, mut ids) = (0u64, 0u64);
    while let Some(rec) = rdr.next_record().map_err(io::Error::other)? {
        let row: (u64, &str, f64, bool, &str, &str) = rec.scan().map_err(io::Error::other)?;
        let row = black_box(row);
        records += 1;
        ids = ids.wrapping_add(row.0);
    }
    done(&rdr, path, records, ids)
}

/// `swath_csv::ParallelReader::fold` on `threads` threads (relative
/// numbers, as `swath csv` runs it), every field looked at, as [`borrowed`]
/// does on one.
pub fn parallel(path: &Path, threads: usize) -> io::Result<Outcome> {
    let mut rdr = ParallelReader::new(&ReaderBuilder::new(), path)
        .threads(threads)
        // As `swath csv` runs it: nothing here looks at a record's number
        // or line, and exact ones cost phase 1 a pass over every byte.
        .relative_numbers(true);
    let (records, ids, touched) = rdr
        .fold(
            || (0u64, 0u64, 0u64),
            |acc, rec| {
                acc.0 += 1;
                acc.1 = acc.1.wrapping_add(id_of(rec.get(0).unwrap_or_default()));
                acc.2 = acc.2.wrapping_add(touch(&rec));
                Ok(())
            },
            |a, b| (a.0 + b.0, a.1.wrapping_add(b.1), a.2.wrapping_add(b.2)),
        )
        .map_err(io::Error::other)?;
    black_box(touched);
    Ok(Outcome {
        lines: records,
        bytes: std::fs::metadata(path)?.len(),
        syscalls: None,
        buf_offset: None,
        id_sum: Some(ids),
    })
}

/// Records (the header row not counted) and the id checksum of a CSV file,
/// by the plain sequential reader: the reference for a user's file.
///
/// # Errors
///
/// The reader's first error.
pub fn reference(path: &Path) -> io::Result<(u64, u64)> {
    let mut rdr = open(path)?;
    let (mut records, mut ids) = (0u64, 0u64);
    while let Some(rec) = rdr.next_record().map_err(io::Error::other)? {
        records += 1;
        ids = ids.wrapping_add(id_of(rec.get(0).unwrap_or_default()));
    }
    Ok((records, ids))
}

/// `swath_csv::ParallelReader::count` on `threads` threads: records counted
/// and checked by the validating scan, no field built.
pub fn count(path: &Path, threads: usize) -> io::Result<Outcome> {
    let mut rdr = ParallelReader::new(&ReaderBuilder::new(), path).threads(threads);
    let records = rdr.count().map_err(io::Error::other)?;
    Ok(Outcome {
        lines: records,
        bytes: std::fs::metadata(path)?.len(),
        syscalls: None,
        buf_offset: None,
        id_sum: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_their_sum() {
        assert_eq!(id_of(b"123"), 123);
        assert_eq!(id_of(b""), 0);
        assert_eq!(id_of(b"+5"), 0);
        assert_eq!(id_of(b"12a"), 0);
        for n in [0u64, 1, 2, 7, 1000, 5_000_001] {
            assert_eq!(generated_id_sum(n), (1..=n).sum::<u64>(), "{n}");
        }
    }
}

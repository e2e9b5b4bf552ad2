//! A zip archive's member, found through the archive's central directory
//! (at its end, ZIP64 included) and streamed: stored, deflate, bzip2,
//! zstd or xz data, its CRC-32 and size checked at its end. An archive of
//! one file needs no name; an archive of several needs `--member NAME`
//! ([`super::set_zip_member`]), and an error lists them otherwise.

use std::io;

use crate::read_at::{read_full_at, ReadAt};

/// One file in the archive, as its central directory describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// Its name (path) in the archive.
    pub name: String,
    /// The compression method: 0 stored, 8 deflate, 12 bzip2, 93 zstd,
    /// 95 xz.
    pub method: u16,
    /// Its CRC-32.
    pub crc: u32,
    /// Compressed and decoded sizes.
    pub compressed_size: u64,
    /// Decoded size.
    pub size: u64,
    /// Where its local header starts.
    pub header_at: u64,
    /// The general-purpose flags (bit 0: encrypted).
    flags: u16,
}

fn bad(msg: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("zip input: {}", msg.into()))
}

fn u16_at(b: &[u8], i: usize) -> u16 {
    u16::from_le_bytes([b[i], b[i + 1]])
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]])
}

fn u64_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"))
}

/// Read exactly `n` bytes at `at`, or fail naming what was being read.
fn exact(src: &dyn ReadAt, at: u64, n: usize, what: &str) -> io::Result<Vec<u8>> {
    let mut buf = vec![0u8; n];
    if read_full_at(src, &mut buf, at)? < n {
        return Err(bad(format!("the archive ends inside its {what} (byte {at})")));
    }
    Ok(buf)
}

/// The files of the archive (directories left out), in directory order.
///
/// # Errors
///
/// An I/O error, or an archive whose directory cannot be read.
pub fn members(src: &dyn ReadAt, len: u64) -> io::Result<Vec<Member>> {
    // The end-of-central-directory record: 22 bytes and a comment of up to
    // 64 KiB, so it is found in the last 65,557 bytes.
    let tail_len = len.min(22 + 65_535);
    let tail = exact(src, len - tail_len, tail_len as usize, "end record")?;
    let eocd = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&i| u32_at(&tail, i) == 0x0605_4b50)
        .ok_or_else(|| bad("no end-of-central-directory record (not a whole archive?)"))?;
    let eocd_at = len - tail_len + eocd as u64;
    let rec = &tail[eocd..];
    let mut count = u64::from(u16_at(rec, 10));
    let mut dir_size = u64::from(u32_at(rec, 12));
    let mut dir_at = u64::from(u32_at(rec, 16));
    // ZIP64: the locator, 20 bytes before, points to the 64-bit record.
    if eocd_at >= 20 {
        let loc = exact(src, eocd_at - 20, 20, "ZIP64 locator")?;
        if u32_at(&loc, 0) == 0x0706_4b50 {
            let rec = exact(src, u64_at(&loc, 8), 56, "ZIP64 end record")?;
            if u32_at(&rec, 0) != 0x0606_4b50 {
                return Err(bad("the ZIP64 locator points to no ZIP64 end record"));
            }
            count = u64_at(&rec, 32);
            dir_size = u64_at(&rec, 40);
            dir_at = u64_at(&rec, 48);
        }
    }
    if dir_at.checked_add(dir_size).is_none_or(|end| end > len) {
        return Err(bad("the central directory lies past the end of the file"));
    }
    let dir = exact(
        src,
        dir_at,
        usize::try_from(dir_size).map_err(|_| bad("huge directory"))?,
        "central directory",
    )?;
    let mut out = Vec::new();
    let mut i = 0usize;
    for _ in 0..count {
        if i + 46 > dir.len() || u32_at(&dir, i) != 0x0201_4b50 {
            return Err(bad(format!(
                "a broken central directory entry at byte {}",
                dir_at + i as u64
            )));
        }
        let e = &dir[i..];
        let (name_len, extra_len, comment_len) =
            (usize::from(u16_at(e, 28)), usize::from(u16_at(e, 30)), usize::from(u16_at(e, 32)));
        if 46 + name_len + extra_len + comment_len > e.len() {
            return Err(bad("a central directory entry runs past the directory"));
        }
        let name = String::from_utf8_lossy(&e[46..46 + name_len]).into_owned();
        let mut m = Member {
            name,
            method: u16_at(e, 10),
            crc: u32_at(e, 16),
            compressed_size: u64::from(u32_at(e, 20)),
            size: u64::from(u32_at(e, 24)),
            header_at: u64::from(u32_at(e, 42)),
            flags: u16_at(e, 8),
        };
        zip64_sizes(&e[46 + name_len..46 + name_len + extra_len], &mut m);
        if !m.name.ends_with('/') {
            out.push(m);
        }
        i += 46 + name_len + extra_len + comment_len;
    }
    Ok(out)
}

/// The ZIP64 extra field (id 1) holds the 64-bit values of the fields
/// that are 0xFFFFFFFF, in this order: size, compressed size, offset.
fn zip64_sizes(extra: &[u8], m: &mut Member) {
    let mut i = 0;
    while i + 4 <= extra.len() {
        let (id, n) = (u16_at(extra, i), usize::from(u16_at(extra, i + 2)));
        let field = &extra[i + 4..(i + 4 + n).min(extra.len())];
        if id == 1 {
            let mut j = 0;
            for v in [&mut m.size, &mut m.compressed_size, &mut m.header_at] {
                if *v == 0xffff_ffff && j + 8 <= field.len() {
                    *v = u64_at(field, j);
                    j += 8;
                }
            }
        }
        i += 4 + n;
    }
}

/// The member to read: the one named, or the only one.
///
/// # Errors
///
/// No such member, several with no name given (the error lists them), an
/// empty archive, an encrypted member or a method swath does not decode.
pub fn choose(members: &[Member], name: Option<&str>) -> io::Result<Member> {
    let listed = || {
        let names: Vec<&str> = members.iter().take(20).map(|m| m.name.as_str()).collect();
        let more = members.len().saturating_sub(20);
        let more = if more > 0 { format!(" and {more} more") } else { String::new() };
        format!("{}{more}", names.join(", "))
    };
    let m = match name {
        Some(name) => members.iter().find(|m| m.name == name).ok_or_else(|| {
            bad(format!("no member {name:?} in the archive; it holds {}", listed()))
        })?,
        None => match members {
            [] => return Err(bad("the archive holds no file")),
            [one] => one,
            _ => {
                return Err(bad(format!(
                    "the archive holds {} files; choose one with --member NAME: {}",
                    members.len(),
                    listed()
                )))
            }
        },
    };
    if m.flags & 1 != 0 {
        return Err(bad(format!("member {:?} is encrypted", m.name)));
    }
    if !matches!(m.method, 0 | 8 | 12 | 93 | 95) {
        return Err(bad(format!(
            "member {:?} is compressed with method {}, which swath does not decode \
             (it reads stored, deflate, bzip2, zstd and xz)",
            m.name, m.method
        )));
    }
    Ok(m.clone())
}

/// Where the member's data starts: after its local header, whose name and
/// extra field may differ in length from the directory's.
///
/// # Errors
///
/// An I/O error, or no local header where the directory says.
pub fn data_start(src: &dyn ReadAt, m: &Member) -> io::Result<u64> {
    let h = exact(src, m.header_at, 30, "local header")?;
    if u32_at(&h, 0) != 0x0403_4b50 {
        return Err(bad(format!("no local header for {:?} at byte {}", m.name, m.header_at)));
    }
    Ok(m.header_at + 30 + u64::from(u16_at(&h, 26)) + u64::from(u16_at(&h, 28)))
}

/// The check of a member's decoded bytes against its CRC-32 and size,
/// made at its end: an error there, never a quiet end.
pub(super) struct Check {
    crc: flate2::Crc,
    size: u64,
    expect_crc: u32,
    expect_size: u64,
    name: String,
}

impl Check {
    pub(super) fn new(m: &Member) -> Check {
        Check {
            crc: flate2::Crc::new(),
            size: 0,
            expect_crc: m.crc,
            expect_size: m.size,
            name: m.name.clone(),
        }
    }

    /// Take in the next decoded bytes; at the end (`bytes` empty), or as
    /// soon as there are more bytes than the member has, the verdict.
    pub(super) fn update(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.crc.update(bytes);
        self.size += bytes.len() as u64;
        let at_end = bytes.is_empty();
        if (at_end || self.size > self.expect_size)
            && (self.size != self.expect_size || self.crc.sum() != self.expect_crc)
        {
            return Err(bad(format!(
                "member {:?} decodes to {} bytes with CRC-32 {:08x}; the archive says {} bytes, \
                 {:08x} (corrupt or truncated)",
                self.name,
                self.size,
                self.crc.sum(),
                self.expect_size,
                self.expect_crc
            )));
        }
        Ok(())
    }
}

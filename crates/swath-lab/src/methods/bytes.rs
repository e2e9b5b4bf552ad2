//! One byte per `read` call (seed 004): unbuffered, every byte is a system
//! call; through `BufReader`, the same code costs a copy from its buffer.
//! Run on a prefix of the file so the slow one finishes.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::Path;

use super::{Counted, Outcome};

fn count_bytes<R: Read>(rdr: &mut R, limit: u64) -> io::Result<(u64, u64)> {
    let mut byte = [0u8; 1];
    let (mut newlines, mut seen, mut last) = (0u64, 0u64, b'\n');
    while seen < limit {
        match rdr.read(&mut byte) {
            Ok(0) => break,
            Ok(_) => {
                seen += 1;
                last = byte[0];
                newlines += u64::from(last == b'\n');
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok((newlines + u64::from(last != b'\n'), seen))
}

/// 1-byte `read` calls on the file itself.
pub fn unbuffered(path: &Path, prefix: u64, behind: bool) -> io::Result<Outcome> {
    let mut rdr = Counted::evicting(File::open(path)?, behind);
    let (lines, bytes) = count_bytes(&mut rdr, prefix)?;
    Ok(Outcome { lines, bytes, syscalls: Some(rdr.calls()), buf_offset: None, id_sum: None })
}

/// 1-byte `read` calls on a `BufReader` (8 KiB) over the file.
pub fn buffered(path: &Path, prefix: u64, behind: bool) -> io::Result<Outcome> {
    let mut rdr = BufReader::new(Counted::evicting(File::open(path)?, behind));
    let (lines, bytes) = count_bytes(&mut rdr, prefix)?;
    Ok(Outcome {
        lines,
        bytes,
        syscalls: Some(rdr.get_ref().calls()),
        buf_offset: None,
        id_sum: None,
    })
}

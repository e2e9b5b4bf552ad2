//! The buffer's unsafe code (its own allocation, the roll to the front, the
//! regrowth and the shrink back, the spare space handed to `read`) through
//! every path, on inputs small enough that CI also runs this file under
//! miri (`.ci/run`), which checks each pointer access against the
//! allocation it came from.

use std::io::Read;

use swath::{Buffer, LineReaderBuilder};
use swath_testkit::{Chunked, Rng};

/// Read `data` through a buffer of `cap` (growing up to `max`) in reads of
/// `chunk`, consuming `take` bytes whenever there are that many: the slow
/// twin is the input itself.
fn drain(data: &[u8], cap: usize, max: usize, chunk: usize, take: usize) -> Vec<u8> {
    let mut buf = Buffer::with_capacity(cap);
    buf.set_max_capacity(max);
    let mut src = Chunked::new(data, chunk);
    let mut out = Vec::new();
    loop {
        if buf.len() < take {
            match buf.fill(&mut src) {
                Ok(0) => break,
                Ok(_) => continue,
                // Full at its maximum: take what is there.
                Err(_) => {}
            }
        }
        let n = buf.len().min(take);
        out.extend_from_slice(&buf.data()[..n]);
        buf.consume(n);
        assert_eq!(buf.offset(), out.len() as u64);
    }
    out.extend_from_slice(buf.data());
    out
}

#[test]
fn every_byte_comes_out_once_in_order() {
    let mut rng = Rng::new(5);
    let data = rng.bytes(120, b"abc\n\r,\"\x00\xff");
    for (cap, max) in [(1, 1), (1, 64), (7, 7), (7, 100), (16, 1024)] {
        for chunk in [1, 3, 64] {
            for take in [1, 33] {
                let got = drain(&data, cap, max, chunk, take);
                assert_eq!(got, data, "cap {cap} max {max} chunk {chunk} take {take}");
            }
        }
    }
}

#[test]
fn grows_for_a_long_record_and_shrinks_back() {
    let mut buf = Buffer::with_capacity(8);
    buf.set_max_capacity(64);
    let data = [b'x'; 40];
    let mut src: &[u8] = &data;
    // Never consume: the buffer must grow to hold all 40 bytes.
    while buf.fill(&mut src).unwrap() > 0 {}
    assert_eq!(buf.data(), &data[..]);
    assert!(buf.capacity() >= 40 && buf.capacity() <= 64, "{}", buf.capacity());
    buf.consume(38);
    // The 2 bytes left fit the default capacity: the roll shrinks it.
    assert!(buf.make_room());
    assert_eq!(buf.capacity(), 8);
    assert_eq!(buf.data(), b"xx");
    // Full at the maximum: no room, and `fill` says so.
    let mut buf = Buffer::with_capacity(4);
    buf.set_max_capacity(4);
    let mut src: &[u8] = b"abcdef";
    assert_eq!(buf.fill(&mut src).unwrap(), 4);
    assert!(!buf.make_room());
    assert!(buf.fill(&mut src).is_err());
}

/// A reader that claims more bytes than it was given room for.
struct Liar;

impl Read for Liar {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        out.fill(b'z');
        Ok(out.len() + 100)
    }
}

#[test]
fn a_reader_that_lies_about_its_count_exposes_nothing_past_the_buffer() {
    let mut buf = Buffer::with_capacity(16);
    buf.set_max_capacity(16);
    let n = buf.fill(&mut Liar).unwrap();
    assert!(n <= 16);
    assert!(buf.data().iter().all(|&b| b == b'z'));
}

#[test]
fn lines_across_refills() {
    let data = b"a\r\nbb\n\nccc\r\r\ndddd";
    for cap in [1, 2, 5, 64] {
        let mut rdr = LineReaderBuilder::new().capacity(cap).from_reader(Chunked::new(data, 3));
        let mut lines = Vec::new();
        while let Some(l) = rdr.next_line().unwrap() {
            lines.push(l.to_vec());
        }
        let want: Vec<&[u8]> = vec![b"a", b"bb", b"", b"ccc\r", b"dddd"];
        assert_eq!(lines, want, "cap {cap}");
    }
}

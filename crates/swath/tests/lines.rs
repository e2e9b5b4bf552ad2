//! The line reader against a slow, obvious twin, at every buffer size and
//! seam, plus the line-reader cases of docs/bad-inputs.md section B.

use std::io::{self, Read};

use swath::{ErrorKind, LineReader, LineReaderBuilder, Source};
use swath_testkit::Chunked;

/// The slow twin: split on `\n`, strip one `\n` or `\r\n`; a final line
/// without terminator counts; an empty input has no lines.
fn twin(input: &[u8]) -> (Vec<Vec<u8>>, bool) {
    let mut lines = Vec::new();
    let mut rest = input;
    let mut terminated = true;
    while !rest.is_empty() {
        match rest.iter().position(|&b| b == b'\n') {
            Some(i) => {
                let mut line = &rest[..i];
                if line.last() == Some(&b'\r') {
                    line = &line[..line.len() - 1];
                }
                lines.push(line.to_vec());
                rest = &rest[i + 1..];
            }
            None => {
                lines.push(rest.to_vec());
                terminated = false;
                rest = &[];
            }
        }
    }
    (lines, terminated)
}

fn read_all(input: &[u8], cap: usize, step: usize) -> (Vec<Vec<u8>>, bool, Vec<u64>) {
    let mut rdr = LineReaderBuilder::new().capacity(cap).from_reader(Chunked::new(input, step));
    let mut lines = Vec::new();
    let mut offsets = Vec::new();
    while let Some(line) = rdr.next_line().unwrap() {
        lines.push(line.to_vec());
        offsets.push(rdr.line_offset());
        assert_eq!(rdr.line_number(), lines.len() as u64);
    }
    let terminated = lines.is_empty() || rdr.last_line_terminated();
    (lines, terminated, offsets)
}

#[test]
fn matches_the_twin_at_every_buffer_size_and_read_size() {
    let cases: &[&[u8]] = &[
        b"",
        b"\n",
        b"\n\n",
        b"a",
        b"a\n",
        b"a\r\n",
        b"a\r",
        b"\r\n",
        b"a\r\r\n",
        b"a\r\nb\rc\n\n\r\nlast",
        b"hello\nworld\r\nfoo",
        b"x\xffy\n\xe2\x82\xac\n",
    ];
    for input in cases {
        let (want, want_term) = twin(input);
        for cap in 1..=12 {
            for step in [1, 2, 3, 7, 64] {
                let (got, term, _) = read_all(input, cap, step);
                assert_eq!(got, want, "input {input:?} cap {cap} step {step}");
                assert_eq!(term, want_term, "input {input:?}");
            }
        }
    }
}

#[test]
fn cr_at_the_end_of_one_fill_and_lf_at_the_start_of_the_next() {
    // With capacity 4 and 4-byte reads, `abc\r` fills the buffer exactly.
    let (got, _, offsets) = read_all(b"abc\r\ndef\r\n", 4, 4);
    assert_eq!(got, vec![b"abc".to_vec(), b"def".to_vec()]);
    assert_eq!(offsets, vec![0, 5]);
}

#[test]
fn padded_inputs_every_seam() {
    // Lines of every length 0..64 around every seam of a small buffer.
    let mut input = Vec::new();
    for len in 0..64 {
        input.extend(std::iter::repeat_n(b'x', len));
        input.extend_from_slice(if len % 3 == 0 { b"\r\n" } else { b"\n" });
    }
    let (want, _) = twin(&input);
    for lead in 0..8 {
        let padded: Vec<u8> =
            std::iter::repeat_n(b'\n', lead).chain(input.iter().copied()).collect();
        let (want_padded, _) = twin(&padded);
        assert_eq!(want_padded.len(), want.len() + lead);
        for cap in [1, 2, 5, 16, 63, 64, 65, 4096] {
            let (got, _, _) = read_all(&padded, cap, 1 << 20);
            assert_eq!(got, want_padded, "lead {lead} cap {cap}");
        }
    }
}

#[test]
fn keep_terminator_gives_back_every_byte() {
    let input = b"a\r\nb\n\nc";
    let mut rdr =
        LineReaderBuilder::new().keep_terminator(true).capacity(2).from_reader(&input[..]);
    let mut all = Vec::new();
    while let Some(line) = rdr.next_line().unwrap() {
        all.extend_from_slice(line);
    }
    assert_eq!(all, input);
}

// B1: a line longer than the limit is an error with line number and offset,
// tested at limit - 1, limit and limit + 1 (terminator included).
#[test]
fn b1_line_too_long_is_an_error_not_a_truncation() {
    let limit = 10;
    for (len, ok) in [(limit - 1, true), (limit, true), (limit + 1, false), (2 * limit, false)] {
        let mut input = b"ok\n".to_vec();
        input.extend(std::iter::repeat_n(b'y', len - 1));
        input.push(b'\n');
        for cap in [1, 4, 64] {
            let mut rdr = LineReaderBuilder::new()
                .capacity(cap)
                .max_line_len(limit)
                .from_reader(Chunked::new(&input, 3));
            assert_eq!(rdr.next_line().unwrap(), Some(&b"ok"[..]));
            let second = rdr.next_line();
            if ok {
                assert_eq!(second.unwrap().unwrap().len(), len - 1, "len {len} cap {cap}");
            } else {
                let err = second.unwrap_err();
                assert!(matches!(err.kind(), ErrorKind::LineTooLong { limit: 10 }), "{err}");
                let pos = err.position().unwrap();
                assert_eq!((pos.line, pos.byte), (2, 3), "len {len} cap {cap}");
                // Sticky: no silent resumption after the error.
                assert!(rdr.next_line().is_err());
            }
        }
    }
}

#[test]
fn b1_huge_line_without_terminator_is_caught_at_the_limit() {
    // /dev/zero style: an endless line must trip the guard, not eat memory.
    let mut endless = io::repeat(b'z');
    let mut rdr = LineReaderBuilder::new().max_line_len(1 << 20).from_reader(&mut endless);
    let err = rdr.next_line().unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::LineTooLong { .. }));
}

#[test]
fn b1_split_multibyte_char_across_the_seam() {
    let input = "ab€\n€€\n".as_bytes();
    for cap in 1..8 {
        let mut rdr = LineReaderBuilder::new().capacity(cap).from_reader(Chunked::one_byte(input));
        assert_eq!(rdr.next_line_str().unwrap(), Some("ab€"));
        assert_eq!(rdr.next_line_str().unwrap(), Some("€€"));
        assert_eq!(rdr.next_line_str().unwrap(), None);
    }
}

// B2, B3, B4 are covered by the twin; spelled out here as documentation.
#[test]
fn b2_b3_b4_terminators_and_empty_inputs() {
    let (lines, term, _) = read_all(b"x\ny", 256, 256);
    assert_eq!((lines, term), (vec![b"x".to_vec(), b"y".to_vec()], false));
    let (lines, _, _) = read_all(b"a\r\nb\rc\n\n\r\nlast", 256, 256);
    assert_eq!(lines, [&b"a"[..], b"b\rc", b"", b"", b"last"]);
    let (lines, _, _) = read_all(b"a\r\r\n", 256, 256);
    assert_eq!(lines, [&b"a\r"[..]]);
    assert_eq!(read_all(b"", 256, 256).0.len(), 0);
    assert_eq!(read_all(b"\n", 256, 256).0, [&b""[..]]);
}

// B5: a file that shrinks while being read is an error, not a clean end.
#[test]
fn b5_truncated_while_reading_is_reported() {
    let dir = tempdir();
    let path = dir.join("shrinks.log");
    std::fs::write(&path, "line\n".repeat(100_000)).unwrap();
    let mut rdr = LineReaderBuilder::new().capacity(4096).from_path(&path).unwrap();
    assert!(rdr.next_line().unwrap().is_some());
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(0).unwrap();
    let err = loop {
        match rdr.next_line() {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("a truncated file ended cleanly"),
            Err(e) => break e,
        }
    };
    assert!(
        matches!(err.kind(), ErrorKind::Truncated { expected: 500_000, got } if *got < 500_000),
        "{err}"
    );
    assert!(err.to_string().contains("shrinks.log"), "{err}");
}

#[test]
fn b5_a_file_that_grows_is_read_to_its_end() {
    let dir = tempdir();
    let path = dir.join("grows.log");
    std::fs::write(&path, "a\n").unwrap();
    let mut rdr = LineReaderBuilder::new().capacity(1).from_path(&path).unwrap();
    assert_eq!(rdr.next_line().unwrap(), Some(&b"a"[..]));
    std::fs::write(&path, "a\nb\n").unwrap();
    assert_eq!(rdr.next_line().unwrap(), Some(&b"b"[..]));
    assert_eq!(rdr.next_line().unwrap(), None);
}

// B6: every error but Interrupted is sticky; the partial line is not lost
// into a "resumed" stream.
#[test]
fn b6_io_errors_are_sticky_at_every_offset() {
    struct FailAt {
        data: Vec<u8>,
        pos: usize,
        fail_at: usize,
        failed: bool,
    }
    impl Read for FailAt {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            if self.pos == self.fail_at && !self.failed {
                self.failed = true;
                return Err(io::Error::from_raw_os_error(5));
            }
            let end = self.data.len().min(self.pos + out.len()).min(self.fail_at.max(self.pos + 1));
            let end = if self.pos < self.fail_at { end.min(self.fail_at) } else { end };
            let n = end - self.pos;
            out[..n].copy_from_slice(&self.data[self.pos..end]);
            self.pos = end;
            Ok(n)
        }
    }
    let data = b"aaa\nbbb\nccc\n".to_vec();
    for fail_at in [0, 2, 4, 6, 8] {
        let src = FailAt { data: data.clone(), pos: 0, fail_at, failed: false };
        let mut rdr = LineReaderBuilder::new().capacity(4).from_reader(src);
        let mut lines = Vec::new();
        let err = loop {
            match rdr.next_line() {
                Ok(Some(l)) => lines.push(l.to_vec()),
                Ok(None) => panic!("EIO at {fail_at} ended cleanly"),
                Err(e) => break e,
            }
        };
        assert_eq!(lines.len(), fail_at / 4, "fail_at {fail_at}");
        assert_eq!(err.position().unwrap().byte, fail_at as u64);
        if let ErrorKind::Io(e) = err.kind() {
            assert_eq!(e.raw_os_error(), Some(5));
        } else {
            panic!("{err}");
        }
        // The source would now succeed, but the reader does not resume.
        assert!(rdr.next_line().is_err());
        assert!(rdr.next_line().is_err());
    }
}

// B7: EINTR is retried transparently.
#[test]
fn b7_interrupted_is_retried() {
    struct Eintr<'a>(&'a [u8], bool);
    impl Read for Eintr<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            self.1 = !self.1;
            if self.1 {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let n = self.0.len().min(1).min(out.len());
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }
    let mut rdr = LineReader::new(Eintr(b"hello\nworld\n", false));
    assert_eq!(rdr.next_line().unwrap(), Some(&b"hello"[..]));
    assert_eq!(rdr.next_line().unwrap(), Some(&b"world"[..]));
    assert_eq!(rdr.next_line().unwrap(), None);
}

// B8: a FIFO with a slow writer sending 1-byte writes is streamed.
#[test]
fn b8_fifo_with_a_slow_writer() {
    let dir = tempdir();
    let fifo = dir.join("pipe");
    let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    let writer_path = fifo.clone();
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new().write(true).open(writer_path).unwrap();
        for b in b"one\ntwo\nthree" {
            f.write_all(&[*b]).unwrap();
            f.flush().unwrap();
        }
    });
    let src = Source::open(&fifo).unwrap();
    assert_eq!(src.len(), None, "a FIFO has no trustworthy length");
    let mut rdr = LineReaderBuilder::new().from_source(src);
    let mut got = Vec::new();
    while let Some(l) = rdr.next_line().unwrap() {
        got.push(String::from_utf8(l.to_vec()).unwrap());
    }
    writer.join().unwrap();
    assert_eq!(got, ["one", "two", "three"]);
}

// B9: /proc files report size 0 but have lines.
#[test]
fn b9_proc_files_are_read_to_their_real_end() {
    let mut rdr = LineReaderBuilder::new().from_path("/proc/self/status").unwrap();
    let mut n = 0;
    rdr.for_each_line(|_| {
        n += 1;
        true
    })
    .unwrap();
    assert!(n > 10, "only {n} lines in /proc/self/status");
}

// B10: a directory is a clear error up front.
#[test]
fn b10_directory_is_a_clear_error() {
    let dir = tempdir();
    let err = LineReaderBuilder::new().from_path(&dir).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::IsADirectory));
    assert!(err.to_string().contains("is a directory"), "{err}");
}

// B11: permission denied. Root opens a mode-000 file, so as root (CI runs
// as root) the test opens a write-only sysctl file instead, which procfs
// refuses to open for reading even to root. It never skips.
#[test]
fn b11_permission_denied() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir();
    let path = dir.join("secret");
    std::fs::write(&path, "x\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o000)).unwrap();
    let path = if std::fs::File::open(&path).is_ok() {
        let sysctl = std::path::PathBuf::from("/proc/sys/vm/drop_caches");
        let mode = std::fs::metadata(&sysctl)
            .expect("/proc/sys/vm/drop_caches exists")
            .permissions()
            .mode();
        assert_eq!(mode & 0o444, 0, "{} is readable", sysctl.display());
        eprintln!("b11: running as root, which opens a mode-000 file; using {}", sysctl.display());
        sysctl
    } else {
        path
    };
    let err = LineReaderBuilder::new().from_path(&path).unwrap_err();
    match err.kind() {
        ErrorKind::Io(e) => assert_eq!(e.kind(), io::ErrorKind::PermissionDenied, "{err}"),
        _ => panic!("{err}"),
    }
    assert!(err.to_string().contains(&*path.to_string_lossy()), "the error names the path: {err}");
}

// B12: invalid UTF-8 passes through the byte API; the str API reports the
// position and the next call goes on.
#[test]
fn b12_invalid_utf8_line() {
    let input = b"ok\nbad\xff\xfe\nfine\n";
    let mut rdr = LineReader::new(&input[..]);
    assert_eq!(rdr.next_line_str().unwrap(), Some("ok"));
    let err = rdr.next_line_str().unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::InvalidUtf8 { valid_up_to: 3 }));
    let pos = err.position().unwrap();
    assert_eq!((pos.line, pos.byte), (2, 6));
    assert_eq!(rdr.next_line_str().unwrap(), Some("fine"));
    let mut bytes = LineReader::new(&input[..]);
    bytes.next_line().unwrap();
    assert_eq!(bytes.next_line().unwrap(), Some(&b"bad\xff\xfe"[..]));
}

/// A fresh directory under the system temp dir, unique per test.
fn tempdir() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "swath-lines-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

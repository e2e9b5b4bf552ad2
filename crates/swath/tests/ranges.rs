//! Parallel against sequential: counting and line framing over byte ranges
//! at every chunk size and thread count, and offsets past 4 GiB.

use std::io::Write;
use std::path::PathBuf;

use swath::range::{nth_range, split, Framing};
use swath::{
    count_lines, count_newlines, count_source, CountOptions, LineFraming, LineReader, Parallel,
    RangeReader, Source,
};
use swath_testkit::Rng;

fn tempfile(name: &str, data: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("swath-ranges-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::File::create(&path).unwrap().write_all(data).unwrap();
    path
}

/// Lines of pseudo-random lengths 0..40, some CRLF, maybe no final newline.
fn generated(seed: u64, lines: usize, final_newline: bool) -> Vec<u8> {
    let mut rng = Rng::new(seed | 1);
    let mut out = Vec::new();
    for i in 0..lines {
        let s = rng.next_u64();
        let len = (s % 40) as usize;
        out.extend((0..len).map(|j| b'a' + ((i + j) % 26) as u8));
        if s % 7 == 0 {
            out.push(b'\r');
        }
        if final_newline || i + 1 < lines {
            out.push(b'\n');
        }
    }
    out
}

#[test]
fn split_covers_the_input_exactly() {
    for len in [0u64, 1, 2, 7, 64, 65, 1000] {
        for chunk in [1u64, 2, 3, 64, 1000, 5000] {
            let ranges: Vec<_> = split(len, chunk).collect();
            let mut at = 0;
            for r in &ranges {
                assert_eq!(r.start, at);
                assert!(r.end > r.start && r.end - r.start <= chunk);
                at = r.end;
            }
            assert_eq!(at, len);
        }
    }
}

#[test]
fn parallel_count_equals_sequential_count() {
    for (i, final_nl) in [(0, true), (1, false)] {
        let data = generated(42 + i, 3000, final_nl);
        let path = tempfile(&format!("count-{i}.txt"), &data);
        let want = count_lines(&data);
        assert_eq!(count_newlines(&data) + u64::from(!final_nl), want);
        for threads in 1..=4 {
            for chunk in [1u64, 2, 3, 63, 64, 65, 4096, 1 << 20] {
                for mmap in [false, true] {
                    let opts = CountOptions {
                        parallel: Parallel::new().threads(threads).chunk_size(chunk),
                        mmap,
                        buffer_size: 7,
                    };
                    let mut src = Source::open(&path).unwrap();
                    let got = count_source(&mut src, &opts).unwrap();
                    assert_eq!(got.lines(), want, "threads {threads} chunk {chunk} mmap {mmap}");
                    assert_eq!(got.bytes, data.len() as u64);
                }
            }
        }
    }
}

#[test]
fn framed_ranges_give_every_line_exactly_once_in_order() {
    let data = generated(7, 500, false);
    let path = tempfile("framed.txt", &data);
    let file = std::fs::File::open(&path).unwrap();
    let len = data.len() as u64;
    let mut want = Vec::new();
    let mut seq = LineReader::new(&data[..]);
    while let Some(l) = seq.next_line().unwrap() {
        want.push(l.to_vec());
    }
    for threads in [1, 2, 3, 8] {
        for chunk in [1u64, 2, 5, 17, 64, 1000, 1 << 16] {
            let par = Parallel::new().threads(threads).chunk_size(chunk);
            let parts = par
                .try_map_records::<_, _, swath::Error, _, _, _>(
                    &file,
                    len,
                    &LineFraming,
                    || (),
                    |_, r| {
                        let mut rdr = LineReader::new(RangeReader::new(&file, r));
                        let mut lines = Vec::new();
                        while let Some(l) = rdr.next_line()? {
                            lines.push(l.to_vec());
                        }
                        Ok(lines)
                    },
                )
                .unwrap();
            let got: Vec<Vec<u8>> = parts.into_iter().flatten().collect();
            assert_eq!(got, want, "threads {threads} chunk {chunk}");
        }
    }
}

#[test]
fn the_earliest_error_in_file_order_is_reported() {
    for threads in 1..=4 {
        let par = Parallel::new().threads(threads).chunk_size(1);
        let out: Result<Vec<u64>, u64> =
            par.try_map(100, |i, r| if i == 37 || i == 80 { Err(r.start) } else { Ok(r.start) });
        assert_eq!(out, Err(37), "threads {threads}");
    }
}

#[test]
fn a_file_that_shrinks_during_a_parallel_count_is_an_error() {
    let data = vec![b'\n'; 1 << 16];
    let path = tempfile("shrinks.txt", &data);
    let mut src = Source::open(&path).unwrap();
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(100).unwrap();
    let err = count_source(&mut src, &CountOptions::default()).unwrap_err();
    assert!(matches!(err.kind(), swath::ErrorKind::Truncated { .. }), "{err}");
    assert!(err.to_string().contains("shrinks.txt"), "{err}");
    // With mmap, the map of the shorter file must not be sliced by the old size.
    let path = tempfile("shrinks-mapped.txt", &data);
    let mut src = Source::open(&path).unwrap();
    std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(100).unwrap();
    let opts = CountOptions { mmap: true, ..CountOptions::default() };
    let err = count_source(&mut src, &opts).unwrap_err();
    assert!(
        matches!(err.kind(), swath::ErrorKind::Truncated { expected: 65536, got: 100 }),
        "{err}"
    );
}

/// Offsets past 4 GiB: a sparse file with `\n` exactly at 2^32. We test the
/// framing and range reads there without reading 4 GiB of zeros.
#[test]
fn offsets_past_four_gib() {
    let path = tempfile("sparse.bin", b"");
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    let at = 1u64 << 32;
    use std::os::unix::fs::FileExt;
    file.write_all_at(b"\nab\ncd", at).unwrap();
    let len = at + 6;
    let file = std::fs::File::open(&path).unwrap();
    assert_eq!(file.metadata().unwrap().len(), len);
    // The line holding byte 2^32 - 1 ends at the `\n` at 2^32.
    assert_eq!(LineFraming.record_start(&file, at - 3, len).unwrap(), at + 1);
    assert_eq!(LineFraming.record_start(&file, at + 1, len).unwrap(), at + 1);
    assert_eq!(LineFraming.record_start(&file, at + 2, len).unwrap(), at + 4);
    assert_eq!(LineFraming.record_start(&file, len - 1, len).unwrap(), len);
    let mut rdr = LineReader::new(RangeReader::new(&file, at - 2..len));
    assert_eq!(rdr.next_line().unwrap(), Some(&b"\0\0"[..]));
    assert_eq!(rdr.next_line().unwrap(), Some(&b"ab"[..]));
    assert_eq!(rdr.next_line().unwrap(), Some(&b"cd"[..]));
    assert_eq!(nth_range(len, 1 << 31, 2), at..len);
    std::fs::remove_file(&path).unwrap();
}

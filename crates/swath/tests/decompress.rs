//! gzip and zstd inputs: recognised by magic bytes, counted exactly, and a
//! corrupt or truncated stream is an error with both offsets.

use std::io::{Read, Write};

use swath::decompress::DecompressError;
use swath::{count_source, Compression, CountOptions, ErrorKind, LineReader, Source};

fn plain() -> Vec<u8> {
    let mut data = Vec::new();
    for i in 0..300_000u32 {
        writeln!(data, "{i},line {}", i % 977).unwrap();
    }
    data
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// With a content checksum, as the `zstd` tool writes by default: without
/// one, a corrupted literal in a frame cannot be told from real data.
fn zstd(data: &[u8]) -> Vec<u8> {
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
    enc.include_checksum(true).unwrap();
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// Each test uses names of its own: tests run in parallel in one process.
fn write_temp(name: &str, data: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("swath-dec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, data).unwrap();
    path
}

fn decompress_error(err: &swath::Error) -> &DecompressError {
    match err.kind() {
        ErrorKind::Io(e) => e.get_ref().and_then(|e| e.downcast_ref()).expect("a DecompressError"),
        _ => panic!("not an I/O error: {err}"),
    }
}

#[test]
fn compressed_files_and_streams_count_exactly() {
    let data = plain();
    let lines = swath::count_lines(&data);
    // The names say nothing: detection is by magic bytes only.
    for (name, bytes, format) in [
        ("a.txt", gzip(&data), Compression::Gzip),
        ("b.csv", zstd(&data), Compression::Zstd),
        ("plain.gz", data.clone(), Compression::None),
    ] {
        let path = write_temp(name, &bytes);
        let mut src = Source::open(&path).unwrap();
        assert_eq!(src.compression(), format);
        let count = count_source(&mut src, &CountOptions::default()).unwrap();
        assert_eq!(count.lines(), lines, "{name}");
        assert_eq!(count.bytes, data.len() as u64, "{name}");

        // The same bytes through a pipe-like stream.
        let stream = Source::from_reader(std::io::Cursor::new(bytes.clone()), None);
        let mut src = stream.decompressed().unwrap();
        let mut out = Vec::new();
        src.read_to_end(&mut out).unwrap();
        assert_eq!(out, data, "{name} as a stream");

        // And raw: the compressed bytes themselves.
        let mut raw = Source::open_raw(&path).unwrap();
        assert_eq!(raw.compression(), Compression::None);
        let mut out = Vec::new();
        raw.read_to_end(&mut out).unwrap();
        assert_eq!(out, bytes);
    }
}

#[test]
fn concatenated_gzip_members_are_all_read() {
    let mut both = gzip(b"one\ntwo\n");
    both.extend(gzip(b"three\n"));
    let path = write_temp("two-members", &both);
    let mut rdr = LineReader::new(Source::open(&path).unwrap());
    let mut n = 0;
    rdr.for_each_line(|_| {
        n += 1;
        true
    })
    .unwrap();
    assert_eq!(n, 3);
}

#[test]
fn truncated_streams_are_errors_with_both_offsets() {
    let data = plain();
    for (name, bytes) in [("t.gz", gzip(&data)), ("t.zst", zstd(&data))] {
        for cut in [bytes.len() / 2, bytes.len() - 3] {
            let path = write_temp(name, &bytes[..cut]);
            let mut src = Source::open(&path).unwrap();
            let err = count_source(&mut src, &CountOptions::default()).unwrap_err();
            let dec = decompress_error(&err);
            assert!(dec.compressed_offset <= cut as u64, "{name}: {err}");
            assert!(dec.decompressed_offset > 0 && dec.decompressed_offset <= data.len() as u64);
            let msg = err.to_string();
            assert!(msg.contains("compressed byte") && msg.contains(name), "{msg}");
        }
    }
}

#[test]
fn corrupt_streams_are_errors_never_short_counts() {
    let data = plain();
    for (name, mut bytes) in [("corrupt.gz", gzip(&data)), ("corrupt.zst", zstd(&data))] {
        let mid = bytes.len() / 2;
        for b in &mut bytes[mid..mid + 16] {
            *b ^= 0x5a;
        }
        let path = write_temp(name, &bytes);
        let mut src = Source::open(&path).unwrap();
        let err = count_source(&mut src, &CountOptions::default()).unwrap_err();
        let dec = decompress_error(&err);
        assert!(dec.compressed_offset > 0, "{name}: {err}");
    }
}

#[test]
fn a_reader_dropped_early_does_not_hang() {
    let data = plain();
    let path = write_temp("early.gz", &gzip(&data));
    let mut rdr = LineReader::new(Source::open(&path).unwrap());
    assert_eq!(rdr.next_line().unwrap(), Some(&b"0,line 0"[..]));
    drop(rdr);
}

#[test]
fn a_decoding_error_is_sticky_on_the_raw_source_too() {
    let data = plain();
    let mut bytes = gzip(&data);
    bytes.truncate(bytes.len() / 2);
    let stream = Source::from_reader(std::io::Cursor::new(bytes), None);
    let mut src = stream.decompressed().unwrap();
    let mut out = Vec::new();
    assert!(src.read_to_end(&mut out).is_err());
    let mut more = [0u8; 16];
    assert!(src.read(&mut more).is_err(), "a read after the error must not look like EOF");
}

/// A skippable frame (all `pzstd` output and the seekable format start
/// with one) is zstd, and so are several frames in a row: every frame's
/// bytes are read, the skippable ones' are not. (Not recognised, such a
/// file was counted as plain bytes: 233 lines of 100,000.)
#[test]
fn skippable_frames_and_several_frames_are_zstd() {
    let data = plain();
    let (a, b) = data.split_at(data.len() / 3);
    let skippable = |n: u8, payload: &[u8]| {
        let mut f = vec![0x50 + n, 0x2a, 0x4d, 0x18];
        f.extend((payload.len() as u32).to_le_bytes());
        f.extend(payload);
        f
    };
    let file: Vec<u8> = [
        skippable(0, &[0u8; 4]),
        zstd(a),
        skippable(15, b"not data, not counted\n"),
        zstd(b),
        skippable(7, b""),
    ]
    .concat();
    let path = write_temp("pzstd-like.zst", &file);
    let mut src = Source::open(&path).unwrap();
    assert_eq!(src.compression(), Compression::Zstd);
    let mut out = Vec::new();
    src.read_to_end(&mut out).unwrap();
    assert_eq!(out, data);
    let count = count_source(&mut Source::open(&path).unwrap(), &CountOptions::default()).unwrap();
    assert_eq!(count.lines(), swath::count_lines(&data));
}

/// Every format is decoded: a file that holds only a format's first bytes
/// is an error naming the format when read (a zip archive when opened:
/// its directory is at its end), never an empty input; a zip archive on a
/// stream is refused by name. A text that merely starts like one
/// ("BZh1...") is text.
#[test]
fn every_format_cut_short_is_an_error_that_names_it() {
    for (name, head) in [
        ("bzip2", &b"BZh91AY&SY\x00\x00"[..]),
        ("bzip2", &b"BZh9\x17\x72\x45\x38\x50\x90\x00\x00"[..]),
        ("xz", &b"\xfd7zXZ\x00\x00\x04"[..]),
        ("lz4", &b"\x04\x22\x4d\x18\x64\x40"[..]),
        ("lz4", &b"\x02\x21\x4c\x18\x00\x00"[..]),
        ("zip", &b"PK\x03\x04\x14\x00"[..]),
    ] {
        assert_eq!(Compression::detect(head).name(), name);
        let path = write_temp(&format!("short-{}-{}", head[1], head.len()), head);
        let read = |src: swath::Result<Source>| -> String {
            let mut out = Vec::new();
            match src {
                Err(e) => e.to_string(),
                Ok(mut s) => match s.read_to_end(&mut out) {
                    Ok(n) => panic!("{name}: {n} bytes read from a cut-short {name} file"),
                    Err(e) => e.to_string(),
                },
            }
        };
        let err = read(Source::open(&path));
        assert!(
            err.contains(&format!("{name} stream")) || err.contains(&format!("{name} input")),
            "{name}: {err}"
        );
        let stream = Source::from_reader(std::io::Cursor::new(head.to_vec()), None);
        let err = read(stream.decompressed());
        assert!(
            err.contains(&format!("{name} stream")) || err.contains(&format!("{name} input")),
            "{name} as a stream: {err}"
        );
    }
    for text in [&b"BZh1,a,b\n1,2,3\n"[..], b"PK,x\n", b"BZh9", b"\x50"] {
        assert_eq!(Compression::detect(text), Compression::None, "{text:?}");
        let path = write_temp("text-like-magic", text);
        let mut out = Vec::new();
        Source::open(&path).unwrap().read_to_end(&mut out).unwrap();
        assert_eq!(out, text);
    }
}

/// bzip2, xz and LZ4, as their libraries write them: read whole, and a
/// file cut short is an error with both offsets, never a short count.
#[test]
fn bzip2_xz_and_lz4_are_decoded_and_a_cut_is_an_error() {
    let data = plain();
    let lines = swath::count_lines(&data);
    let bz = {
        let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        e.write_all(&data).unwrap();
        e.finish().unwrap()
    };
    let xz = {
        let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
        e.write_all(&data).unwrap();
        e.finish().unwrap()
    };
    let lz = {
        let mut e = lz4_flex::frame::FrameEncoder::new(Vec::new());
        e.write_all(&data).unwrap();
        e.finish().unwrap()
    };
    for (name, bytes) in [("bzip2", bz), ("xz", xz), ("lz4", lz)] {
        let path = write_temp(&format!("whole.{name}"), &bytes);
        let mut src = Source::open(&path).unwrap();
        assert_eq!(src.compression().name(), name);
        let count = count_source(&mut src, &CountOptions::default()).unwrap();
        assert_eq!((count.lines(), count.bytes), (lines, data.len() as u64), "{name}");
        for cut in [bytes.len() / 2, bytes.len() - 1] {
            let path = write_temp(&format!("cut.{name}"), &bytes[..cut]);
            let mut src = Source::open(&path).unwrap();
            let got = count_source(&mut src, &CountOptions::default());
            let err = got.expect_err(&format!("{name} cut at {cut} of {}", bytes.len()));
            let dec = decompress_error(&err);
            assert!(dec.compressed_offset <= cut as u64, "{name}: {err}");
            assert!(err.to_string().contains(&format!("{name} stream")), "{err}");
        }
    }
}

/// A zip archive of stored members, written by hand: local headers, the
/// central directory and its end record.
fn stored_zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut dir = Vec::new();
    for (name, data) in files {
        let mut crc = flate2::Crc::new();
        crc.update(data);
        let at = out.len() as u32;
        let sizes = [crc.sum(), data.len() as u32, data.len() as u32];
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        out.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        sizes.iter().for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        out.extend_from_slice(&(name.len() as u16).to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        dir.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        dir.extend_from_slice(&[20, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        sizes.iter().for_each(|v| dir.extend_from_slice(&v.to_le_bytes()));
        dir.extend_from_slice(&(name.len() as u16).to_le_bytes());
        dir.extend_from_slice(&[0; 12]);
        dir.extend_from_slice(&at.to_le_bytes());
        dir.extend_from_slice(name.as_bytes());
    }
    let dir_at = out.len() as u32;
    out.extend_from_slice(&dir);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    let n = files.len() as u16;
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&(dir.len() as u32).to_le_bytes());
    out.extend_from_slice(&dir_at.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// A zip member is read through the directory, checked by its CRC-32; the
/// member is chosen by name when there are several, and the error lists
/// them when none is named.
#[test]
fn a_zip_member_is_read_checked_and_chosen_by_name() {
    let data = plain();
    let zip = stored_zip(&[("data.csv", &data)]);
    let path = write_temp("one.zip", &zip);
    let mut out = Vec::new();
    Source::open(&path).unwrap().read_to_end(&mut out).unwrap();
    assert!(out == data);
    // A byte of the member changed: its CRC-32 says so at its end.
    let mut bad = zip.clone();
    bad[1000] ^= 1;
    let path = write_temp("bad.zip", &bad);
    let err = Source::open(&path).unwrap().read_to_end(&mut Vec::new()).unwrap_err();
    assert!(err.to_string().contains("CRC-32"), "{err}");
    // Two members: the error lists them; a name picks one.
    let two = stored_zip(&[("a.csv", b"x\n1\n"), ("b.csv", b"y\n2\n3\n")]);
    let path = write_temp("two.zip", &two);
    let err = Source::open(&path).unwrap_err().to_string();
    assert!(err.contains("2 files") && err.contains("a.csv, b.csv"), "{err}");
    let members = swath::decompress::zip::members(&two, two.len() as u64).unwrap();
    let names: Vec<&str> = members.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["a.csv", "b.csv"]);
    let b = swath::decompress::zip::choose(&members, Some("b.csv")).unwrap();
    assert_eq!(b.size, 6);
    let err = swath::decompress::zip::choose(&members, Some("c.csv")).unwrap_err();
    assert!(err.to_string().contains("no member \"c.csv\""), "{err}");
    // Cut before its directory ends: not a whole archive.
    let path = write_temp("cut.zip", &zip[..zip.len() - 30]);
    let err = Source::open(&path).unwrap_err().to_string();
    assert!(err.contains("zip input"), "{err}");
}

//! Exact split plans: for generated files (quoted newlines at every seam,
//! CRLF pairs cut by a seam, BOM, empty lines, lenient bare quotes,
//! comments) and every split count from 1 to 64, the union of the splits'
//! records, each split read alone, is the sequential reader's, record
//! numbers, lines and bytes included; for the parity plan and the
//! speculative one.

use std::path::Path;

use swath_csv::split::PlanMethod;
use swath_csv::{
    plan_splits, plan_splits_speculative, ErrorKind, ReaderBuilder, Split, SplitPlan, SplitSize,
};

/// A record as compared: (record, line, byte, fields).
type Rec = (u64, u64, u64, Vec<Vec<u8>>);

/// The sequential reader's records (the header row not included).
fn sequential(b: &ReaderBuilder, path: &Path) -> Vec<Rec> {
    let mut rdr = b.from_path(path).unwrap();
    let mut out = Vec::new();
    while let Some(rec) = rdr.next_record().unwrap() {
        let p = rec.position();
        out.push((p.record, p.line, p.byte, rec.iter().map(<[u8]>::to_vec).collect()));
    }
    out
}

/// Every split of `plan` read alone, in order, with its own checks.
fn union(plan: &SplitPlan) -> Vec<Rec> {
    let mut out = Vec::new();
    for (i, s) in plan.splits().iter().enumerate() {
        let mut rdr = plan.reader(i).unwrap();
        let mut n = 0;
        while let Some(rec) = rdr.next_record().unwrap_or_else(|e| panic!("split {i} {s:?}: {e}")) {
            let p = rec.position();
            assert!(
                i == 0 || s.range.contains(&p.byte),
                "split {i} {s:?} read a record at {}",
                p.byte
            );
            if n == 0 && i > 0 {
                assert_eq!((p.byte, p.line, p.record), (s.start, s.line, s.record), "split {i}");
            }
            n += 1;
            out.push((p.record, p.line, p.byte, rec.iter().map(<[u8]>::to_vec).collect()));
        }
    }
    out
}

/// The plan's own invariants: ranges cover every byte once, each split
/// ends where the next starts, record numbers add up.
fn check_shape(plan: &SplitPlan, len: u64) {
    let s = plan.splits();
    assert_eq!(s[0].range.start, 0);
    assert_eq!(s.last().unwrap().range.end, len);
    let mut record = 1;
    for (i, w) in s.iter().enumerate() {
        assert_eq!(w.index, i);
        assert_eq!(w.record, record, "split {i}: {w:?}");
        record += w.records;
        if let Some(next) = s.get(i + 1) {
            assert_eq!(w.range.end, next.range.start);
            assert_eq!(w.end, next.start, "split {i}");
        } else {
            assert_eq!(w.end, len);
        }
        if i > 0 && w.records > 0 {
            assert!(w.range.contains(&w.start), "split {i}: {w:?}");
        }
    }
}

/// The shared deterministic generator, drawing below `n`.
struct Lcg(swath_testkit::Rng);

impl Lcg {
    fn new(seed: u64) -> Lcg {
        Lcg(swath_testkit::Rng::new(seed))
    }
    fn next(&mut self, n: u64) -> u64 {
        self.0.below(n)
    }
}

/// Options for a generated file.
#[derive(Clone, Copy, Default)]
struct Gen {
    crlf: bool,
    bom: bool,
    empty_lines: bool,
    bare_quotes: bool,
    comments: bool,
}

/// A CSV file of `rows` rows of 3 fields, with quoted newlines (`\n` and
/// `\r\n`), doubled quotes and commas in quoted fields.
fn generate(seed: u64, rows: usize, g: Gen) -> Vec<u8> {
    let mut r = Lcg::new(seed);
    let eol: &[u8] = if g.crlf { b"\r\n" } else { b"\n" };
    let mut out = Vec::new();
    if g.bom {
        out.extend_from_slice(b"\xEF\xBB\xBF");
    }
    out.extend_from_slice(b"id,text,n");
    out.extend_from_slice(eol);
    for i in 0..rows {
        if g.empty_lines && r.next(5) == 0 {
            out.extend_from_slice(eol);
        }
        if g.comments && r.next(6) == 0 {
            out.extend_from_slice(b"# a comment, with \"a quote");
            out.extend_from_slice(eol);
        }
        out.extend_from_slice(i.to_string().as_bytes());
        out.push(b',');
        match r.next(7) {
            0 => out.extend_from_slice(b"\"two\nlines\""),
            1 => out.extend_from_slice(b"\"crlf\r\ninside\""),
            2 => out.extend_from_slice(b"\"say \"\"hi\"\"\nthen, \"\"bye\"\"\""),
            3 => out.extend_from_slice(b"\"\n\n\""),
            4 if g.bare_quotes => out.extend_from_slice(b"bare\"quote"),
            5 => {}
            _ => out.extend_from_slice(b"plain"),
        }
        out.push(b',');
        out.extend_from_slice(r.next(1000).to_string().as_bytes());
        out.extend_from_slice(eol);
    }
    out
}

/// Check every count; return how many splits the verified plans repaired.
fn check_file(
    name: &str,
    data: &[u8],
    b: &ReaderBuilder,
    counts: impl Iterator<Item = usize> + Clone,
) -> usize {
    let mut repaired = 0;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, data).unwrap();
    let want = sequential(b, &path);
    assert!(!want.is_empty());
    for n in counts {
        for speculative in [false, true] {
            let plan = if speculative {
                plan_splits_speculative(b, &path, SplitSize::Count(n)).unwrap()
            } else {
                plan_splits(b, &path, SplitSize::Count(n)).unwrap()
            };
            let what =
                format!("{name}, {n} splits, speculative {speculative}, {:?}", plan.method());
            if let PlanMethod::ParityVerified { repaired: r }
            | PlanMethod::Speculative { repaired: r } = plan.method()
            {
                repaired += r;
            }
            check_shape(&plan, data.len() as u64);
            let got = union(&plan);
            assert_eq!(got.len(), want.len(), "{what}");
            for (g, w) in got.iter().zip(&want) {
                assert_eq!(g, w, "{what}");
            }
            let header = u64::from(plan.headers().is_some());
            assert_eq!(
                plan.records(),
                want.len() as u64 + header,
                "{what}: records with the header row"
            );
        }
    }
    repaired
}

const COUNTS: std::ops::RangeInclusive<usize> = 1..=64;

#[test]
fn quoted_newlines_at_every_seam() {
    let data = generate(1, 60, Gen::default());
    check_file("lf.csv", &data, &ReaderBuilder::new(), COUNTS);
}

#[test]
fn crlf_pairs_cut_by_seams() {
    let data = generate(2, 60, Gen { crlf: true, ..Gen::default() });
    check_file("crlf.csv", &data, &ReaderBuilder::new(), COUNTS);
}

#[test]
fn bom_and_empty_lines() {
    let data = generate(3, 50, Gen { bom: true, empty_lines: true, ..Gen::default() });
    check_file("bom.csv", &data, &ReaderBuilder::new(), COUNTS);
    let data = generate(4, 50, Gen { bom: true, empty_lines: true, crlf: true, ..Gen::default() });
    check_file("bom-crlf.csv", &data, &ReaderBuilder::new(), COUNTS);
}

#[test]
fn empty_lines_kept_as_records() {
    let data = generate(5, 50, Gen { empty_lines: true, ..Gen::default() });
    let mut b = ReaderBuilder::new();
    b.skip_empty_lines(false).flexible(true);
    check_file("empty.csv", &data, &b, COUNTS);
}

#[test]
fn lenient_bare_quotes() {
    let data = generate(6, 60, Gen { bare_quotes: true, ..Gen::default() });
    let mut b = ReaderBuilder::new();
    b.lenient(true);
    // Bare quotes break the quote parity: some splits must have been
    // found wrong and read again, or the test did not test the repair.
    let repaired = check_file("bare.csv", &data, &b, COUNTS);
    assert!(repaired > 0, "no split repaired");
    let plan = plan_splits(
        &b,
        {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path().join("m.csv");
            std::fs::write(&p, &data).unwrap();
            let plan = plan_splits(&b, &p, SplitSize::Count(16)).unwrap();
            assert!(
                matches!(plan.method(), PlanMethod::ParityVerified { .. }),
                "{:?}",
                plan.method()
            );
            p
        },
        SplitSize::Count(2),
    );
    // The directory is gone: the open error names the file.
    let err = plan.unwrap_err();
    assert!(err.to_string().contains("m.csv"), "{err}");
}

#[test]
fn comments_and_no_headers() {
    let data = generate(7, 50, Gen { comments: true, empty_lines: true, ..Gen::default() });
    let mut b = ReaderBuilder::new();
    b.comment(Some(b'#'));
    check_file("comments.csv", &data, &b, COUNTS.step_by(3));
    let mut b = ReaderBuilder::new();
    b.has_headers(false);
    let data = generate(8, 40, Gen::default());
    check_file("noheaders.csv", &data, &b, COUNTS.step_by(2));
}

#[test]
fn bytes_per_split_and_from_split() {
    let data = generate(9, 80, Gen { crlf: true, ..Gen::default() });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("b.csv");
    std::fs::write(&path, &data).unwrap();
    let b = ReaderBuilder::new();
    let want = sequential(&b, &path);
    for bytes in [1u64, 2, 3, 7, 64, 1000, 1 << 20] {
        let plan = plan_splits(&b, &path, SplitSize::Bytes(bytes)).unwrap();
        check_shape(&plan, data.len() as u64);
        // Each split opened by a worker that only has the split.
        let mut got = Vec::new();
        for s in plan.splits() {
            let s: Split = s.clone();
            let mut rdr = b.from_split(&path, &s).unwrap();
            while let Some(rec) = rdr.next_record().unwrap() {
                let p = rec.position();
                got.push((
                    p.record,
                    p.line,
                    p.byte,
                    rec.iter().map(<[u8]>::to_vec).collect::<Vec<_>>(),
                ));
            }
        }
        assert_eq!(got, want, "{bytes} bytes per split");
    }
}

#[test]
fn any_byte_ranges_through_a_plan() {
    let data = generate(10, 80, Gen::default());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.csv");
    std::fs::write(&path, &data).unwrap();
    let b = ReaderBuilder::new();
    let want = sequential(&b, &path);
    let len = data.len() as u64;
    let plan = plan_splits(&b, &path, SplitSize::Count(7)).unwrap();
    // Ranges an engine might cut: equal parts that ignore the plan.
    for parts in 1..=13u64 {
        let per = len.div_ceil(parts);
        let mut got = Vec::new();
        for i in 0..parts {
            let r = (i * per).min(len)..((i + 1) * per).min(len);
            let mut rdr = plan.reader_for_range(r).unwrap();
            while let Some(rec) = rdr.next_record().unwrap() {
                let p = rec.position();
                got.push((
                    p.record,
                    p.line,
                    p.byte,
                    rec.iter().map(<[u8]>::to_vec).collect::<Vec<_>>(),
                ));
            }
        }
        assert_eq!(got, want, "{parts} parts");
    }
    // And the plan's own groups.
    for n in 1..=9 {
        let mut got = Vec::new();
        for r in plan.group_ranges(n) {
            let mut rdr = plan.reader_for_range(r).unwrap();
            while let Some(rec) = rdr.next_record().unwrap() {
                got.push(rec.position().record);
            }
        }
        assert_eq!(got, want.iter().map(|w| w.0).collect::<Vec<_>>(), "{n} groups");
    }
}

#[test]
fn a_plan_that_no_longer_fits_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.csv");
    let old = b"a,b\n1,x\n2,y\n3,z\n4,w\n5,v\n";
    std::fs::write(&path, old).unwrap();
    let b = ReaderBuilder::new();
    let plan = plan_splits(&b, &path, SplitSize::Count(4)).unwrap();
    // The same length, but a quote now holds a newline across a seam.
    let new = b"a,b\n\"1\n2\",y\n3,z\n4,w\n5,v\n";
    assert_eq!(old.len(), new.len());
    std::fs::write(&path, new).unwrap();
    let mut errors = Vec::new();
    for i in 0..plan.splits().len() {
        let mut rdr = plan.reader(i).unwrap();
        loop {
            match rdr.next_record() {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) => {
                    errors.push(e);
                    break;
                }
            }
        }
    }
    assert!(
        errors.iter().any(|e| matches!(
            e.kind(),
            ErrorKind::SplitMismatch { planned: Some(8), found: Some(12) }
        )),
        "{errors:?}"
    );
    assert!(errors.iter().all(|e| e.to_string().contains("c.csv")), "{errors:?}");
}

#[test]
fn errors_carry_the_files_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("e.csv");
    let mut data = generate(11, 40, Gen::default());
    data.extend_from_slice(b"99,\"unterminated\n");
    std::fs::write(&path, &data).unwrap();
    let b = ReaderBuilder::new();
    let want = b.from_path(&path).unwrap().records().find_map(|r| r.err()).unwrap().to_string();
    for n in [1, 3, 8, 30] {
        let plan = plan_splits(&b, &path, SplitSize::Count(n)).unwrap();
        let mut seen = None;
        for i in 0..plan.splits().len() {
            let mut rdr = plan.reader(i).unwrap();
            loop {
                match rdr.next_record() {
                    Ok(Some(_)) => {}
                    Ok(None) => break,
                    Err(e) => {
                        seen.get_or_insert(e.to_string());
                        break;
                    }
                }
            }
        }
        assert_eq!(seen.as_deref(), Some(want.as_str()), "{n} splits");
    }
}

#[test]
fn empty_and_header_only_files() {
    let dir = tempfile::tempdir().unwrap();
    for (name, data) in
        [("empty.csv", &b""[..]), ("header.csv", &b"a,b\n"[..]), ("one.csv", &b"a,b\n1,2"[..])]
    {
        let path = dir.path().join(name);
        std::fs::write(&path, data).unwrap();
        let b = ReaderBuilder::new();
        let want = sequential(&b, &path);
        for n in 1..=8 {
            let plan = plan_splits(&b, &path, SplitSize::Count(n)).unwrap();
            check_shape(&plan, data.len() as u64);
            assert_eq!(union(&plan), want, "{name} {n}");
        }
    }
}

#[test]
fn compressed_files_are_refused_not_cut_raw() {
    // A plan cuts raw bytes; the sequential reader decodes gzip and zstd
    // by their magic. Cutting the compressed bytes would read garbage
    // (found by the split_plan fuzz target), so both planners refuse.
    let dir = tempfile::tempdir().unwrap();
    for (name, magic, format) in [
        ("t.csv.gz", &[0x1f, 0x8b, 0x08, 0x00][..], "gzip"),
        ("t.csv.zst", &[0x28, 0xb5, 0x2f, 0xfd][..], "zstd"),
    ] {
        let path = dir.path().join(name);
        let mut data = magic.to_vec();
        data.extend_from_slice(b"a,b\n1,2\n3,4\n");
        std::fs::write(&path, &data).unwrap();
        let b = ReaderBuilder::new();
        for err in [
            plan_splits(&b, &path, SplitSize::Count(2)).unwrap_err(),
            plan_splits_speculative(&b, &path, SplitSize::Count(2)).unwrap_err(),
        ] {
            let msg = err.to_string();
            assert!(msg.contains(name), "{msg}");
            assert!(msg.contains(&format!("{format}-compressed input cannot be split")), "{msg}");
        }
    }
}

#[test]
fn empty_lines_before_the_header_longer_than_a_split() {
    // Found by the split_plan fuzz target: with a BOM and an empty line
    // before the header row, splits shorter than that put the header's
    // chunk into the first split, and the record after it lost its split:
    // a valid file failed with "split plan disagrees with the file".
    let b = ReaderBuilder::new();
    check_file("lead.csv", b"\xef\xbb\xbf\n,b\n1,2\n", &b, 1..=14);
    check_file("lead-lines.csv", b"\n\n\n\na,b\n1,2\n3,4\n", &b, 1..=20);
}

/// Splits longer than the pass's 4 MiB pieces are scanned a piece at a
/// time (several boundaries found in one split): the plans still give
/// the sequential reader's records, strict and lenient.
#[test]
fn splits_longer_than_a_scan_piece() {
    let data = generate(21, 700_000, Gen::default());
    assert!(data.len() > 9 << 20, "{} bytes", data.len());
    check_file("pieces.csv", &data, &ReaderBuilder::new(), [1, 2, 3].into_iter());
    let mut b = ReaderBuilder::new();
    b.lenient(true);
    let data = generate(22, 700_000, Gen { bare_quotes: true, ..Gen::default() });
    check_file("pieces-lenient.csv", &data, &b, [1, 2].into_iter());
}

/// A record longer than the limit stops the plan's pass where no record
/// has started for longer than the limit, and the plan is that record's
/// error, the sequential reader's, never a plan that leaves it out: here
/// it is followed by 64 MiB of a sparse hole (one record of NUL bytes
/// that the pass never reads to its end).
#[test]
fn a_record_over_the_limit_is_the_plans_error() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.csv");
    let mut data = generate(23, 2000, Gen::default());
    data.extend_from_slice(b"2000,");
    data.resize(data.len() + (3 << 20), b'a');
    data.extend_from_slice(b",1\n2001,x,2\n");
    let mut f = std::fs::File::create(&path).unwrap();
    f.write_all(&data).unwrap();
    f.set_len(data.len() as u64 + (64 << 20)).unwrap();
    drop(f);
    for lenient in [false, true] {
        let mut b = ReaderBuilder::new();
        b.max_record_bytes(1 << 20).lenient(lenient);
        let want = b.from_path(&path).unwrap().records().find_map(|r| r.err()).unwrap();
        assert!(want.to_string().contains("longer than the limit"), "{want}");
        for size in [SplitSize::Count(1), SplitSize::Count(5), SplitSize::Bytes(1 << 20)] {
            let got = plan_splits(&b, &path, size).map(|p| p.splits().len());
            let err = got.expect_err("a plan over a record longer than the limit");
            assert_eq!(err.to_string(), want.to_string(), "{size:?}, lenient {lenient}");
        }
    }
}

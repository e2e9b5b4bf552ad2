//! The checkpoint index and the record finders built on the split plans,
//! against the slow twin (the sequential reader): for generated files with
//! quoted newlines across every seam, CRLF and BOM, cut into 1 to 64 parts
//! at the first record at or after each nominal byte boundary, the parts'
//! records joined are the file's, numbers, lines and bytes included; every
//! record's start is found from the index as from the plan; a stale index
//! is refused; a malformed record inside a part is the sequential reader's
//! error, at its position.

use std::path::Path;

use swath::index::{format, IndexKind};
use swath_csv::index::{index_csv, plan_from_index, IndexCheck};
use swath_csv::split::Cut;
use swath_csv::{plan_splits, ReaderBuilder, SplitPlan, SplitSize};
use swath_testkit::{csv_document, CsvShape};

/// A record as compared: (record, line, byte, fields).
type Rec = (u64, u64, u64, Vec<Vec<u8>>);

fn sequential(b: &ReaderBuilder, path: &Path) -> Vec<Rec> {
    let mut rdr = b.from_path(path).unwrap();
    let mut out = Vec::new();
    while let Some(rec) = rdr.next_record().unwrap() {
        let p = rec.position();
        out.push((p.record, p.line, p.byte, rec.iter().map(<[u8]>::to_vec).collect()));
    }
    out
}

/// The records of the parts cut at the first record at or after each of
/// `n - 1` byte boundaries, each part read alone and checked at its end.
fn parts(plan: &SplitPlan, n: usize) -> Vec<Rec> {
    let len = plan.file_len();
    let chunk = len.div_ceil(n as u64).max(1);
    let mut cuts: Vec<Cut> = vec![(0, 1, 1)];
    for k in 1..n as u64 {
        let c = plan.first_record_at(k * chunk).unwrap();
        cuts.push(if c.2 < 2 { plan.record_start(2).unwrap() } else { c });
    }
    cuts.push(plan.record_start(u64::MAX).unwrap());
    let mut out = Vec::new();
    for w in cuts.windows(2) {
        let split = plan.split_between(w[0], w[1]);
        let mut rdr = plan.reader_of(&split).unwrap();
        while let Some(rec) = rdr.next_record().unwrap_or_else(|e| panic!("{split:?}: {e}")) {
            let p = rec.position();
            out.push((p.record, p.line, p.byte, rec.iter().map(<[u8]>::to_vec).collect()));
        }
    }
    out
}

fn fresh(b: &ReaderBuilder, path: &Path, interval: u64) -> SplitPlan {
    let index = index_csv(b, path, interval).unwrap();
    match plan_from_index(b, path, &index).unwrap() {
        IndexCheck::Fresh(plan) => *plan,
        IndexCheck::Stale(why) => panic!("a fresh index is stale: {why}"),
    }
}

fn check(name: &str, data: &[u8], b: &ReaderBuilder) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, data).unwrap();
    let want = sequential(b, &path);
    let header = u64::from(
        b.clone().has_headers(true).from_path(&path).is_ok()
            && want.first().is_some_and(|r| r.0 == 2),
    );
    for n in 1..=64 {
        let plan = plan_splits(b, &path, SplitSize::Count(n)).unwrap();
        assert_eq!(parts(&plan, n), want, "{name}: {n} parts from a plan");
    }
    for interval in [1, 5, 17, 64, 1 << 20] {
        let plan = fresh(b, &path, interval);
        assert_eq!(plan.records(), want.len() as u64 + header, "{name}: {interval}");
        for n in [1, 2, 3, 7, 64] {
            assert_eq!(parts(&plan, n), want, "{name}: {n} parts from an index every {interval}");
        }
        // Every record's start, from the index, as the reader has it.
        // (Record 1 is found as the top of the file, whatever is before it.)
        for w in want.iter().filter(|w| w.0 > 1) {
            assert_eq!(plan.record_start(w.0).unwrap(), (w.2, w.1, w.0), "{name}: {interval}");
        }
    }
}

#[test]
fn parts_and_record_starts_equal_the_sequential_reader() {
    let b = ReaderBuilder::new();
    check("lf.csv", &csv_document(1, 40, CsvShape::default()), &b);
    check("crlf.csv", &csv_document(2, 40, CsvShape { crlf: true, ..CsvShape::default() }), &b);
    let shape = CsvShape { crlf: true, bom: true, no_final_newline: true };
    check("bom.csv", &csv_document(3, 40, shape), &b);
    let mut nh = ReaderBuilder::new();
    nh.has_headers(false);
    let shape = CsvShape { bom: true, ..CsvShape::default() };
    check("noheaders.csv", &csv_document(4, 30, shape), &nh);
}

#[test]
fn an_index_reads_back_and_fits_until_the_file_changes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.csv");
    let data = csv_document(9, 200, CsvShape::default());
    std::fs::write(&path, &data).unwrap();
    let b = ReaderBuilder::new();
    let index = index_csv(&b, &path, 64).unwrap();
    assert!(index.checkpoints.len() > 10);
    let mut text = Vec::new();
    format::write_index(&index, &mut text).unwrap();
    let back = format::read_index(&text[..]).unwrap();
    assert_eq!(back, index);
    let stale = |why: &str| match plan_from_index(&b, &path, &back).unwrap() {
        IndexCheck::Stale(reason) => reason,
        IndexCheck::Fresh(_) => panic!("{why}: a stale index was taken as fresh"),
    };
    assert!(matches!(plan_from_index(&b, &path, &back).unwrap(), IndexCheck::Fresh(_)));
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    let set_mtime =
        |t| std::fs::File::options().write(true).open(&path).unwrap().set_modified(t).unwrap();

    // Another dialect.
    let mut semi = ReaderBuilder::new();
    semi.delimiter(b';');
    assert!(matches!(plan_from_index(&semi, &path, &back).unwrap(), IndexCheck::Stale(_)));
    assert!(back.stale_reason(IndexKind::Lines, &back.dialect, &back.identity).is_some());

    // Append a byte (the time put back: the length gives it away).
    let mut longer = data.clone();
    longer.push(b'x');
    std::fs::write(&path, &longer).unwrap();
    set_mtime(mtime);
    assert!(stale("append").contains("bytes now"));

    // The same bytes written again, the time put back: the change time,
    // which no call sets back, tells.
    rewrite_until_ctime_moves(&path, &back, |p| std::fs::write(p, &data).unwrap());
    set_mtime(mtime);
    assert!(stale("rewrite").contains("change time"));

    // Touch: a new time.
    set_mtime(mtime + std::time::Duration::from_secs(5));
    assert!(stale("touch").contains("modified"));

    // Replaced by a copy (a new inode), the time put back.
    let copy = dir.path().join("copy.csv");
    std::fs::write(&copy, &data).unwrap();
    std::fs::rename(&copy, &path).unwrap();
    set_mtime(mtime);
    assert!(stale("replaced").contains("inode"));
}

/// Write `path` with `write` until its change time is past the index's:
/// the kernel stamps times from a clock that ticks every few ms, so a
/// write right after indexing can carry the same stamp.
fn rewrite_until_ctime_moves(path: &Path, index: &swath::index::Index, write: impl Fn(&Path)) {
    use std::os::unix::fs::MetadataExt;
    for _ in 0..200 {
        write(path);
        let m = std::fs::metadata(path).unwrap();
        if (m.ctime(), m.ctime_nsec() as u32)
            != (index.identity.ctime_sec, index.identity.ctime_nsec)
        {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    panic!("the file's change time did not move in 1 s of writes");
}

#[test]
fn a_middle_rewrite_of_a_large_file_with_its_time_put_back_is_stale() {
    // Past the two hashed 64 KiB ends: only the change time can tell.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.csv");
    let data = csv_document(11, 20_000, CsvShape::default());
    assert!(data.len() > 4 * 64 * 1024, "{} bytes", data.len());
    std::fs::write(&path, &data).unwrap();
    let b = ReaderBuilder::new();
    let index = index_csv(&b, &path, 4096).unwrap();
    assert!(matches!(plan_from_index(&b, &path, &index).unwrap(), IndexCheck::Fresh(_)));
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    let mid = data.len() as u64 / 2;
    rewrite_until_ctime_moves(&path, &index, |p| {
        use std::os::unix::fs::FileExt;
        let f = std::fs::File::options().write(true).open(p).unwrap();
        f.write_all_at(b"\"", mid).unwrap();
    });
    std::fs::File::options().write(true).open(&path).unwrap().set_modified(mtime).unwrap();
    match plan_from_index(&b, &path, &index).unwrap() {
        IndexCheck::Stale(why) => assert!(why.contains("change time"), "{why}"),
        IndexCheck::Fresh(_) => {
            panic!("a middle rewrite with the time put back was taken as fresh")
        }
    }
}

#[test]
fn a_malformed_record_inside_a_part_is_the_sequential_error() {
    // A quote inside an unquoted field, two thirds in, and near the end.
    for third in [2, 3] {
        bad_record_at(third);
    }
}

fn bad_record_at(thirds: usize) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.csv");
    let mut data = csv_document(5, 60, CsvShape::default());
    let at = (data.len() * thirds / 3).min(data.len() - 30);
    let nl = at + data[at..].iter().position(|&c| c == b'\n').unwrap() + 1;
    data.splice(nl..nl, b"77,ab\"c,1\n".iter().copied());
    std::fs::write(&path, &data).unwrap();
    let b = ReaderBuilder::new();
    let want = {
        let mut rdr = b.from_path(&path).unwrap();
        loop {
            match rdr.next_record() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("no error in the bad file"),
                Err(e) => break e.to_string(),
            }
        }
    };
    // No index of a file that does not read: the sequential error.
    let err = index_csv(&b, &path, 16).unwrap_err();
    assert_eq!(err.to_string(), want);
    // Parts cut by the plan alone: the first error in part order is the
    // sequential one (parts after it may be cut wrong; their errors are
    // never the first).
    let mut read_parts = 0;
    for n in [1, 3, 8, 20] {
        let plan = plan_splits(&b, &path, SplitSize::Count(n)).unwrap();
        let len = plan.file_len();
        let cuts: swath_csv::Result<Vec<Cut>> =
            (1..n as u64).map(|k| plan.first_record_at(k * len.div_ceil(n as u64))).collect();
        let Ok(mut cuts) = cuts else {
            // A cut past the bad record may start from a mispredicted
            // split; `csv split` then asks the validating count, which
            // meets the sequential error.
            let counted = swath_csv::ParallelReader::new(&b, &path).count();
            assert_eq!(counted.unwrap_err().to_string(), want, "{n} parts");
            continue;
        };
        read_parts += 1;
        cuts.insert(0, (0, 1, 1));
        cuts.push(plan.record_start(u64::MAX).unwrap());
        let first = cuts.windows(2).find_map(|w| {
            let mut rdr = plan.reader_of(&plan.split_between(w[0], w[1])).unwrap();
            loop {
                match rdr.next_record() {
                    Ok(Some(_)) => {}
                    Ok(None) => return None,
                    Err(e) => return Some(e.to_string()),
                }
            }
        });
        assert_eq!(first.as_deref(), Some(want.as_str()), "{n} parts");
    }
    assert!(read_parts >= 2 || thirds == 2, "the parts were read for {read_parts} cuttings only");
}

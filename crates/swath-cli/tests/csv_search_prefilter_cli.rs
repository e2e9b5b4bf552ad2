//! `csv search`'s raw-byte prefilter (parallel, a regular file) against
//! its slow twin, the per-record path (`-t 1`: every record parsed, every
//! chosen field matched), on random files built to break it: quoted fields
//! with doubled quotes, quoted delimiters and newlines, CRLF, multi-byte
//! UTF-8, a BOM inside a field, patterns that straddle two fields or a
//! doubled quote. Output, stderr and exit status must be identical.

use std::io::Write;

use assert_cmd::Command;

fn swath() -> Command {
    Command::cargo_bin("swath").unwrap()
}

/// Pieces of field text: needles, their halves, the bytes that quoting
/// changes.
const PIECES: &[&str] = &[
    "ab", "a", "b", ",", "\"", "\n", "\r\n", "é", "bé", "Hop", "per", "Hopper", " ", "x",
    "\u{feff}", "ÉB", "AB",
];

/// A random CSV file of 3 columns and `rows` records, with a header row.
fn random_file(seed: u64, rows: usize) -> Vec<u8> {
    let mut rng = swath_testkit::Rng::new(seed);
    let mut next = move |n: u64| rng.next_u64() % n;
    let crlf = next(2) == 0;
    let term = if crlf { "\r\n" } else { "\n" };
    let mut out = format!("h1,h2,h3{term}").into_bytes();
    for _ in 0..rows {
        for col in 0..3 {
            if col > 0 {
                out.push(b',');
            }
            let mut text = String::new();
            for _ in 0..next(4) {
                text.push_str(PIECES[next(PIECES.len() as u64) as usize]);
            }
            let special = text.contains([',', '"', '\n', '\r']) || text.starts_with('\u{feff}');
            if special || next(4) == 0 {
                out.push(b'"');
                out.extend_from_slice(text.replace('"', "\"\"").as_bytes());
                out.push(b'"');
            } else {
                out.extend_from_slice(text.as_bytes());
            }
        }
        out.extend_from_slice(term.as_bytes());
    }
    if next(3) == 0 {
        // The last record without a terminator.
        let t = term.len();
        out.truncate(out.len() - t);
    }
    out
}

/// (arguments, whether the prefilter must be taken, -v aside).
const CASES: &[(&[&str], bool)] = &[
    (&["--literal", "ab"], true),
    (&["--literal", "b,a"], true),
    (&["--literal", "bé"], true),
    (&["--literal", "é,"], true),
    (&["--literal", "Hopper"], true),
    (&["--literal", "pe"], true),
    (&["--literal", "b\"a"], false),
    (&["--literal", "a"], false),
    (&["--literal", "-i", "AB"], true),
    (&["--literal", "-i", "éb"], true),
    (&["-i", "hopper"], true),
    (&["a(b|é)"], true),
    (&["(Hop|per|ab)"], true),
    (&["é|AB|x,"], true),
    (&["b.a"], false),
    (&["."], false),
    (&["[a-z]+"], false),
    (&["(?s)a.*\n"], false),
    (&["Hop+er"], true),
    (&["\\w+é"], true),
    (&["ab$"], true),
    (&["^ab"], true),
    (&["(?i)bé"], true),
    (&["é{2}"], true),
    (&["x\"\"?b"], false),
    (&["-s", "h2", "--literal", "ab"], true),
    (&["-s", "h1,h3", "b,a"], true),
    (&["-s", "2", "Hopper"], true),
    (&["-s", "!h1", "-i", "(ab|hop)"], true),
    (&["-v", "--literal", "ab"], true),
];

/// Run `swath csv search` with `args` on `path`: (status, stdout, stderr).
fn run(args: &[&str], path: &std::path::Path) -> (Option<i32>, String, String) {
    let out = swath().args(["csv", "search"]).args(args).arg(path).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// With --no-headers there are no column names: the same columns by index.
fn without_names(arg: &str) -> &str {
    match arg {
        "h2" => "2",
        "h1,h3" => "1,3",
        "!h1" => "!1",
        other => other,
    }
}

/// The chunk sizes the fast path runs at (`None`: the default, one chunk
/// for these files): every seam kind, from a record cut in its middle to
/// chunks of many records. At 4096, the run is --verbose, to see the
/// prefilter taken.
const CHUNKS: &[Option<&str>] = &[Some("11"), Some("4096"), None];

/// What is added to each case: half of them per file, in turn, so that
/// every pair is run on some files.
const EXTRAS: &[&[&str]] = &[&[], &["-c"], &["-v", "-c"], &["--no-headers"]];

#[test]
fn prefiltered_search_equals_the_per_record_path_on_random_files() {
    let mut prefiltered = 0;
    // Small files, and a larger one where 4096-byte chunks hold many
    // records.
    let files = (0..4u64).map(|s| (s, 150)).chain([(6, 1500)]);
    for (seed, rows) in files {
        let bytes = random_file(0xC0FF_EE00 + seed, rows);
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&bytes).unwrap();
        for (i, (case, must_prefilter)) in CASES.iter().enumerate() {
            let turn = i + seed as usize;
            for extra in [EXTRAS[turn % 4], EXTRAS[(turn + 2) % 4]] {
                if case.contains(&"-v") && extra.contains(&"-v") {
                    continue;
                }
                let no_headers = extra.contains(&"--no-headers");
                let mut args: Vec<&str> =
                    case.iter().map(|&a| if no_headers { without_names(a) } else { a }).collect();
                args.extend_from_slice(extra);
                // The slow twin: one thread, every record parsed and matched.
                let mut slow_args = vec!["-t", "1"];
                slow_args.extend_from_slice(&args);
                let want = run(&slow_args, f.path());
                assert_eq!((want.0, want.2.as_str()), (Some(0), ""), "seed {seed} {args:?}");
                for chunk in CHUNKS {
                    let mut fast_args = vec!["-t", "2"];
                    if let Some(c) = chunk {
                        fast_args.extend_from_slice(&["--chunk-size", c]);
                    }
                    fast_args.extend_from_slice(&args);
                    if *chunk != Some("4096") {
                        assert_eq!(run(&fast_args, f.path()), want, "seed {seed} {fast_args:?}");
                        continue;
                    }
                    fast_args.push("--verbose");
                    let (code, out, err) = run(&fast_args, f.path());
                    assert_eq!((code, &out), (want.0, &want.1), "seed {seed} {fast_args:?}");
                    let noted = err.contains("prefiltered");
                    // -v writes every record without a match: no prefilter.
                    let (inverted, counted) = (args.contains(&"-v"), args.contains(&"-c"));
                    let expected = *must_prefilter && (!inverted || counted);
                    assert_eq!(noted, expected, "seed {seed} {fast_args:?}: prefilter taken?");
                    prefiltered += usize::from(noted);
                    // And the switch that turns it off.
                    fast_args.push("--no-prefilter");
                    let (code, out, err) = run(&fast_args, f.path());
                    assert!(!err.contains("prefiltered"), "{fast_args:?}: {err}");
                    assert_eq!((code, out), (want.0, want.1.clone()), "seed {seed} {fast_args:?}");
                }
            }
        }
    }
    assert!(prefiltered > 100, "the prefilter was taken only {prefiltered} times");
}

/// Bad files: an error near the end (inside the one chunk of a default
/// run), in the middle, a field count, and in a last record without a
/// terminator.
fn bad_files() -> Vec<Vec<u8>> {
    let cat = |parts: &[&[u8]]| parts.concat();
    vec![
        cat(&[&random_file(7, 100), b"\nab,\"ab\"oops,x\nab,ab,ab\n"]),
        cat(&[&random_file(8, 200), b"\nab,\"ab\"oops,x\n", &random_file(9, 200)]),
        cat(&[&random_file(10, 300), b"\nab,ab\nab,ab,ab\n"]),
        cat(&[&random_file(11, 50), b"\nab,ab,\"ab"]),
    ]
}

#[test]
fn bad_input_takes_the_per_record_path_and_errors_as_it() {
    for (i, bytes) in bad_files().into_iter().enumerate() {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(&bytes).unwrap();
        for args in [&["--literal", "ab"][..], &["-c", "a(b|é)"], &["-v", "-c", "ab"], &["."]] {
            let mut slow = vec!["-t", "1"];
            slow.extend_from_slice(args);
            let want = run(&slow, f.path());
            assert_eq!(want.0, Some(2), "file {i} {args:?}: {}", want.2);
            assert!(want.2.contains("record"), "file {i}: {}", want.2);
            for chunk in [Some("17"), Some("4096"), Some("65536"), None] {
                for prefilter in [true, false] {
                    let mut fast = vec!["-t", "2"];
                    if let Some(c) = chunk {
                        fast.extend_from_slice(&["--chunk-size", c]);
                    }
                    if !prefilter {
                        fast.push("--no-prefilter");
                    }
                    fast.extend_from_slice(args);
                    assert_eq!(run(&fast, f.path()), want, "file {i} {fast:?}");
                }
            }
        }
    }
}

#[test]
fn a_compressed_file_is_searched_in_its_records_not_its_raw_bytes() {
    use flate2::write::GzEncoder;
    let csv = random_file(12, 400);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.csv.gz");
    let mut gz = GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&csv).unwrap();
    std::fs::write(&path, gz.finish().unwrap()).unwrap();
    for args in [&["--literal", "ab"][..], &["-c", "Hop+er"], &["-v", "-c", "ab"]] {
        let mut slow = vec!["-t", "1"];
        slow.extend_from_slice(args);
        let want = run(&slow, &path);
        assert_eq!(want.0, Some(0), "{args:?}: {}", want.2);
        let found = want.1.lines().count() > 1 || want.1.trim().parse::<u64>().unwrap_or(0) > 0;
        assert!(found, "{args:?}: nothing found: the test is void");
        let mut fast = vec!["-t", "2", "--verbose"];
        fast.extend_from_slice(args);
        let got = run(&fast, &path);
        assert!(!got.2.contains("prefiltered"), "{fast:?}: {}", got.2);
        assert_eq!((got.0, got.1), (want.0, want.1), "{fast:?}");
    }
}

#[test]
fn a_bom_led_field_and_no_headers_first_record_are_written_once_and_as_sequentially() {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all("abc,x\n\u{feff}abc,y\n\"a\"\"bc\",z\nabc,\"ab\nc\"\n".as_bytes()).unwrap();
    for args in [&["--literal", "abc"][..], &["--no-headers", "--literal", "abc"], &["-c", "bc"]] {
        let mut slow = vec!["-t", "1"];
        slow.extend_from_slice(args);
        let want = run(&slow, f.path());
        let mut fast = vec!["-t", "2", "--chunk-size", "3"];
        fast.extend_from_slice(args);
        assert_eq!(run(&fast, f.path()), want, "{args:?}");
    }
    let (_, out, _) = run(&["-t", "2", "--no-headers", "--literal", "abc"], f.path());
    assert_eq!(out, "abc,x\n\u{feff}abc,y\nabc,\"ab\nc\"\n");
}

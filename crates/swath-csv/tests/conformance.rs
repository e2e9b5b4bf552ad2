//! Public conformance suites, vendored in `testdata/conformance/` (see its
//! README for where they come from and their licences). They are part of
//! the repository, so these tests never skip: a missing suite is a failure.
//!
//! csv-spectrum: all 12 cases. `location_coordinates.json` is wrong
//! upstream: it expects the phone number `1234567890` while the CSV holds
//! `2095257564`, and the CSV has a bare `"` in an unquoted field (`37°36'37.8"N`).
//! We expect the CSV's real number in lenient mode, and a `BareQuote` error
//! naming that byte in strict mode.
//!
//! FastCSV spec: every check, with each line ending variant of `⏎`, in
//! strict mode (an error is fine where the file says `exceptionAllowed`)
//! and in lenient mode. FastCSV keeps empty lines by default, so files
//! without `skipEmptyLines` run with `skip_empty_lines(false)`. The checks
//! that deviate, and why, are listed in `DEVIATIONS`; the test fails if a
//! listed check stops deviating or another one starts.

use std::collections::BTreeMap;
use std::path::PathBuf;

use swath_csv::{ErrorKind, ReaderBuilder};

fn suite_dir(name: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../testdata/conformance").join(name);
    assert!(dir.is_dir(), "conformance suite {name} missing at {}", dir.display());
    dir
}

type Rec = Vec<String>;

fn read_all(input: &[u8], b: &ReaderBuilder) -> Result<Vec<Rec>, String> {
    let mut rdr = b.from_reader(input).unwrap();
    let mut out = Vec::new();
    loop {
        match rdr.next_record() {
            Ok(Some(r)) => {
                out.push(r.iter().map(|f| String::from_utf8_lossy(f).into_owned()).collect())
            }
            Ok(None) => return Ok(out),
            Err(e) => return Err(format!("{:?} at {:?}", e.kind(), e.position())),
        }
    }
}

#[test]
fn csv_spectrum() {
    let dir = suite_dir("csv-spectrum");
    let mut n = 0;
    for entry in std::fs::read_dir(dir.join("csvs")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let input = std::fs::read(&path).unwrap();
        let json: serde_json::Value = serde_json::from_slice(
            &std::fs::read(dir.join("json").join(format!("{name}.json"))).unwrap(),
        )
        .unwrap();
        let mut want: Vec<BTreeMap<String, String>> = match json {
            serde_json::Value::Array(a) => {
                a.into_iter().map(|v| serde_json::from_value(v).unwrap()).collect()
            }
            obj => vec![serde_json::from_value(obj).unwrap()],
        };
        let mut lenient = ReaderBuilder::new();
        lenient.lenient(true);
        if name == "location_coordinates" {
            // Upstream's expectation is wrong (see the module docs).
            want[0].insert("Contact Phone Number".into(), "2095257564".into());
            let mut rdr = ReaderBuilder::new().from_reader(&input[..]).unwrap();
            let err = rdr.next_record().unwrap_err();
            assert!(matches!(err.kind(), ErrorKind::BareQuote), "{err}");
            let at = input.iter().position(|&b| b == b'"').unwrap() as u64;
            assert_eq!(err.position().unwrap().byte, at);
            assert_eq!(err.position().unwrap().line, 2);
        }
        let modes: &[&ReaderBuilder] = if name == "location_coordinates" {
            &[&lenient]
        } else {
            &[&lenient, &ReaderBuilder::new()]
        };
        for b in modes {
            let mut rdr = b.from_reader(&input[..]).unwrap();
            let headers = rdr.headers().unwrap().cloned().unwrap_or_default();
            let mut got = Vec::new();
            while let Some(r) = rdr.next_record().unwrap() {
                let map: BTreeMap<String, String> = headers
                    .iter()
                    .zip(r.iter())
                    .map(|(h, f)| {
                        (
                            String::from_utf8(h.to_vec()).unwrap(),
                            String::from_utf8(f.to_vec()).unwrap(),
                        )
                    })
                    .collect();
                got.push(map);
            }
            assert_eq!(got, want, "csv-spectrum {name}");
        }
        n += 1;
    }
    assert_eq!(n, 12, "csv-spectrum has 12 cases");
}

/// A FastCSV check that deviates, and why.
/// Everything else (53 checks, 89 runs with the line ending variants, in
/// both modes) passes, including `comments-skip-*` with CR endings, which
/// the `csv` crate fails (BAD-INPUTS A3.2), and `comments-skip-4/5`, where
/// it makes a spurious `[""]` record (A3.1).
const DEVIATIONS: &[(&str, &str)] = &[
    ("comments-read-1", READ),
    ("comments-read-2", READ),
    ("comments-read-3", READ),
    ("comments-read-4", READ),
    ("comments-read-5", READ),
    ("comments-read-6", READ),
    ("comments-read-7", READ),
];

const READ: &str = "commentMode READ returns comment lines as records; we (like the csv \
    crate) only skip comments or treat `#` as data, so these expectations do not apply";

struct Check {
    file: String,
    id: String,
    input: String,
    records: Vec<Rec>,
    skip_empty: bool,
    comments: String,
    exception_allowed: bool,
}

/// A YAML single- or double-quoted scalar (the subset the spec files use).
fn scalar(s: &str) -> String {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        inner.replace("''", "'")
    } else if let Some(inner) = s.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        inner.to_string()
    } else {
        s.to_string()
    }
}

/// `[ 'A', 'B' ]`: a flow list of quoted scalars.
fn flow_list(s: &str) -> Rec {
    let inner = s.trim().strip_prefix('[').unwrap().strip_suffix(']').unwrap();
    let mut out = Vec::new();
    let mut chars = inner.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| *c == ' ' || *c == ',') {
            chars.next();
        }
        let Some(q) = chars.next() else { return out };
        assert!(q == '\'' || q == '"', "unquoted item in {s}");
        let mut item = String::new();
        while let Some(c) = chars.next() {
            if c == q {
                if q == '\'' && chars.peek() == Some(&'\'') {
                    chars.next();
                    item.push('\'');
                    continue;
                }
                break;
            }
            item.push(c);
        }
        out.push(item);
    }
}

fn parse_spec(file: &str, text: &str) -> Vec<Check> {
    let (mut skip_empty, mut comments, mut exc) = (false, "NONE".to_string(), false);
    let mut checks: Vec<Check> = Vec::new();
    let mut in_records = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(v) = t.strip_prefix("skipEmptyLines:") {
            skip_empty = v.trim() == "true";
        } else if let Some(v) = t.strip_prefix("commentMode:") {
            comments = v.trim().to_string();
        } else if let Some(v) = t.strip_prefix("exceptionAllowed:") {
            exc = v.trim() == "true";
        } else if let Some(v) = t.strip_prefix("- id:") {
            checks.push(Check {
                file: file.to_string(),
                id: v.trim().to_string(),
                input: String::new(),
                records: Vec::new(),
                skip_empty,
                comments: comments.clone(),
                exception_allowed: exc,
            });
            in_records = false;
        } else if let Some(v) = t.strip_prefix("input:") {
            checks.last_mut().unwrap().input = scalar(v);
        } else if let Some(v) = t.strip_prefix("records:") {
            in_records = v.trim() != "[]";
        } else if in_records && t.starts_with("- [") {
            let rec = flow_list(t.strip_prefix('-').unwrap());
            checks.last_mut().unwrap().records.push(rec);
        } else if !t.starts_with('-') && t.contains(':') {
            in_records = false;
        }
    }
    checks
}

fn with_ending(s: &str, ending: &str) -> String {
    s.replace('␍', "\r").replace('␊', "\n").replace('␤', "\r\n").replace('⏎', ending)
}

fn endings(s: &str) -> Vec<(&'static str, String)> {
    let base = s.replace('␍', "\r").replace('␊', "\n").replace('␤', "\r\n");
    if base.contains('⏎') {
        [("CR", "\r"), ("LF", "\n"), ("CRLF", "\r\n")]
            .into_iter()
            .map(|(n, e)| (n, base.replace('⏎', e)))
            .collect()
    } else {
        vec![("", base)]
    }
}

#[test]
fn fastcsv_spec() {
    let dir = suite_dir("fastcsv-spec");
    let mut deviating = Vec::new();
    let mut runs = 0;
    let mut files: Vec<_> =
        std::fs::read_dir(dir.join("spec")).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for path in files {
        let file = path.file_stem().unwrap().to_str().unwrap().to_string();
        for check in parse_spec(&file, &std::fs::read_to_string(&path).unwrap()) {
            for (variant, input) in endings(&check.input) {
                let ending = match variant {
                    "CR" => "\r",
                    "CRLF" => "\r\n",
                    _ => "\n",
                };
                let id = if variant.is_empty() {
                    check.id.clone()
                } else {
                    format!("{}/{variant}", check.id)
                };
                if check.comments == "READ" {
                    if !deviating.contains(&check.id) {
                        deviating.push(check.id.clone());
                    }
                    continue;
                }
                let want = check
                    .records
                    .iter()
                    .map(|r| r.iter().map(|f| with_ending(f, ending)).collect())
                    .collect::<Vec<Rec>>();
                let mut ok = true;
                for lenient in [false, true] {
                    let mut b = ReaderBuilder::new();
                    b.has_headers(false)
                        .flexible(true)
                        .skip_empty_lines(check.skip_empty)
                        .lenient(lenient)
                        .comment((check.comments == "SKIP").then_some(b'#'));
                    match read_all(input.as_bytes(), &b) {
                        Ok(got) => ok &= got == want,
                        Err(e) => {
                            ok &= !lenient && check.exception_allowed;
                            if !ok {
                                println!("{id} strict error {e}");
                            }
                        }
                    }
                    runs += 1;
                }
                if !ok {
                    println!("{} {id}: {:?}", check.file, input);
                    if !deviating.contains(&check.id) {
                        deviating.push(check.id.clone());
                    }
                }
            }
        }
    }
    for (id, why) in DEVIATIONS {
        println!("deviates: {id}: {why}");
    }
    let listed: Vec<String> = DEVIATIONS.iter().map(|(id, _)| id.to_string()).collect();
    assert_eq!(deviating, listed, "deviating FastCSV checks changed");
    assert_eq!(runs, 2 * 89, "runs (checks x line ending variants x two modes)");
}

#[test]
fn fastcsv_bom_files() {
    let dir = suite_dir("fastcsv-spec");
    let want = vec![vec!["foo".to_string(), "üÜß".to_string()], vec!["123".into(), "456".into()]];
    for name in ["utf8_bom", "utf8_nobom"] {
        let input = std::fs::read(dir.join("bom").join(format!("{name}.csv"))).unwrap();
        for chunk in [1, 2, 3, 4096] {
            let mut b = ReaderBuilder::new();
            b.has_headers(false).capacity(chunk);
            assert_eq!(read_all(&input, &b).unwrap(), want, "{name} chunk {chunk}");
        }
    }
    for (name, enc) in [
        ("utf16le_bom", "UTF-16LE"),
        ("utf16be_bom", "UTF-16BE"),
        ("utf32le_bom", "UTF-32LE"),
        ("utf32be_bom", "UTF-32BE"),
    ] {
        let input = std::fs::read(dir.join("bom").join(format!("{name}.csv"))).unwrap();
        let mut rdr = ReaderBuilder::new().has_headers(false).from_reader(&input[..]).unwrap();
        let err = rdr.next_record().unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::UnsupportedEncoding(e) if *e == enc),
            "{name}: {err}"
        );
    }
}

//! Broken records put aside by every command that takes `--on-bad`,
//! table-driven from the CLI's own help: an export with broken records
//! put in (a field too few, too many, a bare quote, text after a closing
//! quote; CRLF too) gives, with `--on-bad quarantine=FILE`, the clean
//! file's output (the export without them), FILE holding the broken
//! records byte for byte in file order, and FILE.errors.csv their record,
//! line and byte, as the generator placed them; exit 1. The same at 1, 2
//! and 3 threads with small chunks, and from a gzip copy (read on one
//! thread). `--on-bad skip` gives the same output; `--max-bad` past the
//! count stops with no output left; without `--on-bad` it is the error it
//! always was.
//!
//! Commands that take no `--on-bad` are listed below with the reason: a
//! new command that writes records must take it.

mod common;

use common::gzip;

use common::answers::answer;
use common::commands::{csv_args, json_args, taking, BYTE_COMMANDS};

/// The commands with an input and no `--on-bad`, and why.
const WITHOUT: &[(&str, &str)] = &[
    ("csv count", "counts records; csv check lists the broken ones"),
    ("csv check", "lists every broken record: that is its job"),
    ("csv frequency", "writes no records"),
    ("csv sniff", "reads a sample to find the dialect"),
    ("csv stats", "writes no records"),
    ("csv schema", "writes no records"),
    ("csv index", "checkpoints a file that reads cleanly"),
    ("csv slice", "copies the input's bytes of a range of records"),
    ("csv tail", "copies the input's bytes of the last records"),
    ("csv sample", "prints records at sampled starts"),
    ("json count", "counts records; json check lists the broken ones"),
    ("json check", "lists every broken record: that is its job"),
    ("json schema", "writes no records"),
    ("json index", "checkpoints a file that reads cleanly"),
    ("json slice", "copies the input's bytes of a range of records"),
    ("json tail", "copies the input's bytes of the last records"),
    ("json sample", "prints records at sampled starts"),
    ("json split", "not yet: its plan counts records by the checkpoint index"),
    ("lines ", "lines are bytes"),
];

/// A broken record placed in the export: its bytes, record number (the
/// header row is record 1) and line.
#[derive(Clone, Debug)]
struct Broken {
    bytes: Vec<u8>,
    record: u64,
    line: u64,
    byte: u64,
}

/// The clean export and the one with broken records put in after every
/// `every`th record, with what was put where.
fn exports(every: usize, crlf: bool) -> (Vec<u8>, Vec<u8>, Vec<Broken>) {
    let eol = if crlf { "\r\n" } else { "\n" };
    let header = format!("id,name,score,note{eol}");
    let (mut clean, mut dirty) = (header.clone().into_bytes(), header.into_bytes());
    let mut broken = Vec::new();
    let mut record = 1u64;
    let made: [&str; 4] = ["7,short", "1,2,3,4,5", "8,a\"b,1,x", "9,\"x\"y,2,z"];
    for i in 0..500u32 {
        let name = ["ann", "bob", "Zoë", "dan"][i as usize % 4];
        let note = match i % 4 {
            0 => format!("{name} plain"),
            1 => format!("\"{name}, b {i}\""),
            2 => format!("\"two\r\nlines {i}\""),
            _ => format!("\"say \"\"{name}\"\" {i}\""),
        };
        let rec = format!("{i},{name},{}.{},{note}{eol}", i % 97, i % 10);
        clean.extend_from_slice(rec.as_bytes());
        dirty.extend_from_slice(rec.as_bytes());
        record += 1;
        if i as usize % every == every - 1 {
            let bytes = format!("{}{eol}", made[(i as usize / every) % made.len()]).into_bytes();
            record += 1;
            let line = dirty.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
            broken.push(Broken { bytes: bytes.clone(), record, line, byte: dirty.len() as u64 });
            dirty.extend_from_slice(&bytes);
        }
    }
    (clean, dirty, broken)
}

/// `args` with the `{file}` placeholder, threads and small chunks.
fn argv(base: &[&str], threads: &str, extra: &[String]) -> Vec<String> {
    argv_for("", base, threads, extra)
}

/// [`argv`] for `cmd`: `swath sql` cuts its files by `--split-size`, and
/// `csv head` reads on one thread.
fn argv_for(cmd: &str, base: &[&str], threads: &str, extra: &[String]) -> Vec<String> {
    let chunk = if cmd == "sql" { "--split-size" } else { "--chunk-size" };
    let mut v: Vec<String> = base.iter().map(|s| s.to_string()).collect();
    if cmd != "csv head" {
        v.extend(["-t", threads, chunk, "997"].map(String::from));
    }
    v.extend(extra.iter().cloned());
    v
}

/// What the quarantine and its sidecar must hold.
fn expected_quarantine(broken: &[Broken]) -> (Vec<u8>, Vec<u8>) {
    let records: Vec<u8> = broken.iter().flat_map(|b| b.bytes.clone()).collect();
    let mut why = b"record,line,byte,reason\n".to_vec();
    for b in broken {
        why.extend_from_slice(format!("{},{},{},", b.record, b.line, b.byte).as_bytes());
        // The reason is the reader's; the positions are the generator's.
        why.extend_from_slice(b"*\n");
    }
    (records, why)
}

/// The sidecar with each reason replaced by `*` (checked apart).
fn positions_only(sidecar: &[u8]) -> (Vec<u8>, Vec<String>) {
    let text = String::from_utf8(sidecar.to_vec()).unwrap();
    let mut out = Vec::new();
    let mut reasons = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if i == 0 {
            out.extend_from_slice(format!("{line}\n").as_bytes());
            continue;
        }
        let mut cut = line.splitn(4, ',');
        let (r, l, b) = (cut.next().unwrap(), cut.next().unwrap(), cut.next().unwrap());
        reasons.push(cut.next().unwrap().to_string());
        out.extend_from_slice(format!("{r},{l},{b},*\n").as_bytes());
    }
    (out, reasons)
}

#[test]
fn every_command_that_writes_records_puts_broken_ones_aside() {
    let without: Vec<(&str, &str)> = WITHOUT.iter().chain(BYTE_COMMANDS).copied().collect();
    let cmds: Vec<_> = taking("--on-bad <", &without)
        .into_iter()
        .filter(|(c, _)| !c.starts_with("json "))
        .collect();
    let names: Vec<&str> = cmds.iter().map(|(c, _)| c.as_str()).collect();
    for must in ["csv select", "csv search", "csv to-json", "csv to-parquet", "csv to-arrow", "sql"]
    {
        assert!(names.contains(&must), "{must} takes no --on-bad");
    }
    let dir = tempfile::tempdir().unwrap();
    let mut runs = 0;
    for crlf in [false, true] {
        let (clean, dirty, broken) = exports(37, crlf);
        let case = Case::new(dir.path(), "csv", &clean, &dirty, broken, crlf);
        for (cmd, _) in &cmds {
            let (base, may_refuse) = csv_args(cmd);
            // A query refuses a share of records; the limit is its error.
            let checks = Checks {
                may_refuse,
                share: "1%",
                any_first: false,
                reason_ok: |r| r.contains("fields, expected 4") || r.contains("quote"),
            };
            runs += case.check(cmd, &base, &checks);
        }
    }
    assert!(runs >= 40, "{runs}");
}

/// An export written to `dir`, clean, with broken records, and gzipped,
/// with what the quarantine of each command that takes `--on-bad` must
/// hold.
struct Case {
    dir: std::path::PathBuf,
    clean: std::path::PathBuf,
    dirty: std::path::PathBuf,
    dirty_gz: std::path::PathBuf,
    broken: Vec<Broken>,
    /// The quarantine's name (`q.csv`, `q.jsonl`), its bytes and sidecar.
    q: String,
    want_q: Vec<u8>,
    want_why: Vec<u8>,
    crlf: bool,
}

/// How a command's answers are judged beyond the common rules.
struct Checks {
    /// It cuts byte ranges, and may refuse the gzip copy.
    may_refuse: bool,
    /// The `--max-bad` share that must stop it (`swath sql` refuses `N%`).
    share: &'static str,
    /// Without `--on-bad`, `swath sql`'s error may name any broken record
    /// (its partitions run at once), not the first.
    any_first: bool,
    /// What each sidecar reason must say.
    reason_ok: fn(&str) -> bool,
}

impl Case {
    fn new(
        dir: &std::path::Path,
        ext: &str,
        clean: &[u8],
        dirty: &[u8],
        broken: Vec<Broken>,
        crlf: bool,
    ) -> Case {
        assert!(broken.len() >= 13);
        let clean_path = dir.join(format!("export.{ext}"));
        let dirty_path = dir.join(format!("dirty.{ext}"));
        std::fs::write(&clean_path, clean).unwrap();
        std::fs::write(&dirty_path, dirty).unwrap();
        let dirty_gz = dir.join(format!("dirty.{ext}.gz"));
        gzip(&dirty_path, &dirty_gz);
        let (want_q, want_why) = expected_quarantine(&broken);
        Case {
            dir: dir.to_path_buf(),
            clean: clean_path,
            dirty: dirty_path,
            dirty_gz,
            broken,
            q: format!("q.{ext}"),
            want_q,
            want_why,
            crlf,
        }
    }

    /// `cmd` (with `base`) on the broken export: at 1-3 threads and from
    /// gzip, the quarantine holds the broken records, the sidecar their
    /// places, the output is the clean export's, `skip` gives the same;
    /// past `--max-bad` an error and nothing left; under it, as without;
    /// without `--on-bad` the error it always was. Returns the runs.
    fn check(&self, cmd: &str, base: &[&str], checks: &Checks) -> usize {
        let (clean, dirty, broken, dir) = (&self.clean, &self.dirty, &self.broken, &self.dir);
        let out = dir.join("out");
        let _ = std::fs::remove_dir_all(&out);
        let (want, err) = answer(cmd, &argv_for(cmd, base, "1", &[]), clean, clean, &out, &[]);
        assert_eq!(want.code, 0, "{cmd} on the clean export: {err}");
        let mut runs = 0;
        for (input, threads) in [(dirty, "1"), (dirty, "2"), (dirty, "3"), (&self.dirty_gz, "2")] {
            let ctx =
                format!("{cmd} on {} at {threads} threads, crlf {}", input.display(), self.crlf);
            let out = dir.join(format!("out-{threads}"));
            let _ = std::fs::remove_dir_all(&out);
            let q = ["--on-bad".to_string(), format!("quarantine={{out}}/{}", self.q)];
            let (mut got, err) =
                answer(cmd, &argv_for(cmd, base, threads, &q), input, clean, &out, &[]);
            if checks.may_refuse && input == &self.dirty_gz {
                assert_eq!(got.code, 2, "{ctx}: {err}");
                assert!(err.contains("compressed"), "{ctx}: {err}");
                continue;
            }
            assert_eq!(got.code, 1, "{ctx}: {err}");
            assert!(
                err.contains(&format!("{} records ", broken.len())),
                "{ctx}: the count on stderr: {err}"
            );
            let q_bytes = got.outputs.remove(&self.q).expect("the quarantine file");
            let why = got.outputs.remove(&format!("{}.errors.csv", self.q)).expect("the sidecar");
            assert!(
                q_bytes == self.want_q,
                "{ctx}: the quarantine holds:\n{}",
                String::from_utf8_lossy(&q_bytes)
            );
            let (positions, reasons) = positions_only(&why);
            assert_eq!(
                String::from_utf8(positions).unwrap(),
                String::from_utf8(self.want_why.clone()).unwrap(),
                "{ctx}"
            );
            assert!(reasons.iter().all(|r| (checks.reason_ok)(r)), "{ctx}: {reasons:?}");
            // The output is the clean export's.
            got.code = 0;
            assert_eq!(got, want, "{ctx}: {err}");

            let skip = ["--on-bad".to_string(), "skip".to_string()];
            let _ = std::fs::remove_dir_all(&out);
            let (mut got, err) =
                answer(cmd, &argv_for(cmd, base, threads, &skip), input, clean, &out, &[]);
            assert_eq!(got.code, 1, "{ctx}: skip: {err}");
            got.code = 0;
            assert_eq!(got, want, "{ctx}: skip: {err}");
            runs += 1;
        }

        // Past --max-bad: an error, and nothing left in the output
        // directory (the output and the quarantine are not renamed into
        // place). Without --on-bad: the error it always was.
        let quarantine = format!("quarantine={{out}}/{}", self.q);
        for extra in [
            vec!["--on-bad", &quarantine, "--max-bad", "3"],
            vec!["--on-bad", "skip", "--max-bad", checks.share],
            vec![],
        ] {
            let extra: Vec<String> = extra.into_iter().map(String::from).collect();
            let out = dir.join("out-max");
            let _ = std::fs::remove_dir_all(&out);
            let (got, err) =
                answer(cmd, &argv_for(cmd, base, "2", &extra), dirty, clean, &out, &[]);
            let ctx = format!("{cmd} {extra:?}");
            assert_eq!(got.code, 2, "{ctx}: {err}");
            assert!(got.outputs.is_empty(), "{ctx}: left {:?}", got.outputs.keys());
            let named = |b: &Broken| err.contains(&format!("record {} (line {}", b.record, b.line));
            if extra.is_empty() && checks.any_first {
                assert!(broken.iter().any(named), "{ctx}: {err}");
            } else if extra.is_empty() {
                assert!(named(&broken[0]), "{ctx}: {err}");
            } else {
                assert!(err.contains("--max-bad"), "{ctx}: {err}");
            }
        }
        // Under the limit: as without it.
        let out = dir.join("out-under");
        let _ = std::fs::remove_dir_all(&out);
        // A query does not count the records it reads: a number.
        let share = if cmd == "sql" { "100" } else { "5%" };
        let under = ["--on-bad", "skip", "--max-bad", share].map(String::from);
        let (got, err) = answer(cmd, &argv_for(cmd, base, "2", &under), dirty, clean, &out, &[]);
        assert_eq!((got.code, &got.outputs), (1, &want.outputs), "{cmd} --max-bad {share}: {err}");
        runs
    }
}

#[test]
fn the_sidecar_can_be_json_lines() {
    let (_, dirty, broken) = exports(50, false);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("dirty.csv");
    std::fs::write(&input, &dirty).unwrap();
    let q = dir.path().join("q.csv");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_swath"))
        .args(["csv", "select", "-c", "id", input.to_str().unwrap(), "-o", "/dev/null"])
        .arg(format!("--on-bad=quarantine={}", q.display()))
        .arg("--errors-json")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", String::from_utf8_lossy(&o.stderr));
    let lines = std::fs::read_to_string(dir.path().join("q.csv.errors.jsonl")).unwrap();
    let docs: Vec<serde_json::Value> =
        lines.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(docs.len(), broken.len());
    for (d, b) in docs.iter().zip(&broken) {
        assert_eq!(
            (d["record"].as_u64(), d["line"].as_u64(), d["byte"].as_u64()),
            (Some(b.record), Some(b.line), Some(b.byte))
        );
        assert!(d["reason"].as_str().is_some_and(|r| !r.is_empty()), "{d}");
    }
}

#[test]
fn a_field_that_does_not_fit_can_be_put_aside_whole() {
    // Amounts that are not numbers, among broken records.
    let mut csv = String::from("id,amount\n");
    let mut want_q = String::new();
    for i in 0..300 {
        let line = match i % 29 {
            3 => format!("{i},n/a\n"),
            11 => format!("{i},1,2\n"),
            _ => format!("{i},{}.5\n", i % 13),
        };
        if i % 29 == 3 || i % 29 == 11 {
            want_q.push_str(&line);
        } else {
            csv.push_str(&line);
        }
    }
    let clean = csv.clone();
    // Put them back where they were.
    let mut dirty = String::from("id,amount\n");
    for i in 0..300 {
        dirty.push_str(&match i % 29 {
            3 => format!("{i},n/a\n"),
            11 => format!("{i},1,2\n"),
            _ => format!("{i},{}.5\n", i % 13),
        });
    }
    let dir = tempfile::tempdir().unwrap();
    let (c, d) = (dir.path().join("clean.csv"), dir.path().join("dirty.csv"));
    std::fs::write(&c, clean).unwrap();
    std::fs::write(&d, dirty).unwrap();
    let out = dir.path().join("out");
    let base = ["{file}", "-o", "{out}/o.parquet", "--schema", "amount:float64"];
    let (want, err) = answer("csv to-parquet", &argv(&base, "1", &[]), &c, &c, &out, &[]);
    assert_eq!(want.code, 0, "{err}");
    for threads in ["1", "2"] {
        let out = dir.path().join(format!("out{threads}"));
        let extra =
            ["--on-error", "quarantine", "--on-bad", "quarantine={out}/q.csv"].map(String::from);
        let (mut got, err) =
            answer("csv to-parquet", &argv(&base, threads, &extra), &d, &c, &out, &[]);
        assert_eq!(got.code, 1, "{err}");
        assert_eq!(got.outputs.remove("q.csv").unwrap(), want_q.as_bytes(), "{threads}");
        let why = String::from_utf8(got.outputs.remove("q.csv.errors.csv").unwrap()).unwrap();
        assert!(why.contains("cannot parse \"\"n/a\"\" as float64"), "{why}");
        assert_eq!(got.outputs, want.outputs, "threads {threads}");
    }
    // --on-error quarantine alone has nowhere to put them.
    let (got, err) = answer(
        "csv to-parquet",
        &argv(&base, "1", &["--on-error".into(), "quarantine".into()]),
        &d,
        &c,
        &out,
        &[],
    );
    assert_eq!(got.code, 2);
    assert!(err.contains("--on-bad"), "{err}");
}

#[test]
fn split_by_bytes_leaves_the_broken_records_out_of_its_parts() {
    let (clean, dirty, broken) = exports(23, true);
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("dirty.csv");
    std::fs::write(&input, &dirty).unwrap();
    let header_len = clean.iter().position(|&b| b == b'\n').unwrap() + 1;
    for (parts, threads) in [("1", "1"), ("4", "2"), ("7", "3")] {
        let out = dir.path().join(format!("parts-{parts}"));
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_swath"))
            .args(["csv", "split", input.to_str().unwrap(), "-n", parts, "-t", threads, "--json"])
            .args(["--chunk-size", "501", "-o", out.to_str().unwrap()])
            .arg(format!("--on-bad=quarantine={}", dir.path().join("q.csv").display()))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        // The parts in order, each after the first less its header row:
        // the clean file.
        let names = common::names_in(&out);
        let mut joined = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let bytes = std::fs::read(out.join(name)).unwrap();
            joined.extend_from_slice(if i == 0 { &bytes[..] } else { &bytes[header_len..] });
        }
        assert!(joined == clean, "-n {parts}: the parts are not the clean file");
        let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let records: u64 =
            doc["parts"].as_array().unwrap().iter().map(|p| p["records"].as_u64().unwrap()).sum();
        assert_eq!(records, 500, "-n {parts}: {doc}");
        let q = std::fs::read(dir.path().join("q.csv")).unwrap();
        assert_eq!(q, broken.iter().flat_map(|b| b.bytes.clone()).collect::<Vec<u8>>());
    }
}

/// The JSON-lines export: good lines, and the same with broken ones put
/// in (cut short, not an object, a comma too many, a key twice, a bare
/// word), blank lines and CRLF among them, with what was put where (the
/// record counts every object, broken ones too).
fn json_exports(every: usize, crlf: bool) -> (Vec<u8>, Vec<u8>, Vec<Broken>) {
    let made: [&str; 5] = [
        r#"{"id":7,"name":"cut"#,
        "[1,2]",
        r#"{"id":8,"name":"x",}"#,
        r#"{"id":9,"id":9}"#,
        "nope",
    ];
    let (mut clean, mut dirty, mut broken) = (Vec::new(), Vec::new(), Vec::new());
    let (mut record, mut line) = (0u64, 0u64);
    for i in 0..500usize {
        let eol = if crlf && i % 3 == 0 { "\r\n" } else { "\n" };
        let name = [r"ann", r#"b\"ob"#, "Zoë", r"d\\an"][i % 4];
        let rec = format!(
            r#"{{"id":{i},"name":"{name}","req":{{"ms":{}.5}},"tags":["t{i}"]}}{eol}"#,
            i % 97
        );
        for out in [&mut clean, &mut dirty] {
            out.extend_from_slice(rec.as_bytes());
        }
        record += 1;
        line += 1;
        if i % 50 == 7 {
            for out in [&mut clean, &mut dirty] {
                out.extend_from_slice(b"\n");
            }
            line += 1;
        }
        if i % every == every - 1 {
            let bytes = format!("{}{eol}", made[(i / every) % made.len()]).into_bytes();
            record += 1;
            line += 1;
            broken.push(Broken { bytes: bytes.clone(), record, line, byte: dirty.len() as u64 });
            dirty.extend_from_slice(&bytes);
        }
    }
    (clean, dirty, broken)
}

#[test]
fn every_json_command_that_writes_records_puts_broken_ones_aside() {
    // The json commands, and SQL over a JSON-lines table.
    let without: Vec<(&str, &str)> = WITHOUT.iter().chain(BYTE_COMMANDS).copied().collect();
    let cmds: Vec<_> = taking("--on-bad <", &without)
        .into_iter()
        .filter(|(c, _)| c.starts_with("json ") || c == "sql")
        .collect();
    let names: Vec<&str> = cmds.iter().map(|(c, _)| c.as_str()).collect();
    for must in ["json select", "json to-csv", "json to-parquet", "json to-arrow", "sql"] {
        assert!(names.contains(&must), "{must} takes no --on-bad");
    }
    let dir = tempfile::tempdir().unwrap();
    for crlf in [false, true] {
        let (clean, dirty, broken) = json_exports(37, crlf);
        let case = Case::new(dir.path(), "jsonl", &clean, &dirty, broken, crlf);
        for (cmd, _) in &cmds {
            let (base, may_refuse) = json_args(cmd);
            let checks = Checks {
                may_refuse,
                share: if cmd == "sql" { "1" } else { "1%" },
                any_first: cmd == "sql",
                reason_ok: |r| r.len() > 4,
            };
            case.check(cmd, &base, &checks);
        }
    }
}

#[test]
fn a_json_value_that_does_not_fit_is_put_aside_by_the_typed_commands() {
    let mut clean = String::new();
    let mut dirty = String::new();
    let mut want_q = String::new();
    for i in 0..200 {
        let good = format!("{{\"id\":{i},\"amount\":{}.5,\"tags\":[{i},1]}}\n", i % 13);
        clean.push_str(&good);
        dirty.push_str(&good);
        if i % 23 == 5 {
            // Half way through its list, or at its last field.
            let bad = if i % 2 == 0 {
                format!("{{\"id\":{i},\"amount\":1.5,\"tags\":[1,2,\"x\"]}}\n")
            } else {
                format!("{{\"id\":{i},\"tags\":[3],\"amount\":\"n/a\"}}\n")
            };
            dirty.push_str(&bad);
            want_q.push_str(&bad);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let (c, d) = (dir.path().join("clean.jsonl"), dir.path().join("dirty.jsonl"));
    std::fs::write(&c, clean).unwrap();
    std::fs::write(&d, dirty).unwrap();
    // The clean file's schema, given whole: inferred from the dirty file,
    // tags would be text (mixed), and every value would fit.
    let schema = dir.path().join("schema.json");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_swath"))
        .args(["json", "schema", "--json", c.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::write(&schema, &o.stdout).unwrap();
    for cmd in ["json to-parquet", "json to-arrow"] {
        let (mut base, _) = json_args(cmd);
        base.extend(["--schema", schema.to_str().unwrap()]);
        let out = dir.path().join("out");
        let (want, err) = answer(cmd, &argv(&base, "1", &[]), &c, &c, &out, &[]);
        assert_eq!(want.code, 0, "{err}");
        for threads in ["1", "2"] {
            let out = dir.path().join(format!("out{threads}"));
            let extra = ["--on-bad", "quarantine={out}/q.jsonl"].map(String::from);
            let (mut got, err) = answer(cmd, &argv(&base, threads, &extra), &d, &c, &out, &[]);
            assert_eq!(got.code, 1, "{cmd}: {err}");
            assert_eq!(
                got.outputs.remove("q.jsonl").unwrap(),
                want_q.as_bytes(),
                "{cmd} {threads}"
            );
            let why = String::from_utf8(got.outputs.remove("q.jsonl.errors.csv").unwrap()).unwrap();
            assert!(why.contains("field \"\"amount\"\""), "{why}");
            assert!(why.contains("field \"\"tags.[]\"\""), "{why}");
            assert_eq!(got.outputs, want.outputs, "{cmd} at {threads} threads");
        }
    }
}

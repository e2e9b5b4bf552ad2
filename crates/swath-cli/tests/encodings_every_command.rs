//! Text in other encodings through every command, table-driven from the
//! CLI's own definition: each command that takes `--encoding` reads a copy
//! of a CSV file in another encoding, named or `auto`, as the UTF-8
//! file's text (the same answer), or refuses it with an error that names
//! the encoding (a command that cuts a file into byte ranges). It never
//! reads the copy's bytes as UTF-8 with exit 0.
//!
//! The copies are made by Python's codecs, not by swath's decoder
//! (`encoding_rs`): windows-1252 and ISO-8859-1 (western text), UTF-16
//! with a byte order mark and without, big- and little-endian (every
//! script, a character outside the BMP), UTF-32 with a BOM, GB18030,
//! Shift_JIS, EUC-KR and Big5 (each its own script). Pieces of 16 KiB
//! (`SWATH_SPAN_BYTES`) make the decoders of a file cut it in many
//! places, on two threads.
//!
//! Commands that do not take `--encoding` are listed in
//! `common::commands::BYTE_COMMANDS` and [`JSON`] with the reason: a new
//! csv command must take it.

use std::path::Path;
use std::process::{Command, Output};

mod common;

use common::answers::{answer, swath_in_pieces as swath};

/// JSON's reason for not taking the option; the byte commands'
/// (`common::commands::BYTE_COMMANDS`) are the others.
const JSON: (&str, &str) = ("json ", "JSON is UTF-8 (RFC 8259)");

/// One copy: its name, the label given to `--encoding`, Python's codec,
/// the text it holds (names the encoding can write), and whether it
/// starts with a byte order mark (read without `--encoding` too).
struct Copy {
    name: &'static str,
    label: &'static str,
    codec: &'static str,
    names: &'static [&'static str],
    bom: bool,
    /// Text of many scripts with no byte order mark: `auto` may not be
    /// sure of it (and must say so).
    mixed: bool,
}

const WESTERN: &[&str] = &["José", "Zoë", "Müller", "Ångström", "naïve", "plain"];
const CP1252: &[&str] = &["José", "“quoted”", "€5", "Œuvre", "plain", "Zoë"];
const EVERY: &[&str] = &["José", "東京", "서울", "😀 smile", "Łódź", "plain"];
const JAPANESE: &[&str] = &["山田", "たなか", "東京都", "ｶﾀｶﾅ", "plain", "ソフト"];
const CHINESE: &[&str] = &["张伟", "北京市", "上海", "王芳", "plain", "深圳"];
const TRADITIONAL: &[&str] = &["張偉", "臺北市", "高雄", "許功蓋", "plain", "台中"];
const KOREAN: &[&str] = &["김민준", "서울특별시", "부산", "이서연", "plain", "인천"];

fn copies() -> Vec<Copy> {
    let c = |name, label, codec, names: &'static [&'static str], bom| Copy {
        name,
        label,
        codec,
        names,
        bom,
        mixed: names == EVERY && !bom,
    };
    vec![
        c("cp1252", "windows-1252", "cp1252", CP1252, false),
        c("latin1", "latin-1", "latin-1", WESTERN, false),
        c("utf16-bom", "utf-16le", "utf-16", EVERY, true),
        c("utf16le", "utf-16le", "utf-16-le", EVERY, false),
        c("utf16be", "utf-16be", "utf-16-be", EVERY, false),
        c("utf32-bom", "utf-32le", "utf-32", EVERY, true),
        c("gb18030", "gb18030", "gb18030", EVERY, false),
        c("gbk", "gbk", "gbk", CHINESE, false),
        c("shift_jis", "shift_jis", "shift_jis", JAPANESE, false),
        c("euc-kr", "euc-kr", "euc-kr", KOREAN, false),
        c("big5", "big5", "big5", TRADITIONAL, false),
        c("utf8-bom", "utf-8", "utf-8-sig", EVERY, true),
    ]
}

/// A CSV file of `names` (quoted commas and newlines, a header row).
fn csv_text(names: &[&str]) -> String {
    let mut csv = String::from("id,name,score,note\n");
    for i in 0..3000u32 {
        let name = names[i as usize % names.len()];
        let note = match i % 4 {
            0 => format!("{name} plain"),
            1 => format!("\"{name}, b {i}\""),
            2 => format!("\"two\r\nlines {name} {i}\""),
            _ => format!("\"say \"\"{name}\"\" {i}\""),
        };
        csv.push_str(&format!("{i},{name},{}.{},{note}\n", i % 97, i % 10));
    }
    csv
}

/// `text` written by Python's codec `codec` to `out`.
fn python_encode(text_file: &Path, codec: &str, out: &Path) {
    let script = "import sys\n\
        text = open(sys.argv[1], encoding='utf-8', newline='').read()\n\
        open(sys.argv[3], 'wb').write(text.encode(sys.argv[2]))\n";
    let o = Command::new("python3")
        .args(["-c", script, text_file.to_str().unwrap(), codec, out.to_str().unwrap()])
        .output()
        .expect("python3 runs (every machine of ours has it)");
    assert!(o.status.success(), "python3 {codec}: {}", String::from_utf8_lossy(&o.stderr));
}

/// What says how the input was read, not what it holds: decoded text is
/// sniffed from its head, a UTF-8 file at places spread over it (where a
/// quoted CRLF may make its line ends "mixed").
const HOW: &[&str] = &["samples:", "(", "encoding:", "confidence:", "line end:"];

#[test]
fn every_csv_command_reads_text_in_any_encoding_or_refuses_it_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let with_encoding: Vec<String> = common::commands::taking(
        "--encoding <",
        &[common::commands::BYTE_COMMANDS, &[JSON]].concat(),
    )
    .into_iter()
    .map(|(cmd, _)| cmd)
    .collect();
    let mut runs = 0;
    let mut failures = Vec::new();
    assert!(with_encoding.len() >= 15, "{with_encoding:?}");

    for (k, copy) in copies().iter().enumerate() {
        let plain = dir.path().join(format!("plain{k}.csv"));
        std::fs::write(&plain, csv_text(copy.names)).unwrap();
        let file = dir.path().join(format!("{}.csv", copy.name));
        python_encode(&plain, copy.codec, &file);
        for cmd in &with_encoding {
            let (args, may_refuse) = common::commands::csv_args(cmd);
            if may_refuse && copy.codec == "utf-8-sig" {
                // UTF-8 is read as it is: the index and the parts are of
                // the file's bytes, its byte order mark included.
                continue;
            }
            let base = dir.path().join(format!("out-{k}-{}", cmd.replace(' ', "-")));
            let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            let (want, err) = answer(cmd, &args, &plain, &plain, &base.join("plain"), HOW);
            assert_eq!(want.code, 0, "swath {cmd} on the UTF-8 file failed: {err}");
            // Named, detected, and (with a byte order mark) not named.
            let mut ways = vec![vec!["--encoding".to_string(), copy.label.to_string()]];
            ways.push(vec!["--encoding".into(), "auto".into()]);
            if copy.bom {
                ways.push(Vec::new());
            }
            for (w, way) in ways.iter().enumerate() {
                let out = base.join(format!("{}-{w}", copy.name));
                let all: Vec<String> = way.iter().cloned().chain(args.iter().cloned()).collect();
                let (got, err) = answer(cmd, &all, &file, &plain, &out, HOW);
                runs += 1;
                let names_it = err.to_lowercase().contains("text cannot be split");
                let refused = got.code != 0 && names_it && got.outputs.is_empty();
                // An automatic choice may name a superset: the text is the
                // same (gbk is read by gb18030's decoder, ASCII by any).
                // `auto` may be unsure of a text of many scripts; then it
                // says so.
                let unsure = way.contains(&"auto".to_string())
                    && got.code == 0
                    && err.contains("--encoding auto read it as")
                    && err.contains("not certain");
                let ok = got == want || (may_refuse && refused) || (copy.mixed && unsure);
                if !ok {
                    failures.push(format!(
                        "swath {cmd} {way:?} on the {} copy: exit {}, stderr {:?}, stdout {:?} (UTF-8: {:?})",
                        copy.name,
                        got.code,
                        err.trim(),
                        got.stdout.chars().take(160).collect::<String>(),
                        want.stdout.chars().take(160).collect::<String>(),
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} runs wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A file in a single-byte encoding is read by ranges of its text on
/// every core (`swath::text::DecodedFile`): cut in many pieces and many
/// chunks here, on three threads, every parallel command gives the UTF-8
/// file's answer, and `-v` says it ran in parallel.
#[test]
fn single_byte_text_is_read_in_parallel_with_the_utf8_answer() {
    let dir = tempfile::tempdir().unwrap();
    for (codec, label, names) in
        [("cp1252", "windows-1252", CP1252), ("latin-1", "latin-1", WESTERN)]
    {
        let plain = dir.path().join(format!("plain-{codec}.csv"));
        std::fs::write(&plain, csv_text(names)).unwrap();
        let file = dir.path().join(format!("{codec}.csv"));
        python_encode(&plain, codec, &file);
        let parallel = ["-t", "3", "--chunk-size", "5000"];
        for (cmd, args) in [
            ("csv count", vec![]),
            ("csv check", vec![]),
            ("csv select", vec!["-c", "name,note"]),
            ("csv search", vec!["-s", "name", "o"]),
            ("csv to-json", vec![]),
            ("csv stats", vec![]),
        ] {
            let run = |f: &Path, enc: &[&str]| {
                let argv: Vec<String> = cmd
                    .split(' ')
                    .chain(parallel)
                    .chain(enc.iter().copied())
                    .chain(args.iter().copied())
                    .chain(["--verbose", f.to_str().unwrap()])
                    .map(str::to_string)
                    .collect();
                swath(&argv)
            };
            let want = run(&plain, &[]);
            assert!(want.status.success(), "{cmd}: {}", String::from_utf8_lossy(&want.stderr));
            for enc in [label, "auto"] {
                let got = run(&file, &["--encoding", enc]);
                let err = String::from_utf8_lossy(&got.stderr);
                assert!(got.status.success(), "{cmd} --encoding {enc}: {err}");
                let named = |o: &Output, f: &Path| {
                    String::from_utf8_lossy(&o.stdout).replace(f.to_str().unwrap(), "FILE")
                };
                assert_eq!(
                    named(&got, &file),
                    named(&want, &plain),
                    "{cmd} --encoding {enc} on {codec}"
                );
                if cmd != "csv stats" {
                    assert!(
                        err.contains("parallel") || err.contains("validating scan"),
                        "{cmd} --encoding {enc}: not in parallel: {err}"
                    );
                }
            }
        }
    }
}

//! Preambles and footers through every command, table-driven from the
//! CLI's own definition: each command that takes `--skip-rows` reads an
//! export with title lines before its header and a "Totals" footer after
//! its data, told where the records are (`--skip-rows`, `--header-row`,
//! `--skip-until`, with `--skip-last`), as the clean file's records: the
//! same answer. So does an Excel export whose first line is `sep=;`, read
//! without `-d`. The export is also read gzip-compressed and in UTF-16
//! (a byte order mark), where a command that cuts byte ranges may refuse
//! by name instead.
//!
//! Commands that do not take `--skip-rows` are listed in
//! `common::commands::BYTE_COMMANDS` and [`JSON`] with the reason: a new
//! csv command must take it.

use std::io::Write;
use std::path::Path;

mod common;

use common::gzip;

use common::answers::{answer, swath_in_pieces as swath};

/// JSON's reason for not taking the option; the byte commands'
/// (`common::commands::BYTE_COMMANDS`) are the others.
const JSON: (&str, &str) = ("json ", "JSON documents have no preamble");

/// Records with quoted delimiters and line ends, delimited by `d`.
fn records(d: char) -> String {
    let mut csv = format!("id{d}name{d}score{d}note\n");
    for i in 0..600u32 {
        let name = ["ann", "bob", "Zoë", "dan"][i as usize % 4];
        let note = match i % 4 {
            0 => format!("{name} plain"),
            1 => format!("\"{name}{d} b {i}\""),
            2 => format!("\"two\r\nlines {i}\""),
            _ => format!("\"say \"\"{name}\"\" {i}\""),
        };
        csv.push_str(&format!("{i}{d}{name}{d}{}.{}{d}{note}\n", i % 97, i % 10));
    }
    csv
}

/// Title lines an export puts first: a stray quote, the delimiter, a line
/// that looks like a record of one field, an empty line.
fn preamble(lines: usize) -> String {
    let made = [
        "Sales report, all regions",
        "Source: system \"X",
        "",
        "Generated 2023-10-31 14:03",
        "a,b",
    ];
    (0..lines).map(|i| format!("{}\n", made[i % made.len()])).collect()
}

/// The footer: a totals line of another shape, a note, a blank line.
const FOOTER: &str = "Totals,,1234.5\n(600 rows)\n\n";

/// What says how the input was read, not what it holds (`records:`
/// names the lines around them).
const HOW: &[&str] = &["samples:", "(", "encoding:", "confidence:", "line end:", "records:"];

fn utf16(plain: &Path, out: &Path) {
    let text = std::fs::read_to_string(plain).unwrap();
    let mut bytes = vec![0xFF, 0xFE];
    for u in text.encode_utf16() {
        bytes.extend_from_slice(&u.to_le_bytes());
    }
    std::fs::File::create(out).unwrap().write_all(&bytes).unwrap();
}

/// The ways to say where the records of a file with `pre` preamble lines
/// are (the header row is the line after them).
fn ways(pre: usize) -> Vec<Vec<String>> {
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    vec![
        s(&["--skip-rows", &pre.to_string(), "--skip-last", "2"]),
        s(&["--header-row", &(pre + 1).to_string(), "--skip-last", "2"]),
        s(&["--skip-until", "^id,name,", "--skip-last", "2"]),
    ]
}

#[test]
fn every_csv_command_reads_the_records_between_a_preamble_and_a_footer() {
    let dir = tempfile::tempdir().unwrap();
    let mut with_skip = Vec::new();
    for (cmd, help) in common::commands::taking(
        "--skip-rows <",
        &[common::commands::BYTE_COMMANDS, &[JSON]].concat(),
    ) {
        assert!(
            ["--header-row <", "--skip-until <", "--skip-last <"].iter().all(|o| help.contains(o)),
            "swath {cmd}: --skip-rows without the others"
        );
        with_skip.push(cmd);
    }
    assert!(with_skip.len() >= 15, "{with_skip:?}");

    let clean = dir.path().join("clean.csv");
    std::fs::write(&clean, records(',')).unwrap();
    // Copies: (name, file, the ways to read it, whether it is compressed
    // or decoded).
    let mut copies = Vec::new();
    for pre in [1usize, 5, 40] {
        let file = dir.path().join(format!("pre{pre}.csv"));
        std::fs::write(&file, format!("{}{}{FOOTER}", preamble(pre), records(','))).unwrap();
        copies.push((format!("pre{pre}"), file.clone(), ways(pre), false));
        if pre == 5 {
            let gz = dir.path().join("pre5.csv.gz");
            gzip(&file, &gz);
            copies.push(("pre5.gz".to_string(), gz, ways(pre), true));
            let wide = dir.path().join("pre5-utf16.csv");
            utf16(&file, &wide);
            copies.push(("pre5-utf16".to_string(), wide, ways(pre), true));
        }
    }
    let mut runs = 0;
    let mut failures = Vec::new();
    for cmd in &with_skip {
        let (args, may_refuse) = common::commands::csv_args(cmd);
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let base = dir.path().join(format!("out-{}", cmd.replace(' ', "-")));
        let (want, err) = answer(cmd, &args, &clean, &clean, &base.join("clean"), HOW);
        assert_eq!(want.code, 0, "swath {cmd} on the clean file failed: {err}");
        let want = comparable(cmd, want, &clean, &[], &base.join("clean"));
        for (name, file, ways, recoded) in &copies {
            for (w, way) in ways.iter().enumerate() {
                let out = base.join(format!("{name}-{w}"));
                let all: Vec<String> = way.iter().cloned().chain(args.iter().cloned()).collect();
                let (got, err) = answer(cmd, &all, file, &clean, &out, HOW);
                runs += 1;
                let refused = got.code != 0
                    && err.to_lowercase().contains("cannot be split")
                    && got.outputs.is_empty();
                if may_refuse && *recoded && refused {
                    continue;
                }
                let got = comparable(cmd, got, file, way, &out);
                if got != want {
                    failures.push(format!(
                        "swath {cmd} {way:?} on {name}: exit {}, stderr {:?}, stdout {:?} (clean: {:?})",
                        got.code,
                        err.trim(),
                        got.stdout.chars().take(200).collect::<String>(),
                        want.stdout.chars().take(200).collect::<String>(),
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

/// What two runs must agree on. An index holds the file's byte offsets:
/// what it answers is compared instead (a slice through it).
fn comparable(
    cmd: &str,
    mut a: common::answers::Answer,
    file: &Path,
    way: &[String],
    out: &Path,
) -> common::answers::Answer {
    if cmd == "csv index" && a.code == 0 {
        let idx = out.join("i.swathidx");
        let argv: Vec<String> = ["csv", "slice", "--start", "590", "--index-file"]
            .iter()
            .map(|s| s.to_string())
            .chain([idx.to_str().unwrap().to_string()])
            .chain(way.iter().cloned())
            .chain([file.to_str().unwrap().to_string()])
            .collect();
        let o = swath(&argv);
        assert!(o.status.success(), "{argv:?}: {}", String::from_utf8_lossy(&o.stderr));
        a.stdout = String::from_utf8_lossy(&o.stdout).to_string();
        a.outputs.clear();
    }
    a
}

/// Excel's `sep=;` first line names the delimiter: every command reads
/// the file without `-d` as the clean file with `-d ';'`.
#[test]
fn an_excel_sep_line_names_the_delimiter_for_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean.csv");
    std::fs::write(&clean, records(';')).unwrap();
    let excel = dir.path().join("excel.csv");
    std::fs::write(&excel, format!("sep=;\r\n{}", records(';'))).unwrap();
    let with_bom = dir.path().join("excel-bom.csv");
    std::fs::write(&with_bom, format!("\u{feff}sep=;\n{}", records(';'))).unwrap();
    let mut failures = Vec::new();
    for (cmd, help) in common::commands::leaf_commands() {
        if !cmd.starts_with("csv ") || !help.contains("--skip-rows <") || cmd == "csv sniff" {
            continue;
        }
        let (args, _) = common::commands::csv_args(&cmd);
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let base = dir.path().join(format!("out-{}", cmd.replace(' ', "-")));
        let semi: Vec<String> =
            ["-d", ";"].iter().map(|s| s.to_string()).chain(args.clone()).collect();
        let (want, err) = answer(&cmd, &semi, &clean, &clean, &base.join("clean"), HOW);
        assert_eq!(want.code, 0, "swath {cmd} on the clean file failed: {err}");
        let want = comparable(&cmd, want, &clean, &["-d".into(), ";".into()], &base.join("clean"));
        for (k, file) in [&excel, &with_bom].into_iter().enumerate() {
            let out = base.join(format!("excel-{k}"));
            let (got, err) = answer(&cmd, &args, file, &clean, &out, HOW);
            let got = comparable(&cmd, got, file, &[], &out);
            if got != want {
                failures.push(format!(
                    "swath {cmd} on {}: exit {}, stderr {:?}, stdout {:?} (clean: {:?})",
                    file.display(),
                    got.code,
                    err.trim(),
                    got.stdout.chars().take(200).collect::<String>(),
                    want.stdout.chars().take(200).collect::<String>(),
                ));
            }
        }
        // Another delimiter named: refused, naming the line.
        let comma: Vec<String> = ["-d", ","].iter().map(|s| s.to_string()).chain(args).collect();
        let (got, err) = answer(&cmd, &comma, &excel, &clean, &base.join("comma"), HOW);
        if got.code == 0 || !err.contains("sep=;") {
            failures.push(format!("swath {cmd} -d , on sep=;: exit {}, {err:?}", got.code));
        }
    }
    assert!(failures.is_empty(), "{} wrong:\n{}", failures.len(), failures.join("\n"));
}

/// `csv sniff` finds the preamble and the footer by itself, and `-d auto`
/// reads what it found: the clean file's records.
#[test]
fn sniff_finds_the_preamble_and_footer_and_auto_reads_past_them() {
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean.csv");
    std::fs::write(&clean, records(',')).unwrap();
    let run = |args: &[&str]| {
        let argv: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let o = swath(&argv);
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let want = run(&["csv", "select", "-c", "1-", clean.to_str().unwrap()]);
    for (pre, d) in [(1usize, ','), (5, ','), (40, ','), (3, ';')] {
        let file = dir.path().join(format!("pre{pre}{d}.csv"));
        let footer = FOOTER.replace(',', &d.to_string());
        std::fs::write(&file, format!("{}{}{footer}", preamble(pre), records(d))).unwrap();
        let f = file.to_str().unwrap();
        let doc: serde_json::Value =
            serde_json::from_str(&run(&["csv", "sniff", "--json", f])).unwrap();
        assert_eq!(doc["skip_rows"], pre as u64, "{doc}");
        assert_eq!(doc["skip_last"], 2, "{doc}");
        assert_eq!(doc["delimiter"], d.to_string(), "{doc}");
        let got = run(&["csv", "select", "-d", "auto", "-c", "1-", f]);
        assert_eq!(got.replace(d, ","), want.replace(d, ","), "-d auto on {pre} lines, {d}");
    }
    // A file whose records start at the top has no preamble.
    let doc: serde_json::Value =
        serde_json::from_str(&run(&["csv", "sniff", "--json", clean.to_str().unwrap()])).unwrap();
    assert_eq!((doc["skip_rows"].as_u64(), doc["skip_last"].as_u64()), (Some(0), Some(0)));
}

/// `--excel` writes Excel's `sep=X` line first; every command reads the
/// output back, without `-d`, as the records written.
#[test]
fn excel_output_starts_with_its_sep_line_and_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let clean = dir.path().join("clean.csv");
    std::fs::write(&clean, records(';')).unwrap();
    let c = clean.to_str().unwrap();
    let run = |args: &[&str]| {
        let argv: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let o = swath(&argv);
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let want = run(&["csv", "select", "-d", ";", "-c", "1-", c]);
    for (k, cmd) in
        [&["csv", "select", "-c", "1-"][..], &["csv", "search", "a"][..]].iter().enumerate()
    {
        for threads in ["1", "2"] {
            let out = dir.path().join(format!("excel-{k}-{threads}.csv"));
            let o = out.to_str().unwrap();
            let mut args = cmd.to_vec();
            args.extend(["--excel", "-d", ";", "-t", threads, "-o", o, c]);
            run(&args);
            let written = std::fs::read_to_string(&out).unwrap();
            assert!(written.starts_with("sep=;\nid;name;"), "{cmd:?}: {:?}", &written[..20]);
            let back = run(&["csv", "select", "-c", "1-", o]);
            if k == 0 {
                assert_eq!(back, want, "{cmd:?} --excel read back");
            }
            assert_eq!(
                run(&["csv", "count", o]).trim(),
                run(&["csv", "count", "-d", ";", "--skip-rows", "1", o]).trim()
            );
        }
    }
}

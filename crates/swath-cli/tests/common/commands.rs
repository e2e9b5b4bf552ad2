//! The CLI's commands, as its own help lists them: the tables of the
//! every-command tests are driven by this, so a new command is covered
//! without anyone naming it.

use std::process::{Command, Stdio};

/// The leaf commands of the CLI, as `swath --help` lists them, walked down
/// every subcommand, each with its whole `--help` text.
#[allow(dead_code)] // Not every test file walks the commands.
pub fn leaf_commands() -> Vec<(String, String)> {
    fn walk(path: &[String], out: &mut Vec<(String, String)>) {
        let help = Command::new(env!("CARGO_BIN_EXE_swath"))
            .args(path)
            .arg("--help")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(help.status.success(), "swath {path:?} --help failed");
        let text = String::from_utf8(help.stdout).unwrap();
        let subs: Vec<String> = text
            .lines()
            .skip_while(|l| !l.starts_with("Commands:"))
            .skip(1)
            .take_while(|l| l.starts_with("  "))
            .filter_map(|l| l.split_whitespace().next().map(str::to_string))
            .filter(|name| name != "help")
            .collect();
        if subs.is_empty() {
            out.push((path.join(" "), text));
        }
        for s in subs {
            walk(&[path, &[s]].concat(), out);
        }
    }
    let mut out = Vec::new();
    walk(&[], &mut out);
    out
}

/// Commands that take no input file.
#[allow(dead_code)]
pub const NO_INPUT: &[&str] = &["gen", "completions", "man"];

/// The leaf commands that take an input file and `option` (as their help
/// shows it, `--encoding <`). Every other command with an input must be
/// in `without` (a name, or a prefix such as `"json "`, and why): a new
/// command that forgets the option fails here.
#[allow(dead_code)]
pub fn taking(option: &str, without: &[(&str, &str)]) -> Vec<(String, String)> {
    let cmds = leaf_commands();
    assert!(cmds.len() >= 30, "the command list looks short");
    let mut out = Vec::new();
    for (cmd, help) in cmds {
        if NO_INPUT.iter().any(|n| cmd == *n || cmd.starts_with(&format!("{n} "))) {
            continue;
        }
        if !help.contains(option) {
            let listed = without.iter().any(|(n, _)| cmd == *n || cmd.starts_with(n));
            assert!(listed, "swath {cmd} takes a file but no {option}: give it one, or say why");
            continue;
        }
        out.push((cmd, help));
    }
    out
}

/// The commands with an input that read bytes, not a CSV file's text or
/// records, and so take no text or record options, and why: what every
/// every-command test of such an option lists as not taking it.
#[allow(dead_code)]
pub const BYTE_COMMANDS: &[(&str, &str)] = &[
    ("count", "lines are bytes: counts line feeds, as wc -l"),
    ("index", "lines are bytes"),
    ("split", "lines are bytes"),
    ("tail", "lines are bytes"),
    ("sample", "lines are bytes"),
    ("lab", "measures how a file's bytes are read"),
    ("sql", "a lean build has no SQL, only a note on how to install it"),
];

/// The arguments each csv command (and `swath sql`) needs beyond its
/// file (`{file}`, and `{out}` for a directory of outputs), and whether
/// it may refuse a compressed or decoded copy (it cuts byte ranges).
#[allow(dead_code)]
pub fn csv_args(cmd: &str) -> (Vec<&'static str>, bool) {
    match cmd {
        "csv select" => (vec!["-c", "id,name", "{file}"], false),
        "csv search" => (vec!["-s", "name", "a", "{file}"], false),
        "csv frequency" => (vec!["-s", "name", "{file}"], false),
        // Every record of the small test files.
        "csv head" => (vec!["-n", "100000", "{file}"], false),
        "csv to-parquet" => (vec!["{file}", "-o", "{out}/o.parquet"], false),
        "csv to-arrow" => (vec!["{file}", "-o", "{out}/o.arrow"], false),
        // Its index is of the file's bytes: a test may compare what it
        // answers instead.
        "csv index" => (vec!["{file}", "--index-file", "{out}/i.swathidx"], true),
        // By records: cuts by bytes fall elsewhere in a copy that is
        // longer or shorter than the file (a preamble, another encoding).
        "csv split" => (vec!["{file}", "--rows", "150", "-o", "{out}"], true),
        "csv slice" => (vec!["{file}", "--start", "7", "--len", "5"], false),
        "csv tail" => (vec!["-n", "4", "{file}"], false),
        "csv sample" => (vec!["-n", "9", "--seed", "7", "{file}"], false),
        // CSV out: a table's padding would follow the length of the path.
        "sql" => {
            (vec!["--csv", "SELECT count(*), sum(id), min(name), max(note) FROM '{file}'"], false)
        }
        _ => (vec!["{file}"], false),
    }
}

/// The arguments each json command that writes records needs beyond its
/// file, as [`csv_args`] has them.
#[allow(dead_code)]
pub fn json_args(cmd: &str) -> (Vec<&'static str>, bool) {
    match cmd {
        "json select" => (vec!["-f", "id,name,req.ms", "{file}"], false),
        "json to-parquet" => (vec!["{file}", "-o", "{out}/o.parquet"], false),
        "json to-arrow" => (vec!["{file}", "-o", "{out}/o.arrow"], false),
        "json split" => (vec!["{file}", "--rows", "150", "-o", "{out}"], false),
        "sql" => (
            vec!["--csv", "SELECT count(*), sum(id), min(name), max(req['ms']) FROM '{file}'"],
            false,
        ),
        _ => (vec!["{file}"], false),
    }
}

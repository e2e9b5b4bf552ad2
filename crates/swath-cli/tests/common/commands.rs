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

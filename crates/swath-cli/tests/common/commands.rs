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

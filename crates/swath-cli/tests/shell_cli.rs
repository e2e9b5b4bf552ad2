//! `swath completions` and `swath man`, generated from the clap definition.

use assert_cmd::Command;

fn stdout(args: &[&str]) -> String {
    let out = Command::cargo_bin("swath").unwrap().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn completions_name_the_commands_in_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let text = stdout(&["completions", shell]);
        for word in ["count", "csv", "search", "threads"] {
            assert!(text.contains(word), "{shell} completions lack {word:?}");
        }
    }
    let bad = Command::cargo_bin("swath").unwrap().args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn man_is_roff_with_the_exit_codes() {
    let text = stdout(&["man"]);
    assert!(
        text.starts_with(".ie") || text.contains(".TH swath"),
        "{}",
        &text[..200.min(text.len())]
    );
    assert!(text.contains("Exit status"), "the man page carries --help's exit codes");
    assert!(text.contains("count") && text.contains("csv"));
}

//! One run of a command on a copy of an input (compressed, in another
//! encoding) and what it left, comparable with its run on the plain file:
//! the every-command tests compare the two.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Run swath with spans and text pieces of 16 KiB: a small file is cut
/// into many, decoded by the workers rather than front to back.
pub fn swath_in_pieces(args: &[String]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_swath"));
    cmd.args(args).stdin(Stdio::null()).env("SWATH_SPAN_BYTES", "16384");
    cmd.output().unwrap()
}

/// What a run left: exit code, stdout (the input's name made the plain
/// one's), and the outputs in its directory ([`super::outputs_in`]).
#[derive(Debug, PartialEq)]
pub struct Answer {
    pub code: i32,
    pub stdout: String,
    pub outputs: BTreeMap<String, Vec<u8>>,
}

/// Run `swath CMD ARGS` on `file` (`{file}` in `args`), writing into `out`
/// (`{out}`), as [`swath_in_pieces`]: the answer, with `file` named as
/// `plain`, and stderr. The lines of `sniff` and `schema` that start with
/// one of `how` say how the input was read, not what it holds: left out.
pub fn answer(
    cmd: &str,
    args: &[String],
    file: &Path,
    plain: &Path,
    out: &Path,
    how: &[&str],
) -> (Answer, String) {
    std::fs::create_dir_all(out).unwrap();
    let argv: Vec<String> = cmd
        .split(' ')
        .map(str::to_string)
        .chain(args.iter().map(|a| {
            a.replace("{file}", file.to_str().unwrap()).replace("{out}", out.to_str().unwrap())
        }))
        .collect();
    let o = swath_in_pieces(&argv);
    let stdout = String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| {
            !(cmd.ends_with("sniff") || cmd.ends_with("schema"))
                || !how.iter().any(|h| l.starts_with(h))
        })
        .collect::<Vec<_>>()
        .join("\n")
        .replace(file.to_str().unwrap(), plain.to_str().unwrap())
        .replace(
            file.file_name().unwrap().to_str().unwrap(),
            plain.file_name().unwrap().to_str().unwrap(),
        );
    let outputs = super::outputs_in(out);
    let code = o.status.code().unwrap_or(-1);
    (Answer { code, stdout, outputs }, String::from_utf8_lossy(&o.stderr).to_string())
}

//! Exit codes, as ripgrep and xan have them, so that a script can tell a
//! bad file from a failed run.

use std::process::ExitCode;

/// What `swath --help` says about them.
pub const HELP: &str = "\
Exit status:
  0  success (`csv check`: the file is valid)
  1  the work ran and found problems (`csv check`: the file has errors)
  2  an error: bad usage, a file that cannot be read or written, a
     malformed input where records were needed, a failed lab method
130  interrupted (Ctrl-C)";

/// The run did what was asked.
pub fn success() -> ExitCode {
    ExitCode::SUCCESS
}

/// The run went through and found problems in its input (`csv check`).
pub fn problems() -> ExitCode {
    ExitCode::from(1)
}

/// The run failed (clap's usage errors exit with 2 too).
pub fn error() -> ExitCode {
    ExitCode::from(2)
}

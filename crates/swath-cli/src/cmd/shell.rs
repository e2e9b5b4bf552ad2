//! `swath completions SHELL` and `swath man`: generated from the clap
//! definition, so they never drift from the options.

use std::io::{self, Write};
use std::process::ExitCode;

use anyhow::Result;
use clap::CommandFactory;
use clap_complete::Shell;

/// Print a shell completion script (e.g. `swath completions bash >
/// /etc/bash_completion.d/swath`).
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    shell: CompletionShell,
}

/// The shells completions are generated for.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

/// Print the man page (roff), e.g. `swath man > swath.1`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {}

/// Run `swath completions`.
pub fn completions(args: CompletionsArgs) -> Result<ExitCode> {
    let shell = match args.shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
    };
    let mut cmd = crate::Cli::command();
    let mut out = io::stdout().lock();
    clap_complete::generate(shell, &mut cmd, "swath", &mut out);
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Run `swath man`.
pub fn man(_: ManArgs) -> Result<ExitCode> {
    let mut out = io::stdout().lock();
    clap_mangen::Man::new(crate::Cli::command()).render(&mut out)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

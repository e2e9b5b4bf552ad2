//! `swath`: read very large files fast, with flat memory.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Counts every allocation, so `swath lab` can report bytes allocated.
#[global_allocator]
static ALLOC: swath_lab::CountingAlloc = swath_lab::CountingAlloc;

mod count;
mod csv;
mod gen;
mod json;
mod lab;
mod output;

/// Read very large files fast, with flat memory, and prove it with numbers.
#[derive(Debug, Parser)]
#[command(name = "swath", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    Count(count::Args),
    Csv(csv::Args),
    Gen(gen::Args),
    Lab(lab::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Count(args) => count::run(args),
        Command::Csv(args) => csv::run(args),
        Command::Gen(args) => gen::run(args),
        Command::Lab(args) => lab::run(args),
    };
    match result {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            let _ = writeln!(io::stderr(), "swath: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// A closed pipe (`swath ... | head`) is not an error worth a message.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause.downcast_ref::<io::Error>().is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
            || cause.downcast_ref::<swath::Error>().is_some_and(swath::Error::is_broken_pipe)
    })
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }
}

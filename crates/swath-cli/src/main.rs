//! `swath`: read very large files fast, with flat memory.

use std::io::{self, Write};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Counts every allocation, so `swath lab` can report bytes allocated.
#[global_allocator]
static ALLOC: swath_lab::CountingAlloc = swath_lab::CountingAlloc;

mod args;
mod cmd;
mod exit;
// What a lean build answers for SQL and URLs; compiled in every build so
// that its tests run in the full one, where it is unused.
#[cfg_attr(any(feature = "sql", feature = "remote"), allow(dead_code))]
mod lean;
mod output;
mod pick;
mod progress;
mod quarantine;
mod remote;
mod sidecar;
mod small_memory;

#[cfg(feature = "sql")]
use cmd::sql;
use cmd::{count, csv, gen, json, lab, lines, shell};

/// Read very large files fast, with flat memory, and prove it with numbers.
#[derive(Debug, Parser)]
#[command(name = "swath", version, about, propagate_version = true, after_help = format!("{}\n\n{}", exit::HELP, remote::HELP))]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// No progress display on stderr (it is shown only on a terminal, for
    /// runs longer than a second).
    #[arg(short, long, global = true)]
    quiet: bool,
    /// The file to read in a zip archive of several (an archive of one
    /// needs no name); any command, any input that is a zip archive.
    #[arg(long, global = true, value_name = "NAME")]
    member: Option<String>,
}

// One value per run, parsed once: its size does not matter (the lean
// build, without SQL's arguments, has the csv ones largest by far).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    Count(count::Args),
    Csv(csv::Args),
    Json(json::Args),
    Gen(gen::Args),
    Lab(lab::Args),
    #[cfg(feature = "sql")]
    Sql(sql::Args),
    /// SQL over CSV files (DataFusion): not in this lean build; says how
    /// to install the full swath.
    #[cfg(not(feature = "sql"))]
    Sql(lean::SqlArgs),
    Completions(shell::CompletionsArgs),
    Man(shell::ManArgs),
    Index(lines::index::Args),
    Split(lines::split::Args),
    Tail(lines::tail::Args),
    Sample(lines::sample::Args),
}

fn main() -> ExitCode {
    if small_memory::fit_allocator_to_limit().is_some() {
        // The input's pages, read once, would crowd out the binary's own.
        swath::memory::set_drop_behind(true);
    }
    remote::install();
    let cli = Cli::parse();
    swath::decompress::set_zip_member(cli.member.clone());
    let csv = matches!(cli.command, Command::Csv(_));
    let result = match cli.command {
        Command::Count(args) => count::run(args, cli.quiet),
        Command::Csv(args) => csv::run(args),
        Command::Json(args) => json::run(args, cli.quiet),
        Command::Gen(args) => gen::run(args),
        Command::Lab(args) => lab::run(args),
        #[cfg(feature = "sql")]
        Command::Sql(args) => sql::run(args),
        #[cfg(not(feature = "sql"))]
        Command::Sql(args) => lean::sql(args),
        Command::Completions(args) => shell::completions(args),
        Command::Man(args) => shell::man(args),
        Command::Index(args) => lines::index::run(args),
        Command::Split(args) => lines::split::run(args),
        Command::Tail(args) => lines::tail::run(args),
        Command::Sample(args) => lines::sample::run(args),
    };
    // What `--encoding ...:lossy` replaced, said once, whatever the result.
    for (replaced, encoding) in swath::text::take_replacements() {
        let _ = writeln!(io::stderr(), "swath: note: {}", replaced.describe(encoding));
    }
    for doubt in swath::text::take_doubts() {
        let _ = writeln!(io::stderr(), "swath: warning: {doubt}");
    }
    match result {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            let line = report(&err);
            let hint = if csv && not_utf8(&line) {
                "; if the file is in another encoding, `swath csv sniff FILE` names it and \
                 `--encoding auto` reads it"
            } else {
                ""
            };
            let _ = writeln!(io::stderr(), "swath: {line}{hint}");
            exit::error()
        }
    }
}

/// The error and its causes on one line, each cause once: our error types
/// show their cause in their own message and also hand it out as their
/// `source`, so the plain chain would repeat "No such file" three times.
fn report(err: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in err.chain() {
        let msg = cause.to_string();
        // A repeat is the tail of what is already there; a cause that
        // only happens to occur inside an earlier message is kept.
        if line.ends_with(&msg) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&msg);
    }
    line
}

/// The error is text that is not UTF-8 (the CSV reader's or Arrow's
/// words for it).
fn not_utf8(line: &str) -> bool {
    line.contains("not valid UTF-8") || line.contains("as utf8: invalid UTF-8")
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
    fn a_report_names_each_cause_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file");
        let err =
            anyhow::Error::new(io).context("x.csv: No such file").context("cannot read x.csv");
        assert_eq!(super::report(&err), "cannot read x.csv: x.csv: No such file");
        let err = anyhow::anyhow!("plain");
        assert_eq!(super::report(&err), "plain");
        let err = anyhow::anyhow!("5").context("record 5 is bad");
        assert_eq!(super::report(&err), "record 5 is bad: 5");
    }

    #[test]
    fn cli_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }
}

//! `-d auto`: every csv command reads the dialect `swath csv sniff` finds.
//!
//! The options are resolved while the arguments are parsed
//! ([`clap::FromArgMatches`] for [`CsvOpts`]), so every command gets a
//! plain delimiter, quote and escape and none needs to know about
//! sniffing. A `--quote` or `--escape` given too wins over the sniffed one;
//! the header row stays as `--no-headers` says (the sniffed guess is
//! printed with `-v`).

use clap::parser::ValueSource;
use clap::{ArgMatches, Args, Command, FromArgMatches};
use swath_csv::sniff::Sniffer;

use super::{CsvArgs, CsvOpts};
use crate::args::dialect::Delimiter;
use crate::args::DialectArgs;

impl std::ops::Deref for CsvOpts {
    type Target = CsvArgs;
    fn deref(&self) -> &CsvArgs {
        &self.args
    }
}

// `opts.no_headers` and the like read through both.
impl std::ops::Deref for CsvArgs {
    type Target = DialectArgs;
    fn deref(&self) -> &DialectArgs {
        &self.dialect
    }
}

impl Args for CsvOpts {
    fn augment_args(cmd: Command) -> Command {
        CsvArgs::augment_args(cmd)
    }
    fn augment_args_for_update(cmd: Command) -> Command {
        CsvArgs::augment_args_for_update(cmd)
    }
}

impl FromArgMatches for CsvOpts {
    fn from_arg_matches(m: &ArgMatches) -> Result<CsvOpts, clap::Error> {
        let args = CsvArgs::from_arg_matches(m)?;
        let mut opts = resolve(args, m)?;
        // Records written to standard output on a terminal show progress
        // themselves; `output` is the id of every command's `-o`.
        let to_stdout = m
            .try_get_one::<std::path::PathBuf>("output")
            .ok()
            .flatten()
            .is_some_and(|o| o.as_os_str() == "-");
        let streams = to_stdout && std::io::IsTerminal::is_terminal(&std::io::stdout());
        let quiet = m.try_get_one::<bool>("quiet").ok().flatten().copied().unwrap_or(false);
        let watch = crate::progress::watch(&[opts.args.file.as_path()], quiet, streams);
        opts.progress = Some(std::sync::Arc::new(watch));
        Ok(opts)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = CsvOpts::from_arg_matches(m)?;
        Ok(())
    }
}

fn given(m: &ArgMatches, id: &str) -> bool {
    m.value_source(id) == Some(ValueSource::CommandLine)
}

/// Sniff the file when `-d auto`.
fn resolve(mut args: CsvArgs, m: &ArgMatches) -> Result<CsvOpts, clap::Error> {
    if !given(m, "delimiter") {
        // Excel's `sep=X` first line names the delimiter. (An error here
        // is the command's to report, when it opens the file.)
        let how = args.dialect.decoding();
        if let Ok(Some(d)) = swath_csv::preamble::excel_sep_of(&args.file, how) {
            args.dialect.delimiter = Delimiter::Byte(d);
        }
    }
    if args.delimiter != Delimiter::Auto {
        return Ok(CsvOpts { args, quoting: true, progress: None });
    }
    let fail = |msg: String| clap::Error::raw(clap::error::ErrorKind::ValueValidation, msg);
    let name = args.file.display().to_string();
    if !crate::remote::rereadable(&args.file) {
        return Err(fail(format!(
            "-d auto needs a file to sniff, and {name} is a stream (it cannot be read twice): \
             give -d, or save it to a file first"
        )));
    }
    let mut sniffer = Sniffer::new().encoding(args.dialect.decoding());
    let told = args.dialect.body.is_given();
    if told {
        sniffer = sniffer.skip(args.dialect.body.skip());
        if let Some(n) = args.dialect.body.skip_last {
            sniffer = sniffer.footer_lines(n);
        }
    }
    let s = sniffer
        .sniff_path(&args.file)
        .map_err(|e| fail(format!("-d auto: cannot sniff {name}: {e}")))?;
    // The lines around the records found, where none were named (an
    // Excel `sep=` line is skipped by every reader without being named).
    let layout = s.layout;
    if !told {
        let preamble = layout.skip_lines - u64::from(layout.excel_sep);
        if preamble > 0 {
            args.dialect.body.skip_rows = Some(layout.skip_lines);
        }
        if layout.footer_lines > 0 {
            args.dialect.body.skip_last = Some(layout.footer_lines);
        }
    }
    // The encoding found, where none was named.
    if let (None, Some(e)) = (args.dialect.encoding, s.encoding.decoded()) {
        args.dialect.encoding = Some(swath::text::Decoding::named(e));
    }
    let d = s.dialect;
    args.dialect.delimiter = Delimiter::Byte(d.delimiter);
    let mut quoting = true;
    if !given(m, "quote") {
        match d.quote {
            Some(q) => args.dialect.quote = q,
            None => quoting = false,
        }
    }
    if !given(m, "escape") {
        args.dialect.escape = d.escape;
    }
    let verbose = m.try_get_one::<bool>("verbose").ok().flatten().copied().unwrap_or(false);
    if verbose {
        eprintln!("swath: {name}: sniffed {}", super::sniff::summary(&s));
        if !told && (layout.skip_lines > 0 || layout.footer_lines > 0) {
            eprintln!(
                "swath: {name}: the records are after {} line(s) and before {} (read as \
                 --skip-rows {} --skip-last {})",
                layout.skip_lines, layout.footer_lines, layout.skip_lines, layout.footer_lines
            );
        }
        if d.has_headers == args.no_headers {
            let hint = if d.has_headers {
                "it looks like a header row: drop --no-headers to read it as one"
            } else {
                "it looks like data: --no-headers reads it as a record"
            };
            eprintln!("swath: {name}: the first record: {hint}");
        }
        for x in &s.disagreements {
            eprintln!(
                "swath: {name}: warning: the records from byte {} read better with delimiter {}",
                x.byte,
                super::sniff::byte_name(x.delimiter)
            );
        }
    }
    Ok(CsvOpts { args, quoting, progress: None })
}

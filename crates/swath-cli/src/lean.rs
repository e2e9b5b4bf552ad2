//! What a lean `swath` (built without the `full` feature) says when it is
//! asked for what it leaves out: `swath sql` (DataFusion, feature `sql`)
//! and URLs (object_store, feature `remote`). The default build is lean so
//! that a fresh clone reaches `swath lab` in minutes (docs/build.md); the
//! message names the one command that installs the rest.
//!
//! The module is compiled in every build, so its tests run in the full
//! test build too; only its wiring (the `sql` stub, the URL opener, `-o`
//! with a URL) is behind `cfg(not(feature = ...))`.

use std::ffi::OsString;
use std::io;
use std::path::Path;

/// The command that builds and installs everything (run in a clone of the
/// repository), as a literal for `concat!`.
macro_rules! install_full {
    () => {
        "cargo install --locked --path crates/swath-cli --features full"
    };
}
// Used by the lean `--help` (remote.rs) only.
#[cfg_attr(feature = "remote", allow(unused_imports))]
pub(crate) use install_full;

/// The command that builds and installs everything.
pub const INSTALL_FULL: &str = install_full!();

/// Why `swath sql` cannot run here, and how to get it.
pub fn sql_missing() -> String {
    format!(
        "swath sql needs DataFusion, which this swath was built without (the default, \
         lean build); install the full swath with: {INSTALL_FULL}"
    )
}

/// Why `url` cannot be read or written here, and how to get it.
pub fn url_missing(url: &str) -> String {
    format!(
        "{url}: URLs are read and written by swath-remote, which this swath was built \
         without (the default, lean build); install the full swath with: {INSTALL_FULL}"
    )
}

/// `swath sql` in a lean build: takes whatever it is given, so that the
/// answer to any `swath sql ...` is the install command, not a usage error.
#[derive(Debug, clap::Args)]
pub struct SqlArgs {
    /// The query and options of the full build's `swath sql`.
    #[arg(num_args = 0.., trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<OsString>,
}

/// The lean `swath sql`: an error naming the install command.
///
/// # Errors
///
/// Always.
pub fn sql(_: SqlArgs) -> anyhow::Result<std::process::ExitCode> {
    anyhow::bail!("{}", sql_missing())
}

/// The core's URL opener in a lean build: every URL is an error naming the
/// install command (the core's own says only that no opener is there).
pub fn open_url(url: &str) -> swath::Result<(std::sync::Arc<dyn swath::ReadAt>, u64)> {
    let err = io::Error::new(io::ErrorKind::Unsupported, url_missing(url));
    Err(swath::Error::from(err))
}

/// An output path that is a URL, in a lean build: the same error, before a
/// local file of that odd name is tried.
pub fn check_output(path: &Path) -> io::Result<()> {
    match swath::remote::as_url(path) {
        Some(url) => Err(io::Error::new(io::ErrorKind::Unsupported, url_missing(url))),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Debug, Parser)]
    struct Cli {
        #[command(flatten)]
        sql: SqlArgs,
    }

    #[test]
    fn the_sql_stub_takes_any_arguments_and_names_the_install_command() {
        let cli = Cli::try_parse_from(["sql", "SELECT 1", "--table", "t=x.csv", "-d", "tab"])
            .expect("any arguments parse");
        let err = sql(cli.sql).unwrap_err().to_string();
        assert!(err.contains("swath sql needs DataFusion"), "{err}");
        assert!(err.contains(INSTALL_FULL), "{err}");
    }

    #[test]
    fn a_url_is_an_error_naming_itself_and_the_install_command() {
        let err = open_url("s3://b/k.csv").err().expect("no URL is opened").to_string();
        assert!(err.contains("s3://b/k.csv") && err.contains(INSTALL_FULL), "{err}");
        let err = check_output(Path::new("s3://lake/x.parquet")).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::Unsupported);
        assert!(err.to_string().contains(INSTALL_FULL));
        check_output(Path::new("out.parquet")).expect("a path is not a URL");
        check_output(Path::new("./s3:/b/k")).expect("a path that looks like one is a path");
    }
}

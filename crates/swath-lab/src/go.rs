//! The Go side of the lab (`swath lab --go`): the article's ten ways and
//! the second text's five benchmarks, as a Go program (`go/main.go`,
//! written for swath from the texts' descriptions) that the lab writes to
//! a temporary module, builds with the Go toolchain on PATH, and runs once
//! per run of each Go method, as it runs its own child for a Rust method.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Go program's source.
pub const SOURCE: &str = include_str!("go/main.go");

/// How to get Go, for the message when it is absent.
pub const HOW_TO_GET_GO: &str =
    "install a Go toolchain (Debian/Ubuntu: apt-get install golang-go; elsewhere: https://go.dev/dl/)";

/// A built Go program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoProgram {
    /// The binary.
    pub exe: PathBuf,
    /// `go version`'s answer (`go1.19.8 linux/amd64`).
    pub version: String,
}

/// Why there is no Go program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoError {
    /// No `go` on PATH (the message says how to get it).
    Absent(String),
    /// The toolchain is there but the build failed (its output).
    Failed(String),
}

impl std::fmt::Display for GoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GoError::Absent(m) | GoError::Failed(m) => f.write_str(m),
        }
    }
}

/// The `go` command, with the module's build kept offline and local: no
/// proxy, no toolchain download, the build cache under `dir` when the user
/// has no home to keep one in.
fn go(dir: &Path) -> Command {
    let mut cmd = Command::new("go");
    cmd.env("GOPROXY", "off").env("GOTOOLCHAIN", "local").env("GOFLAGS", "-mod=mod");
    if std::env::var_os("HOME").is_none() && std::env::var_os("GOCACHE").is_none() {
        cmd.env("GOCACHE", dir.join("go-cache"));
    }
    cmd
}

/// Write the module to `dir/go` and build it.
///
/// # Errors
///
/// [`GoError::Absent`] when `go` is not on PATH, [`GoError::Failed`] when
/// the module cannot be written or built.
pub fn build(dir: &Path) -> Result<GoProgram, GoError> {
    let failed = |what: &str, e: io::Error| GoError::Failed(format!("{what}: {e}"));
    let version = match go(dir).arg("version").output() {
        Ok(out) if out.status.success() => {
            let v = String::from_utf8_lossy(&out.stdout);
            v.trim().trim_start_matches("go version ").to_string()
        }
        Ok(out) => {
            return Err(GoError::Failed(format!(
                "go version failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )))
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(GoError::Absent(format!(
                "no Go toolchain on PATH, so the Go methods are left out; to run them, \
                 {HOW_TO_GET_GO}"
            )))
        }
        Err(e) => return Err(failed("cannot run go", e)),
    };
    let module = dir.join("go");
    fs::create_dir_all(&module).map_err(|e| failed("cannot create the Go module", e))?;
    // go 1.18: the oldest toolchain the program needs; newer ones build it as is.
    fs::write(module.join("go.mod"), "module swathlabgo\n\ngo 1.18\n")
        .and_then(|()| fs::write(module.join("main.go"), SOURCE))
        .map_err(|e| failed("cannot write the Go module", e))?;
    let exe = module.join("swath-lab-go");
    let out = go(dir)
        .current_dir(&module)
        .args(["build", "-o"])
        .arg(&exe)
        .arg(".")
        .output()
        .map_err(|e| failed("cannot run go build", e))?;
    if !out.status.success() {
        return Err(GoError::Failed(format!(
            "go build failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(GoProgram { exe, version })
}

//! Every reading command finishes inside a 64 MiB memory limit, with the
//! answer it gives without one (issue 39), on a file larger than the limit:
//! the CSV commands on a CSV file, then the JSON-lines commands and a JSON
//! table in `swath sql` on a JSON-lines log (issue 40).
//!
//! The limit is a memory cgroup (v2 `memory.max`, or v1
//! `memory.limit_in_bytes`), which charges the page cache to the group as
//! a container does, where this process may make one (root and a memory
//! controller: CI's machines). Elsewhere it is `RLIMIT_AS`, said loudly on
//! stderr: a cap on address space rather than on memory, so it is set
//! higher ([`ADDRESS_SPACE`]) and swath does not see it as a small
//! container. How fast each command runs capped is `bench/run memcap`'s
//! to measure, not a test's.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The cgroup's limit.
const LIMIT: u64 = 64 << 20;

/// The address-space cap where no cgroup can be made: a debug swath maps
/// its binary, a stack per thread and glibc's arenas (64 MiB of address
/// space each) before it allocates anything.
const ADDRESS_SPACE: u64 = 1 << 30;

/// How the capped runs are capped.
enum Cap {
    /// A cgroup of ours; removed on drop.
    Cgroup(PathBuf),
    AddressSpace,
}

impl Cap {
    fn new() -> Cap {
        match make_cgroup() {
            Some(dir) => Cap::Cgroup(dir),
            None => {
                eprintln!(
                    "!!!!! small_container: no memory cgroup can be made here (not root, or no \
                     memory controller): the capped runs are under RLIMIT_AS = {} MiB instead, \
                     a cap on address space, not on memory",
                    ADDRESS_SPACE >> 20
                );
                Cap::AddressSpace
            }
        }
    }

    /// `swath args`, capped.
    fn command(&self, args: &[&str]) -> Command {
        match self {
            Cap::Cgroup(dir) => {
                // The shell joins the group, then becomes swath.
                let mut cmd = Command::new("sh");
                cmd.args(["-c", "echo $$ > \"$0/cgroup.procs\" && exec \"$@\""])
                    .arg(dir)
                    .arg(env!("CARGO_BIN_EXE_swath"))
                    .args(args);
                cmd
            }
            Cap::AddressSpace => {
                let mut cmd = Command::new(env!("CARGO_BIN_EXE_swath"));
                cmd.args(args);
                let cap = libc::rlimit { rlim_cur: ADDRESS_SPACE, rlim_max: ADDRESS_SPACE };
                // SAFETY: setrlimit is async-signal-safe, and the closure
                // touches nothing else.
                unsafe {
                    cmd.pre_exec(move || {
                        if libc::setrlimit(libc::RLIMIT_AS, &cap) != 0 {
                            return Err(std::io::Error::last_os_error());
                        }
                        Ok(())
                    });
                }
                cmd
            }
        }
    }
}

impl Drop for Cap {
    fn drop(&mut self) {
        if let Cap::Cgroup(dir) = self {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

/// A memory cgroup of [`LIMIT`] bytes, without swap, or `None`.
fn make_cgroup() -> Option<PathBuf> {
    let root = Path::new("/sys/fs/cgroup");
    let name = format!("swath-test-{}", std::process::id());
    let v2 = std::fs::read_to_string(root.join("cgroup.controllers"))
        .is_ok_and(|c| c.split_whitespace().any(|c| c == "memory"));
    let (dir, limit_file) = if v2 {
        // Children of the root get the memory controller (a no-op when
        // they have it already).
        let _ = std::fs::write(root.join("cgroup.subtree_control"), "+memory");
        (root.join(name), "memory.max")
    } else if root.join("memory").is_dir() {
        (root.join("memory").join(name), "memory.limit_in_bytes")
    } else {
        return None;
    };
    std::fs::create_dir(&dir).ok()?;
    if std::fs::write(dir.join(limit_file), LIMIT.to_string()).is_err() {
        let _ = std::fs::remove_dir(&dir);
        return None;
    }
    let _ = std::fs::write(dir.join("memory.swap.max"), "0");
    Some(dir)
}

/// Run `cmd`, its stdout into `out`; assert it succeeded.
fn run(mut cmd: Command, out: &Path, what: &str) {
    cmd.stdout(std::fs::File::create(out).unwrap()).stderr(Stdio::piped());
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{what}: {:?} {}", o.status, String::from_utf8_lossy(&o.stderr));
}

#[test]
fn every_reading_command_finishes_in_64_mib_with_the_same_answer() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("big.csv");
    let csv_arg = csv.display().to_string();
    // About 160 MB: more than twice the limit, so the page cache cannot keep it.
    let gen = Command::new(env!("CARGO_BIN_EXE_swath"))
        .args(["gen", "csv", "--rows", "3000000", "--seed", "7", &csv_arg])
        .output()
        .unwrap();
    assert!(gen.status.success());
    assert!(std::fs::metadata(&csv).unwrap().len() > 2 * LIMIT);
    let cap = Cap::new();
    // Commands whose answer is their standard output, or the file they write
    // (`-o OUT`, filled in below).
    let commands: Vec<Vec<&str>> = vec![
        vec!["count", "-t", "2"],
        vec!["csv", "count", "-t", "2"],
        vec!["csv", "check", "-t", "2"],
        vec!["csv", "select", "-t", "2", "-c", "id,city"],
        vec!["csv", "stats", "-t", "2"],
        vec!["csv", "to-json", "-t", "2"],
        vec!["csv", "to-arrow", "-t", "2", "-o", "OUT"],
        vec!["csv", "to-parquet", "-t", "2", "-o", "OUT"],
        vec!["csv", "to-parquet", "-t", "1", "-o", "OUT"],
    ];
    // Inside a small cgroup, csv to-parquet decodes 1 MiB chunks.
    each_same_answer_capped(&cap, dir.path(), &commands, "1048576", &csv_arg);
    if cfg!(feature = "sql") {
        // No float sums: their order of addition varies between runs.
        let query = format!(
            "SELECT city, count(*), min(score), max(score) FROM '{csv_arg}' GROUP BY city ORDER BY city"
        );
        same_sql_answer_capped(&cap, dir.path(), &query);
    }
    drop(std::fs::remove_file(&csv));

    // JSON lines (issue 40): about 157 MB of the generated application log.
    let jsonl = dir.path().join("app.jsonl");
    let jsonl_arg = jsonl.display().to_string();
    let gen = Command::new(env!("CARGO_BIN_EXE_swath"))
        .args(["gen", "jsonl", "--lines", "600000", "--seed", "7", &jsonl_arg])
        .output()
        .unwrap();
    assert!(gen.status.success());
    assert!(std::fs::metadata(&jsonl).unwrap().len() > 2 * LIMIT);
    let commands: Vec<Vec<&str>> = vec![
        vec!["json", "count", "-t", "2"],
        vec!["json", "check", "-t", "2"],
        vec!["json", "schema", "--infer", "full", "-t", "2"],
        vec!["json", "select", "-t", "2", "-f", "ts,req.status,user.name"],
        vec!["json", "to-csv", "-t", "2"],
        vec!["json", "to-arrow", "-t", "2", "-o", "OUT"],
        vec!["json", "to-parquet", "-t", "2", "-o", "OUT"],
        vec!["json", "to-parquet", "-t", "1", "-o", "OUT"],
    ];
    // Inside a small cgroup, json to-parquet decodes 256 KiB chunks.
    each_same_answer_capped(&cap, dir.path(), &commands, "262144", &jsonl_arg);
    if cfg!(feature = "sql") {
        let query = format!(
            "SELECT service, count(*), max(req['status']), min(ts) FROM '{jsonl_arg}' \
             GROUP BY service ORDER BY service"
        );
        same_sql_answer_capped(&cap, dir.path(), &query);
    }
}

/// [`same_answer_capped`] for each of `commands` on `input`. Inside a
/// small cgroup to-parquet closes row groups at an eighth of the limit and
/// decodes `small_chunk` bytes at a time: the uncapped run is given the
/// same settings, so both write the same file.
fn each_same_answer_capped(
    cap: &Cap,
    dir: &Path,
    commands: &[Vec<&str>],
    small_chunk: &str,
    input: &str,
) {
    let in_cgroup = matches!(cap, Cap::Cgroup(_));
    for args in commands {
        let layout: Vec<&str> = if in_cgroup && args[1] == "to-parquet" {
            vec!["--row-group-size", "8M", "--chunk-size", small_chunk]
        } else {
            Vec::new()
        };
        same_answer_capped(cap, dir, args, &layout, input);
    }
}

/// Run `swath args... FILE` uncapped (with `layout` added) and capped, and
/// assert both succeed with the same answer: their standard output, or the
/// file they write where `args` holds `OUT`.
fn same_answer_capped(cap: &Cap, dir: &Path, args: &[&str], layout: &[&str], input: &str) {
    let file = |name: &str| dir.join(name).display().to_string();
    let (free_out, capped_out) = (file("free.out"), file("capped.out"));
    let writes = args.contains(&"OUT");
    let with = |out: &str, extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = args
            .iter()
            .map(|a| if *a == "OUT" { out.to_string() } else { a.to_string() })
            .collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v.push(input.to_string());
        v
    };
    let mut free = Command::new(env!("CARGO_BIN_EXE_swath"));
    free.args(with(&free_out, layout));
    let stdout_free = dir.join("free.stdout");
    run(free, &stdout_free, &format!("{args:?} uncapped"));
    let capped_args = with(&capped_out, &[]);
    let refs: Vec<&str> = capped_args.iter().map(String::as_str).collect();
    let stdout_capped = dir.join("capped.stdout");
    run(cap.command(&refs), &stdout_capped, &format!("{args:?} capped"));
    let (a, b) = if writes {
        (PathBuf::from(&free_out), PathBuf::from(&capped_out))
    } else {
        (stdout_free, stdout_capped)
    };
    let (a, b) = (std::fs::read(a).unwrap(), std::fs::read(b).unwrap());
    assert!(!a.is_empty(), "{args:?}: no answer");
    assert!(a == b, "{args:?}: the capped answer is not the uncapped one");
}

/// Run `swath sql --memory 32M QUERY` uncapped and capped; assert both
/// succeed with the same, non-trivial answer.
fn same_sql_answer_capped(cap: &Cap, dir: &Path, query: &str) {
    let args = ["sql", "-t", "2", "--memory", "32M", "--csv", query];
    let mut free = Command::new(env!("CARGO_BIN_EXE_swath"));
    free.args(args);
    let (stdout_free, stdout_capped) = (dir.join("f.sql"), dir.join("c.sql"));
    run(free, &stdout_free, &format!("{query}: uncapped"));
    run(cap.command(&args), &stdout_capped, &format!("{query}: capped"));
    let (a, b) = (std::fs::read(stdout_free).unwrap(), std::fs::read(stdout_capped).unwrap());
    assert!(a.len() > 100 && a == b, "{query}: the capped answer is not the uncapped one");
}

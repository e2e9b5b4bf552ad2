//! What several CLI test files share.

#[allow(dead_code)] // Only the every-command tests compare answers.
pub mod answers;
pub mod commands;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};

use swath_arrow::arrow_array::RecordBatch;
use swath_arrow::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

/// What a finished child did: its exit code, its peak RSS in bytes (its
/// own `ru_maxrss`, the kernel's VmHWM at exit, read with `wait4`) and the
/// bytes it read (`rchar` of `/proc/PID/io`, read while it is a zombie:
/// every `read` and `pread` counts, page cache hits included).
#[allow(dead_code)] // Not every test file reads every part.
pub struct Finished {
    pub code: i32,
    pub peak_rss: u64,
    pub bytes_read: u64,
}

/// Run `cmd` (its stdout discarded) to its end; return its exit code and
/// its peak RSS in bytes. A child killed by a signal fails the test.
#[allow(dead_code)]
pub fn exit_code_and_peak_rss(mut cmd: Command) -> (i32, u64) {
    cmd.stdout(Stdio::null());
    let f = run_to_end(cmd);
    (f.code, f.peak_rss)
}

/// Run `cmd` to its end; see [`Finished`].
// The child is reaped with wait4 (for its rusage), not `Child::wait`.
#[allow(clippy::zombie_processes)]
pub fn run_to_end(mut cmd: Command) -> Finished {
    let child = cmd.spawn().unwrap();
    let pid = child.id() as libc::pid_t;
    // Wait for the exit without reaping, so /proc still has the child.
    // SAFETY: a zeroed siginfo_t is a valid out-parameter.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for.
    let r = unsafe {
        libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, libc::WEXITED | libc::WNOWAIT)
    };
    assert_eq!(r, 0, "waitid: {}", std::io::Error::last_os_error());
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).unwrap_or_default();
    let bytes_read = io
        .lines()
        .find_map(|l| l.strip_prefix("rchar: "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(u64::MAX);
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid out-parameter.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, exited and not yet reaped (`child` is
    // never waited on: dropping a `Child` does not wait).
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(r, pid, "wait4: {}", std::io::Error::last_os_error());
    assert!(libc::WIFEXITED(status), "{cmd:?} was killed: status {status}");
    Finished {
        code: libc::WEXITSTATUS(status),
        peak_rss: usage.ru_maxrss as u64 * 1024,
        bytes_read,
    }
}

/// The Python with pyarrow and DuckDB that `.ci/peers.sh` installed
/// (`SWATH_PEER_PYTHON`). Required in CI; elsewhere the check named `what`
/// skips, saying so loudly.
#[allow(dead_code)]
pub fn peer_python(what: &str) -> Option<String> {
    match std::env::var("SWATH_PEER_PYTHON") {
        Ok(p) if !p.is_empty() => Some(p),
        _ => {
            let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
            assert!(
                !ci,
                "SWATH_PEER_PYTHON is not set in CI: run `SWATH_PEER_PYTHON=$(.ci/peers.sh)` first"
            );
            eprintln!(
                "\n*** SKIPPED {what}: SWATH_PEER_PYTHON is not set (run `export \
                 SWATH_PEER_PYTHON=$(.ci/peers.sh)` to install pyarrow and DuckDB) ***\n"
            );
            None
        }
    }
}

/// `plain` gzip-compressed into `out` (by Python's gzip module: a
/// compressor that is not ours).
#[allow(dead_code)]
pub fn gzip(plain: &Path, out: &Path) {
    let o = std::process::Command::new("python3")
        .args(["-c", "import gzip,sys; open(sys.argv[2],'wb').write(gzip.compress(open(sys.argv[1],'rb').read()))"])
        .args([plain, out])
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A Parquet file's batches.
#[allow(dead_code)]
pub fn parquet_batches(p: &Path) -> Vec<RecordBatch> {
    let f = std::fs::File::open(p).unwrap();
    ParquetRecordBatchReaderBuilder::try_new(f)
        .unwrap()
        .build()
        .unwrap()
        .map(|b| b.unwrap())
        .collect()
}

/// An Arrow IPC file's batches.
#[allow(dead_code)]
pub fn ipc_batches(p: &Path) -> Vec<RecordBatch> {
    let f = std::fs::File::open(p).unwrap();
    swath_arrow::arrow_ipc::reader::FileReader::try_new(f, None)
        .unwrap()
        .map(|b| b.unwrap())
        .collect()
}

/// The batches as one batch's debug text: rows, not their grouping.
#[allow(dead_code)]
pub fn rows_text(batches: Vec<RecordBatch>) -> Vec<u8> {
    let schema = batches.first().map(|b| b.schema());
    match schema {
        Some(s) => {
            let one = arrow_select::concat::concat_batches(&s, &batches).unwrap();
            format!("{one:?}").into_bytes()
        }
        None => b"no batches".to_vec(),
    }
}

/// The names in `dir`, sorted.
#[allow(dead_code)]
pub fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The files a run wrote into `dir`, by name: Parquet and Arrow files as
/// the text of their rows (row groups follow how the input was cut), the
/// rest as their bytes; split parts (named after the input, `_0` in their
/// names) by content, as `part 0`, `part 1`, ... in sorted order.
#[allow(dead_code)]
pub fn outputs_in(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut outputs = BTreeMap::new();
    let mut parts: Vec<Vec<u8>> = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let bytes = match p.extension().and_then(|e| e.to_str()) {
            Some("parquet") => rows_text(parquet_batches(&p)),
            Some("arrow") => rows_text(ipc_batches(&p)),
            _ => std::fs::read(&p).unwrap(),
        };
        if name.contains("_0") {
            parts.push(bytes);
        } else {
            outputs.insert(name, bytes);
        }
    }
    parts.sort();
    for (i, p) in parts.into_iter().enumerate() {
        outputs.insert(format!("part {i}"), p);
    }
    outputs
}

/// Days since 1970-01-01 as (year, month, day): Howard Hinnant's
/// civil_from_days, for tests that write dates.
#[allow(dead_code)]
pub fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

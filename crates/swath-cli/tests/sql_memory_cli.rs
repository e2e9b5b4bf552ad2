//! `swath sql --memory`: GROUP BY and ORDER BY over a file larger than the
//! limit spill to disk and give the right answer (computed here, and
//! DuckDB's where the peers are installed); a query that cannot fit is an
//! error naming the limit; the spill directory is gone afterwards, also
//! after Ctrl-C.

#![cfg(feature = "sql")]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn swath() -> Command {
    Command::new(env!("CARGO_BIN_EXE_swath"))
}

/// Distinct values of `k`: two rows each in the first test's file.
const GROUPS: u64 = 150_000;

/// `rows` records `id,k,payload`: `k` has [`GROUPS`] values, `payload` is a
/// pseudo-random 9-byte text (so a sort on it moves every row).
fn write_data(path: &Path, rows: u64) {
    use std::io::Write;
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(f, "id,k,payload").unwrap();
    for i in 0..rows {
        writeln!(f, "{i},{},{}", key(i), payload(i)).unwrap();
    }
    f.flush().unwrap();
}

fn key(i: u64) -> u64 {
    (i * 7919) % GROUPS
}

fn payload(i: u64) -> String {
    let x = i.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
    format!("p{:08}", (x >> 33) % 100_000_000)
}

/// Run a query under `--memory`, spilling into `spill`; return the exit
/// code, stdout and stderr.
fn query(file: &Path, memory: &str, spill: &Path, sql: &str) -> (Option<i32>, String, String) {
    query_on(2, file, memory, spill, sql)
}

/// [`query`] on `threads` partitions.
fn query_on(
    threads: usize,
    file: &Path,
    memory: &str,
    spill: &Path,
    sql: &str,
) -> (Option<i32>, String, String) {
    let out = swath()
        .args(["sql", "--csv", "-t", &threads.to_string(), "--memory", memory, "--spill-dir"])
        .arg(spill)
        .args(["--table", &format!("t={}", file.display()), sql])
        .output()
        .unwrap();
    let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
    (out.status.code(), text(out.stdout), text(out.stderr))
}

/// A temporary directory holding `t.csv` ([`write_data`]'s `rows` rows)
/// and an empty `spill` directory: (the directory, the file, spill).
fn data_dir(rows: u64) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.csv");
    write_data(&file, rows);
    let spill = dir.path().join("spill");
    std::fs::create_dir(&spill).unwrap();
    (dir, file, spill)
}

fn is_empty_dir(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().next().is_none()
}

/// [`ORDER_BY`]'s answer on [`write_data`]'s first `rows` rows, as CSV.
fn order_by_answer(rows: u64) -> String {
    let mut sorted: Vec<(String, u64)> = (0..rows).map(|i| (payload(i), i)).collect();
    sorted.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut want = String::from("id,payload\n");
    for (p, i) in &sorted {
        want.push_str(&format!("{i},{p}\n"));
    }
    want
}

const GROUP_BY: &str = "SELECT k, count(*) AS n, sum(id) AS s FROM t GROUP BY k ORDER BY k";
const ORDER_BY: &str = "SELECT id, payload FROM t ORDER BY payload DESC, id";

#[test]
fn group_by_and_order_by_spill_under_the_limit_and_agree() {
    let rows = 300_000;
    let (dir, file, spill) = data_dir(rows);
    // 6.8 MB of CSV, 16 MiB for both partitions: every operator's share
    // is less than its input.
    let memory = "16M";

    let mut groups = vec![(0u64, 0u64); GROUPS as usize];
    for i in 0..rows {
        let g = &mut groups[key(i) as usize];
        g.0 += 1;
        g.1 += i;
    }
    let mut want = String::from("k,n,s\n");
    for (k, (n, s)) in groups.iter().enumerate() {
        want.push_str(&format!("{k},{n},{s}\n"));
    }
    let (code, got, err) = query(&file, memory, &spill, GROUP_BY);
    assert_eq!(code, Some(0), "{err}");
    assert!(got == want, "GROUP BY under --memory {memory}: wrong answer");
    assert!(is_empty_dir(&spill), "spill files left behind");

    let want_sorted = order_by_answer(rows);
    let (code, got_sorted, err) = query(&file, memory, &spill, ORDER_BY);
    assert_eq!(code, Some(0), "{err}");
    assert!(got_sorted == want_sorted, "ORDER BY under --memory {memory}: wrong answer");
    assert!(is_empty_dir(&spill), "spill files left behind");

    // They did spill: DataFusion's own counters say so.
    for sql in [GROUP_BY, ORDER_BY] {
        let (code, plan, err) = query(&file, memory, &spill, &format!("EXPLAIN ANALYZE {sql}"));
        assert_eq!(code, Some(0), "{err}");
        let spills: u64 = plan
            .split("spill_count=")
            .skip(1)
            .map(|rest| rest.chars().take_while(char::is_ascii_digit).collect::<String>())
            .filter_map(|n| n.parse::<u64>().ok())
            .sum();
        assert!(spills > 0, "{sql}: nothing spilled under --memory {memory}:\n{plan}");
    }

    // DuckDB's answers, where the peers are installed (always in CI).
    let Some(python) = common::peer_python("the DuckDB check of swath sql --memory") else {
        return;
    };
    for (sql, swath_out) in [(GROUP_BY, &got), (ORDER_BY, &got_sorted)] {
        let out_csv = dir.path().join("duckdb.csv");
        let script = format!(
            "import duckdb\nduckdb.sql(\"CREATE VIEW t AS SELECT * FROM read_csv('{}', \
             header=true, columns={{'id':'BIGINT','k':'BIGINT','payload':'VARCHAR'}})\")\n\
             duckdb.sql(\"COPY ({sql}) TO '{}' (HEADER, DELIMITER ',')\")\n",
            file.display(),
            out_csv.display()
        );
        let status = Command::new(&python).args(["-c", &script]).status().unwrap();
        assert!(status.success(), "DuckDB failed on {sql}");
        let duck = std::fs::read_to_string(&out_csv).unwrap();
        assert!(&duck == swath_out, "{sql}: swath --memory {memory} and DuckDB differ");
    }
}

/// A sort far larger than a small limit finishes, every time, on 2 and 4
/// partitions. Before each partition's sort was held to a fixed share of
/// the limit (`swath_datafusion::memory_limited_session`), whether it
/// fitted was a race between the partitions: at 8M on 2 partitions, 8
/// runs of 10 failed, and after a first fix a CI run still failed at 4M
/// (the final merge across partitions refused its batch).
#[test]
fn a_sort_under_a_small_limit_finishes_on_every_run() {
    let rows = 1_000_000;
    let (_dir, file, spill) = data_dir(rows);
    let want = order_by_answer(rows);
    for (threads, memory) in [(2, "2M"), (2, "8M"), (4, "2M"), (4, "8M")] {
        for run in 0..2 {
            let (code, got, err) = query_on(threads, &file, memory, &spill, ORDER_BY);
            assert_eq!(code, Some(0), "-t {threads} --memory {memory}, run {run}: {err}");
            assert!(got == want, "-t {threads} --memory {memory}, run {run}: wrong answer");
            assert!(is_empty_dir(&spill), "spill files left behind");
        }
    }
}

#[test]
fn a_query_that_cannot_fit_is_an_error_naming_the_limit() {
    let (_dir, file, spill) = data_dir(100_000);
    let (code, out, err) = query(&file, "64K", &spill, ORDER_BY);
    assert_eq!(code, Some(2), "stdout: {out}\nstderr: {err}");
    assert!(err.contains("memory limit of 65536 bytes (--memory)"), "{err}");
    assert!(is_empty_dir(&spill), "spill files left behind");
}

/// Ctrl-C while the query spills: the files and swath's directory around
/// them are removed, and swath exits 130.
#[test]
fn ctrl_c_removes_the_spill_files() {
    let (dir, file, spill) = data_dir(3_000_000);
    let log = dir.path().join("stderr.txt");
    let mut child = swath()
        .args(["sql", "--csv", "-t", "2", "--memory", "8M", "--spill-dir"])
        .arg(&spill)
        .args(["--table", &format!("t={}", file.display()), ORDER_BY])
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap();
    // Wait (10 s at most) for the first spill file.
    let started = Instant::now();
    while !has_file(&spill) {
        assert!(started.elapsed() < Duration::from_secs(10), "no spill file after 10 s");
        if let Some(status) = child.try_wait().unwrap() {
            let err = std::fs::read_to_string(&log).unwrap();
            panic!("the query ended ({status:?}) before it spilled; stderr: {err}");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) }, 0);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status:?}");
    assert!(is_empty_dir(&spill), "spill files left behind after Ctrl-C");
}

/// Whether `dir` holds a file at any depth.
fn has_file(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else { return false };
    entries.flatten().any(|e| {
        let p: PathBuf = e.path();
        if p.is_dir() {
            has_file(&p)
        } else {
            true
        }
    })
}

//! swath's CSV tables on a real Ballista cluster: one scheduler and two
//! executors, each a separate `swath-cluster` process on 127.0.0.1 (ports
//! chosen free at run time), queried by a third. The answers must equal
//! swath's single-process table and DataFusion's own CSV reader in
//! `newlines_in_values` mode, on a file where a fifth of the records hold
//! a newline inside quotes, split into at least 8 partitions. Then one
//! executor is killed in the middle of a query: the query completes on
//! the survivor with the right answer, or fails with a clear error; it
//! never answers wrong.
//!
//! Every process is killed and reaped when its guard drops (also when a
//! check fails), and every wait has a deadline.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use datafusion::arrow::array::RecordBatch;
use datafusion::prelude::{CsvReadOptions, SessionConfig, SessionContext};
use swath_datafusion::{SwathCsvExt, SwathCsvOptions};
use swath_testkit::Rng;

const BIN: &str = env!("CARGO_BIN_EXE_swath-cluster");
/// The longest any one wait may take.
const DEADLINE: Duration = Duration::from_secs(180);

/// A child process whose output is collected line by line, killed and
/// reaped on drop.
struct Proc {
    name: String,
    child: Child,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Proc {
    fn start(name: &str, args: &[&str], env: &[(&str, &str)]) -> Proc {
        let mut cmd = Command::new(BIN);
        cmd.args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        let lines = Arc::new(Mutex::new(Vec::new()));
        for pipe in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let lines = lines.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                    lines.lock().unwrap().push(line);
                }
            });
        }
        Proc { name: name.to_string(), child, lines }
    }

    fn output(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }

    /// Wait until `n` lines contain `what`; the first such line.
    fn wait_for(&mut self, what: &str, n: usize) -> String {
        let start = Instant::now();
        loop {
            {
                let lines = self.lines.lock().unwrap();
                let hits: Vec<&String> = lines.iter().filter(|l| l.contains(what)).collect();
                if hits.len() >= n {
                    return hits[0].clone();
                }
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "{} exited ({status}) before saying {what:?}:\n{}",
                    self.name,
                    self.output()
                );
            }
            assert!(
                start.elapsed() < DEADLINE,
                "{} did not say {what:?} {n} times in {DEADLINE:?}:\n{}",
                self.name,
                self.output()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The scheduler and its executors.
struct Cluster {
    scheduler: Proc,
    executors: Vec<Proc>,
    url: String,
    /// The environment of every process (the client's too): credentials.
    env: Vec<(String, String)>,
    _work: tempfile::TempDir,
}

impl Cluster {
    fn start(executors: usize) -> Cluster {
        Cluster::start_with(executors, Vec::new())
    }

    fn start_with(executors: usize, env: Vec<(String, String)>) -> Cluster {
        let env_ref: Vec<(&str, &str)> =
            env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let mut scheduler_env = env_ref.clone();
        scheduler_env.push(("SWATH_LOG", "info"));
        let work = tempfile::tempdir().unwrap();
        // An executor that misses heartbeats for 4 s is dead; looked for
        // every second; its tasks then run on another.
        let mut scheduler = Proc::start(
            "scheduler",
            &[
                "scheduler",
                "--bind",
                "127.0.0.1:0",
                "--executor-timeout",
                "4",
                "--expire-interval",
                "1",
            ],
            &scheduler_env,
        );
        let line = scheduler.wait_for("listening on ", 1);
        let addr = line.rsplit("listening on ").next().unwrap().trim().to_string();
        let mut procs = Vec::new();
        for i in 0..executors {
            let dir = work.path().join(format!("executor-{i}"));
            std::fs::create_dir_all(&dir).unwrap();
            let mut e = Proc::start(
                &format!("executor {i}"),
                &[
                    "executor",
                    "--scheduler",
                    &addr,
                    "--port",
                    "0",
                    "--grpc-port",
                    "0",
                    "--concurrent-tasks",
                    "2",
                    "--heartbeat",
                    "1",
                    "--work-dir",
                    dir.to_str().unwrap(),
                ],
                &env_ref,
            );
            e.wait_for("executor on ", 1);
            procs.push(e);
        }
        // Both registered with the scheduler before any query.
        scheduler.wait_for("register executor", executors);
        Cluster { scheduler, executors: procs, url: format!("df://{addr}"), env, _work: work }
    }

    /// Run `query` on the cluster through the client; its CSV output, or
    /// its exit status and error text.
    fn sql(&self, table: &Path, split: u64, query: &str) -> Result<String, String> {
        self.sql_on(&table.display().to_string(), split, query)
    }

    /// [`Cluster::sql`] on a table given by path or URL.
    fn sql_on(&self, table: &str, split: u64, query: &str) -> Result<String, String> {
        let env: Vec<(&str, &str)> =
            self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let mut client = Proc::start(
            "client",
            &[
                "sql",
                "--cluster",
                &self.url,
                "--table",
                &format!("t={table}"),
                "--partitions",
                "8",
                "--split-size",
                &split.to_string(),
                "--csv",
                query,
            ],
            &env,
        );
        let start = Instant::now();
        let status = loop {
            if let Some(s) = client.child.try_wait().unwrap() {
                break s;
            }
            assert!(start.elapsed() < DEADLINE, "the query ran past {DEADLINE:?}: {query}");
            std::thread::sleep(Duration::from_millis(20));
        };
        // The reader threads finish at the pipes' end.
        std::thread::sleep(Duration::from_millis(100));
        let out = client.output();
        if status.success() {
            Ok(out)
        } else {
            Err(format!("{status}: {out}"))
        }
    }
}

/// id, city, qty, note: a fifth of the notes hold a newline (and a comma,
/// and a doubled quote) inside quotes.
fn write_csv(path: &Path, rows: usize, seed: u64) {
    let cities = ["Oslo", "Rome", "Lima", "Kyiv", "Pune", "Cork", "Baku"];
    let mut rng = Rng::new(seed);
    let mut s = String::from("id,city,qty,note\n");
    for id in 0..rows {
        let city = cities[rng.index(cities.len())];
        let qty = rng.below(100);
        if rng.one_in(5) {
            s.push_str(&format!(
                "{id},{city},{qty},\"two\nlines, \"\"quoted\"\" {}\"\n",
                rng.below(9)
            ));
        } else {
            s.push_str(&format!("{id},{city},{qty},plain {}\n", rng.below(9)));
        }
    }
    std::fs::write(path, s).unwrap();
}

fn to_csv(batches: &[RecordBatch]) -> String {
    let mut out = Vec::new();
    {
        let mut w = datafusion::arrow::csv::WriterBuilder::new().with_header(true).build(&mut out);
        for b in batches {
            w.write(b).unwrap();
        }
    }
    String::from_utf8(out).unwrap()
}

/// The query's answer by swath in this process, and by DataFusion's own
/// CSV reader with `newlines_in_values`.
fn local_answers(path: &Path, split: u64, query: &str) -> (String, String) {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let cfg = SessionConfig::new().with_target_partitions(8).with_repartition_file_min_size(0);
        let swath = SessionContext::new_with_config(cfg.clone());
        swath
            .register_swath_csv(
                "t",
                path.to_str().unwrap(),
                SwathCsvOptions::new().split_bytes(split),
            )
            .await
            .unwrap();
        let ours = to_csv(&swath.sql(query).await.unwrap().collect().await.unwrap());
        let df = SessionContext::new_with_config(cfg);
        df.register_csv(
            "t",
            path.to_str().unwrap(),
            CsvReadOptions::new().newlines_in_values(true),
        )
        .await
        .unwrap();
        let theirs = to_csv(&df.sql(query).await.unwrap().collect().await.unwrap());
        (ours, theirs)
    })
}

/// The query's answer by swath in this process.
fn local_swath_answer(path: &Path, split: u64, query: &str) -> String {
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let cfg = SessionConfig::new().with_target_partitions(8).with_repartition_file_min_size(0);
        let swath = SessionContext::new_with_config(cfg);
        let opts = SwathCsvOptions::new().split_bytes(split);
        swath.register_swath_csv("t", path.to_str().unwrap(), opts).await.unwrap();
        to_csv(&swath.sql(query).await.unwrap().collect().await.unwrap())
    })
}

/// The client prints its result as CSV after the logger's lines (none at
/// the default level): the lines from the header on.
fn result_of(out: &str, header: &str) -> String {
    let at = out.find(header).unwrap_or_else(|| panic!("no result header {header:?} in:\n{out}"));
    let mut s = out[at..].to_string();
    s.push('\n');
    s
}

fn data_path(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}

#[test]
fn cluster_answers_equal_one_process_and_datafusion_and_survive_a_lost_executor() {
    let dir = tempfile::tempdir().unwrap();
    let small = data_path(&dir, "orders.csv");
    write_csv(&small, 40_000, 7);
    let split = 32 << 10;
    let cluster = Cluster::start(2);

    let queries = [
        ("n", "SELECT count(*) AS n FROM t"),
        (
            "city,n,q",
            "SELECT city, count(*) AS n, sum(qty) AS q FROM t GROUP BY city ORDER BY city",
        ),
        (
            "n,q",
            "SELECT count(*) AS n, sum(qty) AS q FROM t WHERE qty > 50 AND note LIKE '%quoted%'",
        ),
        ("id,note", "SELECT id, note FROM t WHERE id % 4999 = 0 ORDER BY id"),
    ];
    for (header, q) in queries {
        let (ours, theirs) = local_answers(&small, split, q);
        assert_eq!(ours, theirs, "swath and DataFusion disagree, one process: {q}");
        let out = cluster.sql(&small, split, q).unwrap_or_else(|e| panic!("{q}: {e}"));
        assert_eq!(result_of(&out, header), ours, "the cluster's answer: {q}");
    }
    // The scheduler planned the splits and sent them: the ranges of every
    // task's scan, taken together, cut the file into at least 8 pieces
    // that tile it (Ballista gives each task a plan of its own partitions).
    let log = cluster.scheduler.output();
    let mut ranges: Vec<(u64, u64)> = log
        .lines()
        .filter_map(|l| l.split("swath scan encoded: ").nth(1)?.split(", ranges ").nth(1))
        .flat_map(|l| l.split(", ").next().unwrap_or("").split(' ').map(str::to_string))
        .filter_map(|r| {
            let (a, b) = r.rsplit_once(':')?.1.split_once("..")?;
            Some((a.parse().ok()?, b.parse().ok()?))
        })
        .collect();
    ranges.sort();
    ranges.dedup();
    assert!(ranges.len() >= 8, "fewer than 8 partitions: {ranges:?}\n{log}");
    let len = std::fs::metadata(&small).unwrap().len();
    let mut at = 0;
    for &(a, b) in &ranges {
        assert_eq!(a, at, "the ranges do not tile the file: {ranges:?}");
        at = b;
    }
    assert_eq!(at, len, "the ranges do not reach the end: {ranges:?}");
    assert!(log.contains("splits of 1 files go with it"), "no plan went with a scan:\n{log}");
    // The scheduler decodes each query's table afresh, but made the file's
    // plan once for the four queries.
    let made = log.lines().filter(|l| l.contains("swath plan made: ")).count();
    assert_eq!(made, 1, "the scheduler planned the file {made} times in four queries:\n{log}");
    let decoded: usize =
        cluster.executors.iter().map(|e| e.output().matches("swath scan decoded: ").count()).sum();
    assert!(decoded > 0, "no executor decoded a swath scan");
    drop(cluster);

    // A lost executor: a larger file, so that the query is still running
    // when the executor that took a task is killed.
    let big = data_path(&dir, "big.csv");
    write_csv(&big, 400_000, 11);
    let split = 256 << 10;
    let q = "SELECT city, count(*) AS n, count(DISTINCT note) AS d, sum(qty) AS q \
             FROM t GROUP BY city ORDER BY city";
    let (expected, theirs) = local_answers(&big, split, q);
    assert_eq!(expected, theirs, "swath and DataFusion disagree, one process: {q}");
    let mut cluster = Cluster::start(2);
    let killer = {
        // Kill executor 1 as soon as it has a task of the query.
        let lines = cluster.executors[1].lines.clone();
        let pid = cluster.executors[1].child.id();
        std::thread::spawn(move || {
            let start = Instant::now();
            while start.elapsed() < DEADLINE {
                if lines.lock().unwrap().iter().any(|l| l.contains("swath scan decoded: ")) {
                    let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
                    return true;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            false
        })
    };
    let answer = cluster.sql(&big, split, q);
    let killed = killer.join().unwrap();
    cluster.executors[1].kill();
    match answer {
        Ok(out) => {
            assert_eq!(result_of(&out, "city,n,d,q"), expected, "a wrong answer");
            eprintln!("executor 1 killed mid-query: the query completed on the survivor");
        }
        Err(e) => {
            eprintln!("executor 1 killed mid-query: the query failed, clearly: {e}");
            // A failure must say so, not print a partial result.
            assert!(e.contains("swath-cluster:"), "an unclear failure: {e}");
            assert!(!e.contains("city,n,d,q"), "a failed query printed a result: {e}");
        }
    }
    assert!(killed, "executor 1 never got a task, so it was not killed mid-query");
}

/// A table on S3: the client and the scheduler list, size and plan the
/// object, the executors read their splits of it, each process making the
/// store from its own environment. The answers equal one process's on the
/// same bytes as a local file.
#[test]
fn cluster_reads_a_table_on_s3() {
    let Some(s3) = swath_testkit::MotoServer::for_test("the cluster's S3 test") else { return };
    let dir = tempfile::tempdir().unwrap();
    let local = data_path(&dir, "orders.csv");
    write_csv(&local, 30_000, 13);
    s3.create_bucket("cluster");
    s3.put("cluster", "orders.csv", &std::fs::read(&local).unwrap());
    let mut env: Vec<(String, String)> =
        s3.env().into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    // Loopback never goes through a proxy the machine may have set; small
    // blocks, so that the splits are many GETs.
    env.push(("NO_PROXY".into(), "127.0.0.1,localhost".into()));
    env.push(("SWATH_REMOTE_BLOCK".into(), "64K".into()));
    let cluster = Cluster::start_with(2, env);
    let split = 32 << 10;
    for (header, q) in [
        ("n", "SELECT count(*) AS n FROM t"),
        (
            "city,n,q",
            "SELECT city, count(*) AS n, sum(qty) AS q FROM t GROUP BY city ORDER BY city",
        ),
        ("id,note", "SELECT id, note FROM t WHERE id % 2999 = 0 ORDER BY id"),
    ] {
        let (ours, theirs) = local_answers(&local, split, q);
        assert_eq!(ours, theirs, "swath and DataFusion disagree, one process: {q}");
        let out = cluster
            .sql_on("s3://cluster/orders.csv", split, q)
            .unwrap_or_else(|e| panic!("{q}: {e}"));
        assert_eq!(result_of(&out, header), ours, "the cluster's answer on S3: {q}");
    }
    // A prefix is a table of every object under it, listed by the
    // scheduler through the store it made.
    let parts = dir.path().join("parts");
    std::fs::create_dir(&parts).unwrap();
    for (i, name) in ["a.csv", "b.csv"].into_iter().enumerate() {
        let path = parts.join(name);
        write_csv(&path, 12_000, 17 + i as u64);
        s3.put("cluster", &format!("parts/{name}"), &std::fs::read(&path).unwrap());
    }
    for (header, q) in [
        ("n", "SELECT count(*) AS n FROM t"),
        (
            "city,n,q",
            "SELECT city, count(*) AS n, sum(qty) AS q FROM t GROUP BY city ORDER BY city",
        ),
    ] {
        // One process on the local directory (DataFusion's own reader is
        // compared on the single file above: on this directory it fails,
        // "unequal lengths between records", even with newlines_in_values).
        let ours = local_swath_answer(&parts.join(""), split, q);
        let out =
            cluster.sql_on("s3://cluster/parts/", split, q).unwrap_or_else(|e| panic!("{q}: {e}"));
        assert_eq!(result_of(&out, header), ours, "the cluster's answer on an S3 prefix: {q}");
    }
    let log = cluster.scheduler.output();
    assert!(
        log.contains("s3://cluster/orders.csv"),
        "the scheduler's scans do not name the object:\n{log}"
    );
    let decoded: usize =
        cluster.executors.iter().map(|e| e.output().matches("swath scan decoded: ").count()).sum();
    assert!(decoded > 0, "no executor decoded a swath scan of the object");
}

//! JSON lines side by side, on a generated log of 5M lines (about 1.2 GB:
//! nested objects, arrays, timestamps with milliseconds, missing keys;
//! `swath_lab::gen::jsonl`), 2 threads, warm cache, medians of runs taken
//! in turns, peak RSS from `/usr/bin/time`; every answer checked:
//!
//! 1. count: `swath json count` (every line parsed) against `wc -l` (no
//!    parsing) and `jq -c . | wc -l` (when jq is on PATH; one run);
//! 2. to Parquet: `swath json to-parquet` against the DuckDB CLI (`COPY
//!    (SELECT * FROM read_json(f)) TO`) and Polars
//!    (`scan_ndjson(f).sink_parquet`), rows read back by pyarrow;
//! 3. a GROUP BY through `swath sql` against DuckDB and Polars, the counts
//!    compared;
//! 4. in process, one thread: swath-json's decoder against arrow-json's on
//!    the same schema, the batches compared;
//! 5. one top-level array of the same records, compact (a record a line,
//!    as exports write it) and pretty-printed: `swath json count` on 2
//!    threads and on 1, `swath json to-parquet`, against `jq -c '.[]' |
//!    wc -l` (under an 8 GiB address-space cap: jq holds the document),
//!    DuckDB's `read_json(format='array')` and Polars' `read_json` (up to
//!    1 GiB: it holds the document too), the counts checked.
//!
//! Peers come from `.ci/peers.sh --bench` (SWATH_PEER_PYTHON or --python).
//!
//! `bench/build && target/release/json [--lines 5000000] [--runs 3] [--dir DIR] [--python PY]`

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use arrow_schema::{DataType, Field, Schema, SchemaRef};
use swath_bench::{arg, machine, parquet_rows, swath_binary, timed, warm};

struct Row {
    name: String,
    secs: Vec<f64>,
    rss_kib: Vec<u64>,
    out: String,
}

fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let runs: usize = arg("--runs").map_or(3, |s| s.parse().expect("--runs N"));
    let lines: u64 = arg("--lines").map_or(5_000_000, |s| s.parse().expect("--lines N"));
    let dir = arg("--dir").map_or_else(std::env::temp_dir, PathBuf::from);
    let python = arg("--python").or_else(|| std::env::var("SWATH_PEER_PYTHON").ok());
    let swath = swath_binary();
    let time = Path::new("/usr/bin/time");
    let path = dir.join(format!("swath-bench-{lines}.jsonl"));
    let sum = {
        let mut out = BufWriter::new(std::fs::File::create(&path).expect("create the file"));
        let sum = swath_lab::gen::jsonl::write(&mut out, lines, 1).expect("generate");
        out.flush().expect("write the file");
        sum
    };
    warm(&path);
    println!(
        "JSON lines bench: {} ({} bytes, {} lines), {runs} runs, 2 threads, warm cache",
        path.display(),
        sum.bytes,
        sum.lines
    );
    println!("machine: {}", machine());
    if python.is_none() {
        println!(
            "no peers: set SWATH_PEER_PYTHON=$(.ci/peers.sh --bench) or pass --python; swath only"
        );
    }
    let duckdb =
        python.as_ref().map(|p| Path::new(p).with_file_name("duckdb")).filter(|p| p.exists());
    let f = path.display().to_string();

    // 1. count
    let mut cmds: Vec<(String, Command)> = Vec::new();
    let mut c = Command::new(&swath);
    c.args(["json", "count", "-t", "2"]).arg(&path);
    cmds.push(("swath json count -t 2".into(), c));
    let mut c = Command::new("wc");
    c.arg("-l").arg(&path);
    cmds.push(("wc -l (no parsing)".into(), c));
    let rows = run_turns(&cmds, runs, time);
    for r in &rows {
        assert_eq!(first_u64(&r.out), lines, "{}: {}", r.name, r.out);
    }
    let mut all = rows;
    if Command::new("jq").arg("--version").output().is_ok_and(|o| o.status.success()) {
        let mut c = Command::new("sh");
        c.args(["-c", &format!("jq -c . {f:?} | wc -l")]);
        let jq = run_turns(&[("jq -c . | wc -l (1 run)".into(), c)], 1, time);
        assert_eq!(first_u64(&jq[0].out), lines, "jq");
        all.extend(jq);
    } else {
        println!("(jq not on PATH: its row is left out)");
    }
    table("count", &all, sum.bytes);

    // 2. to Parquet
    let out = |tool: &str| dir.join(format!("swath-bench-json-{tool}.parquet"));
    let mut cmds: Vec<(String, Command)> = Vec::new();
    let mut outs: Vec<PathBuf> = Vec::new();
    let mut c = Command::new(&swath);
    c.args(["json", "to-parquet", "-t", "2"]).arg(&path).arg("-o").arg(out("swath"));
    cmds.push(("swath json to-parquet -t 2".into(), c));
    outs.push(out("swath"));
    let copy = format!(
        "SET threads=2; COPY (SELECT * FROM read_json('{f}')) TO '{}' (FORMAT parquet)",
        out("duckdb").display()
    );
    if let Some(cli) = &duckdb {
        let mut c = Command::new(cli);
        c.args(["-c", &copy]);
        cmds.push(("duckdb CLI COPY read_json".into(), c));
        outs.push(out("duckdb"));
    }
    if let Some(py) = &python {
        let mut c = Command::new(py);
        c.env("POLARS_MAX_THREADS", "2").args([
            "-c",
            &format!(
                "import polars as pl; pl.scan_ndjson({f:?}).sink_parquet({:?})",
                out("polars").display().to_string()
            ),
        ]);
        cmds.push(("polars sink_parquet".into(), c));
        outs.push(out("polars"));
    }
    let rows = run_turns(&cmds, runs, time);
    if let Some(py) = &python {
        for (o, r) in outs.iter().zip(&rows) {
            assert_eq!(parquet_rows(py, o), lines, "{}: rows in {}", r.name, o.display());
        }
    }
    table("to Parquet", &rows, sum.bytes);
    for o in &outs {
        let _ = std::fs::remove_file(o);
    }

    // 3. GROUP BY
    let mut cmds: Vec<(String, Command)> = Vec::new();
    let q = format!(
        "SELECT level, count(*) AS n, round(avg(req['ms']), 3) AS ms FROM '{f}' GROUP BY level ORDER BY level"
    );
    let mut c = Command::new(&swath);
    c.args(["sql", "-t", "2", "--csv", &q]);
    cmds.push(("swath sql -t 2".into(), c));
    if let Some(cli) = &duckdb {
        let mut c = Command::new(cli);
        c.args(["-csv", "-c", &format!(
            "SET threads=2; SELECT level, count(*) AS n, round(avg(req.ms), 3) AS ms FROM read_json('{f}') GROUP BY level ORDER BY level"
        )]);
        cmds.push(("duckdb CLI".into(), c));
    }
    if let Some(py) = &python {
        let mut c = Command::new(py);
        c.env("POLARS_MAX_THREADS", "2").args(["-c", &format!(
            "import polars as pl, sys; pl.scan_ndjson({f:?}).group_by('level').agg(pl.len().alias('n'), \
             pl.col('req').struct.field('ms').mean().round(3).alias('ms')).sort('level').collect().write_csv(sys.stdout)"
        )]);
        cmds.push(("polars".into(), c));
    }
    let rows = run_turns(&cmds, runs, time);
    let answer = |out: &str| -> Vec<(String, u64)> {
        out.lines()
            .skip(1)
            .filter_map(|l| {
                let mut p = l.split(',');
                Some((p.next()?.trim_matches('"').to_string(), p.next()?.parse().ok()?))
            })
            .collect()
    };
    let want = answer(&rows[0].out);
    assert_eq!(want.iter().map(|(_, n)| n).sum::<u64>(), lines, "swath sql: {}", rows[0].out);
    for r in &rows[1..] {
        assert_eq!(answer(&r.out), want, "{} answers {}", r.name, r.out);
    }
    table("GROUP BY level", &rows, sum.bytes);

    in_process(&path);
    arrays(&swath, &path, &dir, lines, runs, time, python.as_deref(), duckdb.as_deref());
    let _ = std::fs::remove_file(&path);
}

/// 5: the records as one top-level array, compact and pretty-printed.
#[allow(clippy::too_many_arguments)]
fn arrays(
    swath: &Path,
    lines_path: &Path,
    dir: &Path,
    lines: u64,
    runs: usize,
    time: &Path,
    python: Option<&str>,
    duckdb: Option<&Path>,
) {
    for pretty in [false, true] {
        let name = if pretty { "pretty" } else { "compact" };
        let path = dir.join(format!("swath-bench-{lines}-{name}.json"));
        let bytes = write_array(lines_path, &path, pretty);
        warm(&path);
        let f = path.display().to_string();
        let mut cmds: Vec<(String, Command)> = Vec::new();
        for t in ["2", "1"] {
            let mut c = Command::new(swath);
            c.args(["json", "count", "-t", t]).arg(&path);
            cmds.push((format!("swath json count -t {t}"), c));
        }
        if let Some(cli) = duckdb {
            let mut c = Command::new(cli);
            c.args([
                "-csv",
                "-noheader",
                "-c",
                &format!("SET threads=2; SELECT count(*) FROM read_json('{f}', format='array')"),
            ]);
            cmds.push(("duckdb read_json(format=array)".into(), c));
        }
        // Polars' read_json holds the document and more (5.6 GiB for 526
        // MB here): left out past 1 GiB, where it would take the machine.
        match python {
            Some(py) if bytes <= 1 << 30 => {
                let mut c = Command::new(py);
                c.env("POLARS_MAX_THREADS", "2").args([
                    "-c",
                    &format!("import polars as pl; print(pl.read_json({f:?}).height)"),
                ]);
                cmds.push(("polars read_json".into(), c));
            }
            Some(_) => println!("(Polars read_json left out: {bytes} bytes, over 1 GiB)"),
            None => {}
        }
        let mut rows = run_turns(&cmds, runs, time);
        for r in &rows {
            assert_eq!(first_u64(&r.out), lines, "{}: {}", r.name, r.out);
        }
        if Command::new("jq").arg("--version").output().is_ok_and(|o| o.status.success()) {
            let mut c = Command::new("sh");
            c.args(["-c", &format!("ulimit -v 8388608; jq -c '.[]' {f:?} | wc -l")]);
            let jq = run_turns(&[("jq -c '.[]' | wc -l (8 GiB cap, 1 run)".into(), c)], 1, time);
            if first_u64(&jq[0].out) != lines {
                println!("(jq did not finish under the 8 GiB cap: {:?})", jq[0].out.trim());
            } else {
                rows.extend(jq);
            }
        }
        table(&format!("count, one top-level array ({name}, {bytes} bytes)"), &rows, bytes);
        let out = dir.join("swath-bench-json-array.parquet");
        let mut c = Command::new(swath);
        c.args(["json", "to-parquet", "-t", "2"]).arg(&path).arg("-o").arg(&out);
        let rows = run_turns(&[("swath json to-parquet -t 2".into(), c)], runs, time);
        if let Some(py) = python {
            assert_eq!(parquet_rows(py, &out), lines, "rows in {}", out.display());
        }
        table(&format!("to Parquet, one top-level array ({name})"), &rows, bytes);
        let _ = std::fs::remove_file(&out);
        let _ = std::fs::remove_file(&path);
    }
}

/// The JSON lines at `from` as one top-level array at `to`: a record a
/// line, or each record pretty-printed (two spaces a level, strings
/// copied as they are). Returns the bytes written.
fn write_array(from: &Path, to: &Path, pretty: bool) -> u64 {
    use std::io::BufRead;
    let rdr = std::io::BufReader::new(std::fs::File::open(from).expect("open the lines"));
    let mut out = BufWriter::new(std::fs::File::create(to).expect("create the array"));
    let mut n = 0u64;
    let mut buf = Vec::new();
    out.write_all(b"[\n").expect("write");
    for line in rdr.split(b'\n') {
        let line = line.expect("read");
        if line.is_empty() {
            continue;
        }
        if n > 0 {
            out.write_all(b",\n").expect("write");
        }
        buf.clear();
        if pretty {
            prettify(&line, &mut buf);
        } else {
            buf.extend_from_slice(&line);
        }
        out.write_all(&buf).expect("write");
        n += 1;
    }
    out.write_all(b"\n]\n").expect("write");
    out.flush().expect("write");
    std::fs::metadata(to).expect("the array").len()
}

/// A one-line JSON value pretty-printed: a newline and indent after each
/// `{`, `[` and `,` and before each `}` and `]` outside strings, a space
/// after each `:`.
fn prettify(line: &[u8], out: &mut Vec<u8>) {
    let (mut depth, mut in_str, mut esc) = (1usize, false, false);
    let indent = |out: &mut Vec<u8>, d: usize| {
        out.push(b'\n');
        out.resize(out.len() + 2 * d, b' ');
    };
    out.extend_from_slice(b"  ");
    for &b in line {
        if in_str {
            out.push(b);
            if esc {
                esc = false;
            } else if b == b'\\' {
                esc = true;
            } else if b == b'"' {
                in_str = false;
            }
            continue;
        }
        match b {
            b'"' => {
                in_str = true;
                out.push(b);
            }
            b'{' | b'[' => {
                out.push(b);
                depth += 1;
                indent(out, depth);
            }
            b'}' | b']' => {
                depth -= 1;
                indent(out, depth);
                out.push(b);
            }
            b',' => {
                out.push(b);
                indent(out, depth);
            }
            b':' => out.extend_from_slice(b": "),
            _ => out.push(b),
        }
    }
}

/// Each command `runs` times, in turns.
fn run_turns(cmds: &[(String, Command)], runs: usize, time: &Path) -> Vec<Row> {
    let mut rows: Vec<Row> = cmds
        .iter()
        .map(|(n, _)| Row { name: n.clone(), secs: vec![], rss_kib: vec![], out: String::new() })
        .collect();
    for _ in 0..runs {
        for ((_, cmd), r) in cmds.iter().zip(rows.iter_mut()) {
            let (secs, rss, out) = timed_output(cmd, time);
            r.secs.push(secs);
            r.rss_kib.push(rss);
            r.out = out;
        }
    }
    rows
}

/// [`timed`] and the command's standard output.
fn timed_output(cmd: &Command, time: &Path) -> (f64, u64, String) {
    // `timed` keeps only the time and RSS; run once more through a shell
    // redirect would double the time, so capture through a temp file.
    let tmp = std::env::temp_dir().join(format!("swath-bench-out-{}", std::process::id()));
    let mut c = Command::new("sh");
    let quoted: Vec<String> = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| format!("'{}'", a.to_string_lossy().replace('\'', "'\\''")))
        .collect();
    c.args(["-c", &format!("exec {} > '{}'", quoted.join(" "), tmp.display())]);
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            c.env(k, v);
        }
    }
    let (secs, rss) = timed(&c, time);
    let out = std::fs::read_to_string(&tmp).unwrap_or_default();
    let _ = std::fs::remove_file(&tmp);
    (secs, rss, out)
}

fn first_u64(s: &str) -> u64 {
    s.split(|c: char| !c.is_ascii_digit())
        .find(|t| !t.is_empty())
        .and_then(|t| t.parse().ok())
        .unwrap_or(0)
}

fn table(title: &str, rows: &[Row], bytes: u64) {
    println!("\n{title}");
    println!(
        "{:<30} {:>9} {:>8} {:>13} {:>8}",
        "tool", "median s", "MB/s", "peak RSS MiB", "x swath"
    );
    let base = median(&rows[0].secs);
    for r in rows {
        let m = median(&r.secs);
        let rss = r.rss_kib.iter().max().copied().unwrap_or(0) as f64 / 1024.0;
        println!(
            "{:<30} {:>9.3} {:>8.0} {:>13.1} {:>8.2}",
            r.name,
            m,
            bytes as f64 / m / 1e6,
            rss,
            m / base
        );
    }
}

/// One thread, in memory: the first 200 MB of lines into Arrow batches of
/// the same schema by swath-json and by arrow-json; best of 5 each.
fn in_process(path: &Path) {
    use std::io::Read;
    let mut data = vec![0u8; 200 << 20];
    let mut f = std::fs::File::open(path).expect("open");
    let n = f.read(&mut data).expect("read");
    let mut n = n;
    while n < data.len() {
        match f.read(&mut data[n..]).expect("read") {
            0 => break,
            k => n += k,
        }
    }
    data.truncate(memchr_last_newline(&data[..n]));
    let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').filter(|l| !l.is_empty()).collect();
    let mut inf = swath_json::infer::Inference::default();
    for l in lines.iter().take(10_000) {
        inf.see(l).expect("a JSON object");
    }
    // arrow-json without chrono-tz knows offsets only: "+00:00" for both.
    let schema = offset_tz(&swath_json::infer::schema_of(&inf.root));
    let best = |f: &mut dyn FnMut() -> Vec<arrow_array::RecordBatch>| {
        let mut best = f64::MAX;
        let mut out = Vec::new();
        for _ in 0..5 {
            let t = Instant::now();
            out = f();
            best = best.min(t.elapsed().as_secs_f64());
        }
        (best, out)
    };
    let (ours_s, ours) = best(&mut || {
        let mut d = swath_json::decode::Decoder::new(schema.clone()).expect("a schema");
        let mut out = Vec::new();
        for l in &lines {
            d.line(l).expect("a line");
            if d.rows() == 16384 {
                out.push(d.finish().expect("a batch"));
            }
        }
        out.push(d.finish().expect("a batch"));
        out
    });
    let (theirs_s, theirs) = best(&mut || {
        arrow_json::ReaderBuilder::new(schema.clone())
            .with_batch_size(16384)
            .build(std::io::Cursor::new(&data[..]))
            .expect("arrow-json")
            .map(|b| b.expect("arrow-json batch"))
            .collect()
    });
    assert_eq!(ours, theirs, "swath-json and arrow-json read different values");
    let mb = data.len() as f64 / 1e6;
    println!("\nin process, one thread, {} lines ({mb:.0} MB) into Arrow, best of 5", lines.len());
    println!("{:<30} {:>9} {:>8} {:>8}", "decoder", "s", "MB/s", "x swath");
    println!("{:<30} {:>9.3} {:>8.0} {:>8.2}", "swath-json", ours_s, mb / ours_s, 1.0);
    println!(
        "{:<30} {:>9.3} {:>8.0} {:>8.2}",
        "arrow-json",
        theirs_s,
        mb / theirs_s,
        theirs_s / ours_s
    );
}

fn memchr_last_newline(b: &[u8]) -> usize {
    b.iter().rposition(|&c| c == b'\n').map_or(0, |i| i + 1)
}

fn offset_tz(s: &Schema) -> SchemaRef {
    fn fix(t: &DataType) -> DataType {
        match t {
            DataType::Timestamp(u, Some(_)) => DataType::Timestamp(*u, Some("+00:00".into())),
            DataType::Struct(fs) => DataType::Struct(
                fs.iter()
                    .map(|f| Arc::new(Field::new(f.name(), fix(f.data_type()), true)))
                    .collect(),
            ),
            DataType::List(f) => {
                DataType::List(Arc::new(Field::new(f.name(), fix(f.data_type()), true)))
            }
            other => other.clone(),
        }
    }
    Arc::new(Schema::new(
        s.fields()
            .iter()
            .map(|f| Field::new(f.name(), fix(f.data_type()), true))
            .collect::<Vec<_>>(),
    ))
}

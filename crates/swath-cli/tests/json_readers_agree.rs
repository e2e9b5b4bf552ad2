//! Every reader of JSON lines agrees, on random files at every thread
//! count and chunk size: `json count`, `check`, `select`, `to-parquet`,
//! `schema --infer full` and `swath sql` accept the same lines, give the
//! same values, and name the same first bad line by the same record, line
//! and byte.
//!
//! The files mix valid lines with broken ones: a key twice at every depth
//! (in an array's objects, spelled with an escape), a line cut short, a
//! trailing comma, an array where an object belongs; and BOMs, blank
//! lines, `\r\n` and first lines longer than a sampling window. The
//! generator knows where each file's first bad line is (its record and
//! line; the byte too for a repeated key, the error being at the second
//! key's opening quote).

use std::path::Path;
use std::process::{Command, Output};

use swath_testkit::Rng;

const SWATH: &str = env!("CARGO_BIN_EXE_swath");

/// A generated file and what it must read as.
struct Case {
    text: Vec<u8>,
    /// Objects, when every line is valid.
    records: Option<u64>,
    /// The sum of the `id`s of the valid file.
    id_sum: i64,
    /// The first bad line: record, line, and byte when the generator
    /// knows it.
    first_bad: Option<(u64, u64, Option<u64>)>,
}

/// A bad line, and where in it the error is when that is certain.
fn bad_line(rng: &mut Rng, id: i64) -> (String, Option<usize>) {
    let dup = |line: String, second: &str| {
        let at = line.rfind(second).unwrap();
        (line, Some(at))
    };
    match rng.below(8) {
        0 => dup(format!(r#"{{"id":{id},"s":"x","id":{id}}}"#), r#""id""#),
        1 => dup(format!(r#"{{"id":{id},"o":{{"a":1,"b":[],"a":2}}}}"#), r#""a":2"#),
        2 => dup(format!(r#"{{"id":{id},"o":{{"b":[{{"k":1,"k":2}}]}}}}"#), r#""k":2"#),
        3 => dup(format!(r#"{{"id":{id},"s":"x","\u0073":"y"}}"#), r#""\u0073""#),
        4 => dup(format!(r#"{{"id":{id}, "o":{{"a":1}}, "o":null}}"#), r#""o":null"#),
        5 => (format!(r#"{{"id":{id},"s":"ab"#), None),
        6 => (format!(r#"{{"id":{id},}}"#), None),
        _ => (format!("[{id},2]"), None),
    }
}

fn good_line(rng: &mut Rng, id: i64, long: bool) -> String {
    let s = if long {
        "x".repeat(1_100_000)
    } else {
        match rng.below(4) {
            0 => "plain".to_string(),
            1 => r#"q\"uote \\ back"#.to_string(),
            2 => r#"\u00e9t\u00e9"#.to_string(),
            _ => format!("w{}", rng.below(1000)),
        }
    };
    let o = if rng.one_in(4) {
        "null".to_string()
    } else {
        format!(r#"{{"a":{},"b":[{},{{"k":"v"}}]}}"#, rng.below(100), rng.below(9))
    };
    let extra = if long { r#","only_here":true"# } else { "" };
    format!(r#"{{"id":{id},"s":"{s}","o":{o}{extra}}}"#)
}

fn case(rng: &mut Rng) -> Case {
    let broken = !rng.one_in(3);
    let lines = 1 + rng.below(400) as usize;
    let bad_at = broken.then(|| rng.index(lines));
    let crlf = rng.one_in(4);
    let mut text = Vec::new();
    if rng.one_in(4) {
        text.extend_from_slice(b"\xEF\xBB\xBF");
    }
    let (mut records, mut line_no, mut id_sum) = (0u64, 0u64, 0i64);
    let mut first_bad = None;
    let mut bad_left = broken;
    for i in 0..lines {
        while rng.one_in(8) {
            text.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
            line_no += 1;
        }
        line_no += 1;
        records += 1;
        let id = i as i64 * 3 - 7;
        let start = text.len() as u64;
        let line = if bad_at == Some(i) || (bad_left && first_bad.is_some() && rng.one_in(20)) {
            let (l, at) = bad_line(rng, id);
            if first_bad.is_none() {
                first_bad = Some((records, line_no, at.map(|a| start + a as u64)));
            }
            bad_left = true;
            l
        } else {
            id_sum += id;
            let long = i == 0 && rng.one_in(6);
            good_line(rng, id, long)
        };
        text.extend_from_slice(line.as_bytes());
        if i + 1 < lines || rng.one_in(2) {
            text.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        }
    }
    Case { text, records: (!broken).then_some(records), id_sum, first_bad }
}

fn swath(args: &[&str]) -> Output {
    Command::new(SWATH).args(args).output().unwrap()
}

/// Record, line and byte.
type Pos = (u64, u64, u64);

/// The first `record R (line L, byte B)` a command printed.
fn position(o: &Output) -> Option<Pos> {
    let text = [String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr)].concat();
    let at = text.find("record ")?;
    let nums: Vec<u64> = text[at..]
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .take(3)
        .map(|s| s.parse().unwrap())
        .collect();
    (nums.len() == 3).then(|| (nums[0], nums[1], nums[2]))
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn check_case(n: usize, c: &Case, dir: &Path) {
    let path = dir.join(format!("case{n}.jsonl"));
    std::fs::write(&path, &c.text).unwrap();
    let p = path.to_str().unwrap();
    let query = format!("SELECT count(*) AS n, sum(id) AS s FROM '{p}'");
    let out = dir.join(format!("case{n}.parquet"));
    let o = out.to_str().unwrap();
    let mut seen: Vec<(String, Option<Pos>)> = Vec::new();
    let mut values: Option<(String, String, String)> = None;
    for (threads, chunk) in [("1", "4194304"), ("2", "64"), ("3", "7"), ("2", "4194304")] {
        let par = ["-t", threads, "--chunk-size", chunk];
        let runs: Vec<(&str, Output)> = vec![
            ("count", swath(&[&["json", "count", p][..], &par].concat())),
            ("check", swath(&[&["json", "check", p][..], &par].concat())),
            ("select", swath(&[&["json", "select", "-f", "id,s,o.a,o.b", p][..], &par].concat())),
            ("schema", swath(&[&["json", "schema", "--infer", "full", p][..], &par].concat())),
            ("to-parquet", swath(&[&["json", "to-parquet", p, "-o", o][..], &par].concat())),
            ("sql", swath(&["sql", "-t", threads, "--csv", &query])),
        ];
        let what = format!("case {n}, -t {threads} --chunk-size {chunk}");
        match (c.records, c.first_bad) {
            (Some(records), _) => {
                for (cmd, r) in &runs {
                    assert!(
                        r.status.success(),
                        "{what}: {cmd} failed: {}",
                        String::from_utf8_lossy(&r.stderr)
                    );
                }
                let count = stdout(&runs[0].1);
                assert!(count.starts_with(&format!("{records}")), "{what}: count said {count}");
                let sql = stdout(&runs[5].1);
                let want = if records == 0 {
                    "n,s\n0,\n".to_string()
                } else {
                    format!("n,s\n{records},{}\n", c.id_sum)
                };
                assert_eq!(sql, want, "{what}: sql");
                let rows: usize = swath_arrow::parquet::file::reader::SerializedFileReader::new(
                    std::fs::File::open(&out).unwrap(),
                )
                .map(|r| {
                    use swath_arrow::parquet::file::reader::FileReader;
                    r.metadata().file_metadata().num_rows() as usize
                })
                .unwrap();
                assert_eq!(rows as u64, records, "{what}: to-parquet rows");
                let now = (stdout(&runs[2].1), stdout(&runs[3].1), stdout(&runs[1].1));
                assert_eq!(
                    stdout(&runs[2].1).lines().count() as u64,
                    records + 1,
                    "{what}: select"
                );
                match &values {
                    None => values = Some(now),
                    Some(v) => {
                        assert_eq!(v, &now, "{what}: select, schema or check differ across threads")
                    }
                }
            }
            (None, Some((record, line, byte))) => {
                for (cmd, r) in &runs {
                    assert!(!r.status.success(), "{what}: {cmd} accepted a bad file");
                    let pos = position(r);
                    let Some((rr, rl, rb)) = pos else {
                        panic!(
                            "{what}: {cmd} named no record: {}",
                            String::from_utf8_lossy(&r.stderr)
                        )
                    };
                    assert_eq!(
                        (rr, rl),
                        (record, line),
                        "{what}: {cmd}: {}",
                        String::from_utf8_lossy(&r.stderr)
                    );
                    if let Some(b) = byte {
                        assert_eq!(rb, b, "{what}: {cmd}: the byte");
                    }
                    seen.push((cmd.to_string(), pos));
                }
                assert!(!out.exists(), "{what}: to-parquet left a file behind");
            }
            (None, None) => unreachable!(),
        }
    }
    // Every command, at every setting, named the same byte.
    if let Some((_, first)) = seen.first() {
        for (cmd, pos) in &seen {
            assert_eq!(pos, first, "case {n}: {cmd} named another byte than {:?}", seen[0].0);
        }
    }
}

#[test]
fn json_readers_agree_on_random_files() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = Rng::new(0x5eed_4a50);
    for n in 0..30 {
        let c = case(&mut rng);
        check_case(n, &c, dir.path());
    }
}

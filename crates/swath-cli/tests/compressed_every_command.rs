//! Compressed input through every command, table-driven from the CLI's own
//! definition: each command that takes a FILE reads a compressed copy as
//! its decompressed bytes (the same answer as from the plain file) or
//! refuses it with an error that names the format; it never reads
//! compressed bytes as data with exit 0.
//!
//! The commands come from `swath --help`, walked down every subcommand,
//! so a new command is covered without anyone naming it here: one that
//! takes a FILE runs with the arguments of [`how_to_run`] (a command it
//! does not know runs with the file alone, and a usage error fails the
//! test, naming it); one that takes none must be in [`NO_INPUT`].
//!
//! The copies are made by the real compressors, as users make them: gzip,
//! gzip members one after another, BGZF (`bgzip`), zstd in one frame, in
//! several, and `pzstd`'s (which starts with a skippable frame); bzip2 in
//! one stream, in two, and `lbzip2`'s; xz in one block, in several, in two
//! streams; LZ4 frames and the legacy format; a zip archive of one file,
//! and one of two, which must be refused, naming the format (no
//! --member). A missing compressor fails the test in CI and skips that
//! copy loudly elsewhere. BGZF and several zstd
//! frames are decoded by spans on several threads (small spans here), and
//! so is a gzip file indexed by `swath index`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

mod common;

use common::answers::Answer;

const SWATH: &str = env!("CARGO_BIN_EXE_swath");

/// Commands that take no input file (they write, or print what swath is),
/// with their subcommands.
const NO_INPUT: &[&str] = &["gen", "completions", "man"];

/// What a command's run over a compressed copy may do.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    /// The plain file's answer, or a refusal that names the format.
    SameOrRefuse,
    /// The plain file's answer, from every compressed copy: the command
    /// reads compressed input front to back where it cannot start in the
    /// middle.
    Same,
    /// A refusal that names the format (the lab measures plain files).
    Refuse,
    /// `swath index`: a gzip file's own index (its compressed length and
    /// identity, with gzip checkpoints) over the plain file's records, or
    /// a refusal that names the format.
    IndexOrRefuse,
}

/// Which input a command reads.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Input {
    Csv,
    Json,
}

/// One way to run a command: its input, its arguments (`{file}` is the
/// input, `{out}` an empty directory of the run's own), what it may do.
struct Run {
    input: Input,
    args: Vec<String>,
    expect: Expect,
}

fn run(input: Input, args: &[&str], expect: Expect) -> Run {
    Run { input, args: args.iter().map(|a| a.to_string()).collect(), expect }
}

/// The arguments each command needs beyond its file. A command missing
/// here runs as `swath CMD {file}` (csv and json commands on their kind of
/// file, the rest on the CSV file, a text file of lines too).
fn how_to_run(cmd: &str) -> Vec<Run> {
    use Expect::*;
    use Input::*;
    let input = if cmd.starts_with("json ") { Json } else { Csv };
    match cmd {
        "csv select" => vec![run(Csv, &["-c", "id,name", "{file}"], SameOrRefuse)],
        "csv search" => vec![run(Csv, &["-s", "name", "an", "{file}"], SameOrRefuse)],
        "csv frequency" => vec![run(Csv, &["-s", "name", "{file}"], SameOrRefuse)],
        "csv to-parquet" | "json to-parquet" => {
            vec![run(input, &["{file}", "-o", "{out}/o.parquet"], SameOrRefuse)]
        }
        "csv to-arrow" | "json to-arrow" => {
            vec![run(input, &["{file}", "-o", "{out}/o.arrow"], SameOrRefuse)]
        }
        "csv index" => {
            vec![run(Csv, &["{file}", "--index-file", "{out}/i.swathidx"], SameOrRefuse)]
        }
        "index" => {
            vec![run(Csv, &["{file}", "--index-file", "{out}/i.swathidx"], IndexOrRefuse)]
        }
        "csv split" | "split" => {
            vec![run(Csv, &["{file}", "-n", "3", "-o", "{out}"], SameOrRefuse)]
        }
        "csv slice" => vec![
            run(Csv, &["{file}", "--start", "7", "--len", "5"], Same),
            run(Csv, &["{file}", "--start", "5990"], Same),
        ],
        "csv tail" => vec![run(Csv, &["-n", "4", "{file}"], Same)],
        "tail" => vec![run(Csv, &["-n", "4", "{file}"], SameOrRefuse)],
        "csv sample" => vec![run(Csv, &["-n", "9", "--seed", "7", "{file}"], Same)],
        "sample" => vec![run(Csv, &["-n", "9", "--seed", "7", "{file}"], SameOrRefuse)],
        "json select" => vec![run(Json, &["-f", "id,req.status,tags", "{file}"], SameOrRefuse)],
        "json index" => {
            vec![run(Json, &["{file}", "--index-file", "{out}/i.swathidx"], SameOrRefuse)]
        }
        "json split" => vec![run(Json, &["{file}", "-n", "3", "-o", "{out}"], SameOrRefuse)],
        "json slice" => vec![
            run(Json, &["{file}", "--start", "7", "--len", "5"], Same),
            run(Json, &["{file}", "--start", "5990"], Same),
        ],
        "json tail" => vec![run(Json, &["-n", "4", "{file}"], Same)],
        "json sample" => vec![run(Json, &["-n", "9", "--seed", "7", "{file}"], Same)],
        // CSV out: a table's padding would follow the length of the path.
        "sql" => vec![
            run(Csv, &["--csv", "SELECT count(*), sum(id), min(name) FROM '{file}'"], SameOrRefuse),
            run(
                Json,
                &["--csv", "SELECT count(*), sum(id), max(req['ms']) FROM '{file}'"],
                SameOrRefuse,
            ),
        ],
        "lab" => {
            vec![run(Csv, &["--file", "{file}", "--only", "read-256K", "--runs", "1"], Refuse)]
        }
        _ => vec![run(input, &["{file}"], SameOrRefuse)],
    }
}

/// The leaf commands of the CLI, each with its usage line.
fn commands() -> Vec<(String, String)> {
    common::commands::leaf_commands()
        .into_iter()
        .map(|(name, help)| {
            let usage = help.lines().find(|l| l.starts_with("Usage:")).unwrap_or("").to_string();
            (name, usage)
        })
        .collect()
}

/// Spans of 16 KiB decoded: each BGZF block, and each half of the
/// several-frame zstd copy, is a span of its own, decoded by the span
/// workers (`swath::decompress::SpanDecoded`) rather than front to back.
fn swath(args: &[String]) -> Output {
    common::answers::swath_in_pieces(args)
}

/// A CSV file (quoted commas and newlines, a header row) and a JSON-lines
/// file (nested objects, arrays, strings with escapes).
fn inputs(dir: &Path) -> (PathBuf, PathBuf) {
    let mut csv = String::from("id,name,score,note\n");
    let mut json = String::new();
    let names = ["ann", "bob", "cyan", "dana", "eve"];
    for i in 0..6000u32 {
        let name = names[i as usize % names.len()];
        let note = match i % 4 {
            0 => "plain".to_string(),
            1 => format!("\"a, b {i}\""),
            2 => format!("\"two\nlines {i}\""),
            _ => format!("\"say \"\"hi\"\" {i}\""),
        };
        csv.push_str(&format!("{i},{name},{}.{},{note}\n", i % 97, i % 10));
        json.push_str(&format!(
            "{{\"id\":{i},\"name\":\"{name}\",\"req\":{{\"status\":{},\"ms\":{}.5}},\"tags\":[\"t{}\",\"q\\\"{i}\"]}}\n",
            200 + i % 3 * 100,
            i % 50,
            i % 7
        ));
    }
    let (c, j) = (dir.join("data.csv"), dir.join("data.jsonl"));
    std::fs::write(&c, csv).unwrap();
    std::fs::write(&j, json).unwrap();
    (c, j)
}

/// A compressed copy: its name, the format its refusal must name,
/// whether swath decodes it, and how it is made: the compressor's
/// arguments, given the input's path last (`zip` takes the archive's path
/// first), and whether each half of the input is compressed apart and the
/// two written one after the other (gzip members, zstd frames).
struct Copy {
    name: &'static str,
    format: &'static str,
    decoded: bool,
    args: &'static [&'static str],
    halves: bool,
}

impl Copy {
    fn make(&self, src: &Path, out: &Path) -> Result<(), String> {
        if self.halves {
            return halves(self.args, src, out);
        }
        let dir = src.parent().unwrap();
        let input = match self.name {
            "zip" => vec![out.to_str().unwrap(), src.file_name().unwrap().to_str().unwrap()],
            "zip-two" => {
                std::fs::write(dir.join("README.txt"), "not data\n").unwrap();
                vec![
                    out.to_str().unwrap(),
                    src.file_name().unwrap().to_str().unwrap(),
                    "README.txt",
                ]
            }
            _ => vec![src.to_str().unwrap()],
        };
        tool(&[self.args, &input].concat(), dir, out)?;
        if self.name == "gzip-indexed" {
            // Line checkpoints every KiB: most lie past the compressed
            // length, as in any real gzip file's index.
            let args = ["index", "--interval", "1K", out.to_str().unwrap()];
            let o = swath(&args.map(str::to_string));
            assert!(o.status.success(), "swath index: {}", String::from_utf8_lossy(&o.stderr));
            let mut sidecar = out.as_os_str().to_owned();
            sidecar.push(".swathidx");
            let text = std::fs::read_to_string(&sidecar).unwrap();
            let n: usize = text
                .lines()
                .find_map(|l| l.strip_prefix("gzip-checkpoints "))
                .and_then(|l| l.split(' ').next()?.parse().ok())
                .expect("a gzip section");
            // At least two spans (JSON lines repeat enough that gzip's
            // blocks hold some 200 KiB of them).
            assert!(n >= 1, "{n} gzip checkpoints in {}", sidecar.to_string_lossy());
        }
        Ok(())
    }
}

/// Run a compressor (`Err` when it is not installed); what it prints is
/// the copy, unless it wrote `out` itself (zip).
fn tool(args: &[&str], dir: &Path, out: &Path) -> Result<(), String> {
    match Command::new(args[0]).args(&args[1..]).current_dir(dir).output() {
        Ok(o) if o.status.success() => {
            if !o.stdout.is_empty() {
                std::fs::write(out, o.stdout).unwrap();
            }
            assert!(out.exists(), "{args:?} wrote nothing");
            Ok(())
        }
        Ok(o) => panic!("{args:?} failed: {}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => Err(format!("{}: {e}", args[0])),
    }
}

/// The two halves of `src`, cut in the middle of a line, compressed each
/// by `args` and written one after the other.
fn halves(args: &[&str], src: &Path, out: &Path) -> Result<(), String> {
    let data = std::fs::read(src).unwrap();
    let dir = out.parent().unwrap();
    let mut all = Vec::new();
    for (i, part) in [&data[..data.len() / 2 + 3], &data[data.len() / 2 + 3..]].iter().enumerate() {
        let p = dir.join(format!("half{i}"));
        std::fs::write(&p, part).unwrap();
        let z = dir.join(format!("half{i}.z"));
        tool(&[args, &[p.to_str().unwrap()]].concat(), dir, &z)?;
        all.extend(std::fs::read(&z).unwrap());
        std::fs::remove_file(&p).unwrap();
        std::fs::remove_file(&z).unwrap();
    }
    std::fs::write(out, all).unwrap();
    Ok(())
}

fn copies() -> Vec<Copy> {
    let copy = |name, format, decoded, args, halves| Copy { name, format, decoded, args, halves };
    vec![
        copy("gzip", "gzip", true, &["gzip", "-c"], false),
        copy("gzip-members", "gzip", true, &["gzip", "-c"], true),
        copy("bgzip", "gzip", true, &["bgzip", "-c"], false),
        // Indexed by `swath index` (FILE.swathidx beside it, with gzip
        // checkpoints): decoded by spans from its index. --rsyncable makes
        // blocks end more often, so this small file has checkpoints.
        copy("gzip-indexed", "gzip", true, &["gzip", "--rsyncable", "-c"], false),
        copy("zstd", "zstd", true, &["zstd", "-q", "-c"], false),
        copy("zstd-frames", "zstd", true, &["zstd", "-q", "-c"], true),
        copy("pzstd", "zstd", true, &["pzstd", "-q", "-p", "2", "-c"], false),
        copy("bzip2", "bzip2", true, &["bzip2", "-c"], false),
        copy("bzip2-streams", "bzip2", true, &["bzip2", "-c"], true),
        copy("lbzip2", "bzip2", true, &["lbzip2", "-n", "2", "-c"], false),
        copy("xz", "xz", true, &["xz", "-c"], false),
        copy("xz-blocks", "xz", true, &["xz", "-T2", "--block-size=65536", "-c"], false),
        copy("xz-streams", "xz", true, &["xz", "-c"], true),
        copy("lz4", "lz4", true, &["lz4", "-q", "-c"], false),
        copy("lz4-legacy", "lz4", true, &["lz4", "-l", "-q", "-c"], false),
        copy("zip", "zip", true, &["zip", "-q"], false),
        // An archive of two files and no --member: refused, listing them.
        copy("zip-two", "zip", false, &["zip", "-q"], false),
    ]
}

/// What says how the input was read, not what it holds: a stream is
/// sampled from its head, a regular file at places spread over it.
const HOW: &[&str] = &["samples:", "("];

/// [`common::answers::answer`] with `r`'s arguments.
fn answer(cmd: &str, r: &Run, file: &Path, plain: &Path, out: &Path) -> (Answer, String) {
    common::answers::answer(cmd, &r.args, file, plain, out, HOW)
}

#[test]
fn every_command_reads_compressed_input_or_refuses_it_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, json) = inputs(dir.path());
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true");

    // The copies each compressor can make here.
    let mut made: Vec<(&Copy, PathBuf, PathBuf)> = Vec::new();
    let all = copies();
    for (i, c) in all.iter().enumerate() {
        // Named as users name them (`swath sql` takes `.jsonl.gz` for JSON
        // lines); formats are still told by their magic bytes.
        let ext = match c.format {
            "gzip" => "gz",
            "zstd" => "zst",
            "bzip2" => "bz2",
            other => other,
        };
        let zc = dir.path().join(format!("data{i}.csv.{ext}"));
        let zj = dir.path().join(format!("data{i}.jsonl.{ext}"));
        match c.make(&csv, &zc).and_then(|()| c.make(&json, &zj)) {
            Ok(()) => made.push((c, zc, zj)),
            Err(e) if in_ci => panic!("CI must have every compressor this test uses: {e}"),
            Err(e) => eprintln!("!!!!! SKIPPED: the {} copy ({e}); CI installs it", c.name),
        }
    }

    let cmds = commands();
    assert!(cmds.len() >= 30, "the command list looks short: {cmds:?}");
    let mut checked = 0;
    let mut failures = Vec::new();
    for (cmd, usage) in &cmds {
        let takes_file = ["<FILE>", "[FILE]", "<FILES>", "[FILES]", "<QUERY>", "--file"]
            .iter()
            .any(|t| usage.contains(t))
            || cmd == "lab";
        if NO_INPUT.iter().any(|n| cmd == n || cmd.starts_with(&format!("{n} "))) {
            assert!(!usage.contains("FILE"), "{cmd} takes a FILE now: give it a way to run here");
            continue;
        }
        assert!(takes_file, "{cmd}: no FILE in its usage ({usage}): add it to NO_INPUT or here");
        for (k, r) in how_to_run(cmd).iter().enumerate() {
            let plain = if r.input == Input::Csv { &csv } else { &json };
            let base = dir.path().join(format!("out-{}-{k}", cmd.replace(' ', "-")));
            let want = (r.expect != Expect::Refuse).then(|| {
                let (a, err) = answer(cmd, r, plain, plain, &base.join("plain"));
                assert_eq!(a.code, 0, "swath {cmd} on the plain file failed: {err}");
                a
            });
            for (c, zc, zj) in &made {
                let file = if r.input == Input::Csv { zc } else { zj };
                let out = base.join(c.name);
                let (got, err) = answer(cmd, r, file, plain, &out);
                // The refusal names the format ("zip input: ...",
                // "gzip-compressed input ..."), not only the file's name.
                let names = err.contains(&format!("{} input", c.format))
                    || err.contains(&format!("{}-compressed", c.format));
                let refused = got.code != 0 && names && got.outputs.is_empty();
                let ok = match (&want, c.decoded, r.expect) {
                    (Some(want), true, Expect::IndexOrRefuse) => {
                        let records = |a: &Answer| {
                            a.stdout
                                .split(" records")
                                .next()
                                .map(|s| s.rsplit('(').next().map(str::to_string))
                        };
                        let sidecar = got
                            .outputs
                            .get("i.swathidx")
                            .map(|b| String::from_utf8_lossy(b).to_string());
                        let indexed = c.format == "gzip"
                            && got.code == 0
                            && records(&got) == records(want)
                            && sidecar.is_some_and(|t| t.contains("\ngzip-checkpoints "));
                        indexed || refused
                    }
                    (Some(want), true, Expect::Same) => got == *want,
                    (Some(want), true, _) => got == *want || refused,
                    _ => refused,
                };
                if !ok {
                    failures.push(format!(
                        "swath {cmd} on the {} copy: exit {}, stderr {:?}, stdout {:?}{}",
                        c.name,
                        got.code,
                        err.trim(),
                        got.stdout.chars().take(200).collect::<String>(),
                        match &want {
                            Some(w) if got.code == 0 => format!(
                                " (plain: stdout {:?}, outputs {:?} vs {:?})",
                                w.stdout.chars().take(200).collect::<String>(),
                                w.outputs.keys().collect::<Vec<_>>(),
                                got.outputs.keys().collect::<Vec<_>>()
                            ),
                            _ => String::new(),
                        }
                    ));
                }
                checked += 1;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} runs wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 0);
}

/// `-v` says how a compressed input is decoded: by spans on several
/// threads, on one thread (a file with one span, `--threads 1`), or as a
/// stream.
#[test]
fn verbose_says_how_compressed_input_is_decoded() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, _) = inputs(dir.path());
    let bgz = dir.path().join("data.csv.gz");
    let in_ci = std::env::var("CI").is_ok_and(|v| v == "true");
    if let Err(e) = tool(&["bgzip", "-c", csv.to_str().unwrap()], dir.path(), &bgz) {
        assert!(!in_ci, "CI must have bgzip: {e}");
        eprintln!("!!!!! SKIPPED: no bgzip here ({e}); CI installs it");
        return;
    }
    let note = |args: &[&str], spans: &str, stdin: Option<&Path>| {
        let mut cmd = Command::new(SWATH);
        cmd.args(args).env("SWATH_SPAN_BYTES", spans);
        cmd.stdin(match stdin {
            Some(p) => Stdio::from(std::fs::File::open(p).unwrap()),
            None => Stdio::null(),
        });
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stderr).unwrap()
    };
    let file = bgz.to_str().unwrap();
    let err = note(&["csv", "count", "-v", "-t", "2", file], "16384", None);
    assert!(
        err.contains("gzip-compressed input,") && err.contains("spans decoded on 2 threads"),
        "{err}"
    );
    let err = note(&["csv", "count", "-v", "-t", "2", file], "1000000000", None);
    assert!(err.contains("decoded on one thread: its structure gives one span"), "{err}");
    let err = note(&["csv", "count", "-v", "-t", "2", "-"], "16384", Some(&bgz));
    assert!(err.contains("decoded on one thread (a stream)"), "{err}");

    // An ordinary gzip file, once `swath index` has written its sidecar.
    let gz = dir.path().join("plain.csv.gz");
    tool(&["gzip", "--rsyncable", "-c", csv.to_str().unwrap()], dir.path(), &gz).unwrap();
    let file = gz.to_str().unwrap();
    let err = note(&["csv", "count", "-v", "-t", "2", file], "16384", None);
    assert!(err.contains("decoded on one thread: its structure gives one span"), "{err}");
    note(&["index", "--interval", "1K", file], "16384", None);
    let err = note(&["csv", "count", "-v", "-t", "2", file], "16384", None);
    assert!(err.contains("spans from its index decoded on 2 threads"), "{err}");
    // A sidecar that no longer fits is not used, and -v says why.
    let bytes = std::fs::read(&gz).unwrap();
    std::fs::write(&gz, [&bytes[..], &bytes[..]].concat()).unwrap();
    let err = note(&["csv", "count", "-v", "-t", "2", file], "16384", None);
    assert!(
        err.contains("its structure gives one span (its index was not used: the file is"),
        "{err}"
    );
}

/// A large gzip file of one span is indexed while it is read to its end
/// (the threshold lowered here by `SWATH_INDEX_ON_READ`): the next command
/// decodes it on every core from the sidecar. Not written by a read that
/// stops early or fails, nor when turned off; a sidecar that fits is never
/// replaced, a stale one is.
#[test]
fn a_full_read_of_a_large_gzip_file_writes_its_index() {
    let dir = tempfile::tempdir().unwrap();
    let (csv, _) = inputs(dir.path());
    let gz = dir.path().join("big.csv.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    let text = std::fs::read(&csv).unwrap();
    for _ in 0..4 {
        std::io::Write::write_all(&mut enc, &text).unwrap();
    }
    let bytes = enc.finish().unwrap();
    std::fs::write(&gz, &bytes).unwrap();
    let sidecar = dir.path().join("big.csv.gz.swathidx");
    let file = gz.to_str().unwrap();
    let run = |args: &[&str], setting: &str| {
        let out = Command::new(SWATH)
            .args(args)
            .env("SWATH_SPAN_BYTES", "16384")
            .env("SWATH_INDEX_ON_READ", setting)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let want = run(&["count", "-t", "1", file], "0").1;

    // Turned off, or a read that stops early: nothing written.
    run(&["count", "-t", "2", file], "0");
    run(&["csv", "head", "-n", "2", "-t", "2", file], "1000");
    assert!(!sidecar.exists(), "written when it should not be");

    // A full read writes it, and -v says so; the next read uses it.
    let (code, got, err) = run(&["count", "-v", "-t", "2", file], "1000");
    assert_eq!((code, &got), (Some(0), &want), "{err}");
    assert!(err.contains("indexed on the way"), "{err}");
    let text = std::fs::read_to_string(&sidecar).expect("the sidecar was written");
    assert!(text.contains("\nkind gzip\n") && text.contains("\ngzip-checkpoints "), "{text}");
    let (_, got, err) = run(&["count", "-v", "-t", "2", file], "1000");
    assert_eq!(got, want);
    assert!(err.contains("spans from its index decoded on 2 threads"), "{err}");
    let (_, got, _) = run(&["csv", "tail", "-n", "3", file], "1000");
    let (_, plain_tail, _) = run(&["csv", "tail", "-n", "3", csv.to_str().unwrap()], "1000");
    assert_eq!(got, plain_tail);

    // A sidecar that fits is not replaced; one of another file is.
    let before = std::fs::read(&sidecar).unwrap();
    std::fs::write(&sidecar, b"swath-index 3\nnot a sidecar that reads\n").unwrap();
    run(&["count", "-t", "2", file], "1000");
    let after = std::fs::read(&sidecar).unwrap();
    assert_eq!(after, before, "a stale sidecar is replaced by the file's own");
    // A rewrite renames a new file into place: another inode.
    use std::os::unix::fs::MetadataExt;
    let inode = std::fs::metadata(&sidecar).unwrap().ino();
    run(&["count", "-t", "2", file], "1000");
    assert_eq!(
        std::fs::metadata(&sidecar).unwrap().ino(),
        inode,
        "a sidecar that fits was rewritten"
    );

    // A file cut short fails, and leaves no sidecar.
    std::fs::remove_file(&sidecar).unwrap();
    std::fs::write(&gz, &bytes[..bytes.len() - 100]).unwrap();
    let (code, _, err) = run(&["count", "-t", "2", file], "1000");
    assert_eq!(code, Some(2), "{err}");
    assert!(!sidecar.exists(), "a failed read wrote a sidecar");
    let names: Vec<_> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(names.iter().all(|n| !n.to_string_lossy().contains("swath-tmp")), "{names:?}");
}

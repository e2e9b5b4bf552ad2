//! Every input the fuzzers found (`fuzz/regressions/<target>/`), replayed
//! through the same checks, plus a few seeds so the checks themselves run
//! even when no crash has been kept.

#[path = "../../../fuzz/checks.rs"]
mod checks;

fn replay(target: &str, check: fn(&[u8])) -> usize {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/regressions")
        .join(target);
    let mut n = 0;
    if let Ok(entries) = std::fs::read_dir(&dir) {
        for e in entries {
            let path = e.unwrap().path();
            check(&std::fs::read(&path).unwrap());
            n += 1;
        }
    }
    n
}

const SEEDS: &[&[u8]] = &[
    b"\x00a,\"b\"\"c\"\n\"d\n",
    b"\x01\"a\"b,c\r\n#x\r\n,,\n",
    b"\x08#\n#x\na,b\n c\n",
    b"\x10\"a\\\"b\",c\rd\r\n\r\n",
    b"\x40abcdefgh,i\n\"jk\n",
    b"\x2b\xef\xbb\xbfh1,h2\n1,\"2\"x\n3\n",
];

#[test]
fn oracle_crashes_and_seeds() {
    let kept = replay("csv_vs_oracle", checks::oracle);
    assert!(kept >= 1, "the kept crash input is missing");
    for s in SEEDS {
        checks::oracle(s);
    }
}

#[test]
fn chunked_crashes_and_seeds() {
    replay("csv_chunked", checks::chunked);
    for s in SEEDS {
        checks::chunked(s);
    }
}

#[test]
fn parallel_crashes_and_seeds() {
    replay("csv_parallel", checks::parallel);
    let seeds: &[&[u8]] = &[
        b"\x01a,b\n1,\"x\ny\"\n2,\"\"\"\"\n\n3,z\r\n4,w",
        b"\x41a,b\n1,\"x\"y\n2,3\n",
        b"\x03a,b\n1,x\"y\n\"2\",\"3\n",
        b"\x20abcdefghij,k\n1,2\n",
        b"\x90\"a\"\"b\",c\n\"d\",e\n",
        b"\x05a\n1,2\n\n\n3\n",
    ];
    for s in SEEDS.iter().chain(seeds) {
        checks::parallel(s);
    }
}

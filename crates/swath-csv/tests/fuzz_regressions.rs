//! Every input the fuzzers found (`fuzz/regressions/<target>/`), replayed
//! through the same checks, plus a few seeds so the checks themselves run
//! even when no crash has been kept. Each target's directory must exist and
//! hold at least one input: a renamed or missing directory fails here
//! rather than replaying nothing.

#[path = "../../../fuzz/checks.rs"]
mod checks;

/// Replay every kept input of `target` through `check`; the number of
/// inputs replayed, at least one.
fn replay(target: &str, check: fn(&[u8])) -> usize {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    swath_testkit::replay_kept_inputs(&dir, target, check)
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
    assert!(kept >= 2, "kept crash inputs are missing: {kept}");
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
    // Its own seeds are kept as files in its regressions directory.
    replay("csv_parallel", checks::parallel);
    for s in SEEDS {
        checks::parallel(s);
    }
}

#[test]
fn preamble_crashes_and_seeds() {
    // Its own seeds are kept as files in its regressions directory.
    let kept = replay("csv_preamble", checks::preamble);
    assert!(kept >= 4, "the preamble seeds are missing: {kept}");
    for s in SEEDS {
        checks::preamble(s);
    }
}

#[test]
fn split_plan_crashes_and_seeds() {
    replay("split_plan", checks::split_plan);
    for s in SEEDS {
        checks::split_plan(s);
    }
}

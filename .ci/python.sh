#!/usr/bin/env bash
# The Python bindings (python/): lint the extension crate, build and
# install the package with pip (maturin, the abi3 wheel) into a fresh
# virtual environment with pyarrow, Polars, DuckDB and pandas (pinned:
# python/requirements-test.txt), and run pytest.
# Called from .ci/run; runs on its own too: `bash .ci/python.sh`.
#
# CI time: the wheel is built as a user gets it (release profile) into the
# workspace's target dir. Measured clean, at -j1 on a loaded machine: the
# release build took 511 s of CPU, the dev profile (deps at opt-level 2,
# full debuginfo) 883 s; the workspace's own artifacts are not reused
# (its unified features differ: libc, arrow ffi, serde, ...). With CI=true
# the wheel is built without LTO and debuginfo (below): 135 s on 2 cores,
# measured 2026-12-03, the whole script 3.5 min.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
venv=${SWATH_PY_VENV:-$CARGO_TARGET_DIR/python-venv}
py=${PYTHON:-python3}

step_start=$SECONDS
took() { echo "   ($((SECONDS - step_start)) s)"; step_start=$SECONDS; }

echo "== python: venv at $venv"
rm -rf "$venv"
# Debian's python3 needs python3-venv for `-m venv`.
if ! "$py" -m venv "$venv"; then
    apt-get update -qq && apt-get install -y -qq python3-venv python3-pip
    rm -rf "$venv"
    "$py" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r python/requirements-test.txt
took

# python/ is its own workspace with its own Cargo.lock (see its
# Cargo.toml); the versions it shares with the root must stay the root's,
# or nothing built for the workspace is reused here.
"$venv/bin/python" - <<'EOF'
try:
    import tomllib
except ImportError:  # Python < 3.11
    raise SystemExit("python.sh: no tomllib here; the Cargo.lock comparison is skipped")
def versions(path):
    with open(path, "rb") as f:
        return {(p["name"], p["version"]) for p in tomllib.load(f)["package"]}
root, ours = versions("Cargo.lock"), versions("python/Cargo.lock")
names = {n for n, _ in root}
drift = sorted(f"{n} {v}" for n, v in ours - root if n in names)
if drift:
    print("!!!!! NOTICE: python/Cargo.lock differs from Cargo.lock for:", ", ".join(drift))
    print("!!!!! (copy the root's versions: `cargo update -p NAME --precise V` in python/)")
EOF

echo "== python: cargo fmt --check, clippy (the extension crate)"
cargo fmt --manifest-path python/Cargo.toml --check
PYO3_PYTHON="$venv/bin/python" \
    cargo clippy --manifest-path python/Cargo.toml --all-targets --locked -- -D warnings
took

echo "== python: pip install ./python (maturin, release)"
# In CI, without the thin LTO and debuginfo of the release profile a user
# builds with (python/Cargo.toml), and at LLVM level 1: the same code,
# compiled faster (145 s of CI at level 3); the tests check behaviour and
# read small files, not speed.
lean=()
if [ "${CI:-}" = true ]; then
    lean=(CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_DEBUG=0
          CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
          CARGO_PROFILE_RELEASE_OPT_LEVEL=1)
fi
env "${lean[@]}" MATURIN_PEP517_ARGS="--locked" \
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps ./python
took

# The error tests compare with what `swath csv check` prints.
echo "== python: the swath CLI for the error tests"
# Built as the workspace tests build it (the same unified features), so
# after them this is a no-op; `cargo build -p swath-cli` alone resolves
# other features and rebuilds arrow and parquet (minutes).
cargo test -q --workspace --all-features --locked --no-run 2>/dev/null
export SWATH_CLI="$CARGO_TARGET_DIR/debug/swath"
took

echo "== python: pytest"
# Run from the tests' directory, so that `import swath` is the installed
# package, not the source tree.
cd python/tests
set +e
"$venv/bin/python" -m pytest -q -p no:cacheprovider .
status=$?
set -e
took
if [ "$status" -eq 5 ]; then
    echo "python: pytest collected no tests; that is a failure here" >&2
    exit 1
fi
exit "$status"

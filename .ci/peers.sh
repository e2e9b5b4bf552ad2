#!/usr/bin/env bash
# Install the peer readers the Arrow tests check swath's Parquet against
# (pyarrow and DuckDB, pinned), and the S3-compatible server the remote
# tests read from (moto's, see swath-testkit's s3.rs), into a venv under the
# target directory, and print that venv's python on stdout. .ci/run does:
#   SWATH_PEER_PYTHON="$(.ci/peers.sh)"; export SWATH_PEER_PYTHON
# `--bench` also installs what bench/ compares against (Polars, DuckDB CLI,
# rapidgzip).
set -euo pipefail
cd "$(dirname "$0")/.."
PYARROW=26.0.1
DUCKDB=2.0.1
POLARS=2.1.0
DUCKDB_CLI=1.5.6
MOTO=5.2.5
RAPIDGZIP=0.16.2

target="${CARGO_TARGET_DIR:-$PWD/target}"
venv="$target/peers-venv"
py="${PYTHON:-python3}"
if ! [ -x "$venv/bin/python" ]; then
    # Debian's python3 needs python3-venv for `-m venv`.
    if ! "$py" -m venv "$venv" >&2; then
        apt-get update -qq >&2 && apt-get install -y -qq python3-venv python3-pip >&2
        rm -rf "$venv"
        "$py" -m venv "$venv" >&2
    fi
fi
want=("pyarrow==$PYARROW" "duckdb==$DUCKDB" "moto[server]==$MOTO")
if [ "${1:-}" = "--bench" ]; then
    want+=("polars==$POLARS" "duckdb-cli==$DUCKDB_CLI" "rapidgzip==$RAPIDGZIP")
fi
if ! "$venv/bin/python" -m pip install -q --disable-pip-version-check "${want[@]}" >&2; then
    echo "peers.sh: pip install ${want[*]} failed" >&2
    exit 1
fi
"$venv/bin/python" -c 'import pyarrow, duckdb, moto.server' >&2
echo "$venv/bin/python"

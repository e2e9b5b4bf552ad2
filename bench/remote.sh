#!/usr/bin/env bash
# `bench/run remote`: swath on an S3 object over loopback against the same
# command on the local file, one GET stream piped into swath, and Polars'
# scan_csv on the same s3:// object (issue 16). The server is moto's (the
# S3-compatible server the tests use), started here on 127.0.0.1 and
# stopped at the end; `curl` alone on the object gives the server's own
# ceiling. On loopback this measures swath's overhead, not a network.
# Every count is checked against the local file's.
#
#   bench/run remote [--rows 2M] [--runs 3] [--threads 2]
#
# Needs the bench venv (SWATH_PEER_PYTHON=$(.ci/peers.sh --bench): moto,
# Polars) and curl with --aws-sigv4.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=2M runs=3 threads=2
while [ $# -gt 0 ]; do
    case $1 in
        --rows) rows=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        *) echo "remote: unknown argument $1" >&2; exit 2 ;;
    esac
done
py=${SWATH_PEER_PYTHON:?set SWATH_PEER_PYTHON=\$(.ci/peers.sh --bench)}
swath=${SWATH_CLI:-${CARGO_TARGET_DIR:-target}/release/swath}
[ -x "$swath" ] || cargo build --release -q -p swath-cli
dir=$(mktemp -d)
port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$py" -m moto.server -H 127.0.0.1 -p "$port" >"$dir/moto.log" 2>&1 &
moto=$!
trap 'kill $moto 2>/dev/null; wait $moto 2>/dev/null; rm -rf "$dir"' EXIT
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench AWS_REGION=us-east-1
export AWS_ENDPOINT_URL=http://127.0.0.1:$port NO_PROXY=127.0.0.1
for _ in $(seq 100); do curl -s -o /dev/null "$AWS_ENDPOINT_URL/" && break; sleep 0.1; done

csv=$dir/bench.csv
"$swath" gen csv --rows "$rows" --quoted-newlines 20 "$csv"
curl -s -X PUT "$AWS_ENDPOINT_URL/bench" -o /dev/null
curl -s -X PUT -H 'Content-Type: application/octet-stream' --data-binary "@$csv" \
    "$AWS_ENDPOINT_URL/bench/bench.csv" -o /dev/null
url=s3://bench/bench.csv
size=$(stat -c %s "$csv")
echo "file: $rows rows, $size bytes (20% of rows with a quoted newline); $threads threads; median of $runs"

# The median wall time of `$runs` runs of "$@", in seconds; stdout of the
# last run kept in $dir/out.
median() {
    local times=()
    for _ in $(seq "$runs"); do
        local t0 t1
        t0=$(date +%s.%N)
        "$@" >"$dir/out"
        t1=$(date +%s.%N)
        times+=("$(awk "BEGIN{print $t1 - $t0}")")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END{printf "%.3f", a[int((NR+1)/2)]}'
}
sigv4=(--aws-sigv4 "aws:amz:us-east-1:s3" --user bench:bench)
stream() { curl -s "${sigv4[@]}" "$AWS_ENDPOINT_URL/bench/bench.csv" | "$swath" "$@" -; }
download() { curl -s "${sigv4[@]}" "$AWS_ENDPOINT_URL/bench/bench.csv" -o /dev/null; }
polars_count() {
    "$py" - "$url" "$AWS_ENDPOINT_URL" <<'PY'
import sys, polars as pl
opts = {"aws_endpoint_url": sys.argv[2], "aws_access_key_id": "bench",
        "aws_secret_access_key": "bench", "aws_region": "us-east-1", "aws_allow_http": "true"}
print(pl.scan_csv(sys.argv[1], storage_options=opts).select(pl.len()).collect().item())
PY
}
polars_parquet() {
    "$py" - "$url" "$AWS_ENDPOINT_URL" "$dir/polars.parquet" <<'PY'
import sys, polars as pl
opts = {"aws_endpoint_url": sys.argv[2], "aws_access_key_id": "bench",
        "aws_secret_access_key": "bench", "aws_region": "us-east-1", "aws_allow_http": "true"}
pl.scan_csv(sys.argv[1], storage_options=opts).sink_parquet(sys.argv[3])
PY
}

want=$("$swath" csv count -t "$threads" "$csv")
check() { # name: the last output must be the local count
    local got
    got=$(head -c 100 "$dir/out" | tr -d '\n')
    [ "$got" = "$want" ] || { echo "remote: $1 counted $got, the file has $want" >&2; exit 1; }
}
t_down=$(median download)
t_local=$(median "$swath" csv count -t "$threads" "$csv"); check local
t_remote=$(median "$swath" csv count -t "$threads" "$url"); check remote
t_stream=$(median stream csv count -t 1); check stream
t_polars=$(median polars_count); check polars
p_local=$(median "$swath" csv to-parquet -t "$threads" "$csv" -o "$dir/l.parquet")
p_remote=$(median "$swath" csv to-parquet -t "$threads" "$url" -o "$dir/r.parquet")
cmp -s "$dir/l.parquet" "$dir/r.parquet" || { echo "remote: the Parquet files differ" >&2; exit 1; }
p_stream=$(median stream csv to-parquet -t "$threads" -o "$dir/s.parquet")
p_polars=$(median polars_parquet)
rows_polars=$("$py" -c "import pyarrow.parquet as pq, sys; print(pq.read_metadata(sys.argv[1]).num_rows)" "$dir/polars.parquet")
[ "$rows_polars" = "$want" ] || echo "remote: NOTE Polars wrote $rows_polars rows, the file has $want" >&2

ratio() { awk "BEGIN{printf \"%.2fx\", $1 / $2}"; }
echo
echo "| job | local file | s3://, swath ranged GETs | one GET stream into swath | Polars scan_csv s3:// | curl download alone |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
echo "| csv count | $t_local s | $t_remote s ($(ratio "$t_remote" "$t_local") local) | $t_stream s | $t_polars s ($(ratio "$t_polars" "$t_remote") swath) | $t_down s |"
echo "| csv to-parquet | $p_local s | $p_remote s ($(ratio "$p_remote" "$p_local") local) | $p_stream s | $p_polars s ($(ratio "$p_polars" "$p_remote") swath) | |"

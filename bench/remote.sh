#!/usr/bin/env bash
# `bench/run remote`: swath on a remote object over loopback against the
# same command on the local file, one GET stream piped into swath, and
# Polars' scan_csv on the same object (issue 16), on two servers started
# here on 127.0.0.1 and stopped at the end:
# - s3://: moto's S3-compatible server (the one the tests use; Python, so
#   each GET costs it some 80 ms: it is the bottleneck, not swath);
# - http://: swath-testkit's range server (Rust, in memory: this row
#   measures swath's own overhead).
# `curl` alone on the object gives each server's ceiling. Every count is
# checked against the local file's, and the Parquet bytes against it too.
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
[ -n "${SWATH_CLI:-}" ] || bash bench/build
serve=${CARGO_TARGET_DIR:-target}/release/examples/serve_range
cargo build --release -q -p swath-testkit --features http --example serve_range
dir=$(mktemp -d)
port=$("$py" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$py" -m moto.server -H 127.0.0.1 -p "$port" >"$dir/moto.log" 2>&1 &
moto=$!
serving=
trap 'kill $moto $serving 2>/dev/null; wait $moto 2>/dev/null; rm -rf "$dir"' EXIT
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

# The same on http://, from the range server (stopped at the end, or by
# itself after 10 minutes).
"$serve" "$csv" --seconds 600 >"$dir/url" &
serving=$!
for _ in $(seq 100); do [ -s "$dir/url" ] && break; sleep 0.1; done
hurl=$(cat "$dir/url")
hdown() { curl -s "$hurl" -o /dev/null; }
hstream() { curl -s "$hurl" | "$swath" "$@" -; }
hpolars_count() { "$py" -c 'import sys, polars as pl; print(pl.scan_csv(sys.argv[1]).select(pl.len()).collect().item())' "$hurl"; }
hpolars_parquet() { "$py" -c 'import sys, polars as pl; pl.scan_csv(sys.argv[1]).sink_parquet(sys.argv[2])' "$hurl" "$dir/hpolars.parquet"; }
h_down=$(median hdown)
h_remote=$(median "$swath" csv count -t "$threads" "$hurl"); check http
h_stream=$(median hstream csv count -t 1); check http-stream
h_polars=$(median hpolars_count); check http-polars
hp_remote=$(median "$swath" csv to-parquet -t "$threads" "$hurl" -o "$dir/h.parquet")
cmp -s "$dir/l.parquet" "$dir/h.parquet" || { echo "remote: the http Parquet differs" >&2; exit 1; }
hp_stream=$(median hstream csv to-parquet -t "$threads" -o "$dir/hs.parquet")
hp_polars=$(median hpolars_parquet)

ratio() { awk "BEGIN{printf \"%.2fx\", $1 / $2}"; }
echo
echo "| job | server | local file | swath ranged GETs | one GET stream into swath | Polars scan_csv | curl download alone |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: |"
echo "| csv count | s3:// (moto) | $t_local s | $t_remote s ($(ratio "$t_remote" "$t_local") local) | $t_stream s | $t_polars s ($(ratio "$t_polars" "$t_remote") swath's) | $t_down s |"
echo "| csv to-parquet | s3:// (moto) | $p_local s | $p_remote s ($(ratio "$p_remote" "$p_local") local) | $p_stream s | $p_polars s ($(ratio "$p_polars" "$p_remote") swath's) | |"
echo "| csv count | http:// (range server) | $t_local s | $h_remote s ($(ratio "$h_remote" "$t_local") local) | $h_stream s | $h_polars s ($(ratio "$h_polars" "$h_remote") swath's) | $h_down s |"
echo "| csv to-parquet | http:// (range server) | $p_local s | $hp_remote s ($(ratio "$hp_remote" "$p_local") local) | $hp_stream s | $hp_polars s ($(ratio "$hp_polars" "$hp_remote") swath's) | |"

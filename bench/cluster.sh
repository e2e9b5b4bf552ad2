#!/usr/bin/env bash
# `bench/run cluster`: the same queries on one process (`swath sql`) and on
# a local Ballista cluster of one scheduler and two executors
# (`swath-cluster`, issue 15), on a generated CSV where 20% of the rows
# hold a newline inside quotes. Prints the rows and the median time of
# each; the answers of the two must be equal (checked). On one machine the
# cluster shares the same cores with itself and pays for gRPC, plan
# shipping and the shuffle through Arrow Flight: it will be slower here.
#
#   bench/run cluster [--rows 5M] [--runs 3] [--partitions 8]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=5M runs=3 partitions=8
while [ $# -gt 0 ]; do
    case $1 in
        --rows) rows=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --partitions) partitions=$2; shift 2 ;;
        *) echo "cluster: unknown argument $1" >&2; exit 2 ;;
    esac
done
target=${CARGO_TARGET_DIR:-target}
cargo build --release --locked -q -p swath-cli --features swath-cli/full -p swath-ballista
swath=$target/release/swath
cluster=$target/release/swath-cluster
dir=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
"$swath" gen csv --rows "$rows" --quoted-newlines 20 "$dir/data.csv"
size=$(stat -c %s "$dir/data.csv")
echo "file: $rows rows, $((size >> 20)) MiB, 20% quoted newlines; $(nproc) cores"

"$cluster" scheduler --bind 127.0.0.1:0 >"$dir/scheduler.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q "listening on" "$dir/scheduler.log" && break; sleep 0.1; done
addr=$(sed -n 's/^listening on //p' "$dir/scheduler.log")
[ -n "$addr" ] || { cat "$dir/scheduler.log"; exit 1; }
for i in 1 2; do
    "$cluster" executor --scheduler "$addr" --port 0 --grpc-port 0 --heartbeat 5 \
        --work-dir "$dir" >"$dir/executor$i.log" 2>&1 &
    pids+=($!)
done
sleep 3

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# Seconds of one run of "$@", its stdout into $dir/out.
timed() {
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >"$dir/out"
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
}

header=$(head -1 "$dir/data.csv")
col2=$(echo "$header" | cut -d, -f2)
queries=(
    "SELECT count(*) AS n FROM t"
    "SELECT \"$col2\", count(*) AS n FROM t GROUP BY \"$col2\" ORDER BY n DESC, \"$col2\" LIMIT 5"
    # Many rows back: what the shuffle and the result stream through
    # Arrow Flight cost.
    "SELECT $(echo "$header" | cut -d, -f1), \"$col2\" FROM t WHERE $(echo "$header" | cut -d, -f3) > 95 ORDER BY 1"
)
printf '%-12s %-14s %10s %10s\n' query engine rows seconds
q=0
for query in "${queries[@]}"; do
    q=$((q + 1))
    one=() many=()
    for _ in $(seq "$runs"); do
        one+=("$(timed "$swath" sql --table "t=$dir/data.csv" -t "$partitions" --csv "$query")")
        cp "$dir/out" "$dir/one.out"
        many+=("$(timed "$cluster" sql --cluster "df://$addr" --table "t=$dir/data.csv" \
            --partitions "$partitions" --csv "$query")")
        cp "$dir/out" "$dir/many.out"
        cmp -s "$dir/one.out" "$dir/many.out" || {
            echo "answers differ on: $query"; diff "$dir/one.out" "$dir/many.out" | head; exit 1; }
    done
    r=$(($(wc -l <"$dir/one.out") - 1))
    t1=$(printf '%s\n' "${one[@]}" | median)
    tn=$(printf '%s\n' "${many[@]}" | median)
    printf '%-12s %-14s %10s %10.3f\n' "q$q" "one process" "$r" "$t1"
    printf '%-12s %-14s %10s %10.3f   (%.2fx one process)\n' "q$q" "1+2 cluster" "$r" "$tn" \
        "$(echo "$tn / $t1" | bc -l)"
done
for i in "${!queries[@]}"; do echo "q$((i + 1)): ${queries[$i]}"; done

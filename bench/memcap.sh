#!/usr/bin/env bash
# `bench/run memcap`: swath's reading commands on a large file (4 GiB by
# default), each run uncapped and then inside a memory cgroup capped at
# 64 MiB (issues 19 and 39), with the ratio of the two times: `count`,
# `csv count|check|select|stats|to-arrow|to-parquet` and `sql --memory`.
# The page cache is charged to the cgroup too (cgroup v1) or not (v2); the
# cgroup's peak and the process's own peak RSS (capped run) are printed.
# Not a CI test: it writes a file of --size bytes and takes minutes.
#
#   bench/run memcap [--size 4G] [--cap 64M] [--dir DIR] [--threads T]
#
# Needs root and a memory cgroup (v2 `memory.max` or v1
# `memory.limit_in_bytes`); says so and exits 1 without one.
set -euo pipefail
cd "$(dirname "$0")/.."
size=4G cap=64M dir=${TMPDIR:-/tmp} threads=2
while [ $# -gt 0 ]; do
    case $1 in
        --size) size=$2; shift 2 ;;
        --cap) cap=$2; shift 2 ;;
        --dir) dir=$2; shift 2 ;;
        --threads) threads=$2; shift 2 ;;
        *) echo "memcap: unknown argument $1" >&2; exit 2 ;;
    esac
done
if [ ! -x /usr/bin/time ]; then
    echo "memcap: needs GNU time at /usr/bin/time (apt-get install time)" >&2
    exit 1
fi
swath=${SWATH_CLI:-${CARGO_TARGET_DIR:-target}/release/swath}
[ -n "${SWATH_CLI:-}" ] || bash bench/build
bytes=$(numfmt --from=iec "$size")
cap_bytes=$(numfmt --from=iec "$cap")

# The cgroup: v2 where the unified hierarchy has the memory controller,
# else v1's memory hierarchy.
if [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
    cg=/sys/fs/cgroup/swath-memcap-$$
    mkdir "$cg"
    echo "$cap_bytes" > "$cg/memory.max"
    echo 0 > "$cg/memory.swap.max" 2>/dev/null || true
    peak_file=$cg/memory.peak
    kind=v2
elif [ -d /sys/fs/cgroup/memory ]; then
    cg=/sys/fs/cgroup/memory/swath-memcap-$$
    mkdir "$cg"
    echo "$cap_bytes" > "$cg/memory.limit_in_bytes"
    peak_file=$cg/memory.max_usage_in_bytes
    kind=v1
else
    echo "!!!!! memcap: no memory cgroup here (neither v2 memory.max nor v1); nothing measured" >&2
    exit 1
fi
csv=$dir/swath-memcap-$$.csv
out=$dir/swath-memcap-$$.parquet
cleanup() {
    rm -f "$csv" "$out"
    # Move this shell back out before removing the group.
    if [ "$kind" = v2 ]; then echo $$ > /sys/fs/cgroup/cgroup.procs; else echo $$ > /sys/fs/cgroup/memory/cgroup.procs; fi
    rmdir "$cg" 2>/dev/null || true
}
trap cleanup EXIT

# Rows of the generator's file are about 50 bytes: enough rows for --size.
rows=$((bytes / 50))
echo "== generating $rows rows (about $size) into $csv"
"$swath" gen csv --rows "$rows" --seed 1 "$csv"
ls -l "$csv"

echo "== each command uncapped, then under a $cap memory cgroup ($kind), both from a cold page cache"
printf '%-28s %9s %9s %7s  %9s %9s  %s\n' command uncapped capped ratio "cg peak" "own RSS" exit
failed=0
# One timed run: seconds on stdout, the process's peak RSS (KiB) in $rss_file.
rss_file=$dir/swath-memcap-$$.rss
timed() {
    # Start each run with a cold page cache, so that the file's pages it
    # reads are charged to the capped group (v1 charges page cache to the
    # group that first touched it), and uncapped runs read as much from disk.
    sync
    echo 3 > /proc/sys/vm/drop_caches
    local start end
    start=$(date +%s.%N)
    /usr/bin/time -f '%M' -o "$rss_file" "$@" > /dev/null || return $?
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }'
}
run() {
    local name=$1
    shift
    local free capped rc=0
    free=$(timed "$@") || rc=$?
    echo 0 > "$peak_file" 2>/dev/null || true # v1: reset the peak; v2's cannot be
    # The capped run joins the group first, then becomes the command.
    capped=$(timed sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" "$@") || rc=$?
    local rss peak
    rss=$(( $(tail -1 "$rss_file") / 1024 ))
    peak=$(( $(cat "$peak_file") / 1048576 ))
    printf '%-28s %7s s %7s s %6sx  %5d MiB %5d MiB  exit %d\n' "$name" "$free" "$capped" \
        "$(awk -v a="$free" -v b="$capped" 'BEGIN { if (a > 0) printf "%.2f", b / a }')" \
        "$peak" "$rss" "$rc"
    [ "$rc" = 0 ] || failed=1
}
run "count" "$swath" count -t "$threads" "$csv"
run "count --mmap" "$swath" count -t "$threads" --mmap "$csv"
run "csv count" "$swath" csv count -t "$threads" "$csv"
run "csv check" "$swath" csv check -t "$threads" "$csv"
run "csv select -c id,city" "$swath" csv select -t "$threads" -c id,city "$csv"
run "csv stats" "$swath" csv stats -t "$threads" "$csv"
run "csv to-arrow" "$swath" csv to-arrow -t "$threads" -o "$out.arrow" "$csv"
run "csv to-parquet" "$swath" csv to-parquet -t "$threads" -o "$out" "$csv"
run "csv to-parquet -t 1" "$swath" csv to-parquet -t 1 -o "$out" "$csv"
if "$swath" sql --help > /dev/null 2>&1; then
    run "sql GROUP BY --memory $cap" "$swath" sql -t "$threads" --memory "$cap" --csv \
        "SELECT city, count(*), avg(score) FROM '$csv' GROUP BY city"
else
    echo "(swath sql: not in this build; SWATH_CLI names a lean swath)"
fi
rm -f "$rss_file" "$out.arrow"
exit "$failed"

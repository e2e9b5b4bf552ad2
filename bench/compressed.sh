#!/usr/bin/env bash
# `bench/run compressed`: counting the lines of compressed copies of a
# realistic access log (`swath gen access-log`, issue 49) with swath and
# with the tools users reach for, time and peak RSS, every answer checked
# against the plain file's. The copies: gzip -6 (one member), BGZF
# (bgzip), zstd -3 (one frame), pzstd (frames), bzip2 -9, xz -T2 (blocks),
# lz4. Peers: `gzip -dc | wc -l`, pigz, ISA-L's igzip, rapidgzip (PyPI,
# --count-lines, 1 and 2 threads), `zstd -dc`, `lbzip2 -dc`, `xz -dc`,
# `lz4 -dc`, DuckDB's count(*) and Polars' scan_csv on the .gz; then
# `csv count` and `csv to-parquet` from the .gz against DuckDB and Polars;
# the gzip index (written by the first full read, or `swath index`) against
# rapidgzip's own; compressed output against pigz and `zstd -T`.
#
#   bench/run compressed [--records 4790000] [--runs 3]
#
# Needs the bench venv (SWATH_PEER_PYTHON=$(.ci/peers.sh --bench): Polars,
# DuckDB, rapidgzip), and pigz, igzip (Debian's pigz and isal), bgzip
# (tabix), pzstd, lbzip2, xz, lz4 on PATH; a missing tool's rows are
# skipped, saying so.
set -euo pipefail
cd "$(dirname "$0")/.."
records=4790000 runs=3
while [ $# -gt 0 ]; do
    case $1 in
        --records) records=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        *) echo "compressed: unknown argument $1" >&2; exit 2 ;;
    esac
done
py=${SWATH_PEER_PYTHON:?set SWATH_PEER_PYTHON=\$(.ci/peers.sh --bench)}
swath=${SWATH_CLI:-${CARGO_TARGET_DIR:-target}/release/swath}
[ -n "${SWATH_CLI:-}" ] || bash bench/build
dir=${SWATH_BENCH_DIR:-$(mktemp -d)}
mkdir -p "$dir"
[ -n "${SWATH_BENCH_DIR:-}" ] || trap 'rm -rf "$dir"' EXIT

csv=$dir/access.csv
if ! [ -s "$csv" ]; then
    "$swath" gen access-log --records "$records" "$csv" >/dev/null
fi
lines=$(wc -l <"$csv")
# The rows without an index: no sidecar, and none written by a full read
# (the index rows below turn it back on).
export SWATH_INDEX_ON_READ=0
rm -f "$dir"/*.swathidx
echo "file: $(stat -c %s "$csv") bytes, $lines lines ($records records + header); median of $runs; $(nproc) cores"

have() { command -v "$1" >/dev/null; }
make_copy() { # name command...
    local out=$dir/$1
    shift
    [ -s "$out" ] || "$@" >"$out"
}
make_copy access.csv.gz gzip -6 -c "$csv"
have bgzip && make_copy access.csv.bgz bgzip -@ 2 -c "$csv"
make_copy access.csv.zst zstd -q -3 -c "$csv"
have pzstd && make_copy access.csv.pz.zst pzstd -q -p 2 -c "$csv"
make_copy access.csv.bz2 bzip2 -9 -c "$csv"
make_copy access.csv.xz xz -T2 -1 -c "$csv"
have lz4 && make_copy access.csv.lz4 lz4 -q -c "$csv"

# The median of `$runs` runs of "$@": wall seconds and peak RSS (MiB),
# the last run's stdout kept in $dir/out.
measure() {
    local times=() rss=()
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%e %M" -o "$dir/time" "$@" >"$dir/out" 2>"$dir/err" || {
            echo "FAILED: $*" >&2
            cat "$dir/err" >&2
            return 1
        }
        read -r t m <"$dir/time"
        times+=("$t")
        rss+=("$m")
    done
    local mid=$((runs / 2))
    t=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$((mid + 1))p")
    m=$(printf '%s\n' "${rss[@]}" | sort -n | sed -n "$((mid + 1))p")
    m=$((m / 1024))
}

# A row: label, the answer expected, the command. The answer is the first
# number the command prints.
row() {
    local label=$1 want=$2
    shift 2
    measure "$@" || return 0
    local got
    got=$(grep -oE '[0-9]+' "$dir/out" | head -1)
    local ok=ok
    [ "$got" = "$want" ] || ok="WRONG ($got)"
    printf '| %-44s | %7s | %6s | %s |\n' "$label" "$t" "$m" "$ok"
}

echo
echo "| count the lines | seconds | MiB | answer |"
echo "| --- | ---: | ---: | --- |"
gz=$dir/access.csv.gz
row "swath count (plain file)" "$lines" "$swath" count "$csv"
row "swath count .gz" "$lines" "$swath" count "$gz"
row "swath count -t 1 .gz" "$lines" "$swath" count -t 1 "$gz"
row "gzip -dc | wc -l" "$lines" sh -c "gzip -dc '$gz' | wc -l"
have pigz && row "pigz -dc | wc -l" "$lines" sh -c "pigz -dc '$gz' | wc -l"
have igzip && row "igzip -dc | wc -l" "$lines" sh -c "igzip -dc '$gz' | wc -l"
if "$py" -c 'import rapidgzip' 2>/dev/null; then
    rg=$(dirname "$py")/rapidgzip
    row "rapidgzip --count-lines -P 1" "$lines" "$rg" --count-lines -P 1 "$gz"
    row "rapidgzip --count-lines -P 2" "$lines" "$rg" --count-lines -P 2 "$gz"
else
    echo "!!!!! SKIPPED: rapidgzip (pip install rapidgzip into the bench venv)"
fi
# The gzip index: the first full read writes it (the sidecar removed before
# each run), then every command decodes from it on every core.
side=$gz.swathidx
row "swath count .gz, first read writing its index" "$lines" \
    env SWATH_INDEX_ON_READ=1 sh -c "rm -f '$side'; '$swath' count '$gz'"
row "swath count .gz with its index" "$lines" "$swath" count "$gz"
row "swath csv count .gz with its index" "$records" "$swath" csv count "$gz"
tail_want=$(tail -n 1 "$csv" | grep -oE '[0-9]+' | head -1)
row "swath tail -n 1 .gz with its index" "$tail_want" "$swath" tail -n 1 "$gz"
row "gzip -dc | tail -n 1" "$tail_want" sh -c "gzip -dc '$gz' | tail -n 1"
rm -f "$side"
if "$py" -c 'import rapidgzip' 2>/dev/null; then
    "$rg" --export-index "$dir/access.csv.gz.rgidx" --count-lines "$gz" >/dev/null
    row "rapidgzip --count-lines -P 2 with its index" "$lines" \
        "$rg" --import-index "$dir/access.csv.gz.rgidx" --count-lines -P 2 "$gz"
fi
have bgzip && row "swath count .bgz (BGZF)" "$lines" "$swath" count "$dir/access.csv.bgz"
have bgzip && row "swath count -t 1 .bgz" "$lines" "$swath" count -t 1 "$dir/access.csv.bgz"
row "swath count .zst (one frame)" "$lines" "$swath" count "$dir/access.csv.zst"
row "zstd -dc -T0 | wc -l" "$lines" sh -c "zstd -dc -T0 '$dir/access.csv.zst' | wc -l"
if have pzstd; then
    row "swath count pzstd" "$lines" "$swath" count "$dir/access.csv.pz.zst"
    row "swath count -t 1 pzstd" "$lines" "$swath" count -t 1 "$dir/access.csv.pz.zst"
    row "pzstd -dc -p 2 | wc -l" "$lines" sh -c "pzstd -q -dc -p 2 '$dir/access.csv.pz.zst' | wc -l"
fi
row "swath count .bz2" "$lines" "$swath" count "$dir/access.csv.bz2"
row "swath count -t 1 .bz2" "$lines" "$swath" count -t 1 "$dir/access.csv.bz2"
have lbzip2 && row "lbzip2 -dc -n 2 | wc -l" "$lines" sh -c "lbzip2 -dc -n 2 '$dir/access.csv.bz2' | wc -l"
row "swath count .xz (xz -T2 blocks)" "$lines" "$swath" count "$dir/access.csv.xz"
row "swath count -t 1 .xz" "$lines" "$swath" count -t 1 "$dir/access.csv.xz"
row "xz -dc -T2 | wc -l" "$lines" sh -c "xz -dc -T2 '$dir/access.csv.xz' | wc -l"
if have lz4; then
    row "swath count .lz4" "$lines" "$swath" count "$dir/access.csv.lz4"
    row "lz4 -dc | wc -l" "$lines" sh -c "lz4 -q -dc '$dir/access.csv.lz4' | wc -l"
fi

echo
echo "| records of the .gz | seconds | MiB | answer |"
echo "| --- | ---: | ---: | --- |"
row "swath csv count .gz" "$records" "$swath" csv count "$gz"
row "DuckDB count(*) .gz" "$records" "$py" -c "import duckdb; c = duckdb.connect(); c.sql('SET enable_progress_bar = false'); print(c.sql(\"SELECT count(*) FROM read_csv('$gz')\").fetchall()[0][0])"
row "Polars scan_csv .gz" "$records" "$py" -c "import polars as pl; print(pl.scan_csv('$gz').select(pl.len()).collect().item())"
pq=$dir/out.parquet
# A Parquet row: timed without the check, then the file's rows checked.
pq_row() {
    local label=$1
    shift
    rm -f "$pq"
    measure "$@" || return 0
    local got ok=ok
    got=$("$py" -c "import pyarrow.parquet as p; print(p.read_metadata('$pq').num_rows)")
    [ "$got" = "$records" ] || ok="WRONG ($got)"
    printf '| %-44s | %7s | %6s | %s (%s bytes) |\n' "$label" "$t" "$m" "$ok" "$(stat -c %s "$pq")"
}
pq_row "swath csv to-parquet .gz" "$swath" csv to-parquet "$gz" -o "$pq"
pq_row "DuckDB COPY TO parquet .gz" "$py" -c "import duckdb; c = duckdb.connect(); c.sql('SET enable_progress_bar = false'); c.sql(\"COPY (SELECT * FROM read_csv('$gz')) TO '$pq' (FORMAT parquet)\")"
pq_row "Polars sink_parquet .gz" "$py" -c "import polars as pl; pl.scan_csv('$gz').sink_parquet('$pq')"

echo
echo "| compressed output (csv select -c 1,2,3,5,8) | seconds | MiB | bytes |"
echo "| --- | ---: | ---: | --- |"
# An output row: timed, then its size and its decoded bytes checked
# against the plain output's.
out_row() {
    local label=$1 out=$2
    shift 2
    rm -f "$out"
    measure "$@" || return 0
    local ok=ok
    case $out in
        *.gz) gzip -dc "$out" | cmp -s - "$dir/sel.csv" || ok=WRONG ;;
        *.zst) zstd -q -dc "$out" | cmp -s - "$dir/sel.csv" || ok=WRONG ;;
    esac
    printf '| %-44s | %7s | %6s | %s %s |\n' "$label" "$t" "$m" "$(stat -c %s "$out")" "$ok"
}
"$swath" csv select -c 1,2,3,5,8 "$csv" -o "$dir/sel.csv"
out_row "swath csv select -o .csv (plain)" "$dir/sel.csv" "$swath" csv select -c 1,2,3,5,8 "$csv" -o "$dir/sel.csv"
out_row "swath csv select -o .gz" "$dir/sel.gz" "$swath" csv select -c 1,2,3,5,8 "$csv" -o "$dir/sel.gz"
have pigz && out_row "swath csv select | pigz -6 -p 2" "$dir/pig.gz" \
    sh -c "'$swath' csv select -c 1,2,3,5,8 '$csv' | pigz -6 -p 2 > '$dir/pig.gz'"
out_row "swath csv select -o .zst" "$dir/sel.zst" "$swath" csv select -c 1,2,3,5,8 "$csv" -o "$dir/sel.zst"
out_row "swath csv select | zstd -3 -T2" "$dir/z.zst" \
    sh -c "'$swath' csv select -c 1,2,3,5,8 '$csv' | zstd -q -3 -T2 > '$dir/z.zst'"
